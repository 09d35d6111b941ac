"""The ``errands`` command line: scriptable, with ``--json`` on every command.

Exit codes: 0 success, 2 invalid input, 3 not found, 4 conflict, 1 anything else.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Sequence

from ..errors import EngineUnreachable, ErrandsError, InvalidInput
from .parser import parse_command_line


def _check_text(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse an argument that is not valid UTF-8, naming its flag.

    Python hands such bytes over as lone surrogates (``surrogateescape``); stored or
    printed, they fail far from the input.
    """
    for dest, value in vars(args).items():
        for item in value if isinstance(value, list) else [value]:
            bad = next((c for c in item if "\ud800" <= c <= "\udfff"), None) \
                if isinstance(item, str) else None
            if bad is not None:
                byte = f"byte 0x{ord(bad) - 0xDC00:02X}" if ord(bad) >= 0xDC80 else \
                    f"U+{ord(bad):04X}"
                raise InvalidInput(_flag(parser, dest), f"is not valid UTF-8 text ({byte} at "
                                   f"position {item.index(bad)})", "valid UTF-8 text")


def _flag(parser: argparse.ArgumentParser, dest: str) -> str:
    """The long flag (or the positional's name) that fills ``dest``, in any sub-command."""
    parsers = [parser]
    while parsers:
        for action in parsers.pop()._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())
            elif action.dest == dest:
                return max(action.option_strings, key=len, default=dest)
    return dest


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and "ERRANDS_API_KEY" in os.environ:  # the program itself (not a
        from ..sealed import seal  # test calling main): the key out of reach of children
        seal()
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in argv
    try:
        parser, args, extra = parse_command_line(argv)
        trailing = getattr(args, "trailing", None)  # a text after options ("ID --run 4 TEXT"),
        if trailing and len(extra) == 1 and getattr(args, trailing) is None \
                and not extra[0].startswith("-"):  # which argparse leaves over
            setattr(args, trailing, extra.pop())
        if extra:  # (parse_args would blame the top command: "errands --help")
            words = [v for k, v in vars(args).items()
                     if v and (k == "command_name" or k.endswith("_command"))]
            raise InvalidInput("arguments", f"unrecognized arguments: {' '.join(extra)}", None,
                               " ".join(["errands", *words, "--help"]))
        _check_text(parser, args)
        if getattr(args, "database", None) is not None:  # as the environment's, for this
            from ..db.location import ENV, parse_database_url  # command and what it starts
            os.environ[ENV] = parse_database_url(args.database, "--database").display
        if getattr(args, "handler", None) is None:  # no command: open the app
            from ..app.main import run_app
            from .commands import _dir
            if args.tray:
                return run_app(_dir(args), show_window=False)
            return run_app(_dir(args))
        if args.tray:
            raise InvalidInput("--tray", "only opens the app; give no command with it",
                               "errands --tray", "errands --tray")
        return int(args.handler(args) or 0)
    except ErrandsError as exc:
        return _fail(exc, as_json)
    except KeyboardInterrupt:
        return 130
    except EngineUnreachable as exc:  # the engine stopped or went away meanwhile
        err = ErrandsError(f"{exc}; if it was stopping, try again (a repeated request id is "
                           "safe)")
        err.code = "engine_unreachable"
        return _fail(err, as_json)
    except BrokenPipeError:  # the reader went away (errands list | head): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush is quiet
        return 0
    except Exception as exc:  # a bug: say so plainly, with the trace only when asked
        if os.environ.get("ERRANDS_DEBUG"):
            raise
        err = ErrandsError(f"internal error: {type(exc).__name__}: {exc} "
                           "(set ERRANDS_DEBUG=1 for the full trace)")
        return _fail(err, as_json)


def _fail(exc: ErrandsError, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"error": exc.to_dict()}), file=sys.stderr)
    else:
        print(f"error: {exc}", file=sys.stderr)
    return exc.exit_code

