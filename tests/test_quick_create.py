"""Quick create over a real engine: a sentence typed and Enter → the confirmation card →
Create (the automation exists with the trigger the card showed) or Edit in form (the form
pre-filled with the same title and trigger); the model fallback against the scripted
server ("Drafted by the model"); refusals beside the box with the typed text kept; an
engine refusal on the card; Cancel while the model is asked; the card's words; renders."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import qasync
from app_support import run, until
from errands.app.dialogs.card import ConfirmationCard, source_words, upcoming
from errands.app.dialogs.form import AutomationForm
from errands.app.dialogs.quick_create import QuickCreateDialog, QuickCreateFlow
from errands.app.dialogs.schedule_picker import same_trigger
from errands.drafts import draft_from_phrase
from errands.engine.api import Api
from errands.engine.service import EngineThread
from errands.timeutil import zone
from openai_server import ScriptedServer, call, say, stall
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

ZONE = "Europe/Berlin"


class Engine:
    def __init__(self, loop: qasync.QEventLoop, data: Path) -> None:
        self.loop, self.data = loop, data
        self.host = EngineThread(data, listen=False, role="app")
        self.api: Api = run(loop, self.host.start())

    def flow(self) -> QuickCreateFlow:
        flow = QuickCreateFlow(None, self.api, self.data, ZONE, local_tz=zone(ZONE))
        flow.open()
        return flow

    def automations(self) -> list[Any]:
        summaries, _total = run(self.loop, self.api.summaries()).value
        return list(summaries)

    def automation(self, automation_id: str) -> Any:
        return run(self.loop, self.api.automation(automation_id)).value


@pytest.fixture
def engine(qloop: qasync.QEventLoop, qapp: QApplication, tmp_path: Path) -> Iterator[Engine]:
    qapp.setQuitOnLastWindowClosed(False)
    e = Engine(qloop, tmp_path / "data")
    try:
        yield e
    finally:
        run(qloop, e.host.close())


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.close()


def use_model(engine: Engine, server: ScriptedServer) -> None:
    run(engine.loop, engine.api.set_setting("provider_base_url", server.base_url))
    run(engine.loop, engine.api.set_setting("provider_model", "scripted-model"))


def type_sentence(qtbot: Any, flow: QuickCreateFlow, text: str) -> None:
    """Type the sentence and press Enter, then wait for the card or a refusal."""
    d = flow.dialog
    d.line_edit.clear()
    if text.isascii():
        qtbot.keyClicks(d.line_edit, text)
    else:  # (QTest aborts on keys it has no key code for, such as ä)
        d.line_edit.insert(text)
    qtbot.keyClick(d.line_edit, Qt.Key.Key_Return)
    run(flow.tasks.loop, until(
        lambda: (d.card_scroll.isVisible() and d.draft is not None
                 and d.draft.sentence == text.strip()) or d.refusal_text(),
        what="a draft or a refusal"))


PHRASES = [
    ("every day at 9am, summarize today's email", "cron", "0 9 * * *"),
    ("every weekday at 8:30 check the build", "cron", "30 8 * * MON-FRI"),
    ("every monday at 10 write the weekly report", "cron", "0 10 * * MON"),
    ("on the 1st of every month at 9 pay the rent", "cron", "0 9 1 * *"),
    ("every hour from 9 to 5 check mail", "cron", "0 9-17 * * *"),
    ("every 5 minutes run `df -h`", "cron", "*/5 * * * *"),
    ("in 10 minutes check the deploy", "at", None),
    ("keep fixing the tests until they pass", "after", "10m"),
    ("every 90 minutes look for new releases", "every", "90m"),
    ("remind me at 9am tomorrow to stretch", "at", None),
    ("every friday at 4pm review the week", "cron", "0 16 * * FRI"),
    ("weekends at 10 water the plants", "cron", "0 10 * * SAT,SUN"),
    ("on the last day of each month at 6pm close the books", "monthly", None),
    ("tomorrow at 7pm remind me to call mom", "at", None),
]


@pytest.mark.parametrize(("sentence", "kind", "value"), PHRASES)
def test_a_sentence_becomes_a_card_and_create_makes_that_automation(
        qtbot, engine: Engine, sentence: str, kind: str, value: str | None) -> None:  # type: ignore[no-untyped-def]
    flow = engine.flow()
    d = flow.dialog
    ids: list[str] = []
    flow.created.connect(ids.append)
    type_sentence(qtbot, flow, sentence)
    assert d.refusal_text() == ""
    card = d.card
    draft = d.draft
    assert draft is not None and draft.source == "phrase"
    assert card.origin.text() == "Read from your sentence"
    assert card.title.text() == draft.doc["title"]
    assert card.fact("schedule") and card.fact("context") and card.fact("stop")
    assert len(card.fact("next").splitlines()) >= 1
    if kind == "cron":
        assert f"I assumed your time zone {ZONE}." in card.warning_text.text()
        assert len(card.fact("next").splitlines()) == 3
    if draft.doc["runner"]["kind"] == "command":
        assert card.runner.text() == "Runs a command:"
        assert "without asking" in card.fact("permissions")
    assert d.line_edit.text() == sentence          # the sentence stays in the box
    trigger = draft.doc["trigger"]
    assert trigger["kind"] == kind
    if value is not None:
        key = {"cron": "expression", "every": "every", "after": "interval"}[kind]
        assert trigger[key] == value
    card.create_button.click()
    run(engine.loop, until(lambda: ids or card.error_text(), what="the creation"))
    assert ids, card.error_text()
    run(engine.loop, flow.wait())
    assert not d.isVisible()
    automation = engine.automation(ids[0])
    stored = automation.definition.to_dict()
    assert stored["title"] == draft.doc["title"]
    stored_trigger = {k: v for k, v in stored["trigger"].items()
                      if k != "start_at" or "start_at" in trigger}  # the engine anchors it
    assert same_trigger(stored_trigger, trigger), (stored["trigger"], trigger)
    assert stored["runner"]["kind"] == draft.doc["runner"]["kind"]
    assert automation.definition.origin.kind == "user"


@pytest.mark.parametrize(("sentence", "kind", "value"), [PHRASES[1], PHRASES[7], PHRASES[8],
                                                        PHRASES[12], PHRASES[13]])
def test_edit_in_form_opens_the_form_with_the_same_title_and_trigger(
        qtbot, engine: Engine, sentence: str, kind: str, value: str) -> None:  # type: ignore[no-untyped-def]
    flow = engine.flow()
    docs: list[dict[str, Any]] = []
    flow.edit_in_form.connect(docs.append)
    type_sentence(qtbot, flow, sentence)
    flow.dialog.card.edit_button.click()
    assert docs and not flow.dialog.isVisible()
    run(engine.loop, flow.wait())
    form = AutomationForm(None, zone_default=ZONE)
    qtbot.addWidget(form)
    form.load_document(docs[0])
    assert form.title_edit.text() == docs[0]["title"]
    assert same_trigger(form.picker.trigger(), docs[0]["trigger"])
    assert form.picker.mode() != "kept" or kind == "after"
    saved = form.check(form.document())           # the form can save it as it is
    shown = flow.dialog.card.definition
    assert shown is not None
    # every field the card showed reaches the form: the conversation mode, the stop rule,
    # the permissions and the folder, not the form's own defaults
    assert saved.context == shown.context and saved.stop == shown.stop
    assert saved.permissions == shown.permissions and saved.workdir == shown.workdir
    assert saved.runner == shown.runner and saved.policy == shown.policy
    if kind == "after":
        assert form.context_box.currentData() == "continue"
        assert "Continues one conversation" in flow.dialog.card.fact("context")
    assert engine.automations() == []             # nothing was created


def test_an_example_chip_drafts_its_sentence(qtbot, engine: Engine) -> None:  # type: ignore[no-untyped-def]
    flow = engine.flow()
    d = flow.dialog
    assert len(d.chips) >= 4 and all(c.accessibleName() for c in d.chips)
    d.chips[1].click()
    run(engine.loop, until(lambda: d.draft is not None, what="the draft"))
    assert d.line_edit.text() == d.chips[1].text()
    assert not d.chip_box.isVisible()            # the card takes their place
    d.reject()
    run(engine.loop, flow.wait())


# ------------------------------------------------------------------- refusals

def test_a_sentence_the_parser_cannot_read_is_refused_beside_the_box_and_kept(
        qtbot, engine: Engine) -> None:  # type: ignore[no-untyped-def]
    flow = engine.flow()
    d = flow.dialog
    sentence = "whenever the moon is full, howl"
    type_sentence(qtbot, flow, sentence)
    assert d.refusal_text() and not d.card_scroll.isVisible()
    assert not d.refusal_text().startswith("sentence:")
    assert d.line_edit.text() == sentence
    assert d.line_edit.accessibleDescription() == d.refusal_text()
    type_sentence(qtbot, flow, "every day at 9am")           # when, but not what
    assert "not what to do" in d.refusal_text()
    assert d.line_edit.text() == "every day at 9am"
    d.line_edit.clear()
    assert not d.request_draft()                             # an empty box
    assert "when and what" in d.refusal_text()
    # a readable sentence after a refusal clears it
    type_sentence(qtbot, flow, PHRASES[0][0])
    assert d.refusal_text() == "" and d.card_scroll.isVisible()
    d.reject()
    run(engine.loop, flow.wait())
    assert engine.automations() == []


def test_an_engine_refusal_is_shown_on_the_card_and_the_dialog_stays(
        qtbot, engine: Engine) -> None:  # type: ignore[no-untyped-def]
    run(engine.loop, engine.api.set_setting("min_interval", "1h"))
    flow = engine.flow()
    d = flow.dialog
    type_sentence(qtbot, flow, "every 5 minutes run `df -h`")
    d.card.create_button.click()
    run(engine.loop, until(lambda: d.card.error_text(), what="the refusal"))
    assert d.isVisible() and d.line_edit.text() == "every 5 minutes run `df -h`"
    assert d.card.create_button.isEnabled() and d.card.create_button.text() == "Create"
    # another sentence, Create again: it works
    ids: list[str] = []
    flow.created.connect(ids.append)
    type_sentence(qtbot, flow, "every day at 7 run `uptime`")
    assert d.card.error_text() == ""
    qtbot.keyClick(d, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # Ctrl+Enter
    run(engine.loop, until(lambda: ids, what="the creation"))
    run(engine.loop, flow.wait())
    assert len(engine.automations()) == 1


# --------------------------------------------------------------------- the model

UNREADABLE = "whenever my inbox has more than 50 unread mails, sort them into folders"


def test_the_model_drafts_what_the_parser_cannot_read_and_create_makes_it(
        qtbot, engine: Engine, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    use_model(engine, server)
    server.play(call("automate", {"action": "create", "title": "Sort the inbox",
                                  "runner": {"kind": "agent",
                                             "prompt": "If more than 50 mails are unread, "
                                                       "sort them into folders."},
                                  "schedule": "cron:*/30 * * * *"}))
    flow = engine.flow()
    d = flow.dialog
    ids: list[str] = []
    flow.created.connect(ids.append)
    type_sentence(qtbot, flow, UNREADABLE)
    assert d.refusal_text() == ""
    assert d.draft is not None and d.draft.source == "model"
    assert d.card.origin.text() == "Drafted by the model"
    assert "The model wrote this draft" in d.card.warning_text.text()
    assert d.card.title.text() == "Sort the inbox"
    assert not d.busy and not d.busy_row.isVisible()
    assert UNREADABLE in server.requests[-1]["messages"][-1]["content"]
    d.card.create_button.click()
    run(engine.loop, until(lambda: ids, what="the creation"))
    run(engine.loop, flow.wait())
    stored = engine.automation(ids[0]).definition.to_dict()
    assert stored["title"] == "Sort the inbox"
    assert stored["trigger"] == {"kind": "cron", "expression": "*/30 * * * *", "timezone": ZONE}


def test_a_model_that_does_not_draft_is_refused_with_both_reasons(
        qtbot, engine: Engine, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    use_model(engine, server)
    server.play(say("I would rather not."))
    flow = engine.flow()
    d = flow.dialog
    type_sentence(qtbot, flow, UNREADABLE)
    assert "the model did not turn it into an automation" in d.refusal_text()
    assert "I would rather not" in d.refusal_text()
    assert d.line_edit.text() == UNREADABLE and not d.busy
    d.reject()
    run(engine.loop, flow.wait())


def test_the_phrase_parser_is_asked_first_so_a_readable_sentence_never_reaches_the_model(
        qtbot, engine: Engine, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    use_model(engine, server)
    flow = engine.flow()
    type_sentence(qtbot, flow, PHRASES[0][0])
    assert flow.dialog.draft is not None and flow.dialog.draft.source == "phrase"
    assert server.requests == []
    flow.dialog.reject()
    run(engine.loop, flow.wait())


def test_cancel_while_the_model_is_asked_closes_at_once_and_creates_nothing(
        qtbot, engine: Engine, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    use_model(engine, server)
    server.play(stall(3))
    flow = engine.flow()
    d = flow.dialog
    qtbot.keyClicks(d.line_edit, UNREADABLE)
    qtbot.keyClick(d.line_edit, Qt.Key.Key_Return)
    run(engine.loop, until(lambda: d.busy, what="the model to be asked"))
    assert d.busy_row.isVisible() and not d.draft_button.isEnabled()
    assert d.cancel_button.isEnabled()
    started = datetime.now(UTC)
    d.cancel_button.click()
    run(engine.loop, flow.wait())
    assert (datetime.now(UTC) - started).total_seconds() < 2.5
    assert not d.isVisible() and engine.automations() == []


def test_without_a_model_the_parsers_refusal_stands(qtbot, engine: Engine) -> None:  # type: ignore[no-untyped-def]
    flow = engine.flow()
    type_sentence(qtbot, flow, UNREADABLE)
    assert flow.dialog.refusal_text() and not flow.dialog.busy
    assert run(engine.loop, flow.provider()) is None
    flow.dialog.reject()
    run(engine.loop, flow.wait())


# ------------------------------------------------------------------- the card

NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


@pytest.mark.catalogue_free
def test_the_card_shows_the_definition_in_words(qtbot) -> None:  # type: ignore[no-untyped-def]
    card = ConfirmationCard(clock=lambda: NOW, local_tz=zone(ZONE))
    qtbot.addWidget(card)
    seen: dict[str, list[Any]] = {"create": [], "edit": [], "cancel": []}
    card.create_requested.connect(seen["create"].append)
    card.edit_requested.connect(seen["edit"].append)
    card.cancelled.connect(lambda: seen["cancel"].append(True))
    prompt = "\n".join(f"step {i}: do a thing" for i in range(12))
    doc = {"title": "Tidy up", "runner": {"kind": "agent", "prompt": prompt},
           "trigger": {"kind": "cron", "expression": "0 9 * * *",
                       "timezone": "America/New_York"},
           "context": {"mode": "continue"}, "stop": {"max_runs": 2},
           "workdir": "/tmp", "permissions": {"mode": "allow_listed",
                                              "tools": ["run_command", "read_file"]},
           "origin": {"kind": "agent"}}
    card.set_document(doc, warnings=["I assumed your time zone America/New_York."])
    assert card.title.text() == "Tidy up"
    assert card.origin.text() == "Proposed by an agent"
    assert card.what_text().endswith("…") and card.show_all.isVisibleTo(card)
    card.show_all.click()
    assert card.what_text() == prompt and card.show_all.text() == "Show less"
    assert card.fact("next").splitlines() == ["today 09:00 New York · 15:00 here",
                                              "tomorrow 09:00 New York · 15:00 here"]
    assert "Continues one conversation" in card.fact("context")
    assert card.fact("stop") == "Stops after 2 runs"
    assert card.fact("workdir") == "/tmp"
    assert card.fact("permissions").splitlines()[0] == "Runs commands without asking."
    assert card.warning_box.isVisibleTo(card)
    card.edit_button.click()
    edited = seen["edit"][0]
    assert {k: edited[k] for k in doc} != doc     # written out whole, defaults included
    assert edited["context"]["mode"] == "continue" and edited["origin"]["kind"] == "agent"
    assert edited == {**doc, **card.definition.to_dict()}
    card.create_button.click()
    card.create_button.click()                     # busy: one request only
    assert seen["create"] == [doc] and card.busy
    card.show_error("title: already taken")
    assert card.error_text() == "title: already taken" and not card.busy
    card.cancel_button.click()
    assert seen["cancel"] == [True]
    assert source_words("template", {"origin": {"kind": "template",
                                                "template": "remind-me"}}) == \
        "From the template “remind-me”"
    manual = {"title": "By hand", "runner": {"kind": "command", "command": "true"},
              "trigger": {"kind": "manual"}}
    card.set_document(manual)
    assert card.fact("next") == "Only when you run it." and not card.show_all.isVisibleTo(card)
    assert card.fact("workdir") == "Its own folder in Errands' data"
    assert not card.warning_box.isVisibleTo(card) and card.origin.isHidden()


@pytest.mark.catalogue_free
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_dialog_and_card_render_small_and_large(qtbot, qapp: QApplication,  # type: ignore[no-untyped-def]
                                                    scheme: str, tmp_path: Path) -> None:
    from errands.app.theme import Theme

    Theme(qapp, scheme)  # type: ignore[arg-type]
    try:
        draft = draft_from_phrase(
            "every weekday at 8:30 check the build and tell me which tests failed, with the "
            "last lines of each failure so that I need not open the logs", zone=ZONE, now=NOW)
        for width, height in ((520, 460), (900, 720)):
            d = QuickCreateDialog(None, clock=lambda: NOW, local_tz=zone(ZONE))
            qtbot.addWidget(d)
            d.resize(width, height)
            d.show()
            for step, act in enumerate((
                    lambda: None,
                    lambda: d.show_refusal("Cannot read 'whenever' as a schedule"),
                    lambda: d.show_busy(True),
                    lambda: d.show_draft(draft),
                    lambda: d.show_error("the engine said no"))):
                act()
                qapp.processEvents()
                assert d.grab().save(str(tmp_path / f"{scheme}-{width}-{step}.png"))
                assert d.minimumSizeHint().width() <= width
                inner = d.card_scroll.widget()
                if d.card_scroll.isVisible():
                    assert inner.minimumSizeHint().width() <= d.card_scroll.viewport().width()
            d.close()
    finally:
        Theme(qapp, "light")


@pytest.mark.catalogue_free
@pytest.mark.parametrize("sentence", [p[0] for p in PHRASES] + [
    "every other day at 8 water the plants", "on March 3 call the bank",
    "manually run `make`"])
def test_every_schedule_on_the_card_names_its_zone_and_its_first_fire_agrees(
        qtbot, sentence: str) -> None:  # type: ignore[no-untyped-def]
    """One-shots, grids and loops are shown in local time and say which zone that is;
    the first instant in the schedule's sentence is the first of "Next runs"."""
    draft = draft_from_phrase(sentence, zone=ZONE, now=NOW)
    card = ConfirmationCard(clock=lambda: NOW, local_tz=zone(ZONE))
    qtbot.addWidget(card)
    card.set_document(draft.doc, draft.definition, warnings=draft.warnings)
    schedule, first = card.fact("schedule"), card.fact("next").splitlines()[0]
    if draft.doc["trigger"]["kind"] == "manual":
        assert first == "Only when you run it."
        return
    assert f"({ZONE})" in schedule, schedule
    fire = upcoming(draft.definition, NOW)[0].astimezone(zone(ZONE))
    assert first.endswith(f"{fire:%H:%M}"), (first, fire)
    for marker in ("first at ", "Once at "):
        if marker in schedule:
            assert schedule.split(marker, 1)[1].split(" (", 1)[0].endswith(
                f"{fire:%H:%M}"), (schedule, fire)
    if ", from " in schedule:
        assert schedule.endswith(f"{fire:%Y-%m-%d}"), (schedule, fire)


def test_a_task_that_names_a_folder_asks_for_it_on_the_card(
        qtbot, engine: Engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A path in the task is filled in; "the repo" is asked for; a path that is not a
    folder is refused beside the field and nothing is created; the folder chosen is the
    automation's."""
    site = tmp_path / "site"
    site.mkdir()
    flow = engine.flow()
    d = flow.dialog
    ids: list[str] = []
    flow.created.connect(ids.append)
    type_sentence(qtbot, flow, f"every day at 9 summarize the changes in {site}")
    run(engine.loop, flow.tasks.idle())
    card = d.card
    assert card.asking_folder and card.folder_asker.isVisibleTo(card)
    assert card.folder_edit.text() == str(site)
    assert f"“{site}”" in card.folder_hint.text()
    type_sentence(qtbot, flow, "every weekday at 8 run the tests in the repo")
    run(engine.loop, flow.tasks.idle())
    assert card.asking_folder and card.folder_edit.text() == ""
    assert "“the repo”" in card.folder_hint.text()
    card.folder_edit.setFocus()
    qtbot.keyClicks(card.folder_edit, "projects/site")       # not a whole path
    card.create_button.click()
    assert "Write the whole path" in card.folder_error.text() and not ids
    card.folder_edit.setText(str(tmp_path / "nowhere"))      # whole, but no folder there
    card.create_button.click()
    run(engine.loop, until(lambda: card.folder_error.showing and "no folder" in
                           card.folder_error.text(), what="the refusal"))
    assert not ids and engine.automations() == []
    card.folder_edit.setText(str(site))
    assert not card.folder_error.showing                     # the stale words went
    card.create_button.click()
    run(engine.loop, until(lambda: ids, what="the creation"))
    run(engine.loop, flow.wait())
    assert engine.automation(ids[0]).definition.workdir == str(site)


def test_a_task_without_a_folder_or_a_command_asks_for_none(
        qtbot, engine: Engine) -> None:  # type: ignore[no-untyped-def]
    flow = engine.flow()
    for sentence in ("every day at 9 summarize the project status for the team",
                     "every day at 9 run `ls /tmp`"):
        type_sentence(qtbot, flow, sentence)
        run(engine.loop, flow.tasks.idle())
        assert not flow.dialog.card.asking_folder
        assert flow.dialog.card.fact_labels["workdir"].isVisibleTo(flow.dialog.card)
    flow.dialog.reject()
    run(engine.loop, flow.wait())


def test_in_a_german_window_an_unreadable_sentence_says_which_forms_are_read_and_offers_the_form(
        qtbot, engine: Engine, qapp: QApplication) -> None:  # type: ignore[no-untyped-def]
    """German words are read in their common forms; a sentence that still cannot be read
    is answered in the window's language (not the parser's English reasons) with the form
    offered, which opens at its schedule with the sentence as the task."""
    from errands.app import i18n
    i18n.install(qapp, "de")
    try:
        flow = QuickCreateFlow(None, engine.api, engine.data, ZONE, local_tz=zone(ZONE),
                               language="de")
        flow.open()
        wanted: list[dict[str, Any]] = []
        flow.picker_wanted.connect(wanted.append)
        d = flow.dialog
        type_sentence(qtbot, flow, "jeden Montag um 10 Uhr Wochenbericht schreiben")
        assert d.draft is not None and d.draft.doc["trigger"]["expression"] == "0 10 * * MON"
        assert d.card.fact("schedule") == "Jeden Montag um 10:00 (Europe/Berlin)"
        assert not d.picker_button.isVisible()
        type_sentence(qtbot, flow, "irgendwann nächste Woche aufräumen")
        shown = d.refusal_text()
        assert shown.startswith("Dieser Satz wurde nicht verstanden"), shown
        assert "could not" not in shown and "expected" not in shown
        assert d.picker_button.isVisible()
        d.picker_button.click()
        assert wanted and wanted[0]["runner"]["prompt"] == "irgendwann nächste Woche aufräumen"
        run(engine.loop, flow.wait())
        form = AutomationForm(None, zone_default=ZONE)
        qtbot.addWidget(form)
        form.load_document(wanted[0])
        form.show_schedule()
        assert form.tabs.currentIndex() == form.slots["trigger"][1]
        assert form.prompt_edit.toPlainText() == "irgendwann nächste Woche aufräumen"
    finally:
        i18n.uninstall(qapp)


@pytest.mark.catalogue_free
def test_the_card_says_what_was_assumed_in_the_windows_language(
        qtbot, qapp: QApplication) -> None:  # type: ignore[no-untyped-def]
    """A date with no time runs at 09:00 and the card says so; the reader's assumptions
    read in German in a German window."""
    from errands.app import i18n
    draft = draft_from_phrase("on March 3 call the bank", zone=ZONE, now=NOW)
    card = ConfirmationCard(clock=lambda: NOW, local_tz=zone(ZONE))
    qtbot.addWidget(card)
    card.set_document(draft.doc, draft.definition, warnings=draft.warnings)
    assert "No time of day given: it runs at 09:00." in card.warning_text.text()
    assert card.fact("next") == "tomorrow 09:00"
    i18n.install(qapp, "de")
    try:
        card.set_document(draft.doc, draft.definition, warnings=draft.warnings)
        shown = card.warning_text.text().splitlines()
        assert shown == ["⚠ Ich habe Ihre Zeitzone Europe/Berlin angenommen.",
                         "⚠ Keine Uhrzeit angegeben: Es läuft um 09:00."]
        draft = draft_from_phrase("every day at 9 read the news", zone=ZONE, now=NOW)
        card.set_document(draft.doc, draft.definition, warnings=draft.warnings)
        assert "⚠ „at 9“ gelesen als 09:00." in card.warning_text.text().splitlines()
    finally:
        i18n.uninstall(qapp)


def test_in_a_german_window_every_refusal_of_the_sentence_is_german(
        qtbot, engine: Engine, qapp: QApplication) -> None:  # type: ignore[no-untyped-def]
    """A sentence with no task, a week number (named), a schedule that never comes: no
    English reasons in a German window."""
    from errands.app import i18n
    i18n.install(qapp, "de")
    try:
        flow = QuickCreateFlow(None, engine.api, engine.data, ZONE, local_tz=zone(ZONE),
                               language="de")
        flow.open()
        d = flow.dialog
        type_sentence(qtbot, flow, "jeden Tag um 9 Uhr")
        assert d.refusal_text() == ("Hier steht, wann, aber nicht, was zu tun ist; ergänzen "
                                    "Sie die Aufgabe.")
        type_sentence(qtbot, flow, "in week 12 Urlaub planen")
        assert "Nicht verstanden: “in week 12”" in d.refusal_text()
        d.reject()
        run(engine.loop, flow.wait())
    finally:
        i18n.uninstall(qapp)


def test_in_a_chinese_window_a_chinese_sentence_becomes_its_card(
        qtbot, engine: Engine, qapp: QApplication) -> None:  # type: ignore[no-untyped-def]
    from errands.app import i18n
    i18n.install(qapp, "zh_CN")
    try:
        flow = QuickCreateFlow(None, engine.api, engine.data, ZONE, local_tz=zone(ZONE),
                               language="zh")
        flow.open()
        ids: list[str] = []
        flow.created.connect(ids.append)
        d = flow.dialog
        type_sentence(qtbot, flow, "每月最后一天晚上8点交房租")
        assert d.draft is not None and d.card.title.text() == "交房租"
        assert d.card.fact("schedule") == "每月最后一天 20:00 (Europe/Berlin)"
        d.card.create_button.click()
        run(engine.loop, until(lambda: ids, what="the creation"))
        run(engine.loop, flow.wait())
        stored = engine.automation(ids[0]).definition.to_dict()["trigger"]
        assert (stored["kind"], stored["day"], stored["at"]) == ("monthly", -1, "20:00")
    finally:
        i18n.uninstall(qapp)
