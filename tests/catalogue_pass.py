"""The suite's two passes over the catalogue: SQLite (the default) and PostgreSQL.

``--catalogue=postgresql`` runs every test that opens a catalogue again on a fresh
PostgreSQL catalogue of its own (a copy of the migrated template on the worker's server,
dropped afterwards), handed to the test's commands, windows and engines the way a person
with a shared catalogue would hand it: ``ERRANDS_DATABASE_URL``. Stores a test opens through
``pg_support.location_for`` are fresh catalogues too.

Both passes keep themselves honest:

- A test marked ``catalogue_free`` is left out of the PostgreSQL pass, and the SQLite pass
  fails it if it opens a catalogue after all (in this process, or a data folder's
  ``errands.sqlite3`` under its ``tmp_path``, which the processes it starts would make).
- In the PostgreSQL pass a test fails if a SQLite catalogue is opened or made (it slipped
  past the choice, so the pass would prove nothing), unless it is marked ``sqlite_only``
  (skipped, saying why, before any fixture is made for it) or ``sqlite_too`` (it also works
  on SQLite files on purpose: a migration, a copy between catalogues). A module whose
  fixture made a SQLite catalogue anywhere under the pass's temporary folders fails too.
- Tests that ask for the PostgreSQL server themselves (``postgres``, ``pg_catalogue``, or
  ``catalogue_location``, which gives them both kinds) or are marked ``own_catalogues``
  (they start servers of their own) run in the first pass only: they choose their
  catalogues already.
- ``pg_support.catalogue_sql`` reads or damages a test's catalogue under the store, on
  either kind.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

POSTGRESQL = "postgresql"
# catalogues opened in this test process, by kind; a test compares before and after
_OPENED = {"sqlite": 0, "postgresql": 0}
_COUNTING = [True]


@contextlib.contextmanager
def uncounted() -> Iterator[None]:
    """What the fixtures open for every test (the migrated templates) is not the test's."""
    _COUNTING[0] = False
    try:
        yield
    finally:
        _COUNTING[0] = True


def _count(cls: type, kind: str) -> None:
    real = cls.__init__

    def counted(self: Any, *args: Any, **kwargs: Any) -> None:
        if _COUNTING[0]:
            _OPENED[kind] += 1
        if kind == POSTGRESQL:
            _SERVER_STORES.append(weakref.ref(self))
        real(self, *args, **kwargs)

    cls.__init__ = counted  # type: ignore[method-assign]


# the PostgreSQL catalogues opened in this process, oldest first: a test's own that it left
# open are closed when it ends (their pooled connections, left to the garbage collector,
# would warn in whichever later test the collector happened to run)
_SERVER_STORES: list[weakref.ref[Any]] = []


@contextlib.contextmanager
def _stores_closed_after() -> Iterator[None]:
    first = len(_SERVER_STORES)
    try:
        yield
    finally:
        for ref in _SERVER_STORES[first:]:
            database = ref()
            if database is not None:
                database.close()
        del _SERVER_STORES[first:]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--catalogue", choices=("sqlite", POSTGRESQL), default="sqlite",
                     help="the catalogue every test that opens one uses: the data folder's "
                          "SQLite file, or a fresh PostgreSQL catalogue of its own "
                          "(tests/catalogue_pass.py)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "catalogue_free: the test opens no catalogue (the SQLite pass checks it); "
                   "the PostgreSQL pass leaves it out")
    config.addinivalue_line(
        "markers", "sqlite_only(why): the test works on the SQLite file itself (skipped in "
                   "the PostgreSQL pass, saying why)")
    config.addinivalue_line(
        "markers", "sqlite_too(why): in the PostgreSQL pass the test also opens SQLite "
                   "catalogues on purpose")
    config.addinivalue_line(
        "markers", "own_catalogues: the test makes and chooses its catalogues itself "
                   "(PostgreSQL's own tests): the PostgreSQL pass leaves it out")
    from errands.db.database import Database
    from errands.db.postgres import PostgresDatabase

    _count(Database, "sqlite")
    _count(PostgresDatabase, POSTGRESQL)


def _on_postgresql(config: pytest.Config) -> bool:
    return bool(config.getoption("--catalogue") == POSTGRESQL)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _on_postgresql(config):
        return
    kept, left = [], []
    for item in items:
        own_server = ({"postgres", "pg_catalogue", "catalogue_location"}
                      & set(getattr(item, "fixturenames", ())))
        leave = (own_server or item.get_closest_marker("catalogue_free")
                 or item.get_closest_marker("own_catalogues"))
        (left if leave else kept).append(item)
        only = item.get_closest_marker("sqlite_only")
        if only is not None and not leave:  # (skipped before any fixture is made for it: a
            # module's fixture is then made, and counted, by the first test that runs)
            why = only.args[0] if only.args else "works on the file itself"
            item.add_marker(pytest.mark.skip(reason=f"SQLite only: {why}"))
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    # before any fixture, a module's too: what they open is the test's
    item.stash[_BEFORE] = dict(_OPENED)
    yield


_BEFORE = pytest.StashKey[dict[str, int]]()
_ON_PURPOSE: set[Path] = set()  # the folders of tests that open SQLite files on purpose
_SEEN: set[Path] = set()        # SQLite files already told of


def _sqlite_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("errands.sqlite3"))


@pytest.fixture(autouse=True)
def _catalogue_choice(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[None]:
    if not _on_postgresql(request.config):
        with _stores_closed_after():
            yield
        if request.node.get_closest_marker("catalogue_free") is not None:
            before = request.node.stash.get(_BEFORE, _OPENED)
            made = _sqlite_files(tmp_path)
            if _OPENED != before or made:
                pytest.fail("marked catalogue_free, but it opened a catalogue"
                            + (f" ({made[0]})" if made else "") + ": take the mark off",
                            pytrace=False)
        return
    request.getfixturevalue("_isolated_environment")  # (first: it clears ERRANDS_ settings)
    import pg_support

    pg_support.begin()
    # the catalogue every command, window and engine of the test opens through the usual
    # choice, as a person with a shared catalogue would name it
    pg_support.location_for(tmp_path)
    try:
        with _stores_closed_after():
            yield
    finally:
        pg_support.end()
    if request.node.get_closest_marker("sqlite_too") is not None:
        _ON_PURPOSE.add(tmp_path)
    else:
        before = request.node.stash.get(_BEFORE, _OPENED)
        made = _sqlite_files(tmp_path)
        _SEEN.update(made)
        if _OPENED["sqlite"] != before["sqlite"] or made:
            pytest.fail("opened a SQLite catalogue in the PostgreSQL pass"
                        + (f" ({made[0]})" if made else "") + ": hand it ERRANDS_DATABASE_URL "
                        "(or pg_support.location_for), or mark it sqlite_only or sqlite_too",
                        pytrace=False)


@pytest.fixture(scope="module", autouse=True)
def _module_catalogues(request: pytest.FixtureRequest) -> Iterator[None]:
    """In the PostgreSQL pass, before any module-scoped fixture: the stores those open
    through ``location_for`` live on the server until the module ends."""
    if not _on_postgresql(request.config):
        yield
        return
    import pg_support

    pg_support.activate(request.getfixturevalue("postgres"))
    pg_support.begin()
    try:
        yield
    finally:
        pg_support.end()
    # a command a module's fixture started on a folder of its own (not a test's tmp_path)
    base = request.getfixturevalue("tmp_path_factory").getbasetemp()
    made = [f for f in _sqlite_files(base) if f not in _SEEN
            and not any(f.is_relative_to(folder) for folder in _ON_PURPOSE)]
    _SEEN.update(made)
    if made:
        pytest.fail(f"a SQLite catalogue appeared in the PostgreSQL pass ({made[0]}): hand "
                    "the module's commands ERRANDS_DATABASE_URL (module_catalogue)",
                    pytrace=False)


@pytest.fixture(scope="module")
def module_catalogue(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """In the PostgreSQL pass a catalogue that lives as long as the test module (for a
    module-scoped fixture's data made through commands: each test's own is dropped after
    it), as a URL for ``ERRANDS_DATABASE_URL``. None in the SQLite pass."""
    if not _on_postgresql(request.config):
        yield None
        return
    server = request.getfixturevalue("postgres")
    location = server.fresh()
    try:
        yield server.url(location.database)
    finally:
        server.drop(location)
