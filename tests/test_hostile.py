"""Hostile inputs end as success or a refusal naming the field: never exit 1, never a trace.

Property tests feed the generators of ``tests/hostile.py`` through the real entry points
(the CLI's ``main`` in-process, the JSON gate, the definition parser, the non-phrase
schedule specs, timeutil, cron); ``fuzz/fuzz_inputs.py`` runs the same ones far longer.
Example tests pin one input of each class the issue lists.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import hostile
from errands import jsondoc
from errands.catalog import Catalog
from errands.definition import ParseContext, parse_definition
from errands.errors import InvalidInput
from errands.store import Store
from errands.timeutil import LATEST, parse_duration
from errands.db.location import database_location
from pg_support import location_for

BOUNDED = settings(max_examples=600, deadline=None, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                          HealthCheck.function_scoped_fixture])
DOC = {"title": "Backup", "runner": {"kind": "command", "command": "backup.sh"},
       "trigger": {"kind": "every", "every": "1h"}}


@pytest.fixture(scope="module")
def seeded_once(tmp_path_factory: pytest.TempPathFactory, module_catalogue: str | None
                ) -> tuple[Path, str]:
    with pytest.MonkeyPatch.context() as env:
        if module_catalogue is not None:
            env.setenv("ERRANDS_DATABASE_URL", module_catalogue)
        return hostile.prepared_data_dir(tmp_path_factory.mktemp("hostile-data"))


@pytest.fixture
def seeded(seeded_once: tuple[Path, str], module_catalogue: str | None,
           monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """A data folder holding one automation, made once for the module (and on its
    catalogue under --catalogue=postgresql)."""
    if module_catalogue is not None:
        monkeypatch.setenv("ERRANDS_DATABASE_URL", module_catalogue)
    return seeded_once


# ------------------------------------------------------------------------- properties

@pytest.mark.catalogue_free
@BOUNDED
@given(st.one_of(hostile.json_texts, hostile.json_bytes))
def test_json_documents_are_decoded_or_refused_by_field(data: str | bytes) -> None:
    hostile.probe_json(data)


@pytest.mark.catalogue_free
@BOUNDED
@given(hostile.definition_docs())
def test_definition_documents_are_parsed_or_refused_by_field(doc: Any) -> None:
    hostile.probe_definition(doc)


@pytest.mark.catalogue_free
@BOUNDED
@given(hostile.non_phrase_spec, st.one_of(st.none(), hostile.zones),
       st.one_of(st.none(), hostile.odd_instant))
def test_schedule_specs_are_read_or_refused_by_field(spec: str, tz: str | None,
                                                     after: str | None) -> None:
    hostile.probe_spec(spec, tz, after)


@pytest.mark.catalogue_free
@BOUNDED
@given(hostile.odd_cron, hostile.zones, st.one_of(hostile.good_instant, hostile.odd_instant))
def test_cron_expressions_are_read_or_refused_by_field(text: str, tz: str, after: str) -> None:
    hostile.probe_cron(text, tz, after)


@pytest.mark.catalogue_free
@BOUNDED
@given(hostile.odd_instant, hostile.odd_duration)
def test_instants_and_durations_are_read_or_refused_by_field(instant: str, duration: str) -> None:
    hostile.probe_time(instant, duration)


@settings(BOUNDED, max_examples=500)
@given(hostile.cli_argvs())
@example(["rules", "remove", "", "9" * 4301])      # (past int()'s digit limit: found so)
@example(["edit", "{ID}", "--expect-revision", "9" * 4301])
def test_the_cli_answers_every_argument_list_with_success_or_a_named_refusal(
        seeded: tuple[Path, str], argv: list[str]) -> None:
    hostile.probe_cli(hostile.with_id(argv, *seeded))


# --------------------------------------------------------------------------- examples

def _cli(data: Path, *argv: str) -> tuple[int, Any, str]:
    """``errands ARGV --json`` in-process: exit code, stdout document (or None), stderr."""
    code, out, err = hostile.run_cli(["--data-dir", str(data), *argv, "--json"])
    return code, json.loads(out) if out else None, err


def _refused(data: Path, *argv: str) -> dict[str, Any]:
    code, out, err = _cli(data, *argv)
    assert code == 2, (code, out, err)
    error = json.loads(err)["error"]
    assert error["code"] == "invalid_input" and error["field"], error
    return error


def _doc_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "doc.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return str(path)


@pytest.mark.parametrize("text, field, words", [
    ('{"title": "T", "runner": {"kind": "command", "command": "x"}, "trigger": {"kind": '
     '"manual"}, "context": {"max_history_tokens": ' + "1" * 4301 + "}}",
     "context.max_history_tokens", "too large"),
    ("[" * 1000 + "]" * 1000, "document", "nests 1000 deep"),
    ('{"title": ' + "[" * 990 + "]" * 990 + "}", "document", "deep"),
    ('{"title": "a", "title": "b"}', "title", 'the key "title" appears more than once'),
    ('{"runner": {"kind": "command", "kind": "agent"}}', "runner.kind", "more than once"),
    ('{"": 1, "title": "T"}', '""', "unknown field ''"),
    ('{"title": "\\ud800"}', "title", "lone surrogate"),
    ('{"title": NaN}', "title", "not finite"),
    ('{"title": 1e999}', "title", "not finite"),
])
def test_json_at_the_limits_is_refused_naming_the_field(tmp_path: Path, text: str, field: str,
                                                       words: str) -> None:
    error = _refused(tmp_path / "data", "add", "--from-json", _doc_file(tmp_path, text))
    assert error["field"] == field and words in error["message"], error


@pytest.mark.catalogue_free
def test_json_gate_limits_size_and_string_length() -> None:
    with pytest.raises(InvalidInput, match="more than 1024 KiB") as big:
        jsondoc.loads(b" " * (jsondoc.MAX_DOCUMENT_BYTES + 1))
    assert big.value.field == "document"
    with pytest.raises(InvalidInput, match="65,537 characters") as long:
        jsondoc.loads(json.dumps({"runner": {"prompt": "x" * 65_537}}))
    assert long.value.field == "runner.prompt"
    with pytest.raises(InvalidInput, match="not UTF-8") as raw:
        jsondoc.loads(b'{"title": "\xff"}')
    assert raw.value.field == "document"
    assert jsondoc.loads('{"a": [1, 2.5, "é", {"b": null}]}') == {"a": [1, 2.5, "é", {"b": None}]}


@pytest.mark.parametrize("argv, field", [
    (["add", "--title", "a\udcffb", "--command", "true", "--schedule", "manual"], "--title"),
    (["add", "--title", "T", "--command", "true", "--schedule", "every day at 9\udcffam"],
     "--schedule"),
    (["add", "--title", "T", "--command", "true", "--schedule", "manual",
      "--request-id", "r\udcff"], "--request-id"),
    (["add", "--title", "T", "--command", "true", "--schedule", "manual", "--workdir=/tmp/\udcff"],
     "--workdir"),
    (["schedule", "parse", "every\udcff", "day"], "text"),
    (["show", "\udcff\udcfe"], "id"),
])
def test_arguments_that_are_not_utf8_are_refused_naming_the_flag(tmp_path: Path, argv: list[str],
                                                                 field: str) -> None:
    assert _refused(tmp_path, *argv)["field"] == field


@pytest.mark.parametrize("value, words", [
    ([1], "got a list"), (True, "got a boolean"), (1, "got a number"), ("", "0 characters"),
    ("x" * 201, "201 characters"), ("a\nb", "unprintable"), ("a\u2028b", "unprintable"),
])
def test_request_ids_that_are_not_short_printable_text_are_refused(tmp_path: Path, value: Any,
                                                                   words: str) -> None:
    catalog = Catalog(Store(location_for(tmp_path)))
    with pytest.raises(InvalidInput, match=words) as exc:
        catalog.create(DOC, request_id=value)
    assert exc.value.field == "request_id"
    assert catalog.store.list() == []


def test_request_id_true_one_and_text_one_are_not_the_same_request(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for value in (True, 1):
        doc = {**DOC, "request_id": value}
        assert _refused(data, "add", "--from-json", _doc_file(tmp_path, json.dumps(doc)))[
            "field"] == "request_id"
    code, created, _ = _cli(data, "add", "--from-json",
                            _doc_file(tmp_path, json.dumps({**DOC, "request_id": "1"})))
    assert code == 0
    assert _refused(data, "add", "--from-json", _doc_file(tmp_path, json.dumps(
        {**DOC, "request_id": "1"})), "--request-id", "2")["field"] == "--request-id"


@pytest.mark.parametrize("argv, field", [
    (["add", "--title", "T", "--command", "true", "--schedule", "in:1000000000d"], "--schedule"),
    (["add", "--title", "T", "--command", "true", "--schedule", "manual",
      "--timeout", "99999999999999999999d"], "policy.timeout"),
    (["config", "set", "grace", "99999999999999999999999d"], "grace"),
    (["add", "--title", "T", "--command", "true", "--schedule", "every:5m",
      "--jitter", "1" * 5000 + "s"], "policy.jitter"),
])
def test_huge_durations_are_refused_before_any_arithmetic(tmp_path: Path, argv: list[str],
                                                          field: str) -> None:
    error = _refused(tmp_path, *argv)
    assert error["field"] == field, error
    with pytest.raises(InvalidInput, match="not a duration"):
        parse_duration("5m\n")  # (a regular expression's $ matches before a final newline)


def test_a_huge_interval_floor_in_the_environment_is_refused_by_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRANDS_MIN_INTERVAL", "99999999999999999999d")
    error = _refused(tmp_path, "add", "--title", "T", "--command", "true", "--schedule",
                     "every:1h")
    assert error["field"] == "ERRANDS_MIN_INTERVAL"


@pytest.mark.parametrize("argv, field", [
    (["schedule", "preview", "--spec", "every:1h", "--after", "0001-01-01T00:00:00+01:00"],
     "--after"),
    (["schedule", "preview", "--spec", "at:9999-12-31T23:59:59-01:00"], "--schedule"),
    (["add", "--title", "T", "--command", "true", "--schedule", "every:1h",
      "--until", "0001-01-01T00:00:00+01:00"], "stop.until"),
    (["add", "--title", "T", "--command", "true", "--schedule", "at:1969-12-31T23:59:59Z"],
     "--schedule"),
    (["schedule", "parse", "every", "day", "at", "9am", "--now", "0001-01-01T00:00:00+01:00"],
     "--now"),
])
def test_instants_outside_the_calendar_are_refused(tmp_path: Path, argv: list[str],
                                                   field: str) -> None:
    error = _refused(tmp_path, *argv)
    assert error["field"] == field and "supported range" in error["message"], error


@pytest.mark.parametrize("spec", ["every:1h", "every:1d", "after:1h", "cron:* * * * *",
                                  "at:9999-12-31T23:59:59Z"])
def test_a_preview_stops_at_the_end_of_the_calendar(tmp_path: Path, spec: str) -> None:
    code, out, err = _cli(tmp_path, "schedule", "preview", "--spec", spec,
                          "--after", "9999-12-29T00:00:00Z", "--count", "1000")
    assert code == 0, err
    fires = [datetime.fromisoformat(f.replace("Z", "+00:00")) for f in out["fires"]]
    assert fires and all(f <= LATEST for f in fires)
    code, out, err = _cli(tmp_path, "schedule", "preview", "--spec", spec,
                          "--after", "9999-12-31T23:59:59Z")
    assert (code, out["fires"]) == (0, []), err


@pytest.mark.catalogue_free
def test_an_in_schedule_past_the_calendar_is_refused() -> None:
    ctx = ParseContext(now=LATEST - timedelta(hours=1), default_timezone="UTC")
    with pytest.raises(InvalidInput, match="end of the supported calendar") as exc:
        parse_definition({**DOC, "trigger": {"kind": "at", "in": "2h"}}, ctx)
    assert exc.value.field == "trigger.in"


@pytest.mark.parametrize("argv, field", [
    (["runs", "{ID}", "--cursor", "r99999999999999999999"], "--cursor"),
    (["runs", "{ID}", "--cursor", "r²"], "--cursor"),
    (["runs", "{ID}", "--cursor", "r-1"], "--cursor"),
    (["runs", "{ID}", "--limit", "0"], "--limit"),
    (["runs", "{ID}", "--limit", "-5"], "--limit"),
    (["runs", "{ID}", "--limit", str(10**30)], "--limit"),
    (["runs", "{ID}", "--limit", "١٢"], "--limit"),
    (["schedule", "preview", "--spec", "every:1h", "--count", "0"], "--count"),
    (["schedule", "preview", "--spec", "every:1h", "--count", str(10**30)], "--count"),
    (["show", "a" * 70_000], None),  # not found (exit 3), not a LIKE pattern too complex
])
def test_cursors_limits_and_counts_out_of_range_are_refused(seeded: tuple[Path, str],
                                                            argv: list[str],
                                                            field: str | None) -> None:
    data, ident = seeded
    argv = [ident if a == "{ID}" else a for a in argv]
    if field is None:
        assert _cli(data, *argv)[0] == 3
    else:
        assert _refused(data, *argv)["field"] == field


@pytest.mark.catalogue_free
@pytest.mark.parametrize("change, field, words", [
    ({"runner": {"kind": "command", "command": "tr\x00ue"}}, "runner.command", "U+0000"),
    ({"runner": {"kind": "agent", "prompt": "a\x00"}}, "runner.prompt", "U+0000"),
    ({"workdir": "/tmp/a\nb"}, "workdir", "control character U+000A"),
    ({"workdir": "/tmp/\x1b[31m"}, "workdir", "U+001B"),
    ({"title": "a\u2028b"}, "title", "line separator U+2028"),
    ({"title": "a\rb"}, "title", "U+000D"),
    ({"title": "a\x85b"}, "title", "U+0085"),
    ({"runner": {"kind": "agent", "prompt": "p", "model": "gpt\x07"}}, "runner.model", "U+0007"),
    ({"runner": {"kind": "agent", "prompt": "p", "model": "m" * 201}}, "runner.model", "201"),
    ({"origin": {"session_id": "s\x00"}}, "origin.session_id", "U+0000"),
    ({"trigger": {"kind": "cron", "expression": "* * * * *", "timezone": "UTC\x00"}},
     "trigger.timezone", "U+0000"),
])
def test_control_characters_are_refused_where_they_cannot_work(change: dict[str, Any],
                                                              field: str, words: str) -> None:
    ctx = ParseContext(now=datetime(2026, 3, 29, tzinfo=timezone.utc), default_timezone="UTC")
    with pytest.raises(InvalidInput, match=re.escape(words)) as exc:
        parse_definition({**DOC, **change}, ctx)
    assert exc.value.field == field


@pytest.mark.catalogue_free
def test_commands_and_prompts_keep_their_tabs_and_newlines() -> None:
    ctx = ParseContext(now=datetime(2026, 3, 29, tzinfo=timezone.utc), default_timezone="UTC")
    command = "for f in *; do\n\techo \"$f\"\ndone"
    parsed = parse_definition({**DOC, "runner": {"kind": "command", "command": command}}, ctx)
    assert parsed.runner.command == command  # type: ignore[union-attr]


def test_a_nul_in_a_command_argument_is_refused_by_the_cli(tmp_path: Path) -> None:
    error = _refused(tmp_path, "add", "--title", "T", "--command", "tr\x00ue", "--schedule",
                     "manual")
    assert error["field"] == "runner.command"


def test_usage_errors_suggest_a_real_command(tmp_path: Path) -> None:
    for argv, example in ((["bogus"], "errands --help"),
                          (["schedule", "preview", "--bogus"], "errands schedule preview --help")):
        assert _refused(tmp_path, *argv)["example"] == example


def test_edit_pauses_and_resumes_like_pause_and_resume(tmp_path: Path) -> None:
    data = tmp_path / "data"
    code, created, _ = _cli(data, "add", "--title", "T", "--command", "true", "--schedule",
                            "every:1h")
    ident = created["id"]
    code, paused, err = _cli(data, "edit", ident, "--paused", "--title", "Renamed")
    assert code == 0, err
    assert (paused["status"], paused["paused"], paused["title"], paused["next_fire_at"]) == (
        "paused", True, "Renamed", None)
    code, resumed, err = _cli(data, "edit", ident, "--no-paused")
    assert code == 0, err
    assert (resumed["status"], resumed["paused"]) == ("active", False)
    assert resumed["next_fire_at"] is not None
    code, same, _ = _cli(data, "edit", ident, "--no-paused")
    assert same["revision"] == resumed["revision"]
    actions = [e.action for e in Store(database_location(data)).audit(ident)]
    assert "paused" in actions and "resumed" in actions
