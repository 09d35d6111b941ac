"""Translations: every string the window says has a finished German and Chinese translation
(a new untranslated string fails here), the shipped .qm files are the compiled .ts files,
and the real window over a real engine speaks German and Chinese, schedules and dates
included."""

from __future__ import annotations

import importlib.util
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType

import pytest
import qasync
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication

from app_support import command_doc, run, until
from errands.app import i18n, words
from errands.app.notifications import RecordingBackend
from errands.app.shell import AppShell
from errands.resources_access import resource

ROOT = Path(__file__).resolve().parents[1]


def _update() -> ModuleType:
    spec = importlib.util.spec_from_file_location("i18n_update", ROOT / "i18n" / "update.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


update = _update()


@pytest.mark.catalogue_free
@pytest.mark.parametrize("language", update.LANGUAGES)
def test_every_string_in_the_code_has_a_finished_translation(language: str) -> None:
    missing = update.check(language)
    assert not missing, (f"{len(missing)} string(s) without a {language} translation; run "
                         "python3 dev.py i18n and translate them in i18n/errands_"
                         f"{language}.ts:\n  " + "\n  ".join(missing))


@pytest.mark.parametrize("language", update.LANGUAGES)
def test_the_sources_are_complete_and_the_shipped_files_are_compiled_from_them(
        language: str, tmp_path: Path) -> None:
    ts = ROOT / "i18n" / f"errands_{language}.ts"
    text = ts.read_text(encoding="utf-8")
    assert 'type="unfinished"' not in text and 'type="vanished"' not in text
    root = ET.parse(ts).getroot()
    forms = 1 if language == "zh_CN" else 2  # Chinese has one form; German, English two
    for message in root.iter("message"):
        if message.get("numerus") == "yes":
            assert len(message.findall("translation/numerusform")) == forms, \
                message.findtext("source")
    built = tmp_path / "built.qm"
    subprocess.run([update.tool("pyside6-lrelease"), "-silent", str(ts), "-qm", str(built)],
                   check=True)
    shipped = resource("i18n", f"errands_{language}.qm")
    assert shipped.read_bytes() == built.read_bytes(), "run python3 dev.py i18n and commit"


@pytest.mark.catalogue_free
def test_the_language_follows_the_choice_or_the_system() -> None:
    assert i18n.resolve("de") == "de" and i18n.resolve("zh_CN") == "zh_CN"
    assert i18n.resolve("en", QLocale("de_DE")) == "en"
    assert i18n.resolve("", QLocale("de_AT")) == "de"
    assert i18n.resolve("", QLocale("zh_CN")) == "zh_CN"
    assert i18n.resolve("", QLocale("zh_TW")) == "en"   # no Traditional Chinese words yet
    assert i18n.resolve("", QLocale("fr_FR")) == "en"
    assert i18n.locale_for("de", QLocale("de_AT")).name() == "de_AT"
    assert i18n.locale_for("de", QLocale("en_GB")).name() == "de_DE"


@pytest.mark.catalogue_free
@pytest.mark.parametrize(("language", "expected"), [
    ("en", ("today 09:30", "Fri 09:30", "12 Mar 09:30", "12 Mar 2027 09:30", "1,000",
            "2 h 5 min", "3 min ago")),
    ("de", ("heute 09:30", "Fr. 09:30", "12. März 09:30", "12. März 2027 09:30", "1.000",
            "2 h 5 min", "vor 3 min")),
    ("zh_CN", ("今天 09:30", "周五 09:30", "3月12日 09:30", "2027年3月12日 09:30", "1,000",
               "2 小时 5 分钟", "3 分钟前")),
])
def test_dates_times_and_durations_follow_the_chosen_locale(
        qapp: QApplication, language: str, expected: tuple[str, ...]) -> None:
    i18n.install(qapp, language)
    utc = timezone.utc
    now = datetime(2026, 2, 24, 8, 0, tzinfo=utc)             # a Tuesday
    got = (words.day_and_time(datetime(2026, 2, 24, 9, 30, tzinfo=utc), now, utc),
           words.day_and_time(datetime(2026, 2, 27, 9, 30, tzinfo=utc), now, utc),
           words.day_and_time(datetime(2026, 3, 12, 9, 30, tzinfo=utc), now, utc),
           words.day_and_time(datetime(2027, 3, 12, 9, 30, tzinfo=utc), now, utc),
           words.number(1000), words.duration(timedelta(hours=2, minutes=5)),
           words.ago(now - timedelta(minutes=3), now))
    assert got == expected


@pytest.fixture
def speaking(request: pytest.FixtureRequest, qloop: qasync.QEventLoop,
             tmp_path: Path) -> Iterator[AppShell]:
    app = AppShell(tmp_path / "data", tray_available=True, notifications=RecordingBackend(),
                   language=request.param)
    run(qloop, app.start())
    try:
        yield app
    finally:
        run(qloop, app.idle())
        run(qloop, app.close())
        app.window.deleteLater()


WINDOW_WORDS = {
    "de": {"menus": ["&Datei", "&Automatisierung", "&Ansicht"],
           "empty": "Noch keine Automatisierungen",
           "schedule": "Werktags um 09:00 (America/New_York)",
           "run_now": "Jetzt ausführen", "pause": "Pausieren", "status": "Aktiv",
           "stop": "Läuft, bis Sie es pausieren oder löschen", "engine": "Engine läuft"},
    "zh_CN": {"menus": ["文件(&F)", "自动化任务(&A)", "视图(&V)"],
              "empty": "还没有自动化任务",
              "schedule": "每个工作日 09:00 (America/New_York)",
              "run_now": "立即运行", "pause": "暂停", "status": "活动",
              "stop": "会一直运行，直到您暂停或删除它", "engine": "引擎运行中"},
}


@pytest.mark.parametrize("speaking", ["de", "zh_CN"], indirect=True)
def test_the_real_window_speaks_the_chosen_language(
        speaking: AppShell, qloop: qasync.QEventLoop) -> None:
    expect = WINDOW_WORDS[speaking.language]
    c, api, w = speaking.controller, speaking.api, speaking.window
    assert c is not None and api is not None
    assert [a.text() for a in w.menuBar().actions()] == expect["menus"]
    assert expect["empty"] in c.sidebar.empty_text()
    run(qloop, until(lambda: w.engine_label.text() == expect["engine"], what="engine state"))

    made = run(qloop, api.create(command_doc(
        "Standup", "echo standup", {"kind": "cron", "expression": "0 9 * * MON-FRI",
                                    "timezone": "America/New_York"}))).value[0]
    run(qloop, until(lambda: made.id in c.sidebar.visible_ids(), what="row appears"))
    row = c.sidebar.model.summary(made.id)
    assert row is not None
    assert c.sidebar.model.schedule_text(row) == expect["schedule"]       # the sidebar row
    assert expect["status"] in c.sidebar.model.describe(row)
    assert c.sidebar.select(made.id)
    run(qloop, until(lambda: c.detail.automation is not None, what="detail shows"))
    assert c.detail.fact("schedule") == expect["schedule"]               # the detail pane
    assert c.detail.fact("stop") == expect["stop"]
    assert c.detail.buttons["run_now"].text() == expect["run_now"]
    assert c.detail.buttons["pause"].text() == expect["pause"]
    # Qt's own words too (qtbase's translations): a standard button
    from PySide6.QtWidgets import QDialogButtonBox
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
    assert box.button(QDialogButtonBox.StandardButton.Cancel).text() in ("Abbrechen", "取消")


@pytest.mark.catalogue_free
def test_english_counts_read_right_for_one(qapp) -> None:  # type: ignore[no-untyped-def]
    i18n.install(qapp, "en")
    try:
        assert words.tr("%n failures in a row", None, 1) == "1 failure in a row"
        assert words.tr("%n failures in a row", None, 3) == "3 failures in a row"
        assert words.tr("Every %n hours at %1", None, 1) == "Every hour at %1"
    finally:
        i18n.uninstall(qapp)


@pytest.mark.catalogue_free
@pytest.mark.parametrize("language, expected", [
    ("en", ("Every month on the last day at 18:00 (Europe/Berlin)",
            "Every month on the 2nd-to-last Friday at 09:00 (Europe/Berlin)",
            "Every 3 months on the 5th at 09:00, from December 2026 (Europe/Berlin)",
            "Every 2 years on the 3rd of March at 09:00, from 2027 (Europe/Berlin)",
            "Every month on the last working day at 09:00 (Europe/Berlin)")),
    ("de", ("Jeden Monat am letzten Tag um 18:00 (Europe/Berlin)",
            "Jeden Monat am 2.-letzten Freitag um 09:00 (Europe/Berlin)",
            "Alle 3 Monate am 5. um 09:00, ab Dezember 2026 (Europe/Berlin)",
            "Alle 2 Jahre am 3. im März um 09:00, ab 2027 (Europe/Berlin)",
            "Jeden Monat am letzten Werktag um 09:00 (Europe/Berlin)")),
    ("zh_CN", ("每月最后一天 18:00 (Europe/Berlin)",
               "每月倒数第 2 个星期五 09:00 (Europe/Berlin)",
               "每 3 个月的5日 09:00，从 2026 年十二月起 (Europe/Berlin)",
               "每 2 年三月的3日 09:00，从 2027 年起 (Europe/Berlin)",
               "每月最后一个工作日 09:00 (Europe/Berlin)")),
])
def test_monthly_schedules_are_worded_in_the_chosen_language(
        qapp: QApplication, language: str, expected: tuple[str, ...]) -> None:
    from errands.definition import MonthlyTrigger
    i18n.install(qapp, language)
    try:
        now = datetime(2026, 12, 5, 7, 0, tzinfo=timezone.utc)
        start = 2026 * 12 + 11
        triggers = (MonthlyTrigger(18, 0, "Europe/Berlin", start, day=-1),
                    MonthlyTrigger(9, 0, "Europe/Berlin", start, weekday="fri", nth=-2),
                    MonthlyTrigger(9, 0, "Europe/Berlin", start, 3, day=5),
                    MonthlyTrigger(9, 0, "Europe/Berlin", 2027 * 12 + 2, 24, day=3),
                    MonthlyTrigger(9, 0, "Europe/Berlin", start, weekday="workday", nth=-1))
        got = tuple(words.trigger_sentence(t, now, timezone.utc) for t in triggers)
        assert got == expected
    finally:
        i18n.uninstall(qapp)


REFUSED = [  # a definition the real parser refuses, its reason, and the German words
    ({"title": ""}, "empty", "Schreiben Sie hier etwas hinein."),
    ({"title": "x" * 130}, "too_long", "Höchstens 120 Zeichen; hier sind es 130."),
    ({"title": "a\x07b"}, "characters", "Es enthält ein Zeichen, das hier nicht erlaubt ist "
                                        "(U+0007); verwenden Sie einfachen Text."),
    ({"workdir": "projects/site"}, "not_absolute", "Schreiben Sie den ganzen Pfad, beginnend "
                                                   "mit /."),
    ({"policy": {"max_steps": 0}}, "range", "Wählen Sie eine ganze Zahl von 1 bis 10.000."),
    ({"overlap": "sometimes"}, "choice", "Wählen Sie eines von: skip, queue_one, "
                                         "cancel_previous."),
    ({"policy": {"timeout": "soon"}}, "duration", "Schreiben Sie eine Zeitspanne wie 30s, "
                                                  "15m, 2h oder 1d (höchstens 366 Tage)."),
    ({"trigger": {"kind": "cron", "expression": "0 9 * * *", "timezone": "Mars/Olympus"}},
     "zone", "„Mars/Olympus“ ist keine Zeitzone; wählen Sie eine aus der Liste."),
    ({"trigger": {"kind": "every", "every": "1m"}}, "too_often",
     "Das läuft öfter, als Errands erlaubt (mindestens 10m Abstand, in den Einstellungen); "
     "wählen Sie einen längeren Abstand."),
    ({"stop": {"until": "tomorrow"}, "trigger": {"kind": "every", "every": "1h"}}, "instant",
     "Das ist kein Datum mit Uhrzeit, das Errands lesen kann."),
]


@pytest.mark.catalogue_free
@pytest.mark.parametrize("change, reason, german", REFUSED,
                         ids=[r[1] for r in REFUSED])
def test_engine_refusals_carry_a_reason_the_window_words_in_its_language(
        qapp: QApplication, change: dict, reason: str, german: str) -> None:
    """What the engine refuses reaches the window as a code, a field and values (through
    the control channel's error payload too), and the window says it in its own words:
    no English in a German form."""
    from errands.channel import error_from_payload
    from errands.definition import ParseContext, parse_definition
    from errands.errors import InvalidInput
    doc = {"title": "Backup", "runner": {"kind": "command", "command": "true"},
           "trigger": {"kind": "manual"}, **change}
    with pytest.raises(InvalidInput) as refused:
        parse_definition(doc, ParseContext(now=datetime(2026, 12, 5, tzinfo=timezone.utc),
                                           min_interval=timedelta(minutes=10)))
    assert refused.value.reason == reason, refused.value
    payload = {**refused.value.to_dict(), "kind": "InvalidInput"}
    again = error_from_payload(payload)
    assert isinstance(again, InvalidInput)
    assert (again.reason, again.values, again.field) == (
        reason, refused.value.values, refused.value.field)
    i18n.install(qapp, "de")
    try:
        assert words.refusal_words(again, timezone.utc) == german
    finally:
        i18n.uninstall(qapp)


@pytest.mark.catalogue_free
def test_the_form_shows_an_engine_refusal_in_german_under_its_field(qapp: QApplication,
                                                                     qtbot) -> None:  # type: ignore[no-untyped-def]
    """Through the real parser with the engine's interval floor, in a German form: the
    refusal under the schedule is German, with its value."""
    from errands.app.dialogs.form import AutomationForm
    from errands.definition import ParseContext, parse_definition
    from errands.errors import InvalidInput
    i18n.install(qapp, "de")
    try:
        form = AutomationForm(None, zone_default="Europe/Berlin")
        qtbot.addWidget(form)
        form.title_edit.setText("Sicherung")
        form.runner_box.setCurrentIndex(form.runner_box.findData("command"))
        form.command_edit.setPlainText("true")
        form.picker.set_values({"mode": "every", "every": timedelta(minutes=2)})
        with pytest.raises(InvalidInput) as refused:
            parse_definition(form.document(), ParseContext(
                now=datetime.now(timezone.utc), min_interval=timedelta(minutes=10)))
        form.show_errors(refused.value)
        assert form.field_error("trigger.every") == (
            "Das läuft öfter, als Errands erlaubt (mindestens 10m Abstand, in den "
            "Einstellungen); wählen Sie einen längeren Abstand.")
    finally:
        i18n.uninstall(qapp)


def test_every_refusal_reason_is_worded_by_the_window_and_listed_in_the_docs() -> None:
    """One list (``errors.REASONS``): the window words each reason itself and docs/cli.md
    names each, so a reason added later cannot reach a German window in English."""
    import re
    from errands.errors import REASONS
    assert set(REASONS) == set(words._REASON_WORDS) | {"past"}
    cli = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    listed = set(re.findall(r"`([a-z_]+)`", cli.split('"reason"', 1)[1].split("FIELD", 1)[0]))
    assert set(REASONS) <= listed, set(REASONS) - listed


@pytest.mark.catalogue_free
@pytest.mark.parametrize("phrase", [
    "every day at 9 read the news", "on March 3 call the bank", "quarterly on the last day pay",
    "every second tuesday review", "every 30 minutes from 9am to 5pm ping",
    "every day at 2:30 back up", "every month on the 31st pay", "biweekly on monday plan",
])
def test_the_readers_assumptions_read_in_german(qapp: QApplication, phrase: str) -> None:
    """Every assumption the reader states for these phrases is worded in German (none
    passes through in English)."""
    from errands.drafts import draft_from_phrase
    now = datetime(2026, 3, 10, 12, tzinfo=timezone.utc)
    draft = draft_from_phrase(phrase, zone="Europe/Berlin", now=now)
    assert draft.warnings
    i18n.install(qapp, "de")
    try:
        for warning in draft.warnings:
            shown = words.warning_words(warning)
            assert shown != warning, warning
    finally:
        i18n.uninstall(qapp)
