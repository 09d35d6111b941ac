"""Shared helpers for the engine and store benchmarks (not a benchmark itself).

Importing this module puts ``desktop/`` (next to ``bench/``) first on ``sys.path``, so the
scripts run from a checkout without installing the package.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "desktop"))

UTC = timezone.utc
RESULT_MARK = "@@BENCH-RESULT@@ "


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return float("nan")
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def ratio(ours: float, theirs: float) -> str:
    if theirs <= 0:
        return "n/a (peer figure is 0)"
    return f"{ours / theirs:.3g}x"


@contextmanager
def temp_data_dir(prefix: str) -> Iterator[Path]:
    """A fresh data directory, removed afterwards (``ERRANDS_BENCH_KEEP=1`` keeps it)."""
    keep = os.environ.get("ERRANDS_BENCH_KEEP") == "1"
    tmp = tempfile.TemporaryDirectory(prefix=prefix)
    try:
        yield Path(tmp.name)
    finally:
        if keep:
            print(f"(kept data directory {tmp.name})")
            tmp._finalizer.detach()  # type: ignore[attr-defined]
        else:
            tmp.cleanup()


def clean_environment() -> None:
    """Settings overrides from the caller's environment would skew the figures."""
    for key in list(os.environ):
        if key.startswith("ERRANDS_") and key not in ("ERRANDS_BENCH_KEEP",):
            del os.environ[key]


def command_doc(title: str, trigger: dict[str, Any], command: str = "true") -> dict[str, Any]:
    return {"title": title, "runner": {"kind": "command", "command": command},
            "trigger": trigger}


def run_phase(script: Path, phase: str, *args: str, timeout: float = 240) -> dict[str, Any]:
    """Run ``script --phase PHASE ARGS`` in a fresh interpreter; return the JSON it reports.

    The child's other output passes through, so a crash is visible."""
    proc = subprocess.run([sys.executable, str(script), "--phase", phase, *args],
                          stdout=subprocess.PIPE, text=True, timeout=timeout)
    result: dict[str, Any] | None = None
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT_MARK):
            result = json.loads(line[len(RESULT_MARK):])
        else:
            print(line)
    if result is None:
        raise RuntimeError(f"phase {phase} reported nothing (exit status {proc.returncode})")
    return result


def report(result: dict[str, Any]) -> None:
    """Hand a child's figures to the parent (see ``run_phase``)."""
    print(RESULT_MARK + json.dumps(result), flush=True)


def wall() -> datetime:
    return datetime.now(UTC)


def byte_code(prefix: Path, modules: str) -> None:
    """Let this script's children start from compiled byte-code, as an installed Errands
    does: they read and write it under ``prefix``. This machine sets PYTHONDONTWRITEBYTECODE
    and its virtual environment holds no byte-code, so every process would otherwise
    compile what it imports (the openai SDK alone: a second) at every start. ``modules``
    (comma-separated) are imported once here, in a child, to fill the cache."""
    import compileall
    import errands

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    sys.pycache_prefix = str(prefix)
    compileall.compile_dir(str(Path(errands.__file__).parent), quiet=1, workers=1)
    # the libraries too (their own __pycache__ is not read once a prefix is set)
    subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, sys.argv[1]); "
                    f"import {modules}", str(Path(errands.__file__).parent.parent)],
                   check=False, env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
