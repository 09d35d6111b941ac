#!/usr/bin/env python3
"""One entry point for a fresh machine: ``python3 dev.py app`` or ``python3 dev.py test``.

It needs nothing but Python 3.11+. It creates ``.venv`` beside this file, installs
Errands into it (with uv when it can get it, because pip re-downloads every time
behind this machine's proxy), then launches the app or runs the whole test suite.
Extra arguments are passed through (``python3 dev.py test -k cron``).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".errands-installed"

EXTRAS = {"app": "", "test": "[test,bench]", "bench": "[bench]"}


def _run(cmd: list[str], **kw: object) -> None:
    subprocess.run(cmd, check=True, **kw)  # type: ignore[arg-type]


def _fingerprint(extras: str) -> str:
    data = (ROOT / "pyproject.toml").read_bytes() + extras.encode()
    return hashlib.sha256(data).hexdigest()


def ensure_env(extras: str) -> None:
    if sys.version_info < (3, 11):
        sys.exit("Errands needs Python 3.11 or newer.")
    if not PY.exists():
        print("Creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    want = _fingerprint(extras)
    if STAMP.exists() and STAMP.read_text() == want:
        return
    print("Installing Errands and its dependencies into .venv ...", flush=True)
    target = f"{ROOT}{extras}"
    try:
        _run([str(PY), "-m", "pip", "install", "-q", "--disable-pip-version-check", "uv"])
        _run([str(PY), "-m", "uv", "pip", "install", "-q", "--python", str(PY), "-e", target])
    except subprocess.CalledProcessError:
        _run([str(PY), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-e", target])
    STAMP.write_text(want)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in EXTRAS:
        print(__doc__)
        return 2
    what, rest = argv[0], argv[1:]
    ensure_env(EXTRAS[what])
    if what == "app":
        return subprocess.call([str(BIN / "errands"), *rest])
    if what == "bench":
        scripts = rest or sorted(str(p) for p in (ROOT / "bench").glob("bench_*.py"))
        return max((subprocess.call([str(PY), s]) for s in scripts), default=0)
    return subprocess.call([str(PY), "-m", "pytest", *rest], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
