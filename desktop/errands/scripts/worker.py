"""The process scripts run in: ``python -m errands.scripts.worker``.

It reads one JSON request a line from stdin (``{"id", "op": "run"|"check", …}``) and writes
one JSON answer a line to stdout, one job at a time, each in a fresh runtime. The engine
(:mod:`.pool`) kills it when a job overruns its deadline (a native call the interpreter's
interrupt cannot stop) and starts another; a crash here costs that one job.

``memory_peak`` is how far the process's resident memory rose during the job: on Linux the
peak is reset before each job (``/proc/self/clear_refs``), elsewhere it is the rise of the
lifetime peak (0 when an earlier job had gone higher).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from . import sandbox

_LINUX = sys.platform.startswith("linux")


def _status_kib(field: str) -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _peak_kib() -> int:
    if _LINUX:
        return _status_kib("VmHWM")
    try:
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak // 1024 if sys.platform == "darwin" else peak
    except (ImportError, OSError):
        return 0


def _reset_peak() -> int:
    """Reset the peak where the system can; the resident size to measure the rise from."""
    if _LINUX:
        try:
            with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
                f.write("5")
        except OSError:
            pass
        return _status_kib("VmRSS")
    return _peak_kib()


def handle(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("op") == "check":
        return sandbox.check(request["source"], request["limits"])
    base = _reset_peak()
    answer = sandbox.run(request)
    answer["memory_peak"] = max(0, _peak_kib() - base) * 1024
    return answer


ANSWER_BYTES = 48 * 1024 * 1024   # an answer larger than this fails its job (pool.py: 64 MiB)


def _line(answer: dict[str, Any]) -> bytes:
    text = json.dumps(answer, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "replace") + b"\n"


def main() -> int:
    import jsbox  # noqa: F401 (loaded before the first job, so its peak is not the job's)
    stdin = sys.stdin.buffer
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write on the answer channel
    out.write(b'{"ready":true}\n')
    out.flush()
    for line in stdin:
        request: Any = None
        try:
            request = json.loads(line)
            answer = handle(request)
        except Exception as exc:  # noqa: BLE001 (one bad job costs that job)
            answer = {"status": "failed", "error": f"the sandbox failed: {exc!r}"[:500]}
        answer["id"] = request.get("id") if isinstance(request, dict) else None
        data = _line(answer)
        if len(data) > ANSWER_BYTES:
            data = _line({"id": answer["id"], "status": "rejected", "limit_hit": "actions",
                          "error": f"what it proposed is more than "
                                   f"{ANSWER_BYTES // (1024 * 1024)} MB"})
        out.write(data)
        out.flush()
    return 0


if __name__ == "__main__":
    os.environ.pop("OPENAI_API_KEY", None)
    sys.exit(main())
