"""``errands mcp``: the MCP server over stdio, and ``mcp config``: each client's setup."""

from __future__ import annotations

import argparse
import sys

from .commands import _dir, emit, read_secret


def serve(args: argparse.Namespace) -> int:
    from ..mcp.server import serve as run
    return run(_dir(args), getattr(args, "as_client", None))


def config(args: argparse.Namespace) -> int:
    from ..mcp.snippets import snippet
    doc = snippet(args.client, _program(), [*_data_dir_args(args), "--as", args.client])
    emit(args, doc, doc["text"])
    return 0


def secret(args: argparse.Namespace) -> int:
    """``mcp secret NAME``: an MCP server's header value into the keyring, never a file."""
    import keyring.errors

    from ..errors import ErrandsError, InvalidInput
    from ..tool_servers import NAME, set_secret
    if not NAME.fullmatch(args.name):
        raise InvalidInput("name", f"not a server name: {args.name!r}", "1 to 30 lower-case "
                           "letters, digits and -", "deploy")
    from .routing import secrets_stay_here
    secrets_stay_here(_dir(args), "an MCP server's header value")
    value = None if args.remove else read_secret(
        args.value_stdin, "--value-stdin", f"Header value for {args.name}: ",
        "errands mcp secret deploy --value-stdin < token.txt")
    url = args.url or _setting_url(args, args.name)
    try:
        set_secret(_dir(args), args.name, url, value)
    except keyring.errors.KeyringError as exc:
        raise ErrandsError(f"the system keyring could not keep it: {exc}") from None
    said = "forgotten" if args.remove else "kept in the system keyring"
    emit(args, {"server": args.name, "stored": not args.remove},
         f"The header value of {args.name} is {said}.")
    return 0


def _setting_url(args: argparse.Namespace, name: str) -> str:
    """The URL of the ``mcp_servers`` setting's server ``name`` (a secret is bound to it)."""
    from ..errors import InvalidInput
    from .commands import open_store
    servers = open_store(args).settings().get("mcp_servers") or ()
    for server in servers:
        if server.name == name and server.url:
            return str(server.url)
    raise InvalidInput("--url", f"no server {name!r} with a URL in the mcp_servers setting",
                       "the server's URL (--url), as its definition names it",
                       "errands mcp secret deploy --url https://deploy.example.com/mcp")


def _program() -> list[str]:
    """How this Errands is started: the bundle's program, or this Python with the module."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    import shutil
    from pathlib import Path
    beside = Path(sys.executable).with_name("errands")   # (the venv's own, first)
    found = str(beside) if beside.exists() else shutil.which("errands")
    return [found] if found else [sys.executable, "-m", "errands"]


def _data_dir_args(args: argparse.Namespace) -> list[str]:
    given = getattr(args, "data_dir", None)
    return ["--data-dir", str(_dir(args))] if given else []
