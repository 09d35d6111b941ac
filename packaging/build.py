#!/usr/bin/env python3
"""Build the one-folder Errands bundle for this platform: ``python3 dev.py bundle``.

Run with the project's Python (``.venv/bin/python packaging/build.py``; ``dev.py bundle``
does that after setting up ``.venv``). It installs PyInstaller into that environment when it
is missing, builds ``packaging/errands.spec`` into ``build/bundle/`` (work files in
``build/pyinstaller/``, both git-ignored), checks that the files Errands loads at run time
are in the bundle, and prints how long it took and how big the folder is.

    --clean   start from an empty PyInstaller cache (slower; after dependency changes)
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "packaging" / "errands.spec"
DIST = ROOT / "build" / "bundle"
WORK = ROOT / "build" / "pyinstaller"
APP = DIST / "errands"
PROGRAM = APP / ("errands.exe" if os.name == "nt" else "errands")
PYINSTALLER = "pyinstaller"  # its version: requirements.lock (the bundle extra)
LOCK = ROOT / "requirements.lock"

# Files the bundle must hold, relative to its _internal folder: what Errands opens by path
# (migrations, resources) and the Qt plugins without which it cannot start or draw icons.
REQUIRED = (
    "errands/migrations/env.py",
    "errands/migrations/script.py.mako",
    "errands/migrations/versions/0001_initial_schema.py",
    "errands/resources/__init__.py",
    "errands/resources/icons/errands.svg",
    "errands/resources/templates/daily-brief.json",
    "PySide6/Qt/plugins/platforms/*qoffscreen*",
    "PySide6/Qt/plugins/imageformats/*qsvg*",
    "PySide6/Qt/plugins/iconengines/*qsvgicon*",
)
PLATFORM_REQUIRED = {
    "linux": ("PySide6/Qt/plugins/platforms/*qxcb*", "PySide6/Qt/plugins/platforms/*qwayland*"),
    "win32": ("PySide6/plugins/platforms/qwindows*",),
    "darwin": ("PySide6/Qt/plugins/platforms/*qcocoa*",),
}


def ensure_pyinstaller() -> None:
    if importlib.util.find_spec("PyInstaller") is not None:
        return
    print(f"Installing {PYINSTALLER} into {sys.prefix} ...", flush=True)
    if importlib.util.find_spec("uv") is not None:  # dev.py installs uv: no re-download
        cmd = [sys.executable, "-m", "uv", "pip", "install", "-q", "--python", sys.executable]
    else:
        cmd = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*cmd, "-c", str(LOCK), PYINSTALLER], check=True)


def missing_files(app: Path = APP) -> list[str]:
    """The required patterns nothing in the built bundle matches."""
    internal = app / "_internal"
    platform = "linux" if sys.platform.startswith("linux") else sys.platform
    patterns = REQUIRED + PLATFORM_REQUIRED.get(platform, ())
    if platform == "win32":  # PySide6 on Windows keeps plugins in PySide6/plugins
        patterns = tuple(p.replace("PySide6/Qt/plugins", "PySide6/plugins") for p in patterns)
    return [p for p in patterns if not any(internal.glob(p))]


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def build(clean: bool = False) -> float:
    """Build the bundle; the seconds PyInstaller took."""
    ensure_pyinstaller()
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
           "--distpath", str(DIST), "--workpath", str(WORK), str(SPEC)]
    if clean:
        cmd.insert(3, "--clean")
    print(f"Building {APP.relative_to(ROOT)} with PyInstaller ...", flush=True)
    started = time.monotonic()
    subprocess.run(cmd, check=True, cwd=ROOT)
    return time.monotonic() - started


def main(argv: list[str]) -> int:
    if any(a not in ("--clean",) for a in argv):
        print(__doc__)
        return 2
    seconds = build(clean="--clean" in argv)
    missing = missing_files()
    if not PROGRAM.exists():
        missing.insert(0, str(PROGRAM.relative_to(APP)))
    size = folder_size(APP) / 1e6
    print(f"Built {PROGRAM.relative_to(ROOT)} in {seconds:.0f} s; the folder holds {size:.0f} MB.")
    if missing:
        print("error: the bundle lacks " + ", ".join(missing), file=sys.stderr)
        return 1
    print(f"Try it: {PROGRAM.relative_to(ROOT)} --version; smoke-test it: python3 dev.py "
          "bundle-smoke")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
