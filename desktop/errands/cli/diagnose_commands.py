"""``errands autostart on|off|status`` and ``errands doctor``."""

from __future__ import annotations

import argparse
import os
from typing import Any

from . import render
from .commands import emit


def _autostart_text(doc: dict[str, Any], verb: str) -> str:
    if not doc["enabled"]:
        text = f"{verb}Errands does not start at login ({doc['where']} is absent)."
    else:
        command = " ".join(doc["command"] or ["?"])
        text = (f"{verb}Errands starts at login, in the tray: {doc['where']}\n"
                f"  runs  {command}")
    if doc.get("problem"):
        text += f"\nproblem: {doc['problem']}"
    return text


def autostart(args: argparse.Namespace) -> int:
    from .. import autostart as start

    entry = start.Autostart()
    if args.action == "on":
        explicit = getattr(args, "data_dir", None) or os.environ.get("ERRANDS_DATA_DIR")
        state, verb = entry.enable(start.launch_command(explicit)), "Turned on. "
    elif args.action == "off":
        state, verb = entry.disable(), "Turned off. "
    else:
        state, verb = entry.status(), ""
    doc = state.to_dict()
    emit(args, doc, _autostart_text(doc, verb))
    return 1 if args.action == "status" and doc.get("problem") else 0


def doctor(args: argparse.Namespace) -> int:
    from ..doctor import FAIL, run_checks

    checks = run_checks(getattr(args, "data_dir", None))
    failed = any(c.status == FAIL for c in checks)
    doc = {"ok": not failed, "checks": [c.to_dict() for c in checks]}
    lines = [render.table(("CHECK", "STATUS", "DETAIL"),
                          [(c.name, c.status, c.detail) for c in checks])]
    advice = [(c.name, c.advice) for c in checks if c.status != "ok" and c.advice]
    if advice:
        lines.append("")
        lines += [f"{name}: {text}" for name, text in advice]
    lines.append("")
    lines.append("Some checks failed." if failed else "No check failed.")
    emit(args, doc, "\n".join(lines))
    return 1 if failed else 0


