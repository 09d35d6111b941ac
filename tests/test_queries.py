"""The sidebar's summaries on the chosen catalogue (a real SQLite file, or PostgreSQL in
that pass): filters, sorts, pages, the last run, broken rows (a definition or an instant
that does not read) costing only themselves."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from errands import queries
from errands.catalog import Catalog
from errands.errors import InvalidInput
from errands import store as store_module
from errands.store import Store
from pg_support import catalogue_sql, location_for

NOW = datetime(2026, 12, 3, 8, 0, tzinfo=timezone.utc)


def doc(title: str, trigger: dict[str, Any]) -> dict[str, Any]:
    return {"title": title, "runner": {"kind": "command", "command": "true"}, "trigger": trigger}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(location_for(tmp_path))
    catalog = Catalog(s, lambda: NOW)
    catalog.create(doc("Zeta hourly", {"kind": "every", "every": "1h"}))
    catalog.create(doc("alpha_100% daily", {"kind": "cron", "expression": "0 9 * * *",
                                            "timezone": "Europe/Berlin"}))
    catalog.create(doc("Manual report", {"kind": "manual"}))
    paused, _ = catalog.create(doc("Paused poll", {"kind": "every", "every": "2h"}))
    catalog.set_paused(paused.id, True)
    return s


def titles(items: list[queries.Summary]) -> list[str]:
    return [i.title for i in items]


def test_sorts_filters_and_pages(store: Store) -> None:
    by_fire, total = queries.summaries(store)
    assert total == 4
    assert titles(by_fire)[-2:] == ["Manual report", "Paused poll"]  # no next fire: last
    by_title, _ = queries.summaries(store, sort="title")
    assert titles(by_title) == ["alpha_100% daily", "Manual report", "Paused poll",
                                "Zeta hourly"]
    page, total = queries.summaries(store, sort="title", offset=1, limit=2)
    assert titles(page) == ["Manual report", "Paused poll"] and total == 4
    assert titles(queries.summaries(store, text="100%")[0]) == ["alpha_100% daily"]
    assert titles(queries.summaries(store, text="_")[0]) == ["alpha_100% daily"]  # literal
    assert queries.summaries(store, text="nothing")[1] == 0
    paused, count = queries.summaries(store, status="paused")
    assert titles(paused) == ["Paused poll"] and count == 1
    hourly = {s.title: s for s in by_fire}["Zeta hourly"]
    assert hourly.schedule and hourly.runner == "command" and hourly.next_fire_at is not None
    assert hourly.last_state is None and hourly.parked == 0 and not hourly.running


def test_the_last_run_and_last_run_sort(store: Store) -> None:
    ids = {s.title: s.id for s in queries.summaries(store)[0]}
    for title, state, finished in (("Manual report", "failed", "2026-12-03 07:00:00.000000"),
                                   ("Zeta hourly", "succeeded", "2026-12-03 07:30:00.000000")):
        catalogue_sql(store.db.location, 'INSERT INTO runs (id, automation_id, "index", slot, '
                      'revision, "trigger", state, attempt, dry_run, created_at, finished_at) '
                      "VALUES (:id, :automation, 1, 'm:1', 1, 'manual', :state, 1, FALSE, "
                      ":finished, :finished)", id=f"run-{title}", automation=ids[title],
                      state=state, finished=finished)
        catalogue_sql(store.db.location, "UPDATE automations SET last_index = 1, "
                      "last_finished_at = :finished WHERE id = :id", finished=finished,
                      id=ids[title])
    items = {s.title: s for s in queries.summaries(store)[0]}
    assert items["Manual report"].last_state == "failed"
    assert items["Zeta hourly"].last_at == datetime(2026, 12, 3, 7, 30, tzinfo=timezone.utc)
    assert titles(queries.summaries(store, sort="last_run")[0])[:2] == ["Zeta hourly",
                                                                       "Manual report"]


@pytest.mark.sqlite_only("stores text that is neither JSON nor an instant, which "
                         "PostgreSQL's json and timestamp columns refuse")
def test_broken_rows_are_listed_as_broken_and_cost_only_themselves(store: Store) -> None:
    ids = {s.title: s.id for s in queries.summaries(store)[0]}
    with sqlite3.connect(store.db.path) as conn:
        conn.execute("UPDATE automations SET definition = '{not json', revision = 9 "
                     "WHERE id = ?", (ids["Zeta hourly"],))
        conn.execute("UPDATE automations SET next_fire_at = 'soon' WHERE id = ?",
                     (ids["alpha_100% daily"],))
    items = {s.title: s for s in queries.summaries(store)[0]}
    assert items["Zeta hourly"].status == "broken"
    assert "not JSON" in items["Zeta hourly"].schedule
    assert items["alpha_100% daily"].status == "broken"
    assert "'soon' is not an instant" in items["alpha_100% daily"].schedule
    assert items["Manual report"].status == "active"
    broken, count = queries.summaries(store, status="broken", sort="title")
    assert titles(broken) == ["alpha_100% daily", "Zeta hourly"] and count == 2


@pytest.mark.sqlite_only("SQLite keeps any value in an instant column; PostgreSQL's "
                         "timestamp refuses what is not one")
@pytest.mark.parametrize("column", ["paused_at", "last_finished_at", "created_at",
                                    "updated_at"])
@pytest.mark.parametrize("value", ["yesterday", 7, "2026-12-03T08:00:00"])
def test_an_unshown_instant_that_does_not_read_breaks_only_its_row(
        store: Store, column: str, value: Any) -> None:
    """The list never shows these four instants, yet a row whose stored one is not an
    instant is broken (the engine will not load it): the listing must say so too."""
    ids = {s.title: s.id for s in queries.summaries(store)[0]}
    with sqlite3.connect(store.db.path) as conn:
        conn.execute(f"UPDATE automations SET {column} = ? WHERE id = ?",
                     (value, ids["Manual report"]))
    items = {s.title: s for s in queries.summaries(store)[0]}
    row = items["Manual report"]
    if value == "2026-12-03T08:00:00":  # another spelling of an instant still reads
        assert row.status == "active"
    else:
        assert row.status == "broken" and row.runner is None
        assert f"the stored {column} {value!r} is not an instant" in row.schedule
    assert all(items[t].status == "active" for t in ("Zeta hourly", "alpha_100% daily"))
    assert items["Paused poll"].status == "paused"


_INSTANT_COLUMNS = ("next_fire_at", "paused_at", "last_finished_at", "created_at", "updated_at")
_INSTANTS = st.one_of(
    st.none(), st.integers(-10, 10**12), st.floats(allow_nan=False), st.binary(max_size=8),
    st.text(max_size=30),
    # the stored form's length and layout, with any of the characters it is made of
    st.text(alphabet="0123456789-: .+TZ", min_size=19, max_size=19),
    st.text(alphabet="0123456789-: .+TZ", min_size=26, max_size=26),
    st.datetimes().map(lambda d: d.isoformat(sep=" ")),
    st.datetimes().map(lambda d: d.isoformat()),
    st.datetimes().map(lambda d: d.isoformat(sep=" ", timespec="microseconds") + "Z"),
    st.sampled_from(["2026-12-03 08:00:00", "2026-12-03 08:00:00.123456", "2026-02-30 08:00:00",
                     "2026-12-03 24:00:00", "0000-01-01 00:00:00", "2026-12-03 08:00:00garbage",
                     "2026-12-03 08:00:00 ", "2026-12-03 08:00:00.1", "20261203", "now",
                     "2026-12-03T08:00:00", "2026-12-03 08:00:00+05:00", "9999-12-31 23:59:59"]))


@pytest.mark.sqlite_only("SQLite keeps any value in an instant column; PostgreSQL's "
                         "timestamp refuses what is not one")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(column=st.sampled_from(_INSTANT_COLUMNS), value=_INSTANTS)
def test_the_listing_calls_a_row_broken_exactly_when_the_store_cannot_read_it(
        store: Store, column: str, value: Any) -> None:
    """Whatever a hand edit or a damaged file left in an instant column, the sidebar line
    and the engine's own read agree on whether the automation is broken."""
    assume(value is not None or column not in ("created_at", "updated_at"))  # NOT NULL
    target = queries.summaries(store, text="Manual")[0][0]
    with sqlite3.connect(store.db.path) as conn:
        before = conn.execute(f"SELECT {column} FROM automations WHERE id = ?",
                              (target.id,)).fetchone()[0]
        conn.execute(f"UPDATE automations SET {column} = ? WHERE id = ?", (value, target.id))
    try:
        [line] = queries.summaries(store, ids=[target.id])[0]
        stored = store.get(target.id)
        assert (line.status == "broken") == (stored.problem is not None), (line, stored)
        if stored.problem is None and column == "next_fire_at":
            assert line.next_fire_at == stored.next_fire_at
        assert queries.summaries(store)[1] == 4  # one bad row costs only itself
    finally:
        with sqlite3.connect(store.db.path) as conn:
            conn.execute(f"UPDATE automations SET {column} = ? WHERE id = ?",
                         (before, target.id))


@pytest.mark.sqlite_only("bytes that are not UTF-8 stored as text, which PostgreSQL refuses")
@pytest.mark.logs("some stored text is not UTF-8")
def test_text_that_is_not_utf8_costs_only_its_row(store: Store) -> None:
    """A hand edit can leave bytes that are not UTF-8: the row is listed with U+FFFD for
    them (broken where an instant is one of them), and the engine's full read loads every
    automation rather than none."""
    ids = {s.title: s.id for s in queries.summaries(store)[0]}
    with sqlite3.connect(store.db.path) as conn:
        conn.execute("UPDATE automations SET title = CAST(x'4f64646c79ff' AS TEXT) WHERE id = ?",
                     (ids["Zeta hourly"],))
        conn.execute("UPDATE automations SET paused_at = CAST(x'32303236ff' AS TEXT) "
                     "WHERE id = ?", (ids["Manual report"],))
    items = {s.id: s for s in queries.summaries(store)[0]}
    assert len(items) == 4
    odd = items[ids["Zeta hourly"]]
    assert odd.title == "Oddly\ufffd" and odd.status == "active"
    assert items[ids["Manual report"]].status == "broken"
    assert "paused_at" in items[ids["Manual report"]].schedule
    assert items[ids["alpha_100% daily"]].status == "active"
    loaded = {a.id: a for a in store.list()}
    assert loaded[ids["Zeta hourly"]].title == "Oddly\ufffd"
    assert store.get(ids["Zeta hourly"]) == loaded[ids["Zeta hourly"]]  # its detail opens
    assert loaded[ids["Manual report"]].problem is not None
    assert loaded[ids["alpha_100% daily"]].problem is None
    # the lenient reading was for those reads only: the next strict one still refuses
    with store.db.read() as s:
        assert s.connection().connection.driver_connection.text_factory is str


@pytest.mark.sqlite_only("SQLite's query plans and its partial index of misshapen instants")
def test_the_listing_reads_its_indexes_instead_of_every_row(store: Store) -> None:
    """Checking four instants of ten thousand rows on every listing cost a fifth of it; the
    partial index holds only the rows that fail. The default order is read from an index
    rather than sorted. A drifted expression would silently lose either."""
    with sqlite3.connect(store.db.path) as conn:
        misshapen = conn.execute("EXPLAIN QUERY PLAN " + queries._MISSHAPEN).fetchall()
        ordered = conn.execute("EXPLAIN QUERY PLAN SELECT a.id FROM automations a WHERE 1 "
                               f"ORDER BY {queries._ORDER['next_fire']} LIMIT 100").fetchall()
    assert any("ix_automations_misshapen" in str(step) for step in misshapen), misshapen
    assert any("ix_automations_next_fire_order" in str(step) for step in ordered), ordered
    assert not any("TEMP B-TREE" in str(step) for step in ordered), ordered


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(st.none(), st.text(max_size=30)),
       status=st.one_of(st.none(), st.sampled_from(queries.STATUSES), st.text(max_size=8)),
       sort=st.one_of(st.sampled_from(queries.SORT_KEYS), st.text(max_size=8)),
       offset=st.integers(-5, 20), limit=st.integers(-5, 20))
@example(text="a\x00", status=None, sort="title", offset=0, limit=5)  # (no NUL in PG text)
@example(text=None, status=None, sort="next_fire", offset=4, limit=1)  # a page past the end
def test_any_arguments_give_a_page_or_a_named_refusal(store: Store, text: Any, status: Any,
                                                     sort: Any, offset: int,
                                                     limit: int) -> None:
    try:
        items, total = queries.summaries(store, text=text, status=status, sort=sort,
                                         offset=offset, limit=limit)
    except InvalidInput as exc:
        assert exc.field in ("sort", "status", "limit")
        return
    assert len(items) <= limit and total >= len(items)


def _store_raw(store: Store, automation_id: str, text: str, revision: int) -> None:
    catalogue_sql(store.db.location, "UPDATE automations SET definition = :text, "
                  "revision = :revision WHERE id = :id", text=text, revision=revision,
                  id=automation_id)


@pytest.mark.sqlite_only("SQLite's json_extract preview (on PostgreSQL a preview is the "
                         "full read)")
def test_a_preview_reads_a_line_from_runner_and_trigger_and_remembers_nothing(
        store: Store) -> None:
    ids = {s.title: s.id for s in queries.summaries(store)[0]}
    bad_policy = doc("Zeta hourly", {"kind": "every", "every": "1h"}) | {
        "policy": {"retry": {"max_attempts": "many"}}}
    _store_raw(store, ids["Zeta hourly"], json.dumps(bad_policy), 7)
    bad_cron = doc("alpha_100% daily", {"kind": "cron", "expression": "61 9 * * *"})
    _store_raw(store, ids["alpha_100% daily"], json.dumps(bad_cron), 8)
    _store_raw(store, ids["Manual report"], "{not json", 9)
    preview = {s.title: s for s in queries.summaries(store, preview=True)[0]}
    # a definition broken outside runner and trigger is not seen by the preview ...
    assert preview["Zeta hourly"].status == "active"
    assert preview["Zeta hourly"].schedule.startswith("Every hour")
    # ... one broken where the line looks is, with the full parse's own words
    full = {s.title: s for s in queries.summaries(store)[0]}
    for title in ("alpha_100% daily", "Manual report"):
        assert preview[title] == full[title] and preview[title].status == "broken"
    assert "expression" in full["alpha_100% daily"].schedule
    # and nothing the preview read was kept: the engine's snapshot says what is wrong
    assert full["Zeta hourly"].status == "broken"
    assert "policy.retry.max_attempts" in full["Zeta hourly"].schedule
    assert preview["Paused poll"] == full["Paused poll"]


@pytest.mark.sqlite_only("SQLite's json_extract preview, given text a json column refuses")
@pytest.mark.parametrize("text", [
    '{"title": "Manual report", "runner": {"kind": "command", "command": "true"}, '
    '"trigger": {"kind": "every", "every": "1h"}, "weight": NaN}',           # Python's JSON only
    b'\x00\xff',                                                            # not text at all
    7,
    '{"title": "Manual report", "runner": "true", "trigger": {"kind": "manual"}}',
    '[1, 2]'])
def test_a_preview_of_a_document_sqlite_cannot_pick_apart_takes_the_full_read(
        store: Store, text: Any) -> None:
    """The preview asks SQLite for the runner kind and the trigger alone; whatever SQLite
    cannot read that way (or reads as something else) is parsed in full, as the engine
    will, so the preview never invents a line."""
    target = queries.summaries(store, text="Manual")[0][0]
    with sqlite3.connect(store.db.path) as conn:
        conn.execute("UPDATE automations SET definition = ?, revision = ? WHERE id = ?",
                     (text, target.revision + 5, target.id))
    forget_parses()
    [preview] = queries.summaries(store, ids=[target.id], preview=True)[0]
    [full] = queries.summaries(store, ids=[target.id])[0]
    assert preview == full
    assert queries.summaries(store, preview=True)[1] == 4


def forget_parses() -> None:
    queries._SHAPES.clear()
    store_module.DEFINITIONS.clear()


_PIECES = st.one_of(st.none(), st.integers(-3, 10**6), st.text(max_size=12),
                    st.sampled_from(["1h", "90s", "0 9 * * *", "*/5 * * * *", "UTC",
                                     "Europe/Berlin", "Mars/Base", "2026-12-03T09:00:00Z",
                                     "every", "cron", "at", "after", "manual", "agent",
                                     "command"]))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["every", "cron", "at", "after", "manual", "weekly", None]),
       fields=st.dictionaries(st.sampled_from(["every", "expression", "timezone", "at",
                                               "interval", "start_at", "misc"]),
                              _PIECES, max_size=4),
       runner=st.sampled_from([{"kind": "command", "command": "true"},
                               {"kind": "agent", "prompt": "hi"}, {"kind": "agent"},
                               {"kind": "shell"}, "true", None]),
       extra=st.dictionaries(st.sampled_from(["overlap", "misfire", "paused"]), _PIECES,
                             max_size=2))
def test_a_preview_agrees_with_the_full_read_wherever_that_one_loads(
        store: Store, kind: Any, fields: dict[str, Any], runner: Any,
        extra: dict[str, Any]) -> None:
    target = queries.summaries(store, text="Manual")[0][0]
    trigger = {"kind": kind, **fields} if kind else fields
    definition = {"title": "Manual report", "runner": runner, "trigger": trigger, **extra}
    _store_raw(store, target.id, json.dumps(definition), target.revision + 1)
    forget_parses()  # each example's document is new under the same revision
    [preview] = queries.summaries(store, ids=[target.id], preview=True)[0]
    [full] = queries.summaries(store, ids=[target.id])[0]
    if full.status != "broken" or preview.status == "broken":
        assert preview == full
    _store_raw(store, target.id, json.dumps(doc("Manual report", {"kind": "manual"})),
               target.revision)
