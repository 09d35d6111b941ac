"""The create/edit form and its schedule picker: every choice makes the trigger document the
parser accepts, the preview shows the right fires, stored automations load back into the
same choice (and save unchanged), refusals land under their fields with the typed text
kept, a revision conflict is explained, and permissions read in plain words."""

from __future__ import annotations

import asyncio
import json
import os
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from errands.app.dialogs.form import AutomationForm
from errands.app.dialogs.schedule_picker import (
    SchedulePicker,
    friendly_cron,
    trigger_object,
)
from errands.definition import ParseContext, parse_definition
from errands.engine.api import Api
from errands.errors import Conflict, InvalidInput
from errands.records import Automation
from errands.schedule import next_fires
from errands.timeutil import zone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QDate, Qt, QTime
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)   # a Monday, 09:00 in Berlin
BERLIN = zone("Europe/Berlin")
CTX = ParseContext(now=NOW, default_timezone="Europe/Berlin")


def make_form(qtbot, automation: Automation | None = None,  # type: ignore[no-untyped-def]
              zone_default: str = "Europe/Berlin") -> AutomationForm:
    form = AutomationForm(None, zone_default=zone_default, automation=automation,
                          clock=lambda: NOW)
    qtbot.addWidget(form)
    form.picker.local_tz = BERLIN
    return form


def make_picker(qtbot, zone_default: str = "Europe/Berlin") -> SchedulePicker:  # type: ignore[no-untyped-def]
    picker = SchedulePicker(zone_default=zone_default, clock=lambda: NOW)
    qtbot.addWidget(picker)
    picker.local_tz = BERLIN
    return picker


def stored(doc: dict[str, Any], revision: int = 3) -> Automation:
    d = parse_definition(doc, CTX)
    return Automation(id="a1b2c3d4", title=d.title, definition=d, revision=revision,
                      status="active", next_fire_at=None, failure_streak=0, run_count=0,
                      created_at=NOW, updated_at=NOW)


def agent_doc(trigger: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"title": "Morning brief", "runner": {"kind": "agent", "prompt": "Summarize",
                                                 "model": None},
            "trigger": trigger, **extra}


def fill(form: AutomationForm, title: str = "Nightly backup",
         command: str = "./backup.sh") -> None:
    form.title_edit.setText(title)
    form.runner_box.setCurrentIndex(form.runner_box.findData("command"))
    form.command_edit.setPlainText(command)


# ------------------------------------------------------------ schedule choices

CHOICES = [
    ({"mode": "once", "at": datetime(2026, 3, 10, 18, 30)},
     {"kind": "at", "at": "2026-03-10T17:30:00Z"}),
    ({"mode": "every", "every": timedelta(minutes=15)}, {"kind": "every", "every": "15m"}),
    ({"mode": "every", "every": timedelta(hours=2)}, {"kind": "every", "every": "2h"}),
    ({"mode": "daily", "time": time(7, 5)},
     {"kind": "cron", "expression": "5 7 * * *", "timezone": "Europe/Berlin"}),
    ({"mode": "weekdays", "time": time(9, 30)},
     {"kind": "cron", "expression": "30 9 * * MON-FRI", "timezone": "Europe/Berlin"}),
    ({"mode": "weekly", "time": time(18, 0), "days": (0, 2, 6)},
     {"kind": "cron", "expression": "0 18 * * MON,WED,SUN", "timezone": "Europe/Berlin"}),
    ({"mode": "monthly", "time": time(8, 0), "day": 15},
     {"kind": "cron", "expression": "0 8 15 * *", "timezone": "Europe/Berlin"}),
    ({"mode": "after", "interval": timedelta(minutes=10)},
     {"kind": "after", "interval": "10m"}),
    ({"mode": "manual"}, {"kind": "manual"}),
    ({"mode": "advanced", "expression": "*/20  9-17 * * 1-5"},
     {"kind": "cron", "expression": "*/20 9-17 * * 1-5", "timezone": "Europe/Berlin"}),
    ({"mode": "daily", "time": time(9, 0), "zone": "America/New_York"},
     {"kind": "cron", "expression": "0 9 * * *", "timezone": "America/New_York"}),
]


@pytest.mark.catalogue_free
@pytest.mark.parametrize(("values", "trigger"), CHOICES)
def test_each_choice_makes_its_trigger_and_a_document_the_parser_accepts(
        qtbot, values: dict[str, Any], trigger: dict[str, Any]) -> None:
    form = make_form(qtbot)
    fill(form)
    form.picker.set_values(values)
    assert form.picker.trigger() == trigger
    doc = form.document()
    assert doc["trigger"] == trigger
    definition = parse_definition(doc, CTX)          # the engine's own gate
    assert definition.trigger.kind == trigger["kind"]
    assert definition.title == "Nightly backup" and definition.runner.kind == "command"
    recurring = trigger["kind"] in ("every", "after", "cron")
    assert definition.stop.empty
    assert form.max_runs_check.isEnabled() == recurring


@pytest.mark.catalogue_free
def test_the_friendly_cron_shapes_are_the_phrase_parsers(qtbot) -> None:
    from errands.schedule_spec import spec_to_trigger
    picker = make_picker(qtbot)
    for phrase, mode in (("every weekday at 9am", "weekdays"), ("every day at 9:05", "daily"),
                         ("every monday and wednesday at 9:30", "weekly"),
                         ("weekends at 10", "weekly"), ("15th of every month at 8am", "monthly")):
        doc, _ = spec_to_trigger(phrase, "Europe/Berlin", NOW)
        assert picker.load_trigger(doc) == mode, phrase
        assert picker.trigger() == doc
    # the same schedule written another way is shown as written
    for expression in ("0 9 * * 1-5", "00 9 * * *", "0 9 * * SUN,MON", "*/15 * * * *"):
        assert friendly_cron(expression) is None
        assert picker.load_trigger({"kind": "cron", "expression": expression,
                                    "timezone": "UTC"}) == "advanced"
        assert picker.cron_edit.text() == expression
        assert picker.trigger()["expression"] == expression


@pytest.mark.catalogue_free
def test_local_problems_are_refused_with_the_field(qtbot) -> None:
    picker = make_picker(qtbot)
    picker.set_values({"mode": "weekly", "days": ()})
    with pytest.raises(InvalidInput) as weekly:
        picker.trigger()
    assert weekly.value.field == "trigger.days"
    picker.set_values({"mode": "advanced", "expression": "61 * * * *"})
    with pytest.raises(InvalidInput) as cron:
        picker.trigger()
    assert cron.value.field == "trigger.expression"
    assert "61" in picker.errors["expression"].text()          # live, under the field
    picker.set_values({"mode": "advanced", "expression": "30 9 * * MON-FRI"})
    assert not picker.errors["expression"].showing
    assert picker.cron_words.text() == "Every weekday at 09:30 (Europe/Berlin)"
    # 02:30 on 29 March 2026 does not exist in Berlin
    picker.set_values({"mode": "once", "at": datetime(2026, 3, 29, 2, 30)})
    with pytest.raises(InvalidInput) as gap:
        picker.trigger()
    assert gap.value.field == "trigger.at"
    picker.set_values({"mode": "daily", "zone": "Mars/Olympus"})
    with pytest.raises(InvalidInput) as bad_zone:
        picker.trigger()
    assert bad_zone.value.field == "trigger.timezone"


# ------------------------------------------------------------------- preview

@pytest.mark.catalogue_free
def test_preview_shows_the_next_five_fires_in_the_zone_and_here(qtbot) -> None:
    picker = make_picker(qtbot)
    picker.set_values({"mode": "weekdays", "time": time(9, 0), "zone": "America/New_York"})
    fires = picker.preview_fires()
    # New York is UTC-5 until its clocks change on Sunday 8 March
    assert fires == [datetime(2026, 3, d, 14, 0, tzinfo=UTC) for d in (2, 3, 4, 5, 6)]
    assert fires == next_fires(trigger_object(picker.trigger(), NOW, "America/New_York"),
                               NOW, 5)
    assert picker.preview.text().splitlines() == [
        "today 09:00 New York · 15:00 here", "tomorrow 09:00 New York · 15:00 here",
        "Wed 09:00 New York · 15:00 here", "Thu 09:00 New York · 15:00 here",
        "Fri 09:00 New York · 15:00 here"]
    # in its own zone only when that is here
    picker.set_values({"mode": "monthly", "day": 31, "time": time(8, 0),
                       "zone": "Europe/Berlin"})
    assert picker.preview.text().splitlines() == [
        "31 Mar 08:00", "31 May 08:00", "31 Jul 08:00", "31 Aug 08:00", "31 Oct 08:00"]
    assert picker.day_note.isVisibleTo(picker)
    # the stop rule ends the preview
    picker.set_limits(2, None)
    assert len(picker.preview_fires()) == 2
    picker.set_limits(None, datetime(2026, 6, 1, tzinfo=UTC))
    assert len(picker.preview_fires()) == 2
    picker.set_limits(None, None)
    picker.set_values({"mode": "every", "every": timedelta(hours=6)})
    assert picker.preview_fires() == [NOW + timedelta(hours=6 * k) for k in range(5)]
    picker.set_values({"mode": "manual"})
    assert picker.preview.text() == "Runs only when you start it."
    picker.set_values({"mode": "once", "at": datetime(2026, 3, 1, 9, 0)})
    assert "already past" in picker.preview.text()


@pytest.mark.catalogue_free
def test_the_form_feeds_its_stop_rule_to_the_preview(qtbot) -> None:
    form = make_form(qtbot)
    form.picker.set_values({"mode": "daily", "time": time(10, 0)})
    form.max_runs_check.setChecked(True)
    form.max_runs_spin.setValue(3)
    assert len(form.picker.preview_fires()) == 3
    form.picker.set_values({"mode": "once"})
    assert not form.max_runs_check.isEnabled()
    fill(form)
    assert form.document()["stop"]["max_runs"] is None   # kept on screen, not sent
    assert form.max_runs_check.isChecked()


# -------------------------------------------------------------------- loading

SHAPES = [
    ("once", {"kind": "at", "at": "2026-04-01T07:15:00Z"}),
    ("every", {"kind": "every", "every": "45m", "start_at": "2026-02-01T10:00:00Z"}),
    ("daily", {"kind": "cron", "expression": "0 9 * * *", "timezone": "Asia/Tokyo"}),
    ("weekdays", {"kind": "cron", "expression": "30 9 * * MON-FRI", "timezone": "UTC"}),
    ("weekly", {"kind": "cron", "expression": "0 18 * * TUE,SAT", "timezone": "Europe/Berlin"}),
    ("monthly", {"kind": "cron", "expression": "15 6 1 * *", "timezone": "Europe/Berlin"}),
    ("after", {"kind": "after", "interval": "2h", "start_at": "2026-02-01T10:00:00Z"}),
    ("manual", {"kind": "manual"}),
    ("advanced", {"kind": "cron", "expression": "0 */3 * * 1-5", "timezone": "UTC"}),
    ("kept", {"kind": "every", "every": "90s", "start_at": "2026-02-01T10:00:00Z"}),
    ("kept", {"kind": "every", "every": "14d", "start_at": "2026-02-02T08:00:00Z",
              "timezone": "Europe/Berlin"}),
]


@pytest.mark.catalogue_free
@pytest.mark.parametrize(("mode", "trigger"), SHAPES)
def test_editing_loads_each_shape_back_and_saves_it_unchanged(qtbot, mode: str,
                                                              trigger: dict[str, Any]) -> None:
    extra: dict[str, Any] = {
        "stop": {"max_runs": 7, "until": None, "when_condition_met": True}
        if trigger["kind"] in ("every", "after", "cron") else {},
        "policy": {"timeout": "5m", "notify": "on_change", "jitter": "30s",
                   "retry": {"max_attempts": 4, "backoff": {"initial": "10s", "factor": 3,
                                                            "max": "5m"}},
                   "pause_after_failures": 6},
        "permissions": {"mode": "allow_listed", "tools": ["read_file", "run_command"],
                        "rules": [{"tool": "run_command", "pattern": "git *",
                                   "action": "allow"}], "untrusted_ok": ["fetch_url"]},
        "misfire": "run_once", "catch_up_max_age": "3h", "overlap": "queue_one",
        "workdir": "/home/me/notes", "context": {"mode": "continue",
                                                 "max_history_tokens": 20000}}
    automation = stored(agent_doc(trigger, **extra))
    form = make_form(qtbot, automation)
    assert form.picker.mode() == mode
    assert form.heading.text() == "Editing revision 3"
    assert "Morning brief" in form.windowTitle()
    doc = form.document()
    assert parse_definition(doc, ParseContext(now=NOW, previous=automation.definition)) \
        == automation.definition
    with qtbot.waitSignal(form.submitted) as sent:
        assert form.submit()
    assert sent.args[1] == 3


@pytest.mark.catalogue_free
def test_a_command_automation_loads_and_keeps_its_fields(qtbot) -> None:
    automation = stored({"title": "Backup", "runner": {"kind": "command",
                                                       "command": "backup.sh\n--all"},
                         "trigger": {"kind": "cron", "expression": "0 2 * * *",
                                     "timezone": "Europe/Berlin"},
                         "paused": True, "origin": {"kind": "cli"}})
    form = make_form(qtbot, automation)
    assert form.runner_kind() == "command"
    assert form.command_edit.toPlainText() == "backup.sh\n--all"
    assert not form.prompt_row.isVisibleTo(form) or not form.isVisible()
    doc = form.document()
    assert doc["paused"] is True and doc["origin"]["kind"] == "cli"
    assert parse_definition(doc, CTX) == automation.definition


@pytest.mark.catalogue_free
def test_a_reminder_loads_saves_and_is_chosen_from_the_runs_box(qtbot) -> None:
    automation = stored({"title": "Call mom", "runner": {"kind": "notify",
                                                         "message": "Call mom\nShe's 70!"},
                         "trigger": {"kind": "at", "at": "2026-03-03T18:00:00Z"}})
    form = make_form(qtbot, automation)
    form.show()
    assert form.runner_kind() == "notify"
    assert form.message_edit.toPlainText() == "Call mom\nShe's 70!"
    assert form.message_row.isVisible() and not form.prompt_row.isVisible()
    assert not form.command_row.isVisible() and not form.command_consent.isVisible()
    assert not form.context_box.isEnabled()
    assert form.permission_words() == ["Only shows its message: it runs nothing and uses "
                                       "no model"]
    assert parse_definition(form.document(), CTX) == automation.definition
    form.message_edit.clear()                     # an empty message is refused in place
    with pytest.raises(InvalidInput) as refused:
        form.check(form.document())
    assert refused.value.field == "runner.message"
    form.show_errors(refused.value)
    assert form.field_error("runner.message")
    form.runner_box.setCurrentIndex(form.runner_box.findData("agent"))
    assert form.prompt_row.isVisible() and not form.message_row.isVisible()


# --------------------------------------------------------- refusals and errors

@pytest.mark.catalogue_free
def test_a_parser_refusal_lands_under_its_field_and_the_text_stays(qtbot) -> None:
    form = make_form(qtbot)
    fill(form, title="", command="./backup.sh --all")
    form.picker.set_values({"mode": "every", "every": timedelta(minutes=1)})
    with qtbot.assertNotEmitted(form.submitted):
        assert not form.submit()                    # the local parse refuses the title
    assert form.field_error("title") == "Write something here."  # the window's own words
    assert form.slots["title"][0].isVisibleTo(form)
    assert form.title_edit.accessibleDescription() == form.field_error("title")
    assert form.tabs.currentIndex() == form.slots["title"][1]
    assert form.command_edit.toPlainText() == "./backup.sh --all"

    # the engine's own refusal (its min_interval is 5 minutes), by the real parser
    form.title_edit.setText("Backup")
    with qtbot.waitSignal(form.submitted) as sent:
        assert form.submit()
    assert form.field_error("title") == ""
    with pytest.raises(InvalidInput) as refused:
        parse_definition(sent.args[0], ParseContext(now=NOW, min_interval=timedelta(minutes=5)))
    assert refused.value.field == "trigger.every"
    form.show_errors(refused.value)
    shown = form.field_error("trigger.every")
    assert "at least 5m apart" in shown
    assert form.picker.errors["every"].isVisibleTo(form)
    assert form.tabs.currentIndex() == form.slots["trigger"][1]
    assert form.picker.every_edit.value() == timedelta(minutes=1)
    assert form.title_edit.text() == "Backup" and form.save_button.isEnabled()
    assert form.document() == sent.args[0]          # nothing typed was lost


@pytest.mark.catalogue_free
def test_a_past_time_is_refused_in_local_words(qtbot) -> None:
    """Not "2025-12-04T21:00:00Z is already past; expected …" in UTC: the local time, in
    the window's words."""
    from errands.app import words
    form = make_form(qtbot)
    when = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=3)
    with pytest.raises(InvalidInput) as refused:
        parse_definition({"title": "Once", "runner": {"kind": "command", "command": "true"},
                          "trigger": {"kind": "at", "at": when.isoformat()}},
                         ParseContext(now=datetime.now(UTC)))
    assert refused.value.reason == "past" and refused.value.field == "trigger.at"
    form.show_errors(refused.value)
    shown = form.field_error("trigger.at")
    local = words.day_and_time(when, datetime.now(UTC), words.local_zone())
    assert shown == f"{local} has already passed; choose a later time."
    assert "Z" not in shown and "expected" not in shown


@pytest.mark.catalogue_free
def test_a_refusal_under_a_field_goes_when_that_field_changes(qtbot) -> None:
    """A refusal is about what the field held: once the person changes it, the stale
    words go (from the field and from its accessible description); the others stay."""
    form = make_form(qtbot)
    fill(form, title="", command="./backup.sh")
    form.picker.set_values({"mode": "every", "every": timedelta(minutes=1)})
    assert not form.submit()
    assert form.field_error("title")
    form.show_field_error("runner.command", "not like that")
    form.show_field_error("trigger.every", "too often")
    qtbot.keyClicks(form.title_edit, "B")
    assert form.field_error("title") == "" and not form.slots["title"][0].isVisibleTo(form)
    assert form.title_edit.accessibleDescription() != "must not be empty"
    assert form.field_error("runner.command") == "not like that"     # untouched: stays
    form.command_edit.setPlainText("./backup.sh --all")
    assert form.field_error("runner.command") == ""
    assert form.field_error("trigger.every") == "too often"
    form.picker.every_edit.set_value(timedelta(minutes=10))
    assert form.field_error("trigger.every") == ""
    # a row of several fields (Stop at: a check box and a date): any of them clears it
    form.show_field_error("stop.until", "already passed")
    assert form.field_error("stop.until") == "already passed"
    form.until_edit.setDateTime(form.until_edit.dateTime().addDays(1))
    assert form.field_error("stop.until") == ""


@pytest.mark.catalogue_free
@pytest.mark.parametrize(("field", "key"), [
    ("title", "title"), ("runner.command", "command"), ("runner.prompt", "prompt"),
    ("policy.timeout", "timeout"), ("policy.retry.backoff.max", "retry"),
    ("permissions.rules[0].tool", "permissions"), ("stop.until", "until"),
    ("catch_up_max_age", "catch_up"), ("workdir", "workdir")])
def test_field_paths_map_to_their_widgets(qtbot, field: str, key: str) -> None:
    form = make_form(qtbot)
    if field.startswith("runner.command"):
        form.runner_box.setCurrentIndex(form.runner_box.findData("command"))
    form.show_field_error(field, "not like that")
    label, tab, _widget = form.slots[key]
    assert label.text() == "not like that" and label.isVisibleTo(form)
    assert form.tabs.currentIndex() == tab
    assert not form.general_error.showing


@pytest.mark.catalogue_free
def test_trigger_fields_and_unknown_fields(qtbot) -> None:
    form = make_form(qtbot)
    form.picker.set_values({"mode": "advanced", "expression": "0 9 * * *"})
    form.show_field_error("trigger.expression", "could fire too often")
    assert form.picker.errors["expression"].text() == "could fire too often"
    form.show_field_error("trigger.timezone", "unknown time zone")
    assert form.picker.errors["timezone"].showing
    form.show_field_error("trigger.every", "too often")      # not shown for a cron: the top row
    assert form.picker.errors["mode"].text() == "too often"
    assert form.field_error("trigger.every") == "too often"
    form.show_field_error("runner.command", "is required")   # an agent form shows no command
    assert form.general_error.text() == "runner.command: is required"
    form.show_field_error("worktree", "needs a workdir")
    assert form.general_error.text() == "worktree: needs a workdir"
    form.show_errors(Conflict("busy", "the database is busy; try again in a moment"))
    assert form.general_error.text() == "the database is busy; try again in a moment"
    form.clear_errors()
    assert not form.general_error.showing and not form.picker.errors["timezone"].showing


# ------------------------------------------------------------------- conflict

@pytest.mark.catalogue_free
def test_a_revision_conflict_keeps_the_changes_and_offers_both_ways(qtbot) -> None:
    automation = stored(agent_doc({"kind": "manual"}), revision=3)
    form = make_form(qtbot, automation)
    form.prompt_edit.setPlainText("Summarize, but shorter")
    with qtbot.waitSignal(form.submitted):
        form.submit()
    assert not form.save_button.isEnabled()         # one save at a time
    assert not form.submit()
    form.show_errors(Conflict("stale_revision", "Morning brief changed since you opened it "
                              "(revision 3, now 5); reload it and edit again"))
    assert form.conflict.isVisibleTo(form) and form.conflict_revision == 5
    assert "changed elsewhere (now revision 5)" in form.conflict_text.text()
    assert "Your changes are still here" in form.conflict_text.text()
    assert form.prompt_edit.toPlainText() == "Summarize, but shorter"
    with qtbot.waitSignal(form.submitted) as sent:
        form.overwrite_button.click()               # Save anyway: over revision 5
    assert sent.args[1] == 5 and sent.args[0]["runner"]["prompt"] == "Summarize, but shorter"
    form.show_conflict(6)
    with qtbot.waitSignal(form.reload_requested):
        form.reload_button.click()
    newer = stored(agent_doc({"kind": "manual"}, title="Evening brief"), revision=6)
    form.load(newer)
    assert form.title_edit.text() == "Evening brief" and not form.conflict.isVisibleTo(form)
    assert form.heading.text() == "Editing revision 6" and form.expected_revision() == 6


def test_through_a_real_engine_refusals_and_conflicts_reach_the_form(qtbot, tmp_path: Path
                                                                    ) -> None:
    from engine_support import Harness

    async def scenario() -> None:
        h = Harness(tmp_path)
        await h.engine.start()
        api = Api(h.engine)
        form = AutomationForm(None, zone_default="UTC", clock=h.clock.now)
        qtbot.addWidget(form)
        fill(form, title="Backup")
        form.picker.set_values({"mode": "daily", "time": time(2, 0)})
        sent: list[tuple[dict[str, Any], Any]] = []
        form.submitted.connect(lambda doc, rev: sent.append((doc, rev)))
        assert form.submit()
        answer = await api.create(sent[-1][0])
        automation, created = answer.value
        assert created and automation.definition is not None
        form.accept_saved()

        edit = AutomationForm(None, zone_default="UTC", automation=automation,
                              clock=h.clock.now)
        qtbot.addWidget(edit)
        edit.submitted.connect(lambda doc, rev: sent.append((doc, rev)))
        await api.set_setting("min_interval", "10m")
        edit.picker.set_values({"mode": "every", "every": timedelta(minutes=2)})
        assert edit.submit()
        try:
            await api.edit(automation.id, sent[-1][0], expected_revision=sent[-1][1])
        except InvalidInput as exc:
            edit.show_errors(exc)
        assert "at least 10m apart" in edit.field_error("trigger.every")
        other = dict(sent[-1][0], title="Backup (renamed elsewhere)",
                     trigger={"kind": "manual"})
        await api.edit(automation.id, other)
        edit.picker.set_values({"mode": "every", "every": timedelta(minutes=30)})
        assert edit.submit()
        try:
            await api.edit(automation.id, sent[-1][0], expected_revision=sent[-1][1])
        except Conflict as exc:
            edit.show_errors(exc)
        assert edit.conflict_revision == 2
        edit.overwrite_button.click()
        saved, changed = (await api.edit(automation.id, sent[-1][0],
                                         expected_revision=sent[-1][1])).value
        assert changed and saved.revision == 3 and saved.title == "Backup"
        edit.accept_saved()
        await h.stop()

    asyncio.run(scenario())


# ---------------------------------------------------------------- permissions

@pytest.mark.catalogue_free
def test_permissions_in_plain_words(qtbot) -> None:
    form = make_form(qtbot)
    form.runner_box.setCurrentIndex(form.runner_box.findData("agent"))
    assert form.consent.text() == "• Asks you before running commands or changing files"
    assert not form.tool_group.isEnabled()
    form.mode_buttons["allow_listed"].setChecked(True)
    assert form.tool_group.isEnabled()
    assert "Nothing is ticked" in form.consent.text()
    form.tool_checks["read_file"].setChecked(True)
    assert form.permission_words() == ["Without asking: read files",
                                       "Asks you before anything else"]
    form.tool_checks["run_command"].setChecked(True)
    assert form.permission_words()[:2] == ["Runs commands without asking.",
                                           "Without asking: run commands, read files"]
    fill(form)
    form.runner_box.setCurrentIndex(form.runner_box.findData("agent"))
    form.prompt_edit.setPlainText("Tidy the notes")
    doc = form.document()
    assert doc["permissions"]["mode"] == "allow_listed"
    assert doc["permissions"]["tools"] == ["run_command", "read_file"]
    parse_definition(doc, CTX)
    form.mode_buttons["allow_all"].setChecked(True)
    assert form.permission_words()[:2] == [
        "Runs commands without asking.", "Runs commands and uses every tool without asking"]
    form.runner_box.setCurrentIndex(form.runner_box.findData("command"))
    assert form.permission_words() == [
        "Runs its command without asking (creating it was the consent)"]
    assert form.document()["permissions"] == {"mode": "ask", "tools": [], "rules": [],
                                              "untrusted_ok": []}
    assert form.mode_buttons["allow_all"].isChecked()        # kept on screen


# ------------------------------------------------------------ keys and access

@pytest.mark.catalogue_free
def test_ctrl_return_saves_and_escape_closes(qtbot) -> None:
    form = make_form(qtbot)
    fill(form)
    form.show()
    form.activateWindow()                    # a window shortcut needs the active window
    qtbot.waitUntil(lambda: QApplication.activeWindow() is form)
    form.command_edit.setFocus()
    with qtbot.waitSignal(form.submitted, timeout=2000):
        qtbot.keyClick(form.command_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert form.command_edit.toPlainText() == "./backup.sh"
    form.accept_saved()
    assert form.result() == form.DialogCode.Accepted
    other = make_form(qtbot)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is other)
    with qtbot.waitSignal(other.rejected, timeout=2000):
        qtbot.keyClick(other, Qt.Key.Key_Escape)


@pytest.mark.catalogue_free
def test_every_control_has_an_accessible_name(qtbot) -> None:
    form = make_form(qtbot, stored(agent_doc({"kind": "manual"})))
    controls = (QLineEdit, QPlainTextEdit, QComboBox, QAbstractSpinBox, QAbstractButton)
    unnamed = []
    for widget in form.findChildren(QWidget):
        if not isinstance(widget, controls):
            continue
        parent = widget.parentWidget()
        if isinstance(parent, (QComboBox, QAbstractSpinBox)) or type(widget).__name__ in (
                "QTabBar", "QToolButton", "QScrollBar"):
            continue                                 # parts of a named control
        if not widget.accessibleName():
            unnamed.append(f"{type(widget).__name__} {getattr(widget, 'text', lambda: '')()}")
    assert unnamed == []


# -------------------------------------------------------------- the property

ZONES = ("UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe",
         "Pacific/Chatham")
times = st.builds(time, st.integers(0, 23), st.integers(0, 59))
friendly = st.one_of(
    st.fixed_dictionaries({"mode": st.just("once"), "at": st.datetimes(
        min_value=datetime(2026, 4, 1), max_value=datetime(2099, 12, 31)).map(
        lambda d: d.replace(second=0, microsecond=0))}),
    st.fixed_dictionaries({"mode": st.sampled_from(["every", "after"]),
                           "gap": st.integers(1, 366 * 24 * 60)}),
    st.fixed_dictionaries({"mode": st.sampled_from(["daily", "weekdays"]), "time": times}),
    st.fixed_dictionaries({"mode": st.just("weekly"), "time": times, "days": st.sets(
        st.integers(0, 6), min_size=1).map(lambda s: tuple(sorted(s)))}),
    st.fixed_dictionaries({"mode": st.just("monthly"), "time": times,
                           "day_kind": st.just("day"), "day": st.integers(1, 28),
                           "months": st.just(1)}),
    st.fixed_dictionaries({"mode": st.just("monthly"), "time": times,
                           "day_kind": st.just("day"), "day": st.integers(1, 28),
                           "months": st.sampled_from((2, 3, 12, 24, 1200)),
                           "start": st.dates(date(2020, 1, 1), date(2040, 12, 1)).map(
                               lambda d: d.replace(day=1))}),
    st.fixed_dictionaries({"mode": st.just("monthly"), "time": times,
                           "day_kind": st.just("last"), "months": st.just(1)}),
    st.fixed_dictionaries({"mode": st.just("monthly"), "time": times,
                           "day_kind": st.just("before_last"), "day": st.integers(2, 28),
                           "months": st.just(1)}),
    st.fixed_dictionaries({"mode": st.just("monthly"), "time": times,
                           "day_kind": st.just("weekday"),
                           "nth": st.sampled_from((1, 2, 3, 4, -1, -2, -3, -4)),
                           "weekday": st.sampled_from(("mon", "fri", "sun", "workday")),
                           "months": st.just(1)}),
    st.just({"mode": "manual"}),
)


@pytest.mark.catalogue_free
def test_picker_values_survive_document_and_back(qtbot) -> None:
    a, b = make_picker(qtbot), make_picker(qtbot)

    @settings(max_examples=300, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(friendly, st.sampled_from(ZONES))
    def check(values: dict[str, Any], zone_name: str) -> None:
        values = dict(values, zone=zone_name)
        gap = values.pop("gap", None)
        if gap is not None:
            values["every" if values["mode"] == "every" else "interval"] = timedelta(minutes=gap)
        a.set_values(values)
        assert a.values() == values
        try:
            doc = a.trigger()
        except InvalidInput as exc:                  # a wall time the clocks skip
            assert values["mode"] == "once" and exc.field == "trigger.at"
            return
        trigger_object(doc, NOW, zone_name)          # the parser accepts it
        b.zone_box.set_zone(zone_name)
        assert b.load_trigger(doc) == values["mode"]
        assert b.values() == values
        assert b.trigger() == doc

    check()


@pytest.mark.catalogue_free
def test_the_picker_chooses_days_cron_cannot_say(qtbot) -> None:
    """The monthly row offers the last day, a day counted from the end and the N-th
    weekday or working day, every N months; a stored monthly schedule loads into it and
    saves back unchanged, its grid's start kept."""
    picker = make_picker(qtbot)
    picker.show()
    picker.set_mode("monthly")
    picker.day_kind.setCurrentIndex(picker.day_kind.findData("last"))
    picker.time_edit.setTime(QTime(18, 0))
    assert not picker.day_spin.isVisible() and not picker.nth_box.isVisible()
    doc = picker.trigger()
    assert doc == {"kind": "monthly", "day": -1, "every": 1, "start": "2026-03", "at": "18:00",
                   "timezone": "Europe/Berlin"}
    assert picker.preview.text().splitlines()[:2] == ["31 Mar 18:00", "30 Apr 18:00"]
    picker.day_kind.setCurrentIndex(picker.day_kind.findData("weekday"))
    picker.nth_box.setCurrentIndex(picker.nth_box.findData(-1))
    picker.weekday_box.setCurrentIndex(picker.weekday_box.findData("workday"))
    picker.months_spin.setValue(3)
    assert picker.nth_box.isVisible() and picker.weekday_box.isVisible()
    doc = picker.trigger()
    assert doc == {"kind": "monthly", "weekday": "workday", "nth": -1, "every": 3,
                   "start": "2026-03", "at": "18:00", "timezone": "Europe/Berlin"}
    assert picker.preview.text().splitlines()[:2] == ["31 Mar 18:00", "30 Jun 18:00"]
    stored = {"kind": "monthly", "day": -2, "every": 24, "start": "2025-02", "at": "07:30",
              "timezone": "Europe/Berlin"}
    other = make_picker(qtbot)
    assert other.load_trigger(stored) == "monthly"
    assert other.day_kind.currentData() == "before_last" and other.day_spin.value() == 2
    assert other.months_spin.value() == 24 and other.trigger() == stored  # start kept
    with pytest.raises(InvalidInput):
        parse_definition({"title": "t", "runner": {"kind": "command", "command": "true"},
                          "trigger": {**stored, "nth": 1}}, CTX)
    picker.show_error("trigger.every", "too many")
    assert picker.errors["months"].isVisibleTo(picker)


@pytest.mark.catalogue_free
def test_a_yearly_day_counts_from_the_month_chosen(qtbot) -> None:
    """"Every year on 3 March" made in the form in any month: several months apart, the
    picker asks from which month; a stored schedule without zone or start still loads."""
    picker = make_picker(qtbot)
    picker.show()
    picker.set_mode("monthly")
    assert not picker.start_edit.isVisible()
    picker.day_spin.setValue(3)
    picker.months_spin.setValue(12)
    assert picker.start_edit.isVisible()
    assert picker.start_edit.date() == QDate(2026, 3, 1)     # the first month ahead with it
    picker.start_edit.setDate(QDate(2027, 3, 1))
    doc = picker.trigger()
    assert (doc["day"], doc["every"], doc["start"]) == (3, 12, "2027-03")
    assert picker.preview.text().splitlines()[0].startswith("3 Mar 2027")
    bare = {"kind": "monthly", "day": -1, "at": "09:00"}
    assert make_picker(qtbot).load_trigger(bare) == "monthly"


@pytest.mark.catalogue_free
def test_several_triggers_load_into_the_picker_and_the_event_list_and_save_unchanged(qtbot) -> None:  # type: ignore[no-untyped-def]
    triggers = [{"id": "am", "kind": "cron", "expression": "15 9 * * *",
                 "timezone": "Europe/Berlin"},
                {"id": "drop", "kind": "folder", "path": "/srv/drop", "include": ["*.pdf"]},
                {"id": "hook", "kind": "webhook"}]
    doc = {"title": "Several", "runner": {"kind": "command", "command": "true"},
           "triggers": triggers}
    form = make_form(qtbot, stored(doc))
    assert form.picker.mode() == "daily"
    rows = [form.events.list.item(i).text() for i in range(form.events.list.count())]
    assert rows == ["When a file changes in /srv/drop (*.pdf)", "When its web address is called"]
    assert not form.has_changes()
    form.title_edit.setText("Renamed")
    saved = form.document()
    assert "trigger" not in saved and saved["title"] == "Renamed"
    assert [t["id"] for t in saved["triggers"]] == ["am", "drop", "hook"]
    assert parse_definition(saved, CTX).trigger == parse_definition(doc, CTX).trigger
    # removing the folder keeps the others, ids and all
    form.events.list.setCurrentRow(0)
    form.events.remove.click()
    assert [t["id"] for t in form.document()["triggers"]] == ["am", "hook"]


@pytest.mark.catalogue_free
def test_two_clock_triggers_stay_as_they_are_beside_the_events(qtbot) -> None:  # type: ignore[no-untyped-def]
    triggers = [{"id": "am", "kind": "cron", "expression": "15 9 * * *",
                 "timezone": "Europe/Berlin"},
                {"id": "pm", "kind": "cron", "expression": "30 17 * * *",
                 "timezone": "Europe/Berlin"},
                {"id": "hook", "kind": "webhook"}]
    doc = {"title": "Twice", "runner": {"kind": "command", "command": "true"},
           "triggers": triggers}
    form = make_form(qtbot, stored(doc))
    assert form.picker.mode() == "kept"
    assert "17:30" in form.picker.kept_words.text()
    assert [t["id"] for t in form.document()["triggers"]] == ["am", "pm", "hook"]


@pytest.mark.catalogue_free
def test_adding_a_web_address_and_an_automations_end_to_a_daily_schedule(qtbot) -> None:  # type: ignore[no-untyped-def]
    from errands.app.dialogs.event_triggers import AfterDialog
    form = make_form(qtbot, stored(agent_doc({"kind": "cron", "expression": "0 9 * * *",
                                              "timezone": "Europe/Berlin"})))
    assert form.events.empty.isVisibleTo(form.events)
    form.events.set_choices([], [("up-1", "Backup")])
    form.events.add_webhook.click()
    dialog = AfterDialog(form.events.automations, form)
    qtbot.addWidget(dialog)
    dialog.states["failed"].setChecked(True)
    form.events.add(dialog.trigger())
    saved = form.document()
    assert [t["kind"] for t in saved["triggers"]] == ["cron", "webhook", "automation"]
    assert saved["triggers"][2] == {"kind": "automation", "automation": "up-1",
                                    "states": ["succeeded", "failed"]}
    assert form.events.list.item(1).text() == "When “Backup” succeeds or fails"
    assert form.has_changes()
    # manual in the picker with events: the events alone
    form.picker.set_mode("manual")
    assert [t["kind"] for t in form.document()["triggers"]] == ["webhook", "automation"]


@pytest.mark.catalogue_free
def test_an_agents_mcp_servers_are_edited_one_a_line_and_kept_whole(qtbot) -> None:
    """Editing an agent keeps its MCP servers (a header or env too); a line the form cannot
    read is refused under the servers' field, naming the line."""
    servers = [{"name": "notes", "command": ["npx", "-y", "server-filesystem", "/home/me/my notes"]},
               {"name": "deploy", "url": "https://deploy.example.com/mcp",
                "header": "Authorization"}]
    automation = stored(agent_doc({"kind": "manual"}, runner={
        "kind": "agent", "prompt": "Summarize", "model": None, "mcp_servers": servers}))
    form = make_form(qtbot, automation)
    assert form.servers_edit.isVisibleTo(form) or not form.isVisible()
    lines = form.servers_edit.toPlainText().splitlines()
    assert lines[0] == "notes=npx -y server-filesystem '/home/me/my notes'"
    assert json.loads(lines[1])["header"] == "Authorization"
    doc = form.document()
    assert parse_definition(doc, ParseContext(now=NOW, previous=automation.definition)) \
        == automation.definition
    form.servers_edit.setPlainText(lines[0] + "\ngit=uvx mcp-server-git")
    assert [s["name"] for s in form.document()["runner"]["mcp_servers"]] == ["notes", "git"]
    form.servers_edit.setPlainText("just words")
    with pytest.raises(InvalidInput) as info:
        form.document()
    form.show_errors(info.value)
    assert form.field_error("runner.mcp_servers[0]").startswith("not NAME=COMMAND")
    form.servers_edit.setPlainText("Bad Name=x")
    form.show_errors(InvalidInput("runner.mcp_servers[0].name", "not a server name", "x"))
    assert form.field_error("runner.mcp_servers[0].name").startswith("not a server name")


# ------------------------------------------------------------------ where it runs

@pytest.mark.catalogue_free
def test_where_it_runs_is_offered_on_a_shared_catalogue_only(qtbot) -> None:
    """On a file catalogue the form has no "Runs on" row and its document names no machine.
    On a shared one a new command goes to this computer and an agent to any, until the
    user chooses; the choice is saved, and an automation bound elsewhere shows where it
    runs and is unchanged until moved."""
    from errands.records import Machines

    local = make_form(qtbot)
    fill(local)
    local.set_machines(None)
    assert not local.runs_on_row.isVisibleTo(local) and "runs_on" not in local.document()

    form = make_form(qtbot)
    form.show()
    form.set_machines(Machines("laptop", ("desk", "homeserver")))
    assert form.runs_on_row.isVisible() and not form.has_changes()  # (nothing typed yet)
    box = form.runs_on_box
    assert [box.itemText(i) for i in range(box.count())] == [
        "Any computer", "laptop (this computer)", "desk", "homeserver"]
    assert box.currentData() == "any"          # an agent, the form's first runner
    fill(form)
    assert box.currentData() == "laptop"       # a command: this computer
    form.runner_box.setCurrentIndex(form.runner_box.findData("agent"))
    assert box.currentData() == "any"
    form.workdir_edit.setText("/home/me/notes")
    assert box.currentData() == "laptop"       # a folder: this computer
    box.setCurrentIndex(box.findData("homeserver"))
    box.activated.emit(box.currentIndex())     # (what a click says)
    form.workdir_edit.setText("")
    form.runner_box.setCurrentIndex(form.runner_box.findData("command"))
    assert box.currentData() == "homeserver"   # the user's choice stays
    doc = form.document()
    assert doc["runs_on"] == "homeserver" and form.check(doc).runs_on == "homeserver"

    bound = stored({**agent_doc({"kind": "manual"}), "runs_on": "desk"})
    edit = make_form(qtbot, automation=bound)
    edit.set_machines(Machines("laptop", ()))
    assert edit.runs_on_box.currentData() == "desk" and not edit.has_changes()
    assert edit.document()["runs_on"] == "desk"
    edit.runner_box.setCurrentIndex(edit.runner_box.findData("command"))
    assert edit.runs_on_box.currentData() == "desk"  # (a stored binding is not a default)
    anywhere = make_form(qtbot, automation=stored(agent_doc({"kind": "manual"})))
    anywhere.set_machines(Machines("laptop", ()))
    assert anywhere.runs_on_box.currentData() == "any" and not anywhere.has_changes()


@pytest.mark.catalogue_free
def test_a_refused_machine_is_said_beside_where_it_runs(qtbot) -> None:
    from errands.records import Machines

    form = make_form(qtbot)
    form.show()
    fill(form)
    form.set_machines(Machines("laptop", ()))
    form.show_errors(InvalidInput("runs_on", "names a machine no engine has served",
                                  "any, or a machine's name", "laptop"))
    assert "no engine has served" in form.field_error("runs_on")
    assert form.tabs.currentIndex() == 0


@pytest.mark.catalogue_free
def test_where_it_runs_follows_a_reload_and_a_repair_follows_the_rule(qtbot) -> None:
    """A Reload after a conflict shows where the automation runs now (another user moved
    it), so saving does not move it back; an automation whose definition no longer loads
    is repaired like a new one: a command goes to this computer."""
    from dataclasses import replace

    from errands.records import Machines

    form = make_form(qtbot, automation=stored({**agent_doc({"kind": "manual"}),
                                               "runs_on": "desk"}))
    form.set_machines(Machines("laptop", ("desk",)))
    moved = stored({**agent_doc({"kind": "manual"}), "runs_on": "server9"}, revision=4)
    form.load(moved)
    assert form.runs_on_box.currentData() == "server9" and not form.has_changes()
    assert form.document()["runs_on"] == "server9"

    broken = replace(stored(agent_doc({"kind": "manual"})), definition=None,
                     problem="the stored definition is not JSON")
    repair = make_form(qtbot, automation=broken)
    repair.set_machines(Machines("laptop", ("desk",)))
    fill(repair)
    assert repair.runs_on_box.currentData() == "laptop"
