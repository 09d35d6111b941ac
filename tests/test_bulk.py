"""The driver-level burst path writes exactly what the ORM writes, and refuses stale plans."""

from __future__ import annotations

import os
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy.exc import IntegrityError

from errands.catalog import Catalog
from errands.db.bulk import (Cursor, StaleCursor, insert_rows, naive_utc, sqlite_instant,
                             write_cursors)
from errands.db.schema import RunRow
from errands.store import Store, new_id
from pg_support import catalogue_sql, location_for

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=timezone.utc)


def make(tmp_path: Path) -> tuple[Store, str]:
    store = Store(location_for(tmp_path))
    automation, _ = Catalog(store, lambda: NOW).create(
        {"title": "t", "runner": {"kind": "command", "command": "true"},
         "trigger": {"kind": "every", "every": "1h"}})
    return store, automation.id


@pytest.mark.parametrize("instant", [
    NOW,
    datetime(2026, 3, 29, 2, 30, 0, 1, tzinfo=ZoneInfo("Europe/Berlin")),
    datetime(2027, 1, 1, 23, 59, 59, 999999, tzinfo=ZoneInfo("Pacific/Chatham")),
    datetime(999, 5, 6, 7, 8, 9, tzinfo=timezone(timedelta(hours=-3))),
    datetime(2026, 10, 25, 2, 30, tzinfo=ZoneInfo("Europe/Berlin")),           # the fold,
    datetime(2026, 10, 25, 2, 30, fold=1, tzinfo=ZoneInfo("Europe/Berlin")),   # both passes
])
def test_instants_are_stored_as_the_orm_stores_them(tmp_path: Path, instant: datetime) -> None:
    store, automation_id = make(tmp_path)
    with store.transaction() as s:
        store.insert_run_in(s, store.get_in(s, automation_id), slot="orm", trigger="schedule",
                            state="skipped", now=instant, scheduled_for=instant)
    [(stored,)] = catalogue_sql(store.db.location, "SELECT created_at FROM runs")
    # what the driver-level path writes: SQLite's text, or PostgreSQL's naive UTC timestamp
    convert = sqlite_instant if isinstance(store.db.location, Path) else naive_utc
    assert convert(instant) == stored
    for converter in (sqlite_instant, naive_utc):
        with pytest.raises(ValueError):
            converter(instant.replace(tzinfo=None))


def test_bulk_rows_equal_orm_rows_column_for_column(tmp_path: Path) -> None:
    store, automation_id = make(tmp_path)
    values = dict(trigger="catch_up", state="scheduled", now=NOW,
                  scheduled_for=NOW - timedelta(minutes=3), missed_count=4,
                  missed_first=NOW - timedelta(hours=4), missed_last=NOW - timedelta(hours=1))
    with store.transaction() as s:
        row = store.get_in(s, automation_id)
        store.insert_run_in(s, row, slot="orm", **values)
        bulk: list[dict[str, object]] = []
        store.insert_run_in(s, row, slot="bulk", bulk=bulk, **values)
        store.insert_run_in(s, row, slot="bulk-dry", bulk=bulk, dry_run=True, **values)
        insert_rows(s, RunRow.__table__, bulk)
    rows = catalogue_sql(store.db.location, 'SELECT * FROM runs ORDER BY "index"')
    names = [c.name for c in RunRow.__table__.columns]
    orm, fast, dry = (dict(zip(names, r)) for r in rows)
    differ = {"id", "slot", "index", "dry_run"}
    assert {k: v for k, v in orm.items() if k not in differ} == \
        {k: v for k, v in fast.items() if k not in differ}
    assert (orm["index"], fast["index"], dry["index"]) == (1, 2, 3)
    assert (orm["dry_run"], fast["dry_run"], dry["dry_run"]) == (False, False, True)
    # defaults, as the ORM applies them (a json column's text on SQLite, its value on PostgreSQL)
    assert fast["attempts"] == ("[]" if isinstance(store.db.location, Path) else [])
    assert fast["attempt"] == 1
    runs = {r.id: r for r in store.runs_page(automation_id)[0]}
    assert {r.scheduled_for for r in runs.values()} == {NOW - timedelta(minutes=3)}


def test_a_claimed_slot_is_refused_through_the_driver_too(tmp_path: Path) -> None:
    store, automation_id = make(tmp_path)
    with store.transaction() as s:
        store.insert_run_in(s, store.get_in(s, automation_id), slot="sched:x",
                            trigger="schedule", state="scheduled", now=NOW, scheduled_for=NOW)
    with pytest.raises(IntegrityError):
        with store.transaction() as s:
            bulk: list[dict[str, object]] = []
            store.insert_run_in(s, store.get_in(s, automation_id), slot="sched:x",
                                trigger="schedule", state="scheduled", now=NOW,
                                scheduled_for=NOW, bulk=bulk)
            insert_rows(s, RunRow.__table__, bulk)
    assert store.count_runs(automation_id) == 1


def test_cursor_writes_refuse_a_row_that_changed_since_planning(tmp_path: Path) -> None:
    store, automation_id = make(tmp_path)
    a = store.get(automation_id)
    fresh = Cursor(a.id, a.status, a.next_fire_at, a.revision, a.last_index)
    fresh.next_fire_at = NOW + timedelta(hours=5)
    with store.transaction() as s:
        write_cursors(s, [fresh])
    assert store.get(automation_id).next_fire_at == NOW + timedelta(hours=5)

    stale = Cursor(a.id, a.status, a.next_fire_at, a.revision, a.last_index)  # planned before
    stale.next_fire_at = NOW + timedelta(hours=9)
    with pytest.raises(StaleCursor, match="1 of 1"):
        with store.transaction() as s:
            write_cursors(s, [stale])
    assert store.get(automation_id).next_fire_at == NOW + timedelta(hours=5)


@pytest.mark.catalogue_free
def test_ids_are_random_version_4_uuids(tmp_path: Path) -> None:
    ids = [new_id() for _ in range(20_000)]
    assert len(set(ids)) == len(ids)
    assert all(str(uuid.UUID(i)) == i and uuid.UUID(i).version == 4 for i in ids[:2000])


@pytest.mark.catalogue_free
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_never_repeats_its_parents_ids() -> None:
    new_id()  # the pool now holds unused entropy that a child would inherit
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.write(write, new_id().encode())
        os._exit(0)
    os.close(write)
    child_id = os.read(read, 64).decode()
    os.close(read)
    os.waitpid(pid, 0)
    assert child_id and child_id != new_id()


@pytest.mark.sqlite_only("SQLite's write-ahead log")
def test_checkpoint_moves_the_log_into_the_file(tmp_path: Path) -> None:
    store, automation_id = make(tmp_path)
    path = tmp_path / "errands.sqlite3"
    with store.transaction() as s:
        row = store.get_in(s, automation_id)
        for i in range(300):
            store.insert_run_in(s, row, slot=f"s{i}", trigger="schedule", state="skipped",
                                now=NOW, scheduled_for=NOW, output_tail="x" * 2000)
    before = path.stat().st_size
    store.checkpoint()
    assert path.stat().st_size > before + 300 * 2000
    store.close()
