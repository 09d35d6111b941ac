"""``errands export`` / ``errands import``: the round trip, idempotency, dry runs, refusals
that name the entry and field and import nothing, with and without a running engine.

The CLI runs in-process (``errands.cli.main``), so the many invocations stay quick.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pg_support import catalogue_sql, database_args, location_for, stored_json
from errands import jsondoc
from errands.catalog import Catalog
from errands.cli import main
from errands.engine.service import EngineThread
from errands.errors import Conflict, InvalidInput
from errands.store import Store
from errands.timeutil import utcnow
from errands.transfer import FORMAT, export_document, plan_import, read_entries


class Cli:
    def __init__(self, capsys: pytest.CaptureFixture[str], data: Path) -> None:
        self.capsys, self.data = capsys, data

    def __call__(self, *argv: str, expect: int = 0, data: Path | None = None) -> tuple[str, str]:
        self.capsys.readouterr()
        folder = data or self.data
        code = main([*argv, "--data-dir", str(folder), *database_args(folder)])
        out, err = self.capsys.readouterr()
        assert code == expect, (argv, code, out, err)
        return out, err

    def json(self, *argv: str, **kw: Any) -> Any:
        return json.loads(self(*argv, "--json", **kw)[0])

    def error(self, *argv: str, expect: int = 2, **kw: Any) -> dict[str, Any]:
        out, err = self(*argv, "--json", expect=expect, **kw)
        assert out == ""
        return json.loads(err)["error"]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Cli:
    return Cli(capsys, tmp_path / "a")


def _three(cli: Cli) -> list[str]:
    return [cli.json("add", "--title", "Disk", "--command", "df -h /", "--schedule",
                     "every day at 9am")["id"],
            cli.json("add", "--title", "Triage", "--prompt", "sort the inbox", "--schedule",
                     "cron:*/30 9-17 * * MON-FRI", "--tz", "Europe/Berlin", "--request-id",
                     "triage-1", "--allow", "read_file")["id"],
            cli.json("add", "--title", "Later", "--command", "true", "--schedule", "manual",
                     "--paused")["id"]]


def _definitions(cli: Cli, data: Path) -> dict[str, dict[str, Any]]:
    """Each automation's definition by title (read-only fields left out)."""
    out = {}
    for a in cli.json("list", data=data)["automations"]:
        out[a["title"]] = {k: v for k, v in a.items() if k not in (
            "id", "revision", "status", "next_fire_at", "failure_streak", "created_at",
            "updated_at", "paused_reason", "last_run", "run_count")}
    return out


def test_export_import_round_trip_is_idempotent(cli: Cli, tmp_path: Path) -> None:
    ids = _three(cli)
    out, _ = cli("export")
    doc = json.loads(out)
    assert doc["format"] == FORMAT and doc["version"] == 1 and doc["exported_at"].endswith("Z")
    assert [e["id"] for e in doc["automations"]] == sorted(ids, key=ids.index) or \
        {e["id"] for e in doc["automations"]} == set(ids)
    entries = {e["definition"]["title"]: e for e in doc["automations"]}
    assert entries["Triage"]["request_id"] == "triage-1"          # its own request id
    assert entries["Disk"]["request_id"] == f"export:{entries['Disk']['id']}"
    assert set(entries["Disk"]) == {"id", "request_id", "definition"}
    file = tmp_path / "all.json"
    file.write_text(out)

    other = tmp_path / "b"
    dry = cli.json("import", str(file), "--dry-run", data=other)
    assert (dry["dry_run"], dry["created"], dry["unchanged"]) == (True, 3, 0)
    assert [i["action"] for i in dry["items"]] == ["create"] * 3
    assert cli.json("list", data=other)["automations"] == []     # a dry run writes nothing

    text, _ = cli("import", str(file), data=other)
    assert "Imported: 3 created, 0 unchanged." in text
    assert _definitions(cli, other) == _definitions(cli, cli.data)
    statuses = {a["title"]: a["status"] for a in cli.json("list", data=other)["automations"]}
    assert statuses == {"Disk": "active", "Triage": "active", "Later": "paused"}

    again = cli.json("import", str(file), data=other)            # a second import: nothing
    assert (again["created"], again["unchanged"]) == (0, 3)
    assert len(cli.json("list", data=other)["automations"]) == 3
    dry_again, _ = cli("import", str(file), "--dry-run", data=other)
    assert "0 would be created, 3 unchanged; nothing was changed" in dry_again

    # back into the folder it came from: matched by id, nothing duplicated
    home = cli.json("import", str(file))
    assert home["unchanged"] == 3 and len(cli.json("list")["automations"]) == 3

    # exported again from the copy, the entries keep their identity: a third folder's
    # second import is still a no-op, and so is importing it where it came from
    second, _ = cli("export", data=other)
    copy = tmp_path / "copy.json"
    copy.write_text(second)
    assert cli.json("import", str(copy), data=other)["unchanged"] == 3
    assert cli.json("import", str(file), data=tmp_path / "c")["created"] == 3
    assert cli.json("import", str(copy), data=tmp_path / "c")["unchanged"] == 3


def test_export_names_automations_and_keeps_the_repair_document(cli: Cli,
                                                                tmp_path: Path) -> None:
    disk, triage, _ = _three(cli)
    doc = json.loads(cli("export", triage[:8], disk)[0])
    assert [e["id"] for e in doc["automations"]] == [triage, disk]
    stored = json.loads(cli("export", disk[:8], "--definition")[0])
    assert stored["title"] == "Disk" and "format" not in stored
    refusal = cli.error("export", disk[:8], triage[:8], "--definition")
    assert refusal["field"] == "--definition"
    assert cli.error("export", "nope-nope", expect=3)["code"] == "not_found"


def test_an_edited_entry_is_refused_whole_as_an_identity_conflict(cli: Cli,
                                                                  tmp_path: Path) -> None:
    _three(cli)
    doc = json.loads(cli("export")[0])
    file = tmp_path / "all.json"
    file.write_text(json.dumps(doc))
    other = tmp_path / "b"
    cli("import", str(file), data=other)
    # the file changed since (a command and a new entry): refused, and the new one not made
    doc["automations"][0]["definition"]["title"] = "Disk, renamed"
    doc["automations"].append({"request_id": "new-1", "definition": {
        "title": "New", "runner": {"kind": "command", "command": "true"},
        "trigger": {"kind": "manual"}}})
    file.write_text(json.dumps(doc))
    refusal = cli.error("import", str(file), expect=4, data=other)
    assert refusal["code"] == "identity_conflict"
    assert refusal["message"].startswith("automations[0]: its request_id")
    assert "nothing was imported" in refusal["message"]
    assert len(cli.json("list", data=other)["automations"]) == 3
    # an automation edited here after its import is kept: the same file is "unchanged"
    first = json.loads(cli("export")[0])
    file.write_text(json.dumps(first))
    ident = next(a["id"] for a in cli.json("list", data=other)["automations"]
                 if a["title"] == "Disk")
    cli("edit", ident[:8], "--title", "Disk here", data=other)
    again = cli.json("import", str(file), data=other)
    item = next(i for i in again["items"] if i["automation_id"] == ident)
    assert item["action"] == "unchanged" and "edited here since" in item["reason"]


BAD = [
    (b"not json at all", "document"),
    (b"[]", "document"),
    (b'{"format": "something-else", "version": 1, "automations": []}', "format"),
    (b'{"version": 1, "automations": []}', "format"),
    (b'{"format": "errands-export", "version": 2, "automations": []}', "version"),
    (b'{"format": "errands-export", "version": true, "automations": []}', "version"),
    (b'{"format": "errands-export", "version": 1}', "automations"),
    (b'{"format": "errands-export", "version": 1, "automations": [], "extra": 1}', "extra"),
    (b'{"format": "errands-export", "version": 1, "automations": [7]}', "automations[0]"),
    (b'{"format": "errands-export", "version": 1, "automations": [{"definition": {}}]}',
     "automations[0].request_id"),
    (b'{"format": "errands-export", "version": 1, "automations": [{"request_id": "x"}]}',
     "automations[0].definition"),
    (b'{"format": "errands-export", "version": 1, "automations": [{"request_id": "x", '
     b'"definition": {}, "secret": "k"}]}', "automations[0].secret"),
]


@pytest.mark.parametrize(("data", "field"), BAD)
def test_a_bad_file_is_refused_naming_the_field(cli: Cli, tmp_path: Path, data: bytes,
                                                field: str) -> None:
    file = tmp_path / "bad.json"
    file.write_bytes(data)
    refusal = cli.error("import", str(file))
    assert refusal["field"] == field and refusal["expected"]


def test_one_bad_entry_refuses_the_whole_file(cli: Cli, tmp_path: Path) -> None:
    good = {"request_id": "good", "definition": {
        "title": "Good", "runner": {"kind": "command", "command": "true"},
        "trigger": {"kind": "manual"}}}
    bad = json.loads(json.dumps(good))
    bad["request_id"] = "bad"
    bad["definition"]["trigger"] = {"kind": "cron", "expression": "61 * * * *",
                                    "timezone": "UTC"}
    entries = [good, {**good, "request_id": "g2"}, {**good, "request_id": "g3"}, bad]
    file = tmp_path / "bad.json"
    file.write_text(json.dumps({"format": FORMAT, "version": 1, "automations": entries}))
    refusal = cli.error("import", str(file))
    assert refusal["field"] == "automations[3].definition.trigger.expression"
    assert cli.json("list")["automations"] == []
    text = cli("import", str(file), expect=2)[1]
    assert text.startswith("error: automations[3].definition.trigger.expression: ")
    # the same request id twice
    file.write_text(json.dumps({"format": FORMAT, "version": 1, "automations": [good, good]}))
    assert cli.error("import", str(file))["field"] == "automations[1].request_id"
    assert cli.error("import", str(tmp_path / "missing.json"))["field"] == "FILE"


def test_a_broken_automation_is_left_out_of_an_export_with_a_note(cli: Cli) -> None:
    disk, _, _ = _three(cli)
    # (JSON, as a PostgreSQL json column insists, but no definition: a runner never heard
    # of; a revision of its own, as every stored change has)
    broken = json.dumps({"title": "Disk", "runner": {"kind": "teleport"}})
    catalogue_sql(cli.data, "UPDATE automations SET revision = revision + 1, definition = "
                  f"{stored_json('d')} WHERE id = :id", d=broken, id=disk)
    out, err = cli("export")
    assert disk not in {e["id"] for e in json.loads(out)["automations"]}
    assert "left out Disk" in err and "broken" in err


async def test_import_goes_through_a_running_engine(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    doc = {"format": FORMAT, "version": 1, "automations": [
        {"request_id": f"r{i}", "definition": {
            "title": f"T{i}", "runner": {"kind": "command", "command": "true"},
            "trigger": {"kind": "every", "every": "1h"}}} for i in range(3)]}
    file = tmp_path / "f.json"
    file.write_text(json.dumps(doc))
    host = EngineThread(data, role="app")
    api = await host.start()
    try:
        argv = ["import", str(file), "--data-dir", str(data), "--json"]
        assert await asyncio.to_thread(main, argv) == 0
        reply = json.loads(capsys.readouterr().out)
        assert reply["created"] == 3 and "stamp" not in reply
        summaries = (await api.summaries()).value[0]
        assert sorted(s.title for s in summaries) == ["T0", "T1", "T2"]
        # armed by the engine at once
        assert all(s.next_fire_at is not None for s in summaries)
        assert await asyncio.to_thread(main, argv) == 0
        assert json.loads(capsys.readouterr().out)["unchanged"] == 3
        doc["automations"][1]["definition"]["trigger"]["every"] = "1s"  # below the floor
        file.write_text(json.dumps(doc))
        assert await asyncio.to_thread(main, argv) == 2
        err = json.loads(capsys.readouterr().err)["error"]
        assert err["field"] == "automations[1].definition.trigger.every"
    finally:
        await host.close()


# ------------------------------------------------------------------ property

def _json_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.text(max_size=8),
                        st.sampled_from([FORMAT, 1, 2, "manual", "command", "true", "x"]))
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["format", "version", "automations", "request_id",
                                         "definition", "id", "title", "runner", "trigger",
                                         "kind", "command", "exported_at", "x"]),
                        inner, max_size=5)), max_leaves=20)


def _near_valid() -> st.SearchStrategy[Any]:
    """Documents close to valid ones, so the property reaches the definition checks."""
    definition = st.fixed_dictionaries({
        "title": st.one_of(st.just("T"), st.text(max_size=3), st.integers()),
        "runner": st.one_of(st.just({"kind": "command", "command": "true"}), _json_values()),
        "trigger": st.one_of(st.just({"kind": "manual"}),
                             st.just({"kind": "every", "every": "1h"}), _json_values())})
    entry = st.fixed_dictionaries({"request_id": st.one_of(st.text(max_size=4), st.integers()),
                                   "definition": st.one_of(definition, _json_values())},
                                  optional={"id": st.one_of(st.none(), st.text(max_size=4))})
    return st.fixed_dictionaries({"format": st.sampled_from([FORMAT, "other"]),
                                  "version": st.sampled_from([1, 1, 2, "1"]),
                                  "automations": st.lists(entry, max_size=4)})


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    return Catalog(Store(location_for(tmp_path_factory.mktemp("prop"))))


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=st.one_of(_json_values(), _near_valid()))
def test_any_json_is_planned_or_refused_naming_a_field(catalog: Catalog, doc: Any) -> None:
    """Any JSON value (through the same gate a file takes) either plans (nothing written) or
    is refused with an InvalidInput whose field is ``document``, a top-level key or
    ``automations[i]…``."""
    before = len(catalog.store.list())
    try:
        value = jsondoc.loads(json.dumps(doc))
        plan = plan_import(catalog, value)
    except InvalidInput as exc:
        assert exc.field and exc.expected, exc
        assert (exc.field in ("document", "format", "version", "automations", "exported_at")
                or exc.field.startswith("automations[")
                or isinstance(value, dict) and exc.field in value), exc.field
    except Conflict:  # pragma: no cover - the store is empty, so nothing conflicts
        raise
    else:
        assert len(plan.items) == len(read_entries(value))
    assert len(catalog.store.list()) == before


def test_export_document_is_a_plain_function(tmp_path: Path) -> None:
    catalog = Catalog(Store(location_for(tmp_path)))
    created, _ = catalog.create({"title": "X", "runner": {"kind": "command", "command": "true"},
                                 "trigger": {"kind": "manual"}})
    doc, notes = export_document(catalog.store, now=utcnow())
    assert notes == [] and doc["automations"][0]["id"] == created.id
    plan = plan_import(catalog, doc)
    assert [i.action for i in plan.items] == ["unchanged"]


def test_an_export_larger_than_one_definition_is_read_whole(
        cli: Cli, tmp_path: Path) -> None:
    """An export of hundreds of automations is more than the 1 MiB one definition may be:
    the file's own limit (4 MiB, what one request to a running engine carries) applies, and
    past it the refusal says how much and what to do."""
    made = _three(cli)
    doc = json.loads(cli("export", made[0])[0])
    entry = doc["automations"][0]
    padding = "x" * 1500
    doc["automations"] = [{**entry, "id": None, "request_id": f"bulk-{n}",
                           "definition": {**entry["definition"], "title": f"Disk {n}",
                                          "runner": {"kind": "command",
                                                     "command": f"df -h / # {padding}"}}}
                          for n in range(800)]
    big = tmp_path / "big.json"
    big.write_text(json.dumps(doc))
    assert big.stat().st_size > 1024 * 1024
    plan = cli.json("import", str(big), "--dry-run")
    assert plan["created"] == 800 and plan["dry_run"] is True

    huge = tmp_path / "huge.json"
    huge.write_bytes(b'{"format": "errands-export", "x": "' + b"y" * (5 * 1024 * 1024) + b'"}')
    refused = cli.error("import", str(huge))
    assert refused["field"] == "document"
    assert "more than 4096 KiB" in refused["message"] and "errands export ID" in \
        refused["message"]


def test_an_import_that_lasts_seconds_fires_each_schedule_from_its_start(
        tmp_path: Path) -> None:
    """A big import (on a server, hundreds of definitions) reads its definitions in one
    second and writes them seconds later: each schedule starts in the second it was read
    (its ``start_at``), and its first fire is that instant, not the first one after the
    write (found by the several-engine soak: a slot between the two was never fired nor
    recorded)."""
    from datetime import datetime, timedelta, timezone

    from errands.transfer import apply_import

    ticks = iter(datetime(2026, 12, 6, 3, 7, 27, 900_000, tzinfo=timezone.utc)
                 + timedelta(seconds=0.7 * n) for n in range(1000))
    catalog = Catalog(Store(location_for(tmp_path)), clock=lambda: next(ticks))
    doc = {"format": FORMAT, "version": 1, "automations": [
        {"request_id": f"big:{n}",
         "definition": {"title": f"Every 3 min {n}", "trigger": {"kind": "every", "every": "3m"},
                        "runner": {"kind": "command", "command": "true"}}} for n in range(3)]}
    apply_import(catalog, plan_import(catalog, doc))
    for automation in catalog.store.list():
        start = automation.definition.trigger.start_at
        assert start == datetime(2026, 12, 6, 3, 7, 27, tzinfo=timezone.utc)
        assert automation.next_fire_at == start
