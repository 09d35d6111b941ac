"""``errands mcp``: the MCP server over stdio, and ``mcp config``: each client's setup."""

from __future__ import annotations

import argparse
import sys

from .commands import _dir, emit


def serve(args: argparse.Namespace) -> int:
    from ..mcp.server import serve as run
    return run(_dir(args), getattr(args, "as_client", None))


def config(args: argparse.Namespace) -> int:
    from ..mcp.snippets import snippet
    doc = snippet(args.client, _program(), [*_data_dir_args(args), "--as", args.client])
    emit(args, doc, doc["text"])
    return 0


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
