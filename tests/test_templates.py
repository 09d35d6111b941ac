"""Templates: the shipped files load, fill into definitions a real engine accepts (the
command ones also run), blanks are checked and shell-quoted, and a broken file is reported
with its name and field while the others still load."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from template_support import first_run, page  # noqa: F401  (page: a fixture)
from errands.engine.api import Api
from errands.errors import InvalidInput
from errands.resources_access import resource
from errands.templates import Template, load_templates, read_template

SHIPPED = resource("templates")
from engine_support import api  # noqa: F401 (fixtures)




def shipped() -> dict[str, Template]:
    templates, problems = load_templates()
    assert problems == []
    return {t.name: t for t in templates}


@pytest.mark.catalogue_free
def test_the_shipped_templates_load_and_half_need_no_model() -> None:
    by_name = shipped()
    assert set(by_name) == {"daily-brief", "weekly-review", "project-monitor", "remind-me",
                            "loop-until-tests-pass", "watch-web-page", "disk-memory-report",
                            "summarize-new-files", "file-invoices", "stale-backup",
                            "log-new-files"}
    commands = [t for t in by_name.values() if t.runner in ("command", "script")]
    assert not any(t.needs_model for t in commands)
    assert len(commands) >= len(by_name) / 2
    for t in by_name.values():
        assert t.title and t.description and resource("icons", "templates",
                                                       f"{t.icon}.svg").is_file()


@pytest.mark.parametrize("name", sorted(shipped()))
async def test_each_template_fills_into_an_automation_the_engine_accepts(
        name: str, api: Api, tmp_path: Path) -> None:
    t = shipped()[name]
    values = {p.name: str(tmp_path) for p in t.parameters if p.kind == "folder"}
    automation, created = (await api.create(t.fill(values))).value
    assert created and automation.definition is not None
    assert automation.definition.origin.kind == "template"
    assert automation.definition.origin.template == name
    assert automation.definition.runner.kind == t.runner
    if any(p.kind == "folder" for p in t.parameters):
        assert automation.definition.workdir == str(tmp_path)


async def test_the_command_templates_run(api: Api, tmp_path: Path, page: str) -> None:
    t = shipped()
    project = tmp_path / "project"
    project.mkdir()
    (project / "Makefile").write_text("test:\n\t@echo 3 passed\n")
    cases = {
        "project-monitor": ({"folder": str(project)}, "3 passed"),
        "remind-me": ({"message": "water the plants; don't `rm` anything"},
                      "water the plants; don't `rm` anything"),
        "watch-web-page": ({"url": page}, "Widget: 12 EUR"),
        "disk-memory-report": ({}, "Filesystem"),
    }
    if shutil.which("make") is None:
        (project / "Makefile").unlink()
        cases["project-monitor"] = ({"folder": str(project), "test_command": "echo 3 passed"},
                                    "3 passed")
    for name, (values, expected) in cases.items():
        assert t[name].runner == "command"
        automation, _ = (await api.create(t[name].fill(values))).value
        run = await first_run(api, automation.id)
        assert run.state == "succeeded", (name, run.error_message, run.output_tail)
        assert expected in (run.output_tail or ""), (name, run.output_tail)




@pytest.mark.catalogue_free
def test_blanks_are_checked_and_name_their_field(tmp_path: Path) -> None:
    t = shipped()
    with pytest.raises(InvalidInput) as e:
        t["project-monitor"].fill({"folder": "relative/path"})
    assert e.value.field == "parameters.folder" and "absolute" in str(e.value)
    with pytest.raises(InvalidInput) as e:
        t["project-monitor"].fill({"folder": str(tmp_path / "missing")})
    assert e.value.field == "parameters.folder" and "no folder" in str(e.value)
    with pytest.raises(InvalidInput) as e:
        t["project-monitor"].fill({"folder": str(tmp_path), "minutes": "2"})
    assert e.value.field == "parameters.minutes" and "5 to 1440" in str(e.value)
    with pytest.raises(InvalidInput) as e:
        t["watch-web-page"].fill({"url": "file:///etc/passwd"})
    assert e.value.field == "parameters.url"
    with pytest.raises(InvalidInput) as e:
        t["remind-me"].fill({"at": "25:00"})
    assert e.value.field == "parameters.at" and e.value.example == "15:00"
    with pytest.raises(InvalidInput) as e:
        t["remind-me"].fill({"colour": "red"})
    assert e.value.field == "parameters.colour"
    with pytest.raises(InvalidInput) as e:
        t["daily-brief"].fill({})
    assert e.value.field == "parameters.folder" and "required" in str(e.value)


@pytest.mark.catalogue_free
def test_a_time_blank_becomes_the_cron_fields() -> None:
    doc = shipped()["remind-me"].fill({"at": "7:05"})
    assert doc["trigger"] == {"kind": "cron", "expression": "5 7 * * MON-FRI"}


@pytest.mark.catalogue_free
@settings(max_examples=150, deadline=None)
@given(st.text(min_size=1, max_size=80).filter(lambda s: s.strip() and s.isprintable()))
def test_a_blank_in_a_command_stays_one_argument(message: str) -> None:
    doc = shipped()["remind-me"].fill({"message": message})
    words = shlex.split(doc["runner"]["command"])
    assert words == ["printf", "%s\\n", message.strip()]
    assert len(doc["title"]) <= 120


def write(folder: Path, name: str, doc: Any) -> None:
    (folder / f"{name}.json").write_text(doc if isinstance(doc, str) else json.dumps(doc))


def good() -> dict[str, Any]:
    return json.loads((SHIPPED / "remind-me.json").read_text())


@pytest.mark.catalogue_free
def test_a_broken_template_file_is_reported_and_left_out(tmp_path: Path) -> None:
    write(tmp_path, "ok", good())
    write(tmp_path, "not-json", "{ nope")
    bad_cron = good()
    bad_cron["definition"]["trigger"]["expression"] = "{at:minute} {at:hour} * * NOPE"
    write(tmp_path, "bad-cron", bad_cron)
    unknown_blank = good()
    unknown_blank["definition"]["title"] = "Remind me about {topic}"
    write(tmp_path, "unknown-blank", unknown_blank)
    bad_kind = good()
    bad_kind["parameters"][0]["kind"] = "colour"
    write(tmp_path, "bad-kind", bad_kind)
    bad_icon = good()
    bad_icon["icon"] = "no-such-icon"
    write(tmp_path, "bad-icon", bad_icon)
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00")

    templates, problems = load_templates(tmp_path)
    assert [t.name for t in templates] == ["ok"]
    found = {p.file: (p.field, p.message) for p in problems}
    assert found["not-json.json"][0] == "(file)" and "not JSON" in found["not-json.json"][1]
    assert found["bad-cron.json"][0].startswith("definition.trigger"), found["bad-cron.json"]
    assert found["unknown-blank.json"] == (
        "definition", "names the blank {topic}, which is not a parameter")
    assert found["bad-kind.json"][0] == "parameters[0].kind"
    assert found["bad-icon.json"][0] == "icon"
    assert found["binary.json"][0] == "(file)"
    assert all(str(p).startswith(p.file + ": ") for p in problems)


@pytest.mark.catalogue_free
@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.sampled_from(["format", "title", "description",
                                                       "icon", "runner", "parameters",
                                                       "definition", "name", "kind",
                                                       "label", "x"]), inner, max_size=6),
                    max_leaves=25))
def test_any_template_document_loads_or_is_refused_with_a_field(doc: Any) -> None:
    try:
        read_template("fuzz", json.dumps(doc))
    except InvalidInput as exc:
        assert exc.field and str(exc)
