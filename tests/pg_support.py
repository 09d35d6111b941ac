"""A real PostgreSQL server for the tests: Debian's ``postgresql`` (which ``dev.py test``
installs), created with ``initdb`` in a throwaway folder and started with ``pg_ctl`` on
loopback, one per test worker, stopped and removed when the worker ends. A migrated
template database is made once; each test gets a fresh copy of it (``CREATE DATABASE …
TEMPLATE``: tens of milliseconds, against a second to migrate). Never skipped: a machine
without PostgreSQL fails here, saying how to install it."""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from errands.db.location import ServerDatabase

if TYPE_CHECKING:
    from datetime import datetime

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
            from catalogue_pass import uncounted
            from errands.store import Store
            with uncounted():  # (migrated once, copied for every test)
                Store(self.server(TEMPLATE)).close()
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
# catalogues (fresh copies of the template), each dropped when what made it ends: the test,
# or the module (a module-scoped fixture's store)
_SERVER: list[PostgresServer] = []
_MADE: list[list[ServerDatabase]] = []
_FOLDERS: dict[Path, ServerDatabase] = {}  # a test's data folders, each a catalogue


def location_for(folder: Path) -> Path | ServerDatabase:
    """Where a test's store lives: ``folder``'s SQLite file, or in the PostgreSQL pass a
    fresh PostgreSQL catalogue, which the commands the test runs (in this process, or
    started) use too, as a person would have them: ``ERRANDS_DATABASE_URL``."""
    if not _SERVER or not _MADE:
        return folder / "errands.sqlite3"
    server = _SERVER[0]
    location = server.fresh()
    os.environ["ERRANDS_DATABASE_URL"] = server.url(location.database)
    _MADE[-1].append(location)
    return location


def activate(server: PostgresServer) -> None:
    """The PostgreSQL pass: catalogues on ``server`` from now on."""
    _SERVER[:] = [server]


def begin() -> None:
    """A module or a test starts: what it makes is dropped at its :func:`end`."""
    _MADE.append([])


def end() -> None:
    os.environ.pop("ERRANDS_DATABASE_URL", None)
    _FOLDERS.clear()
    made = _MADE.pop() if _MADE else []
    for location in made:
        _SERVER[0].drop(location)


def handed_on(env: dict[str, str]) -> dict[str, str]:
    """``env`` for a command a test runs: in the PostgreSQL pass with the test's catalogue
    (tests build such environments without the ERRANDS_ settings of their own process),
    unless ``env`` names one itself."""
    chosen = os.environ.get("ERRANDS_DATABASE_URL")
    if _SERVER and _MADE and chosen and "ERRANDS_DATABASE_URL" not in env:
        return {**env, "ERRANDS_DATABASE_URL": chosen}
    return env


def _catalogue(place: Path | ServerDatabase) -> Path | ServerDatabase:
    """A data folder's catalogue (as the commands choose it: in the PostgreSQL pass the
    test's, or the one :func:`database_args` gave the folder); a file or server as it is."""
    from errands.db.location import database_location

    if isinstance(place, Path) and place.suffix != ".sqlite3":
        return _FOLDERS.get(place) or database_location(place)
    return place


@contextlib.contextmanager
def _connection(place: Path | ServerDatabase) -> Iterator[Any]:
    """A transaction on a catalogue as it is stored (``place``: see :func:`_catalogue`)."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    place = _catalogue(place)
    if isinstance(place, Path):
        engine = create_engine(f"sqlite:///{place}", poolclass=NullPool,
                               connect_args={"timeout": 10})
    else:
        engine = create_engine(f"postgresql+psycopg://{place.user}@{place.host}:{place.port}/"
                               f"{place.database}", poolclass=NullPool)
    try:
        with engine.begin() as conn:
            yield conn
    finally:
        engine.dispose()


def catalogue_sql(place: Path | ServerDatabase, sql: str, *many: dict[str, object],
                  **params: object) -> list[tuple[object, ...]]:
    """``sql`` (SQLAlchemy's ``:name`` parameters) on a catalogue as it is stored, for a
    test that looks under the store or damages it, on either kind (see
    :func:`_connection` for ``place``): once with ``params``, or once for each of ``many``.
    The rows it returns, committed."""
    from sqlalchemy import text

    with _connection(place) as conn:
        result = conn.execute(text(sql), list(many) if many else params)
        return [tuple(row) for row in result] if result.returns_rows else []


def stored_instant(name: str) -> str:
    """The SQL for parameter ``name`` holding an instant as text ("2026-12-01 10:00:00",
    UTC) where a stored instant goes: PostgreSQL's column takes a timestamp."""
    return f"CAST(:{name} AS timestamp)" if on_postgresql() else f":{name}"


def stored_json(name: str) -> str:
    """The SQL for parameter ``name`` holding JSON text where a json column takes it."""
    return f"CAST(:{name} AS json)" if on_postgresql() else f":{name}"


def catalogue_rows(place: Path | ServerDatabase, sql: str, **params: object
                   ) -> list[dict[str, object]]:
    """:func:`catalogue_sql`'s rows as dictionaries by column name; instants as each store
    keeps them (SQLite: text in UTC; PostgreSQL: a naive datetime in UTC), see
    :func:`instant`."""
    from sqlalchemy import text

    with _connection(place) as conn:
        return [dict(row._mapping) for row in conn.execute(text(sql), params)]


def instant(value: object) -> "datetime":
    """A stored instant, read back as an aware UTC datetime on either store."""
    from datetime import UTC, datetime

    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    assert isinstance(value, datetime), value
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def database_args(folder: Path) -> list[str]:
    """``--database URL`` for a command on ``folder`` in the PostgreSQL pass: each data
    folder a test uses is a catalogue of its own there (another machine's file, say, to
    copy between), made the first time it is named; nothing in the SQLite pass."""
    if not _SERVER or not _MADE:
        return []
    if folder not in _FOLDERS:
        saved = os.environ.get("ERRANDS_DATABASE_URL")
        location = location_for(folder)
        assert isinstance(location, ServerDatabase)
        if saved is not None:  # (the test's own catalogue stays the environment's)
            os.environ["ERRANDS_DATABASE_URL"] = saved
        _FOLDERS[folder] = location
    return ["--database", _SERVER[0].url(_FOLDERS[folder].database)]


def on_postgresql() -> bool:
    """Whether this is the PostgreSQL pass (for SQL that must differ: a json column takes
    ``CAST(:x AS json)`` there)."""
    return bool(_SERVER and _MADE)


def catalogue_text(place: Path | ServerDatabase) -> str:
    """All a catalogue stores, as text, for a test that something (a password, a token)
    never reaches it: ``place`` as for :func:`catalogue_sql`. A SQLite file's bytes (and its
    write-ahead log's), or every row of every table on PostgreSQL, each cast to text."""
    place = _catalogue(place)
    if isinstance(place, Path):
        wal = Path(f"{place}-wal")
        return (place.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
                ).decode("latin-1")
    tables = [str(name) for (name,) in catalogue_sql(
        place, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")]
    assert tables, f"no tables in {place.database}"
    return "\n".join(str(text) for table in tables for (text,) in catalogue_sql(
        place, f'SELECT t::text FROM "{table}" t'))


def copy_of(place: Path | ServerDatabase, folder: Path) -> Path | ServerDatabase:
    """A catalogue of the test's own holding what ``place`` holds (one a module-scoped
    fixture made, say): the SQLite file copied into ``folder``, or a copy on the server
    (nothing may be connected to ``place`` meanwhile), dropped when the test ends and
    handed to its commands as :func:`location_for` hands a fresh one."""
    if isinstance(place, Path):
        target = folder / "errands.sqlite3"
        shutil.copyfile(place, target)
        return target
    server = _SERVER[0]
    location = server.server(f"t{os.getpid()}_{next(server._names)}")
    server.admin(f'CREATE DATABASE "{location.database}" TEMPLATE "{place.database}"')
    os.environ["ERRANDS_DATABASE_URL"] = server.url(location.database)
    _MADE[-1].append(location)
    return location
