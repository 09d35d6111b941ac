"""The store on the chosen catalogue (a real SQLite file, or PostgreSQL in that pass):
migrations, refusals of unsafe files, concurrency, ledger."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.config import Config
from sqlalchemy import create_engine

from errands.catalog import Catalog
from errands.db.schema import Base
from errands.errors import Conflict, InvalidInput, NotFound, StoreError
from errands.migrations import HEAD, KNOWN_REVISIONS, SCRIPT_LOCATION
from errands import queries
from errands.store import Store
from pg_support import catalogue_sql, location_for

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self, now: datetime = NOW) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def doc(title: str = "Backup", **changes: object) -> dict[str, object]:
    d: dict[str, object] = {"title": title, "runner": {"kind": "command", "command": "true"},
                            "trigger": {"kind": "every", "every": "1h"}}
    d.update(changes)
    return d


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "errands.sqlite3"


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    return Catalog(Store(location_for(tmp_path)), Clock())


# ---------------------------------------------------------------- migrations

@pytest.mark.sqlite_only("the SQLite file's schema (sqlite_master); test_postgres_store "
                         "checks a server's")
def test_migrating_an_empty_database_gives_exactly_the_models_schema(db_path: Path) -> None:
    Store(db_path).close()
    engine = create_engine(f"sqlite:///{db_path}")
    with engine.connect() as conn, warnings.catch_warnings():
        # SQLAlchemy cannot reflect an index on expressions: that one is checked below
        warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based "
                                "index ix_automations_next_fire_order")
        warnings.filterwarnings("ignore", "autogenerate skipping metadata-specified "
                                "expression-based index 'ix_automations_next_fire_order'")
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}),
                                Base.metadata)
        version = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
        order = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE name = "
                                     "'ix_automations_next_fire_order'").scalar()
    assert diff == []
    assert order is not None and "(next_fire_at IS NULL), next_fire_at, lower(title), id" in order
    assert version == HEAD


@pytest.mark.catalogue_free
def test_head_constant_matches_the_migration_scripts() -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPT_LOCATION))
    script = ScriptDirectory.from_config(cfg)
    assert script.get_current_head() == HEAD
    assert {r.revision for r in script.walk_revisions()} == set(KNOWN_REVISIONS)


@pytest.mark.sqlite_only("SQLite's PRAGMAs")
def test_wal_and_foreign_keys_are_on(catalog: Catalog) -> None:
    with catalog.store.db.read() as s:
        assert s.connection().exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert s.connection().exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


# ------------------------------------------------------- files we must refuse

@pytest.mark.sqlite_only("a file that is not a SQLite database")
def test_corrupt_file_is_refused_and_left_untouched(db_path: Path) -> None:
    db_path.write_bytes(b"this is not a database at all" * 100)
    before = db_path.read_bytes()
    with pytest.raises(StoreError) as info:
        Store(db_path)
    assert info.value.code == "corrupt"
    assert "untouched" in info.value.message
    assert db_path.read_bytes() == before


@pytest.mark.sqlite_only("damaged SQLite file bytes")
def test_damaged_sqlite_file_is_refused(db_path: Path) -> None:
    Store(db_path).close()
    data = bytearray(db_path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # wreck the schema page, keep the header
    db_path.write_bytes(bytes(data))
    before = db_path.read_bytes()
    with pytest.raises(StoreError) as info:
        Store(db_path)
    assert info.value.code == "corrupt"
    assert db_path.read_bytes() == before


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    location = location_for(tmp_path)
    Store(location).close()
    catalogue_sql(location, "UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(StoreError) as info:
        Store(location)
    assert info.value.code == "newer_version"
    assert catalogue_sql(location, "SELECT version_num FROM alembic_version") == [("9999",)]


@pytest.mark.sqlite_only("a SQLite file another program made; test_postgres_store "
                         "refuses a server's")
def test_someone_elses_database_is_refused(db_path: Path) -> None:
    with sqlite3.connect(db_path) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER)")
    with pytest.raises(StoreError) as info:
        Store(db_path)
    assert info.value.code == "foreign"


@pytest.mark.sqlite_only("another program holding the SQLite file's write lock")
def test_locked_database_gives_a_clear_error_and_loses_nothing(db_path: Path) -> None:
    catalog = Catalog(Store(db_path, busy_ms=200), Clock())
    first, _ = catalog.create(doc("first"))
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreError) as info:
            catalog.create(doc("second"))
        assert info.value.code == "locked"
        assert "locked" in info.value.message
        assert [a.title for a in catalog.store.list()] == ["first"]  # reads still work
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    catalog.create(doc("second"))
    assert [a.title for a in catalog.store.list()] == ["first", "second"]


WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from errands.catalog import Catalog
    from errands.db.location import database_location
    from errands.store import Store
    catalog = Catalog(Store(database_location(Path(sys.argv[1]))))
    for i in range(int(sys.argv[3])):
        a, _ = catalog.create({"title": f"{sys.argv[2]}-{i}",
                               "runner": {"kind": "command", "command": "true"},
                               "trigger": {"kind": "manual"}})
        catalog.set_paused(a.id, True)
""")


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    location = location_for(tmp_path)  # (the writers choose it as commands do)
    Store(location).close()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), name, "40"],
                              stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    store = Store(location)
    titles = sorted(a.title for a in store.list())
    assert titles == sorted(f"{n}-{i}" for n in "ab" for i in range(40))
    assert all(a.revision == 2 and a.status == "paused" for a in store.list())
    if isinstance(location, Path):
        assert catalogue_sql(location, "PRAGMA integrity_check") == [("ok",)]
    assert catalogue_sql(location, "SELECT count(*) FROM revisions") == [(160,)]
    assert catalogue_sql(location, "SELECT count(*) FROM audit") == [(160,)]


# ------------------------------------------------- catalogue and revisions

def test_idempotent_creation(catalog: Catalog) -> None:
    a, created = catalog.create(doc(), request_id="req-1")
    b, created_again = catalog.create(doc(), request_id="req-1")
    assert created and not created_again
    assert a.id == b.id and b.revision == 1
    with pytest.raises(Conflict) as info:
        catalog.create(doc("Other"), request_id="req-1")
    assert info.value.code == "identity_conflict" and info.value.exit_code == 4
    assert len(catalog.store.list()) == 1


def test_revisions_and_audit_trail(catalog: Catalog) -> None:
    a, _ = catalog.create(doc())
    same, changed = catalog.revise(a.id, a.definition.to_dict())
    assert not changed and same.revision == 1
    d = a.definition.to_dict()
    d["title"] = "Renamed"
    b, changed = catalog.revise(a.id, d)
    assert changed and b.revision == 2 and b.title == "Renamed"
    catalog.set_paused(a.id, True)
    catalog.set_paused(a.id, True)  # already paused: no new revision
    c = catalog.set_paused(a.id, False)
    assert c.revision == 4 and c.status == "active"
    revisions = catalog.store.revision_docs(a.id)
    assert [r for r, _, _ in revisions] == [1, 2, 3, 4]
    assert [d.get("paused", False) for _, d, _ in revisions] == [False, False, True, False]
    assert [(e.action, e.revision) for e in catalog.store.audit(a.id)] == [
        ("created", 1), ("revised", 2), ("paused", 3), ("resumed", 4)]
    assert catalog.store.audit(a.id)[1].detail == {"fields": ["title"]}


def test_pause_clears_and_resume_rearms_from_the_future(catalog: Catalog) -> None:
    clock = catalog.clock
    assert isinstance(clock, Clock)
    a, _ = catalog.create(doc())
    assert a.next_fire_at == NOW  # a grid starting now fires now
    p = catalog.set_paused(a.id, True)
    assert p.next_fire_at is None and p.status == "paused" and p.paused_at == NOW
    clock.now = NOW + timedelta(hours=5, minutes=10)
    r = catalog.set_paused(a.id, False)
    assert r.next_fire_at == NOW + timedelta(hours=6)  # the next grid tick, no catch-up


def test_invalid_revision_keeps_what_is_stored(catalog: Catalog) -> None:
    a, _ = catalog.create(doc())
    bad = a.definition.to_dict()
    bad["trigger"] = {"kind": "cron", "expression": "61 * * * *"}
    with pytest.raises(InvalidInput):
        catalog.revise(a.id, bad)
    assert catalog.store.get(a.id) == a


def test_delete_keeps_the_audit_trail(catalog: Catalog) -> None:
    a, _ = catalog.create(doc())
    catalog.delete(a.id)
    with pytest.raises(NotFound):
        catalog.store.get(a.id)
    assert [e.action for e in catalog.store.audit(a.id)] == ["created", "deleted"]


def test_id_prefixes(catalog: Catalog) -> None:
    a, _ = catalog.create(doc())
    assert catalog.store.resolve_id(a.id[:8]) == a.id
    with pytest.raises(NotFound):
        catalog.store.resolve_id("zzzzzzzz")


# ------------------------------------------------------------- run ledger

def test_run_ledger_paging_is_stable_and_newest_first(catalog: Catalog) -> None:
    a, _ = catalog.create(doc())
    store = catalog.store
    with store.transaction() as s:
        row = store.get_in(s, a.id)
        for i in range(120):
            store.insert_run_in(s, row, slot=f"sched:{i}", trigger="schedule", state="succeeded",
                                now=NOW, scheduled_for=NOW + timedelta(hours=i),
                                result=f"run {i + 1}")
    page, cursor = store.runs_page(a.id, limit=50)
    assert [r.index for r in page] == list(range(120, 70, -1))
    assert cursor == "r71"
    with store.transaction() as s:  # a new run arriving does not shift the next page
        store.insert_run_in(s, store.get_in(s, a.id), slot="manual:x", trigger="manual",
                            state="scheduled", now=NOW, scheduled_for=None)
    page2, cursor2 = store.runs_page(a.id, limit=50, cursor=cursor)
    assert [r.index for r in page2] == list(range(70, 20, -1))
    page3, cursor3 = store.runs_page(a.id, limit=50, cursor=cursor2)
    assert [r.index for r in page3] == list(range(20, 0, -1)) and cursor3 is None
    assert page3[-1].result == "run 1" and page3[-1].scheduled_for == NOW
    with pytest.raises(InvalidInput) as info:
        store.runs_page(a.id, cursor="bogus")
    assert info.value.field == "cursor"


def test_a_slot_can_be_claimed_once(catalog: Catalog) -> None:
    from sqlalchemy.exc import IntegrityError

    a, _ = catalog.create(doc())
    store = catalog.store
    with store.transaction() as s:
        store.insert_run_in(s, store.get_in(s, a.id), slot="sched:2026-12-02T10:00:00Z",
                            trigger="schedule", state="running", now=NOW, scheduled_for=NOW)
    with pytest.raises(IntegrityError):
        with store.transaction() as s:
            store.insert_run_in(s, store.get_in(s, a.id), slot="sched:2026-12-02T10:00:00Z",
                                trigger="schedule", state="running", now=NOW, scheduled_for=NOW)
    assert store.count_runs(a.id) == 1
    assert store.get(a.id).definition == a.definition


def test_run_record_round_trips_every_field(catalog: Catalog) -> None:
    a, _ = catalog.create(doc())
    store = catalog.store
    with store.transaction() as s:
        row = store.insert_run_in(
            s, store.get_in(s, a.id), slot="sched:x", trigger="catch_up", state="skipped",
            now=NOW, scheduled_for=NOW, skip_reason="app_not_running", missed_count=7,
            missed_first=NOW - timedelta(hours=7), missed_last=NOW - timedelta(hours=1),
            error_code="timeout", error_message="took too long", result="r", dry_run=True,
            prompt_tokens=10, completion_tokens=5, session_id="s1")
        run_id = row.id
    run = store.get_run(run_id).to_dict()
    assert run["missed_count"] == 7 and run["missed_first"] == "2026-12-02T03:00:00Z"
    assert run["error"] == {"code": "timeout", "message": "took too long"}
    assert run["usage"] == {"prompt_tokens": 10, "completion_tokens": 5}
    assert run["index"] == 1 and run["revision"] == 1 and run["dry_run"] is True
    catalog.delete(a.id)
    with pytest.raises(NotFound):
        store.get_run(run_id)


def test_attention_items(catalog: Catalog) -> None:
    store = catalog.store
    with store.transaction() as s:
        for i in range(3):
            store.add_attention_in(s, kind="failure", title=f"t{i}", body=None, now=NOW)
    assert len(store.attention(unread_only=True)) == 3
    first = store.attention()[0]
    assert store.mark_attention_read(first.id) == 1
    assert len(store.attention(unread_only=True)) == 2
    assert store.mark_attention_read() == 2
    assert store.attention(unread_only=True) == []
    with pytest.raises(NotFound):
        store.mark_attention_read(999)


def test_settings_stored_and_overridden(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    store = catalog.store
    assert store.settings().min_interval == timedelta(seconds=60)
    assert store.set_setting("min_interval", "3600s") == "1h"
    assert store.settings().min_interval == timedelta(hours=1)
    monkeypatch.setenv("ERRANDS_MIN_INTERVAL", "1s")
    assert store.settings().min_interval == timedelta(seconds=1)
    assert store.settings().source("min_interval") == "environment"
    with pytest.raises(InvalidInput) as info:
        store.set_setting("concurrency", "0")
    assert info.value.field == "concurrency"
    with pytest.raises(InvalidInput):
        store.set_setting("colour", "red")


# ------------------------------------------------------- damaged timestamps cost one row

_GARBAGE = st.one_of(st.text(max_size=30), st.integers(min_value=-2**63, max_value=2**63 - 1),
                     st.floats(allow_nan=False), st.binary(max_size=20),  # NaN is stored as NULL
                     st.sampled_from(["2026-13-45 99:99:99", "0001-01-01", "9999-12-31 24:00:00",
                                      "2026-12-02T10:00:00+05:00", ""]))
_AUTOMATION_INSTANTS = ["next_fire_at", "paused_at", "last_finished_at", "created_at",
                        "updated_at"]
_RUN_INSTANTS = ["scheduled_for", "started_at", "finished_at", "missed_first", "missed_last",
                 "retry_at", "created_at"]


@pytest.mark.sqlite_only("SQLite keeps any value in an instant column; PostgreSQL's "
                         "timestamp refuses what is not one")
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(column=st.sampled_from(_AUTOMATION_INSTANTS), run_column=st.sampled_from(_RUN_INSTANTS),
       value=_GARBAGE)
def test_a_damaged_timestamp_costs_its_own_row_and_a_repair_mends_it(
        tmp_path_factory: pytest.TempPathFactory, column: str, run_column: str,
        value: object) -> None:
    path = tmp_path_factory.mktemp("db") / "errands.sqlite3"
    catalog = Catalog(Store(path), Clock())
    good, _ = catalog.create(doc("Good"))
    bad, _ = catalog.create(doc("Bad"))
    store = catalog.store
    with store.transaction() as s:
        run_id = store.insert_run_in(s, store.get_in(s, bad.id), slot="sched:x",
                                     trigger="schedule", state="running", now=NOW,
                                     scheduled_for=NOW).id
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE automations SET {column} = ? WHERE id = ?", (value, bad.id))
        conn.execute(f"UPDATE runs SET {run_column} = ? WHERE id = ?", (value, run_id))
    conn.close()
    listed = {a.title: a for a in store.list()}  # never raises: the damaged row costs itself
    assert listed["Good"].status == "active" and listed["Good"].next_fire_at is not None
    damaged = listed["Bad"]
    if damaged.status == "broken":  # some values still read as an instant
        assert f"the stored {column} " in (damaged.problem or "")
        assert damaged.definition is None and damaged.next_fire_at is None
    runs, _ = store.runs_page(bad.id)
    assert [r.id for r in runs] == [run_id] and store.active_runs()[0].id == run_id
    if runs[0].error_code == "unreadable":
        assert run_column in (runs[0].error_message or "")
        assert getattr(runs[0], run_column) is None

    repaired, changed = catalog.revise(bad.id, doc("Bad again"))
    assert changed and repaired.status == "active" and repaired.problem is None
    assert repaired.created_at is not None and repaired.next_fire_at is not None
    assert store.get(bad.id).status == "active" and store.get(good.id).revision == 1


@pytest.mark.sqlite_only("upgrades an old SQLite file")
def test_0005_counts_the_runs_toward_max_runs_from_the_history(tmp_path: Path) -> None:
    """Upgrading a 0004 database: each automation's counted runs are its finished runs that
    were neither run by hand nor dry runs."""
    from alembic import command

    path = tmp_path / "old.sqlite3"
    engine = create_engine(f"sqlite:///{path}")
    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPT_LOCATION))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0004")
        conn.exec_driver_sql(
            "INSERT INTO automations (id, title, definition, revision, status, failure_streak, "
            "run_count, last_index, created_at, updated_at) VALUES ('a1', 'old', "
            "'{\"title\": \"old\", \"runner\": {\"kind\": \"command\", \"command\": \"true\"}, "
            "\"trigger\": {\"kind\": \"every\", \"every\": \"1h\", \"start_at\": "
            "\"2026-01-01T00:00:00Z\"}, \"stop\": {\"max_runs\": 9}}', 1, 'active', 0, 5, 6, "
            "'2026-01-01 00:00:00', '2026-01-01 00:00:00')")
        rows = [("schedule", "succeeded", 0), ("schedule", "failed", 0), ("manual", "succeeded", 0),
                ("catch_up", "succeeded", 0), ("schedule", "skipped", 0), ("manual", "succeeded", 1)]
        for index, (trigger, state, dry) in enumerate(rows, 1):
            conn.exec_driver_sql(
                "INSERT INTO runs (id, automation_id, \"index\", slot, revision, \"trigger\", "
                "state, attempt, dry_run, created_at) VALUES (?, 'a1', ?, ?, 1, ?, ?, 1, ?, "
                "'2026-01-01 00:00:00')", (f"r{index}", index, f"s:{index}", trigger, state, dry))
    engine.dispose()
    store = Store(path)
    try:
        [automation] = store.list()
        assert (automation.run_count, automation.counted_runs) == (5, 3)
    finally:
        store.close()


@pytest.mark.sqlite_only("upgrades an old SQLite file")
def test_upgrading_a_populated_0001_database_keeps_every_row(tmp_path: Path) -> None:
    """A database written before sessions, messages and blockers existed migrates in place:
    its automations, runs (a parked one among them) and audit trail survive, and the parked
    run can be given a blocker afterwards."""
    from alembic import command

    from errands.records import Blocker

    path = tmp_path / "old.sqlite3"
    engine = create_engine(f"sqlite:///{path}")
    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPT_LOCATION))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        conn.exec_driver_sql(
            "INSERT INTO automations (id, title, definition, revision, status, failure_streak, "
            "run_count, last_index, created_at, updated_at) VALUES ('a1', 'old', "
            "'{\"title\": \"old\", \"runner\": {\"kind\": \"command\", \"command\": \"true\"}, "
            "\"trigger\": {\"kind\": \"manual\"}}', 1, 'active', 0, 0, 2, "
            "'2026-01-01 00:00:00', '2026-01-01 00:00:00')")
        for index, state in ((1, "succeeded"), (2, "awaiting_input")):
            conn.exec_driver_sql(
                "INSERT INTO runs (id, automation_id, \"index\", slot, revision, \"trigger\", "
                "state, attempt, dry_run, created_at) VALUES (?, 'a1', ?, ?, 1, 'manual', ?, 1, "
                "0, '2026-01-01 00:00:00')", (f"r{index}", index, f"manual:{index}", state))
        conn.exec_driver_sql(
            "INSERT INTO revisions (automation_id, revision, definition, created_at) VALUES "
            "('a1', 1, (SELECT definition FROM automations WHERE id = 'a1'), "
            "'2026-01-01 00:00:00')")
        for action, detail in (("created", None), ("paused", '{"reason": "by hand"}'),
                               ("resumed", None)):
            conn.exec_driver_sql(
                "INSERT INTO audit (automation_id, action, revision, actor, detail, at) VALUES "
                "('a1', ?, 1, 'user', ?, '2026-01-01 00:00:00')", (action, detail))
    engine.dispose()
    store = Store(path)
    try:
        assert [a.title for a in store.list()] == ["old"]
        runs, _ = store.runs_page("a1")
        assert [(r.index, r.state) for r in runs] == [(2, "awaiting_input"), (1, "succeeded")]
        assert store.parked() == []  # no blocker was recorded before 0002
        revisions, audit = queries.history(store, "a1")
        assert [r.revision for r in revisions] == [1]
        assert [(e.action, e.actor, e.detail) for e in audit] == [
            ("created", "user", None), ("paused", "user", {"reason": "by hand"}),
            ("resumed", "user", None)]
        with store.transaction() as s:
            store.add_blocker_in(s, "r2", Blocker(kind="question", question="go on?"),
                                 now=datetime(2026, 1, 2, tzinfo=timezone.utc),
                                 expires_at=datetime(2026, 1, 3, tzinfo=timezone.utc))
        [parked] = store.parked()
        assert parked.run_id == "r2" and parked.blocker.question == "go on?"
    finally:
        store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (HEAD,)


@pytest.mark.sqlite_only("a new SQLite file's migration lock (the .migrating file beside it)")
def test_processes_opening_a_new_database_at_once_all_get_it_migrated(tmp_path: Path) -> None:
    """Several commands started together on a new data folder: one migrates, the others
    wait for it (instead of timing out on SQLite's write lock), and every one can write."""
    path = tmp_path / "new.sqlite3"
    code = textwrap.dedent(f"""
        import sys
        from datetime import datetime, timezone
        from errands.catalog import Catalog
        from errands.store import Store
        from pathlib import Path
        store = Store(Path({str(path)!r}))
        Catalog(store, lambda: datetime(2026, 12, 3, tzinfo=timezone.utc)).create(
            {{"title": "t" + sys.argv[1], "runner": {{"kind": "command", "command": "true"}},
             "trigger": {{"kind": "manual"}}}})
        store.close()
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, str(i)], stderr=subprocess.PIPE,
                              text=True) for i in range(6)]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, errors
    store = Store(path)
    try:
        assert sorted(a.title for a in store.list()) == [f"t{i}" for i in range(6)]
    finally:
        store.close()
    side = path.with_name(path.name + ".migrating")
    assert side.exists() and side.stat().st_mode & 0o777 == 0o600
