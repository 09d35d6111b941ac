"""A script is compiled when it is saved or switched on (seed 003), and refused then with
the line of its syntax error, a missing or async default export, or a top level that fails
or overruns its limits. The engine asks its worker pool (:meth:`ScriptRunner.check`); a
command that works without an engine asks a worker of its own (:func:`check_now`)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from ..definition import SCRIPT_LIMITS, ScriptTask, parse_script
from ..errors import InvalidInput
from .pool import START_GRACE, worker_command


def to_check(doc: Any, previous: Any = None) -> ScriptTask | None:
    """The script ``doc`` runs when it needs compiling: new, or its source changed from
    ``previous`` (a runner). Its shape is the parser's to refuse."""
    runner = doc.get("runner") if isinstance(doc, dict) else None
    if not isinstance(runner, dict) or runner.get("kind") != "script":
        return None
    task = parse_script(runner, "runner")
    if isinstance(previous, ScriptTask) and previous.source == task.source:
        return None
    return task


def limits_of(task: ScriptTask) -> dict[str, int]:
    return {name: getattr(task.limits, name) for name in SCRIPT_LIMITS}


def refuse(answer: dict[str, Any]) -> None:
    """Raise the refusal a failed check's answer means (nothing when it compiled)."""
    if answer.get("ok"):
        return
    line = answer.get("line")
    raise InvalidInput("runner.source", (f"line {line}: " if line else "")
                       + str(answer.get("error") or "does not compile"),
                       "a JavaScript module whose default export is a plain function",
                       "export default function ({ event, actions }) { actions.notify("
                       "'fired') }", reason="script",
                       values={"line": line, "error": answer.get("error")})


def check_now(doc: Any, previous: Any = None) -> None:
    """:func:`refuse` for ``doc``'s script, checked in a worker started for it (blocking)."""
    task = to_check(doc, previous)
    if task is None:
        return
    request = {"op": "check", "source": task.source, "limits": limits_of(task), "id": 1}
    try:
        done = subprocess.run(worker_command(), input=json.dumps(request).encode() + b"\n",
                              capture_output=True, timeout=task.limits.time_ms / 1000
                              + START_GRACE, check=False)
        lines = done.stdout.splitlines()   # (the first says it is ready)
        answer = json.loads(lines[1]) if len(lines) > 1 else {
            "ok": False, "error": "the sandbox process crashed"}
    except subprocess.TimeoutExpired:
        answer = {"ok": False, "error": "its top level did not stop at its time limit"}
    except (OSError, ValueError, RecursionError) as exc:
        answer = {"ok": False, "error": f"the sandbox could not be started: {exc}"}
    refuse(answer)
