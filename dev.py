#!/usr/bin/env python3
"""One entry point for a fresh machine: ``python3 dev.py app`` or ``python3 dev.py test``.

It needs nothing but Python 3.11+. It creates ``.venv`` beside this file, installs
Errands into it with exactly the versions in ``requirements.lock`` (with uv when it can get
it, because pip re-downloads every time behind this machine's proxy; both compile byte-code),
then launches the app or runs the whole test suite. Extra arguments are passed through
(``python3 dev.py test -k cron``). With none, ``test`` runs the whole suite on SQLite, then
once more on PostgreSQL every test that opens a catalogue (``--catalogue=postgresql``;
``tests/catalogue_pass.py`` says how), and fails if either pass fails.

``python3 dev.py test --latest [pytest arguments]`` runs the suite in a throwaway
environment with the newest releases pyproject.toml allows instead of the locked ones, so a
breaking release is seen before users meet it. ``python3 dev.py lock`` writes
``requirements.lock`` again after pyproject.toml changed (``lock --upgrade``: every pin to
the newest allowed).

``python3 dev.py i18n`` refreshes the translations: the Qt Linguist sources in ``i18n/``
from the window's code (keeping every translation they have) and the compiled
``resources/i18n/*.qm`` the wheel ships (``i18n/update.py`` says how).

``python3 dev.py bundle`` builds the one-folder app with PyInstaller into ``build/bundle/``
(``packaging/build.py``; PyInstaller is installed into ``.venv`` when missing) and
``python3 dev.py bundle-smoke`` smoke-tests what was built (``packaging/smoke.py``).

``python3 dev.py system-libraries`` installs, on Debian or Ubuntu, the system libraries Qt
needs (offscreen too) and the tools the tests use (desktop-file-validate) when some are
missing; ``.ci/run`` calls it. It asks ``dpkg`` first and
runs ``apt-get`` only for what is missing (as root, or through sudo without a password).
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
LOCK = ROOT / "requirements.lock"
# What the lock covers: every extra, on every platform and Python from 3.11 (uv --universal)
LOCK_COMMAND = ["pip", "compile", "pyproject.toml", "--universal", "--python-version", "3.11",
                "--extra", "test", "--extra", "bench", "--extra", "bundle", "--quiet",
                "--output-file", "requirements.lock"]

EXTRAS = {"app": "", "test": "[test,bench]", "bench": "[bench]", "i18n": "",
          "bundle": "[bundle]", "bundle-smoke": ""}
# What PySide6's QtGui/QtWidgets link against even offscreen, and fonts: DejaVu, and one
# with Chinese characters for the window in Chinese (and its screenshot).
QT_SYSTEM_PACKAGES = ("libegl1", "libgl1", "libx11-6", "libxkbcommon0", "libfontconfig1",
                      "libfreetype6", "libglib2.0-0", "libdbus-1-3", "fonts-dejavu-core",
                      "fonts-wqy-microhei")
# What the tests use besides: desktop-file-validate checks the Linux desktop entry.
# desktop-file-validate; Dovecot, the real IMAP server the mail tests start on loopback
TEST_SYSTEM_PACKAGES = ("desktop-file-utils", "dovecot-imapd", "postgresql")


def _run(cmd: list[str], **kw: object) -> None:
    subprocess.run(cmd, check=True, **kw)  # type: ignore[arg-type]


def _fingerprint() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + LOCK.read_bytes()).hexdigest()


def locked_version(name: str) -> str:
    """The version requirements.lock pins for ``name`` (the first line naming it)."""
    for line in LOCK.read_text().splitlines():
        pin, _, _ = line.partition(";")
        if pin.strip().lower().startswith(f"{name.lower()}=="):
            return pin.strip().split("==", 1)[1]
    raise SystemExit(f"error: requirements.lock pins no {name}; run: python3 dev.py lock")


def install(python: Path, extras: str, *, locked: bool = True, fresh: bool = False) -> None:
    """Errands (editable) and its dependencies into ``python``'s environment: the versions of
    requirements.lock, or with ``locked=False`` the newest that pyproject.toml allows."""
    target = f"{ROOT}{extras}"
    constraints = ["-c", str(LOCK)] if locked else []
    try:
        _run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
              f"uv=={locked_version('uv')}"])
        # Byte-code compiled now, so every later start is fast even where the environment
        # forbids writing it (PYTHONDONTWRITEBYTECODE): errands starts in 0.7 s, not 1.7 s.
        _run([str(python), "-m", "uv", "pip", "install", "-q", "--compile-bytecode",
              "--python", str(python), *(["--upgrade", "--refresh"] if fresh else []),
              *constraints, "-e", target])
    except subprocess.CalledProcessError:
        _run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
              *(["--upgrade"] if fresh else []), *constraints, "-e", target])


def _installed_extras() -> set[str] | None:
    """The extras installed for the current pyproject.toml, None when it changed."""
    if not STAMP.exists():
        return None
    digest, _, extras = STAMP.read_text().partition("\n")
    return set(filter(None, extras.split(","))) if digest == _fingerprint() else None


def ensure_env(extras: str) -> None:
    if sys.version_info < (3, 11):
        sys.exit("Errands needs Python 3.11 or newer.")
    if not PY.exists():
        print("Creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    wanted = set(filter(None, extras.strip("[]").split(",")))
    have = _installed_extras()
    if have is not None and wanted <= have:
        return  # already installed, with at least these extras
    print("Installing Errands and its dependencies into .venv (requirements.lock) ...",
          flush=True)
    install(PY, extras)
    STAMP.write_text(_fingerprint() + "\n" + ",".join(sorted(wanted)))


def missing_system_packages(packages: tuple[str, ...] = QT_SYSTEM_PACKAGES) -> list[str]:
    """The packages dpkg does not know as installed (none where there is no dpkg)."""
    import shutil
    if not sys.platform.startswith("linux") or shutil.which("dpkg-query") is None:
        return []
    missing = []
    for name in packages:
        probe = subprocess.run(["dpkg-query", "-W", "-f=${Status}", name],
                               capture_output=True, text=True)
        if probe.returncode != 0 or "install ok installed" not in probe.stdout:
            missing.append(name)
    return missing


def install_system_packages(packages: tuple[str, ...] = QT_SYSTEM_PACKAGES) -> int:
    """apt-get install those of ``packages`` that are missing; 0 when none was."""
    import shutil
    missing = missing_system_packages(packages)
    if not missing:
        return 0
    print(f"Installing system packages: {' '.join(missing)} ...", flush=True)
    if shutil.which("apt-get") is None:
        print("error: no apt-get here; install them with your package manager", file=sys.stderr)
        return 1
    sudo: list[str] = []
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        if shutil.which("sudo") is None:
            print("error: not root and no sudo; install them as root", file=sys.stderr)
            return 1
        sudo = ["sudo", "-n"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    quiet = {"stdout": subprocess.DEVNULL}
    subprocess.run([*sudo, "apt-get", "update", "-qq"], env=env, check=True, **quiet)
    subprocess.run([*sudo, "apt-get", "install", "-y", "-qq", "--no-install-recommends",
                    *missing], env=env, check=True, **quiet)
    return 0


SDKS = ("httpx", "SQLAlchemy", "alembic", "PySide6-Essentials", "qasync", "keyring", "openai")


def test_latest(pytest_args: list[str]) -> int:
    """The whole suite (or ``pytest_args``) in a throwaway environment holding the newest
    releases pyproject.toml allows, resolved now, not from any cache."""
    import shutil
    import tempfile
    if sys.version_info < (3, 11):
        sys.exit("Errands needs Python 3.11 or newer.")
    scratch = Path(tempfile.mkdtemp(prefix="errands-latest-"))
    try:
        print(f"Creating a throwaway environment in {scratch} with the newest allowed "
              "releases ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(scratch)
        python = scratch / BIN.name / PY.name
        install(python, EXTRAS["test"], locked=False, fresh=True)
        versions = subprocess.run(
            [str(python), "-c", "import importlib.metadata as m, sys\n"
             "for n in sys.argv[1:]:\n"
             "    try: print(f'  {n} {m.version(n)}')\n"
             "    except m.PackageNotFoundError: print(f'  {n} (not installed)')", *SDKS],
            capture_output=True, text=True, check=True).stdout
        print("Testing against:\n" + versions, flush=True)
        env = {**os.environ, "ERRANDS_TEST_LATEST": "1"}
        return subprocess.call([str(python), "-m", "pytest", *pytest_args], cwd=ROOT, env=env)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def lock(args: list[str]) -> int:
    """Write requirements.lock again from pyproject.toml (``--upgrade``: newest allowed)."""
    ensure_env("")
    return subprocess.call([str(PY), "-m", "uv", *LOCK_COMMAND, *args], cwd=ROOT)


def main(argv: list[str]) -> int:
    if argv and argv[0] == "system-libraries":  # (.ci/run: what the tests need too)
        return install_system_packages(QT_SYSTEM_PACKAGES + TEST_SYSTEM_PACKAGES)
    if argv[:2] == ["test", "--latest"]:
        return test_latest(argv[2:])
    if argv and argv[0] == "lock":
        return lock(argv[1:])
    if not argv or argv[0] not in EXTRAS:
        print(__doc__)
        return 2
    what, rest = argv[0], argv[1:]
    ensure_env(EXTRAS[what])
    if what == "app" and missing_system_packages():
        try:
            install_system_packages()
        except subprocess.CalledProcessError:
            print("note: Qt needs these system libraries, which could not be installed here: "
                  f"sudo apt-get install {' '.join(missing_system_packages())}", file=sys.stderr)
    if what == "test" and missing_system_packages(TEST_SYSTEM_PACKAGES):
        try:  # (the mail tests need a real IMAP server: they fail, never skip, without it)
            install_system_packages(TEST_SYSTEM_PACKAGES)
        except subprocess.CalledProcessError:
            print("note: the tests need these system packages, which could not be installed "
                  f"here: sudo apt-get install {' '.join(missing_system_packages(TEST_SYSTEM_PACKAGES))}",
                  file=sys.stderr)
    if what == "app":
        return subprocess.call([str(BIN / "errands"), *rest])
    if what == "i18n":
        return subprocess.call([str(PY), str(ROOT / "i18n" / "update.py"), *rest])
    if what in ("bundle", "bundle-smoke"):
        script = "build.py" if what == "bundle" else "smoke.py"
        return subprocess.call([str(PY), str(ROOT / "packaging" / script), *rest])
    if what == "bench":
        scripts = rest or sorted(str(p) for p in (ROOT / "bench").glob("bench_*.py"))
        return max((subprocess.call([str(PY), s]) for s in scripts), default=0)
    status = subprocess.call([str(PY), "-m", "pytest", *workers(rest), *rest], cwd=ROOT)
    if what == "test" and not rest:  # the whole suite: again on PostgreSQL
        print("\nAgain on PostgreSQL: every test that opens a catalogue", flush=True)
        again = subprocess.call([str(PY), "-m", "pytest", *workers([]), "-q",
                                 "--catalogue=postgresql"], cwd=ROOT)
        status = status or again
    return status


def workers(pytest_args: list[str]) -> list[str]:
    """The suite runs on two workers a core (pytest-xdist, each test file's tests given out
    as workers come free: most tests wait on a child process, a server or a socket, not
    on the CPU), unless the arguments choose (``-n 0``: one process, as a debugger wants)."""
    chosen = any(a == "-n" or a.startswith(("-n", "--numprocesses")) for a in pytest_args)
    return [] if chosen else ["-n", str(2 * (os.cpu_count() or 1))]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
