"""The window's passive views over a real store's data: the sidebar (model by id, filter,
sort, empty states, 10,000 rows), the detail pane (words, actions as signals, delete
confirmation), the run strip and history (marks match the store, skip reasons in words,
lazy loading) and Upcoming (the store's fires, crowded minutes)."""

from __future__ import annotations

import os
from pathlib import Path
from datetime import datetime, timedelta, timezone

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

from errands.app import marks, words  # noqa: E402
from errands.app.detail import DetailPane, RunHistoryModel  # noqa: E402
from errands.app.sidebar import AutomationSidebar  # noqa: E402
from errands.app.upcoming import UpcomingView, tooltip  # noqa: E402
from errands.forecast import forecast  # noqa: E402
from errands.queries import Summary, summaries  # noqa: E402
from errands.timeutil import zone  # noqa: E402
from views_support import Scenario, build  # noqa: E402

BERLIN = zone("Europe/Berlin")


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return build(tmp_path_factory.mktemp("views"))


def sidebar_for(qtbot, sc: Scenario) -> AutomationSidebar:  # type: ignore[no-untyped-def]
    w = AutomationSidebar()
    qtbot.addWidget(w)
    w.model.tz = BERLIN
    w.set_now(sc.now)
    w.set_summaries(summaries(sc.store)[0])
    return w


# ------------------------------------------------------------------------- sidebar

def test_sidebar_lists_the_store_in_next_fire_order(qtbot, scenario: Scenario) -> None:
    w = sidebar_for(qtbot, scenario)
    rows, _ = summaries(scenario.store, sort="next_fire")
    assert w.visible_ids() == [s.id for s in rows]
    w.set_sort_key("title")
    assert w.visible_ids() == [s.id for s in summaries(scenario.store, sort="title")[0]]
    w.set_sort_key("last_run")
    assert w.visible_ids() == [s.id for s in summaries(scenario.store, sort="last_run")[0]]


def test_sidebar_filter_and_empty_states(qtbot, scenario: Scenario) -> None:
    w = sidebar_for(qtbot, scenario)
    w.set_search_text("CHECK")
    assert w.visible_ids() == [scenario.ids["Site check"]]
    w.set_search_text(scenario.ids["Renew token"][:8])
    assert w.visible_ids() == [scenario.ids["Renew token"]]
    w.set_search_text("nothing like this")
    assert w.visible_ids() == [] and "No automation matches" in w.empty_text()
    w.empty_button.click()
    assert len(w.visible_ids()) == 6 and w.empty_text() == ""
    empty = AutomationSidebar()
    qtbot.addWidget(empty)
    assert "Loading" in empty.empty_text()  # never "none yet" before the store answered
    empty.set_summaries([])
    assert "No automations yet — press Ctrl+N" in empty.empty_text()
    with qtbot.waitSignal(empty.new_requested):
        empty.empty_button.click()


def test_sidebar_rows_say_status_schedule_next_fire_and_badges(qtbot, scenario: Scenario) -> None:
    w = sidebar_for(qtbot, scenario)
    site = w.model.summary(scenario.ids["Site check"])
    assert site is not None and site.failure_streak == 3
    text = w.model.describe(site)
    assert "3 failures in a row" in text and "Every 6 hours from 5 Jan 09:00" in text
    beat = w.model.summary(scenario.ids["Hourly beat"])
    assert beat is not None
    assert w.delegate._when(beat) == "in 45 min"
    w.set_unread_count(3)
    assert w.inbox_button.text() == "Inbox (3)"
    assert w.inbox_button.accessibleName() == "Inbox, 3 unread"


def test_sidebar_applies_snapshots_by_id_keeping_the_selection(qtbot, scenario: Scenario) -> None:
    w = sidebar_for(qtbot, scenario)
    site = scenario.ids["Site check"]
    assert w.select(site)
    resets, removed, inserted = [], [], []
    w.model.modelReset.connect(lambda: resets.append(1))
    w.model.rowsRemoved.connect(lambda *a: removed.append(a[1:]))
    w.model.rowsInserted.connect(lambda *a: inserted.append(a[1:]))
    rows = summaries(scenario.store)[0]
    gone = scenario.ids["Deploy by hand"]
    fresh = [s._replace(title="Site check (edited)", revision=2) if s.id == site else s
             for s in rows if s.id != gone]
    extra = fresh[0]._replace(id="f" * 36, title="Brand new", next_fire_at=None)
    w.set_summaries([*fresh, extra])
    assert resets == [] and len(removed) == 1 and len(inserted) == 1
    assert w.current_id() == site
    assert w.model.summary(site).title == "Site check (edited)"  # type: ignore[union-attr]
    w.apply_changes(deleted=[extra.id])
    assert extra.id not in w.visible_ids() and w.current_id() == site


def test_sidebar_shows_the_filter_proxy_only_while_filtering(qtbot, scenario: Scenario) -> None:
    """Unfiltered, reordering the rows asks Python nothing per row (the filter proxy would
    ask about all of them, each call waiting for the interpreter lock during a burst);
    starting and ending a filter keeps the selection and says when it was filtered out."""
    w = sidebar_for(qtbot, scenario)
    site, token = scenario.ids["Site check"], scenario.ids["Renew token"]
    selected: list[str] = []
    w.automation_selected.connect(selected.append)
    assert w.select(site)
    assert selected == [site]
    asked: list[int] = []
    decide = w.proxy._decide
    w.proxy._decide = lambda s, t: asked.append(1) or decide(s, t)  # type: ignore[method-assign]
    w.set_sort_key("title")  # every row moves: the shown proxy maps them again
    assert w.list.model() is not w.proxy and asked == []
    assert w.current_id() == site and w.list.currentIndex().isValid()

    w.set_search_text("check")
    assert w.list.model() is w.proxy and w.visible_ids() == [site]
    assert w.current_id() == site and selected == [site]  # still selected, not re-announced
    w.set_search_text("")
    assert w.list.model() is not w.proxy and len(w.visible_ids()) == w.model.rowCount()
    assert w.current_id() == site and selected == [site]

    w.set_search_text(token[:8])  # the selected row is filtered out: nothing is selected
    assert w.visible_ids() == [token] and w.current_id() is None and selected == [site, ""]
    w.set_search_text("")
    assert w.current_id() is None
    # the new selection model still reports choices
    assert w.select(token) and selected == [site, "", token]
    w.set_search_text("zzz no such automation")
    assert "No automation matches" in w.empty_text()


def synthetic(n: int, now) -> list[Summary]:  # type: ignore[no-untyped-def]
    return [Summary(f"{i:08x}-0000-4000-8000-000000000000", f"Automation number {i}",
                    "paused" if i % 7 == 0 else "active", "Every hour", "command",
                    now + timedelta(minutes=i % 997), None, None, i % 5, 0, False, 1)
            for i in range(n)]


def test_sidebar_filters_ten_thousand_rows(qtbot, scenario: Scenario) -> None:
    """What the filter finds among ten thousand rows (how fast: bench/bench_app.py, whose
    goal is under 50 ms a keystroke; a timing here would flake on a loaded machine)."""
    w = AutomationSidebar()
    qtbot.addWidget(w)
    w.resize(320, 720)
    w.show()
    w.set_summaries(synthetic(10_000, scenario.now))
    assert w.proxy.rowCount() == 10_000
    for text in ("number 12", "auto", "9", ""):
        w.proxy.set_search_text(text)
    assert w.proxy.rowCount() == 10_000
    w.proxy.set_search_text("number 12")
    assert w.proxy.rowCount() == len([i for i in range(10_000) if "12" in str(i)])
    # a notice naming one changed id touches one row, not ten thousand
    changed = []
    w.model.dataChanged.connect(lambda a, b, *r: changed.append((a.row(), b.row())))
    one = w.model.summaries()[5]._replace(failure_streak=9)
    w.apply_changes([one])
    assert changed == [(w.model.row_of(one.id), w.model.row_of(one.id))]
    # a few scattered rows: a signal each; a burst's hundreds: one layout change
    rows = w.model.summaries()
    layouts = []
    w.model.layoutChanged.connect(lambda *a: layouts.append(1))
    changed.clear()
    w.apply_changes([rows[i]._replace(failure_streak=7) for i in (10, 11, 40, 90)])
    assert changed == [(10, 11), (40, 40), (90, 90)] and layouts == []
    changed.clear()
    w.apply_changes([rows[i]._replace(failure_streak=8) for i in range(100, 3000, 3)])
    assert changed == [] and layouts == [1]
    assert all(w.model.summaries()[i].failure_streak == 8 for i in range(100, 3000, 3))
    assert w.model.summaries()[101].failure_streak == rows[101].failure_streak
    w.apply_changes([rows[i]._replace(failure_streak=9) for i in range(200, 300)])  # adjacent
    assert changed == [] and layouts == [1, 1]


# --------------------------------------------------------------------------- detail

def pane_for(qtbot, sc: Scenario, title: str) -> DetailPane:  # type: ignore[no-untyped-def]
    w = DetailPane()
    qtbot.addWidget(w)
    w.set_local_zone(BERLIN)
    w.set_now(sc.now)
    a = sc.store.get(sc.ids[title])
    runs, cursor = sc.store.runs_page(a.id, limit=50)
    w.set_automation(a, run_count=len(runs))
    w.set_runs(runs, cursor)
    return w


def test_detail_says_what_runs_when_and_under_which_rules(qtbot, scenario: Scenario) -> None:
    w = pane_for(qtbot, scenario, "Morning brief")
    assert w.fact("schedule") == "Every weekday at 09:00 (America/New_York)"
    assert w.fact("permissions") == "Runs its command without asking (creating it was the consent)"
    assert w.fact("misfire") == "Skipped and noted in the history"
    assert w.fact("workdir") == "/home/me/notes"
    assert w.what.text() == "true"
    fires = w.next_fires()
    assert len(fires) == 5 and fires[0] == scenario.store.get(
        scenario.ids["Morning brief"]).next_fire_at
    # the automation's zone and local time differ: both are shown
    assert "09:00 New York · 15:00 here" in w.next_label.text()
    assert w.buttons["stop"].isEnabled() is False


def test_detail_actions_emit_signals_and_delete_asks_first(qtbot, scenario: Scenario) -> None:
    w = pane_for(qtbot, scenario, "Weekly review")
    ident = scenario.ids["Weekly review"]
    assert w.buttons["pause"].text() == "Resume" and "Paused" in w.status.text()
    for key, signal in (("run_now", w.run_now_requested), ("dry_run", w.dry_run_requested),
                        ("pause", w.resume_requested), ("edit", w.edit_requested)):
        with qtbot.waitSignal(signal) as blocker:
            w.buttons[key].click()
        assert blocker.args == [ident]
    with qtbot.waitSignal(w.duplicate_requested):
        w.more_actions["duplicate"].trigger()
    deleted: list[str] = []
    w.delete_requested.connect(deleted.append)
    w.more_actions["delete"].trigger()
    box = w.delete_box
    assert box is not None and "Kept: the run logs" in box.text() and "Removed:" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert deleted == []
    w.more_actions["delete"].trigger()
    box = w.delete_box
    assert box is not None
    next(b for b in box.buttons() if b.text() == "Delete").click()
    assert deleted == [ident]


def test_missed_fires_read_as_one_skipped_row_in_words(qtbot, scenario: Scenario) -> None:
    w = pane_for(qtbot, scenario, "Hourly beat")
    runs = [r for r in scenario.store.runs_page(scenario.ids["Hourly beat"], limit=100)[0]
            if r.state == "skipped"]
    assert len(runs) == 1 and runs[0].skip_reason == "app_not_running"
    row = w.history.row_of(runs[0].id)
    assert row is not None
    text = w.history.index(row, 7).data()
    # offline from 22:30 to 08:15 UTC: fires 23:00 … 08:00 UTC, in Berlin 00:00 … 09:00
    assert text == "Skipped: Errands was not running — 10 fires between 00:00 and 09:00"
    assert w.history.index(row, 1).data() == "○ Skipped"


def test_failed_runs_show_their_error(qtbot, scenario: Scenario) -> None:
    w = pane_for(qtbot, scenario, "Site check")
    texts = [w.history.index(r, 7).data() for r in range(w.history.rowCount())]
    assert texts[1] == "Failed: exit status 1 (attempt 3 of 3)"
    assert texts[0].startswith("Caught up once for 2 missed fires · Failed: exit status 1")
    assert w.streak.text() == "· 3 failures in a row" and w.streak.isVisibleTo(w)
    assert "failures" not in w.status.text()     # the status keeps its own colour
    failure = marks.state_color(w.palette(), "failed").name()
    assert failure in w.streak.styleSheet() and failure not in w.status.styleSheet()


def test_run_strip_marks_match_the_store_and_select_runs(qtbot, scenario: Scenario) -> None:
    w = pane_for(qtbot, scenario, "Hourly beat")
    w.resize(900, 700)
    w.show()
    runs = scenario.store.runs_page(scenario.ids["Hourly beat"], limit=100)[0]
    marks = w.strip.marks()
    assert sorted((m.run_id, m.state) for m in marks) == sorted((r.id, r.state) for r in runs)
    assert [m.rect.center().x() for m in marks] == sorted(m.rect.center().x() for m in marks)
    skipped = next(m for m in marks if m.state == "skipped")
    assert skipped.until is not None and skipped.rect.width() > 20  # covers the night
    assert "Errands was not running — 10 fires" in w.strip.tooltip_for(skipped.run_id)
    target = marks[3]
    with qtbot.waitSignal(w.run_selected) as blocker:
        qtbot.mouseClick(w.strip, Qt.MouseButton.LeftButton,
                         pos=target.rect.center().toPoint())
    assert blocker.args == [target.run_id]
    assert w.table.currentIndex().row() == w.history.row_of(target.run_id)


def test_history_loads_more_runs_when_asked(qtbot, scenario: Scenario) -> None:
    store, ident = scenario.store, scenario.ids["Hourly beat"]
    model = RunHistoryModel()
    first, cursor = store.runs_page(ident, limit=5)
    model.set_runs(first, cursor)
    model.more_wanted.connect(lambda c: model.append_page(*store.runs_page(ident, limit=5,
                                                                            cursor=c)))
    while model.canFetchMore(model.index(-1, -1)):
        model.fetchMore(model.index(-1, -1))
    everything = store.runs_page(ident, limit=1000)[0]
    assert [r.id for r in model.runs()] == [r.id for r in everything]
    assert [int(model.index(r, 0).data()) for r in range(model.rowCount())] == \
        sorted((r.index for r in everything), reverse=True)


# ------------------------------------------------------------------------- upcoming

def test_upcoming_shows_the_store_fires_and_crowded_minutes(qtbot, scenario: Scenario) -> None:
    w = UpcomingView()
    qtbot.addWidget(w)
    w.set_local_zone(BERLIN)
    until = scenario.now + timedelta(hours=24)
    fires = forecast(scenario.store.list(), scenario.now, until)
    w.set_forecast(fires)
    model = w.model
    assert model.rowCount() == len(fires) > 0
    shown = [(model.index(r, 2).data(), model.index(r, 0).data(Qt.ItemDataRole.UserRole + 1))
             for r in range(model.rowCount())]
    assert shown == [(f.title, f.automation_id) for f in fires]
    assert [f.at for f in fires] == sorted(f.at for f in fires)
    crowded = w.crowded_minutes()
    # 14:00 UTC: the hourly beat, the 6-hourly check and the New York brief at once
    assert [(m.at.astimezone(timezone.utc).hour, m.count) for m in crowded] == [(14, 3)]
    row = crowded[0].first
    assert model.index(row, 3).data() == "3 at once"
    assert "1 crowded minute" in w.summary.text() and "busiest: 3 fires" in w.summary.text()
    with qtbot.waitSignal(w.range_changed) as blocker:
        w.week.click()
    assert blocker.args == [168]
    paused = scenario.ids["Weekly review"]
    assert paused not in {f.automation_id for f in fires}


def test_upcoming_clicking_a_crowded_minute_selects_its_first_fire(qtbot, scenario: Scenario
                                                                   ) -> None:
    w = UpcomingView()
    qtbot.addWidget(w)
    w.resize(700, 500)
    w.show()
    fires = forecast(scenario.store.list(), scenario.now, scenario.now + timedelta(hours=24))
    w.set_forecast(fires)
    busy = w.crowded_minutes()[0]
    x = w.timeline.x_of(busy.at)
    assert w.timeline.minute_at(x) == busy
    with qtbot.assertNotEmitted(w.automation_selected):   # three automations share it
        qtbot.mouseClick(w.timeline, Qt.MouseButton.LeftButton, pos=QPoint(round(x), 40))
    assert w.table.selectionModel().selectedRows()[0].row() == busy.first
    assert "3 fires at once" in tooltip(fires, busy, BERLIN)


def test_upcoming_counts_never_overlap_on_a_crowded_timeline(qtbot) -> None:
    """A week of crowded minutes side by side: one count per stretch of the axis, the
    busiest, so the labels never run into an unreadable band."""
    from errands.forecast import Minute
    from errands.app.upcoming import LABEL_ROOM, Timeline
    columns = [(x, Minute(datetime(2026, 1, 1, tzinfo=timezone.utc), 3 + x % 5, x))
               for x in range(14, 600, 3)]
    labelled = Timeline.labelled(columns)
    assert labelled and all(b[0] - a[0] >= LABEL_ROOM for a, b in zip(labelled, labelled[1:]))
    assert max(m.count for _, m in labelled) == 7


def test_words_for_every_skip_reason() -> None:
    from errands.records import Run
    for reason, text in (("machine_asleep", "The computer was asleep"),
                         ("previous_run_active", "The previous run was still going"),
                         ("previous_run_awaiting_input", "The previous run is waiting for you"),
                         ("past_catch_up_age", "Too old to catch up")):
        run = Run("r", "a", 1, 1, "schedule", None, "skipped", skip_reason=reason)
        assert words.run_summary(run, BERLIN) == f"Skipped: {text}"


# ------------------------------------------------------------------ the result column

@pytest.mark.parametrize("text, line", [
    ("**Done**: 3 new issues", "Done: 3 new issues"),
    ("Summary\n\n- **3** new issues\n- see [the board](https://example.org)\n\n```\n",
     "see the board"),
    ("## Report\n---\n", "Report"),
    ("keep snake_case and 2*3*4 as they are", "keep snake_case and 2*3*4 as they are"),
    ("| a | b |\n|---|---|\n| 1 | 2 |", "1 | 2"),
    ("first\nlast one `git status` ok\n\n", "last one git status ok"),
    ("Updated `__init__.py` and a_b_c as asked", "Updated __init__.py and a_b_c as asked"),
    ("**bold** and __also__", "bold and also"),
    ("", ""),
])
def test_the_result_column_shows_the_last_meaningful_line_rendered(text: str, line: str) -> None:
    assert words.result_line(text) == line


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_property_a_result_line_is_one_line_of_what_was_written(text: str) -> None:
    line = words.result_line(text)
    assert "\n" not in line and "\r" not in line and line == line.strip()
    assert not line or any(ch in text for ch in line)


@pytest.mark.parametrize("request_, sentence", [
    ({"kind": "permission", "tool": "run_command", "arguments": {"command": "git status --short"},
      "title": "Deploy check", "workdir": str(Path.home() / "site")},
     "Deploy check wants to run `git status --short` in ~/site"),
    ({"kind": "permission", "tool": "fetch_url", "arguments": {"url": "https://example.org/a"},
      "title": "News", "workdir": "/srv"}, "News wants to open `https://example.org/a`"),
    ({"kind": "permission", "tool": "automate", "arguments": {"action": "create"},
      "title": "Planner"}, "Planner wants to create automations"),
    ({"kind": "question", "question": "Which\nbranch?", "title": "Weekly review"},
     "Weekly review asks: Which branch?"),
    ({"kind": "permission", "tool": "write_file", "arguments": {"path": "x" * 200}},
     "An automation wants to write `" + "x" * 79 + "…`"),
])
def test_what_a_parked_run_asks_in_words(request_: dict, sentence: str) -> None:
    assert words.request_sentence(request_) == sentence
