"""The ``errands`` command line: scriptable, with ``--json`` on every command.

Exit codes: 0 success, 2 invalid input, 3 not found, 4 conflict, 1 anything else.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Callable, NoReturn, Sequence

from .. import __version__
from ..engine.control import EngineUnreachable
from ..errors import ErrandsError, InvalidInput
from ..store import cursor_index
from . import commands
from .options import LOCALE_HELP, SPEC_FORMS, add_definition_options, whole_number


class _Parser(argparse.ArgumentParser):
    """Argument errors become ``InvalidInput`` so they print (and exit) like every other."""

    def error(self, message: str) -> NoReturn:
        field = "arguments"
        if message.startswith("argument "):
            field, _, message = message[len("argument "):].partition(": ")
            field = field.split("/")[0]
        raise InvalidInput(field, message, None, f"{self.prog} --help")


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", metavar="DIR", default=argparse.SUPPRESS,
                        help="where Errands keeps its data (default: ERRANDS_DATA_DIR or the "
                             "user data folder)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print one JSON document")
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = _Parser(prog="errands", parents=[common],
                     description="Errands runs your automations (agent prompts and shell "
                     "commands) once, on an interval, in a loop, on a cron schedule or by hand. "
                     "With no command, 'errands' opens the app (its window and tray icon).",
                     epilog="Run 'errands COMMAND --help' for a command's options.")
    parser.add_argument("--version", action="version", version=f"errands {__version__}")
    parser.add_argument("--tray", action="store_true",
                        help="open the app minimised to the tray, without its window (how "
                             "'errands autostart on' starts it at login)")
    sub = parser.add_subparsers(dest="command_name", metavar="COMMAND", parser_class=_Parser)

    def cmd(name: str, handler: Callable[..., int], help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help, description=help)
        p.set_defaults(handler=handler)
        return p

    p = cmd("add", commands.add, "create an automation")
    add_definition_options(p, editing=False)
    p = cmd("edit", commands.edit, "change an automation (only the options given)")
    p.add_argument("id")
    add_definition_options(p, editing=True)
    p.add_argument("--from-json", metavar="FILE", help="replace the whole definition with this "
                   "document (a file, or - for stdin); the way to repair a broken automation")
    p.add_argument("--expect-revision", metavar="N", type=_revision,
                   help="refuse the edit (stale_revision, exit 4) unless the automation is "
                        "still at revision N, as 'show --json' gave it: no edit made since "
                        "is overwritten")
    p = cmd("list", commands.list_, "list automations (all but the archived ones)")
    p.add_argument("--archived", action="store_true",
                   help="list only the archived automations")
    p = cmd("show", commands.show, "show one automation")
    p.add_argument("id")
    for name, handler, text in (
            ("pause", commands.pause, "stop automatic fires"),
            ("resume", commands.resume, "re-arm from the next future fire"),
            ("archive", commands.archive, "stop an automation for good, keeping its runs, "
             "transcripts, revisions and output logs"),
            ("unarchive", commands.unarchive, "bring an archived automation back, paused"),
            ("delete", commands.delete, "delete an automation and its runs, transcripts and "
             "revisions (its output logs are kept); archive keeps them all")):
        p = cmd(name, handler, text)
        p.add_argument("id")
    p = cmd("runs", commands.runs, "the run history of an automation, newest first")
    p.add_argument("id")
    p.add_argument("--limit", type=whole_number("--limit", 1, 1000, "50"), default=50,
                   metavar="N")
    p.add_argument("--cursor", metavar="C", type=_cursor)

    p = cmd("schedule", lambda *_: 2, "preview or parse schedules")
    ssub = p.add_subparsers(dest="schedule_command", metavar="ACTION", parser_class=_Parser,
                            required=True)
    sp = ssub.add_parser("preview", parents=[common], help="the next fires of a schedule")
    sp.set_defaults(handler=commands.schedule_preview)
    src = sp.add_mutually_exclusive_group(required=True)
    src.add_argument("--spec", metavar="SPEC", help=SPEC_FORMS)
    src.add_argument("--cron", metavar="EXPR")
    sp.add_argument("--tz", metavar="ZONE")
    sp.add_argument("--after", metavar="INSTANT", help="list fires strictly after this (default now)")
    sp.add_argument("--count", type=whole_number("--count", 1, 1000, "10"), default=10, metavar="N")
    sp.add_argument("--locale", metavar="LOCALE", help=LOCALE_HELP)
    sp = ssub.add_parser("parse", parents=[common], help="turn a phrase into a schedule, offline")
    sp.set_defaults(handler=commands.schedule_parse)
    sp.add_argument("text", nargs="+")
    sp.add_argument("--tz", metavar="ZONE")
    sp.add_argument("--now", metavar="INSTANT")
    sp.add_argument("--locale", metavar="LOCALE", help=LOCALE_HELP)

    p = cmd("config", lambda *_: 2, "settings: min_interval, grace, concurrency, ...")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION", parser_class=_Parser,
                            required=True)
    cp = csub.add_parser("list", parents=[common], help="every setting, its value and source")
    cp.set_defaults(handler=commands.config_list)
    cp = csub.add_parser("get", parents=[common], help="one setting")
    cp.set_defaults(handler=commands.config_get)
    cp.add_argument("key")
    cp = csub.add_parser("set", parents=[common], help="store a setting")
    cp.set_defaults(handler=commands.config_set)
    cp.add_argument("key")
    cp.add_argument("value")
    cp = csub.add_parser("unset", parents=[common], help="back to the default")
    cp.set_defaults(handler=commands.config_unset)
    cp.add_argument("key")
    from . import (agent_commands, diagnose_commands, engine_commands, observe,
                   provider_commands, transfer_commands, worktrees)

    transfer_commands.register(cmd)

    engine_commands.register(cmd)
    observe.register(cmd)
    agent_commands.register(cmd, common, _Parser)
    provider_commands.register(cmd, common, _Parser)
    worktrees.register(cmd)
    diagnose_commands.register(cmd)
    return parser


def _cursor(text: str) -> str:
    cursor_index(text, "--cursor")
    return text


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


def _revision(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise InvalidInput("--expect-revision", f"{text!r} is not a revision number",
                           "a whole number from 1", "--expect-revision 3")
    return int(text)


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and "ERRANDS_API_KEY" in os.environ:  # the program itself (not a
        from ..sealed import seal  # test calling main): the key out of reach of children
        seal()
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in argv
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # (parse_args would blame the top command: "errands --help")
            words = [v for k, v in vars(args).items()
                     if v and (k == "command_name" or k.endswith("_command"))]
            raise InvalidInput("arguments", f"unrecognized arguments: {' '.join(extra)}", None,
                               " ".join(["errands", *words, "--help"]))
        _check_text(parser, args)
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

