#!/usr/bin/env python3
"""Smoke-test the built bundle: ``python3 dev.py bundle-smoke`` (after ``dev.py bundle``).

Everything goes through the bundled program itself, on a temporary data directory, with
no Python environment in sight (PYTHON* and ERRANDS_* variables are dropped):

1. ``errands --version`` prints the version in pyproject.toml, and every resource and
   migration file of the checkout is in the bundle, unchanged;
2. ``errands add`` and ``errands list``: the database is created by the bundled Alembic
   migrations, up to the newest revision;
3. ``errands serve`` runs; while it does, ``errands run-now ID --wait`` asks it over its
   control channel to run the command automation and waits for the result; SIGTERM then
   stops it with exit code 0;
4. a script automation: ``add --script`` compiles it in the bundled sandbox worker
   (``errands __script_worker__``), ``run-now --wait`` runs it and applies what it proposed;
5. ``errands`` alone opens the app with ``QT_QPA_PLATFORM=offscreen`` (window, tray, SVG
   icons from the bundled resources); once its engine owns the data directory and a few
   seconds have passed, ``errands list`` talks to it, then SIGTERM quits it with exit code 0.

Each step prints its time. ``--program PATH`` tests another build; ``--app-seconds N``
(default 3) is how long the app stays open. Exit code 0 when every step passed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = ROOT / "build" / "bundle" / "errands" / ("errands.exe" if os.name == "nt" else "errands")
TIMEOUT = 60
RESOURCE_SUFFIXES = (".svg", ".png", ".json", ".qss", ".qm", ".py")


class SmokeFailure(Exception):
    pass


def project_version() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
    assert match, "pyproject.toml has no version"
    return match.group(1)


def migration_head() -> str:
    text = (ROOT / "desktop" / "errands" / "migrations" / "__init__.py").read_text("utf-8")
    match = re.search(r'^HEAD\s*=\s*"([^"]+)"', text, re.M)
    assert match, "errands.migrations names no HEAD"
    return match.group(1)


def clean_env(home: Path) -> dict[str, str]:
    """No Python or Errands setting of the caller, a private HOME, Qt offscreen."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "ERRANDS_", "VIRTUAL_ENV", "QT_"))}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_DATA_HOME": str(home / ".local" / "share"),
                "XDG_CACHE_HOME": str(home / ".cache"),
                "QT_QPA_PLATFORM": "offscreen", "ERRANDS_SHUTDOWN_GRACE": "1s"})
    return env


class Smoke:
    def __init__(self, program: Path, work: Path, app_seconds: float) -> None:
        self.program = program
        self.data = work / "data"
        self.env = clean_env(work / "home")
        self.cwd = work
        self.app_seconds = app_seconds
        self.times: list[tuple[str, float]] = []

    def run(self, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
        out = subprocess.run([str(self.program), *args], env=self.env, cwd=self.cwd,
                             capture_output=True, text=True, timeout=timeout)
        if out.returncode != 0:
            raise SmokeFailure(f"errands {' '.join(args)} exited {out.returncode}:\n"
                               f"{out.stdout}{out.stderr}")
        return out

    def cli(self, *args: str) -> Any:
        return json.loads(self.run(*args, "--data-dir", str(self.data), "--json").stdout)

    def step(self, name: str, fn: Any) -> None:
        started = time.monotonic()
        fn()
        took = time.monotonic() - started
        self.times.append((name, took))
        print(f"  ok  {name} ({took:.1f} s)", flush=True)

    # -- the steps ---------------------------------------------------------------------

    def version(self) -> None:
        out = self.run("--version").stdout.strip()
        if out != f"errands {project_version()}":
            raise SmokeFailure(f"--version printed {out!r}, not 'errands {project_version()}'")

    def add_and_list(self) -> None:
        made = self.cli("add", "--title", "Smoke", "--command", "echo smoke-ok",
                        "--schedule", "manual")
        self.ident = made["id"]
        listed = self.cli("list")
        items = listed if isinstance(listed, list) else listed.get("automations", listed)
        if self.ident not in json.dumps(items):
            raise SmokeFailure(f"errands list does not show {self.ident}: {listed}")
        database = self.data / "errands.sqlite3"
        if not database.exists():
            raise SmokeFailure("no database file after errands add")
        with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
            version = db.execute("SELECT version_num FROM alembic_version").fetchone()
        if version is None or version[0] != migration_head():
            raise SmokeFailure(f"the bundled migrations took the database to {version}, "
                               f"not to {migration_head()}")

    def script(self) -> None:
        source = self.cwd / "smoke.js"
        source.write_text("export default function ({ event, actions }) {\n"
                          "  actions.writeFile('smoke.txt', 'script-ok ' + event.type);\n}\n")
        folder = self.cwd / "script-folder"
        folder.mkdir()
        made = self.cli("add", "--title", "Smoke script", "--script", str(source),
                        "--schedule", "manual", "--workdir", str(folder))
        run = self.cli("run-now", made["id"], "--wait")
        written = folder / "smoke.txt"
        if run.get("state") != "succeeded" or not written.exists() or \
                written.read_text() != "script-ok manual":
            raise SmokeFailure(f"the script run did not apply its change: {run}")
        bad = self.cwd / "bad.js"
        bad.write_text("export default function () {\n  return 1 +;\n}\n")
        refused = subprocess.run([str(self.program), "add", "--title", "Bad", "--script",
                                  str(bad), "--schedule", "manual", "--data-dir",
                                  str(self.data)], env=self.env, cwd=self.cwd,
                                 capture_output=True, text=True, timeout=TIMEOUT)
        if refused.returncode != 2 or "line 2" not in refused.stderr:
            raise SmokeFailure(f"a script with a syntax error was not refused at its line: "
                               f"{refused.stderr!r}")

    def doctor(self) -> None:
        """doctor names the bundled libraries' versions, and a command an agent would start
        runs confined through the bundle's own launcher (``errands __confine__``)."""
        out = subprocess.run([str(self.program), "doctor", "--data-dir", str(self.data),
                              "--json"], env=self.env, cwd=self.cwd, capture_output=True,
                             text=True, timeout=TIMEOUT)
        checks = {c["name"]: c for c in json.loads(out.stdout)["checks"]}
        if checks["versions"]["status"] != "ok":
            raise SmokeFailure(f"doctor's versions check: {checks['versions']}")
        if sys.platform.startswith("linux") and checks["confinement"]["status"] == "ok":
            inside, outside = self.cwd / "inside", self.cwd.parent / "outside-smoke"
            inside.mkdir(exist_ok=True)
            ran = subprocess.run([str(self.program), "__confine__", "--write", str(inside),
                                  "--", "/bin/sh", "-c", f"echo in > {inside}/f; "
                                  f"echo out > {outside} 2>/dev/null; true"],
                                 env=self.env, capture_output=True, text=True, timeout=TIMEOUT)
            if ran.returncode != 0 or not (inside / "f").exists() or outside.exists():
                raise SmokeFailure(f"the bundle's confinement: exit {ran.returncode}, "
                                   f"inside written {(inside / 'f').exists()}, outside "
                                   f"written {outside.exists()}: {ran.stderr}")

    def files(self) -> None:
        """Every resource and migration file of the checkout is in the bundle, unchanged."""
        internal = self.program.parent / "_internal" / "errands"
        resources = ROOT / "resources"
        migrations = ROOT / "desktop" / "errands" / "migrations"
        wanted = [(p, internal / "resources" / p.relative_to(resources))
                  for p in resources.rglob("*")
                  if p.suffix in RESOURCE_SUFFIXES and "__pycache__" not in p.parts]
        wanted += [(p, internal / "migrations" / p.relative_to(migrations))
                   for p in (migrations / "env.py", migrations / "script.py.mako",
                             *(migrations / "versions").glob("*.py"))]
        missing = [str(source.relative_to(ROOT)) for source, twin in wanted
                   if not twin.is_file() or twin.read_bytes() != source.read_bytes()]
        if missing:
            raise SmokeFailure("missing or different in the bundle: " + ", ".join(missing))

    def serve(self) -> None:
        proc = self._start("serve", "--data-dir", str(self.data))
        try:
            line = _read_line(proc, TIMEOUT)
            if "Errands engine running" not in line:
                raise SmokeFailure(f"serve said {line!r}")
            result = self.cli("run-now", self.ident, "--wait")
            if "smoke-ok" not in json.dumps(result):
                raise SmokeFailure(f"run-now --wait through serve gave {result}")
            time.sleep(1)
        finally:
            code, output = _terminate(proc)
        if code != 0:
            raise SmokeFailure(f"serve exited {code} after SIGTERM:\n{output}")

    def app(self) -> None:
        proc = self._start("--data-dir", str(self.data))
        try:
            owner = self.data / "errands.owner.json"
            deadline = time.monotonic() + TIMEOUT
            while _host(owner) != "app":
                if proc.poll() is not None:
                    raise SmokeFailure(f"the app exited {proc.returncode}:\n{_drain(proc)}")
                if time.monotonic() > deadline:
                    raise SmokeFailure("the app's engine never took the data directory")
                time.sleep(0.1)
            time.sleep(self.app_seconds)
            if proc.poll() is not None:
                raise SmokeFailure(f"the app exited {proc.returncode}:\n{_drain(proc)}")
            listed = self.cli("list")  # the CLI talks to the app's engine meanwhile
            if self.ident not in json.dumps(listed):
                raise SmokeFailure(f"errands list beside the app: {listed}")
        finally:
            code, output = _terminate(proc)
        if code != 0:
            raise SmokeFailure(f"the app exited {code} after SIGTERM:\n{output}")
        if "Traceback" in output:
            raise SmokeFailure(f"the app printed a traceback:\n{output}")

    def _start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen([str(self.program), *args], env=self.env, cwd=self.cwd,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _host(owner: Path) -> str | None:
    """Who hosts the engine that owns the data directory ("app", "serve"), if any."""
    try:
        return json.loads(owner.read_text()).get("hosted_by")
    except (OSError, ValueError, AttributeError):
        return None


def _read_line(proc: subprocess.Popen[str], timeout: float) -> str:
    """The first line the process prints (it must print one within ``timeout``)."""
    import threading
    box: list[str] = []
    reader = threading.Thread(target=lambda: box.append(proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(timeout)
    if not box:
        raise SmokeFailure(f"no output within {timeout} s")
    return box[0]


def _drain(proc: subprocess.Popen[str]) -> str:
    try:
        return proc.communicate(timeout=10)[0] or ""
    except subprocess.TimeoutExpired:
        return ""


def _terminate(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """SIGTERM (a kill after 30 s); the exit code and what it printed. (On Windows,
    terminate() is TerminateProcess, which no program survives with exit code 0: the
    smoke test is written for Linux and macOS.)"""
    if proc.poll() is None:
        proc.terminate()
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        return -9, (out or "") + "\n(killed: did not stop within 30 s of SIGTERM)"
    return proc.returncode, out or ""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", type=Path, default=PROGRAM)
    parser.add_argument("--app-seconds", type=float, default=3.0)
    parser.add_argument("--no-app", action="store_true", help="skip the app step")
    args = parser.parse_args(argv)
    if not args.program.exists():
        print(f"error: no bundle at {args.program}; build it with: python3 dev.py bundle",
              file=sys.stderr)
        return 1
    started = time.monotonic()
    print(f"Smoke-testing {args.program} ...", flush=True)
    with tempfile.TemporaryDirectory(prefix="errands-smoke-") as tmp:
        smoke = Smoke(args.program, Path(tmp), args.app_seconds)
        try:
            smoke.step("--version", smoke.version)
            smoke.step("resources and migrations in the bundle", smoke.files)
            smoke.step("add + list (migrations)", smoke.add_and_list)
            smoke.step("doctor: versions, confinement", smoke.doctor)
            smoke.step("a script: compiled and run in the bundled sandbox", smoke.script)
            smoke.step("serve, run-now --wait through it, SIGTERM", smoke.serve)
            if not args.no_app:
                smoke.step("app offscreen, list beside it, SIGTERM", smoke.app)
        except (SmokeFailure, subprocess.TimeoutExpired) as exc:
            print(f"FAIL: {exc}", file=sys.stderr)
            return 1
    print(f"Smoke test passed in {time.monotonic() - started:.1f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
