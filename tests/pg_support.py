"""A real PostgreSQL server for the tests: Debian's ``postgresql`` (which ``dev.py test``
installs), created with ``initdb`` in a throwaway folder and started with ``pg_ctl`` on
loopback, one per test worker, stopped and removed when the worker ends. A migrated
template database is made once; each test gets a fresh copy of it (``CREATE DATABASE …
TEMPLATE``: tens of milliseconds, against a second to migrate). Never skipped: a machine
without PostgreSQL fails here, saying how to install it."""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from errands.db.location import ServerDatabase

USER = "errands"
TEMPLATE = "errands_template"


def bin_dir() -> Path | None:
    """The newest installed server's programs (Debian keeps them out of PATH)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parent.parent.name)
                   if Path(p).parent.parent.name.isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One server on 127.0.0.1 (trust authentication, durability off: test data)."""

    def __init__(self) -> None:
        found = bin_dir()
        assert found is not None, ("PostgreSQL is not installed: 'python3 dev.py test' "
                                   "installs it (apt-get install postgresql)")
        self.bin = found
        self.root = Path(tempfile.mkdtemp(prefix="errands-postgres-"))
        self.root.chmod(0o755)
        self.data = self.root / "data"
        self.port = free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:  # the server refuses to run as root: as its own user
            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", USER, "-E", "UTF8",
                  "--locale=C", "--no-sync")
        options = self._options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            "-c max_connections=300")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l",
                  str(self.root / "server.log"), "-w", "-t", "60", "start")
        self._names = itertools.count(1)
        try:
            self.admin("CREATE DATABASE " + TEMPLATE)
            from errands.store import Store
            Store(self.server(TEMPLATE)).close()  # migrated once, copied for every test
        except BaseException:  # (the fixture never yields: nobody else would stop it)
            self.stop()
            raise

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run([*self._as, str(self.bin / program), *args], cwd=self.root,
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            log = self.root / "server.log"
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip()}"
                               + (f"\n{log.read_text()[-2000:]}" if log.exists() else ""))

    def server(self, database: str) -> ServerDatabase:
        return ServerDatabase(USER, "127.0.0.1", self.port, database)

    def url(self, database: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def admin(self, statement: str) -> list[tuple[object, ...]]:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            cur = conn.execute(statement)
            return list(cur.fetchall()) if cur.description else []

    def admin_in(self, database: str, statement: str) -> list[tuple[object, ...]]:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            cur = conn.execute(statement)
            return list(cur.fetchall()) if cur.description else []

    def require_password(self, role: str, password: str) -> None:
        """A role that must give its password (scram), whatever the trust for others."""
        self.admin(f"CREATE ROLE {role} LOGIN SUPERUSER PASSWORD '{password}'")
        hba = self.data / "pg_hba.conf"
        hba.write_text(f"host all {role} 127.0.0.1/32 scram-sha-256\n" + hba.read_text())
        self.admin("SELECT pg_reload_conf()")

    def fresh(self, empty: bool = False) -> ServerDatabase:
        """A new database: a copy of the migrated template, or ``empty``."""
        name = f"t{os.getpid()}_{next(self._names)}"
        self.admin(f'CREATE DATABASE "{name}"' + ("" if empty else f" TEMPLATE {TEMPLATE}"))
        return self.server(name)

    def drop(self, server: ServerDatabase) -> None:
        self.admin(f'DROP DATABASE IF EXISTS "{server.database}" WITH (FORCE)')

    def pause(self) -> None:
        """Stop the server, keeping its data (an outage); :meth:`resume` starts it again."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-o", self._options, "-l",
                  str(self.root / "server.log"), "-w", "-t", "60", "start")

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


# --catalogue=postgresql: the stores tests open through ``location_for`` are PostgreSQL
# catalogues (fresh copies of the template, dropped after their test), not SQLite files
_ACTIVE: dict[str, object] = {}


def location_for(folder: Path) -> Path | ServerDatabase:
    """Where a test's store lives: ``folder``'s SQLite file, or under
    ``--catalogue=postgresql`` a fresh PostgreSQL catalogue."""
    server = _ACTIVE.get("server")
    if server is None:
        return folder / "errands.sqlite3"
    assert isinstance(server, PostgresServer)
    location = server.fresh()
    # and the commands the test runs (in process, or started) use it too, as a person would
    os.environ["ERRANDS_DATABASE_URL"] = server.url(location.database)
    made = _ACTIVE.setdefault("made", [])
    assert isinstance(made, list)
    made.append(location)
    return location


def activate(server: PostgresServer | None) -> None:
    _ACTIVE.clear()
    if server is not None:
        _ACTIVE["server"] = server


def drop_made() -> None:
    os.environ.pop("ERRANDS_DATABASE_URL", None)
    server, made = _ACTIVE.get("server"), _ACTIVE.get("made") or []
    _ACTIVE["made"] = []
    if isinstance(server, PostgresServer):
        for location in made:  # type: ignore[union-attr]
            server.drop(location)
