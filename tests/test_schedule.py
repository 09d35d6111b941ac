"""Trigger maths shared by the engine and the previews: grids, loops, one-shots, windows."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from errands.definition import (AfterTrigger, AtTrigger, CronTrigger, EveryTrigger,
                                ManualTrigger, ParseContext, parse_definition)
from errands.errors import InvalidInput
from errands.fires import due_window
from errands.schedule import describe, fires_between, jitter_offset, next_fire, next_fires

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

T0 = datetime(2026, 1, 1, 0, 0, 7, tzinfo=timezone.utc)


class TestFixedGrid:
    def test_start_is_the_first_fire(self) -> None:
        grid = EveryTrigger(every=timedelta(minutes=15), start_at=T0)
        assert next_fire(grid, T0 - timedelta(seconds=1)) == T0
        assert next_fire(grid, T0) == T0 + timedelta(minutes=15)

    def test_no_drift_over_a_simulated_year(self) -> None:
        """Each run starts late by a varying amount; the ticks never move."""
        every = timedelta(seconds=3607)  # deliberately not a divisor of anything
        grid = EveryTrigger(every=every, start_at=T0)
        now, fire, k = T0, T0, 0
        end = T0 + timedelta(days=365)
        while fire < end:
            assert fire == T0 + k * every
            now = fire + timedelta(seconds=(k * 7919) % 900)  # up to 15 min late
            fire = next_fire(grid, now)  # type: ignore[assignment]
            k += 1
        assert k == 365 * 86400 // 3607 + 1

    def test_due_windows_count_without_listing(self) -> None:
        """The engine's window of due fires [cursor, horizon] is O(1) for a grid."""
        grid = EveryTrigger(every=timedelta(seconds=1), start_at=T0)
        year = T0 + timedelta(days=365)
        assert due_window(grid, T0 - timedelta(seconds=1), year).count == 365 * 86400 + 1
        assert due_window(grid, T0 + timedelta(seconds=1), year).count == 365 * 86400
        small = EveryTrigger(every=timedelta(minutes=7), start_at=T0)
        start, stop = T0 + timedelta(minutes=3), T0 + timedelta(hours=5)
        fires = fires_between(small, start, stop)
        window = due_window(small, start, stop)
        assert window is not None and window.count == len(fires) == 42
        assert (window.first, window.before_last, window.last) == (fires[0], fires[-2], fires[-1])
        assert due_window(small, stop, stop) is None
        assert due_window(small, T0 - timedelta(days=2), T0 - timedelta(days=1)) is None


def test_one_shot() -> None:
    at = AtTrigger(at=T0)
    assert next_fire(at, T0 - timedelta(seconds=1)) == T0
    assert next_fire(at, T0) is None
    assert next_fires(at, T0 - timedelta(days=1), 5) == [T0]


def test_after_loop_counts_from_the_previous_finish() -> None:
    loop = AfterTrigger(interval=timedelta(minutes=10), start_at=T0)
    assert next_fire(loop, T0 - timedelta(seconds=1)) == T0
    finished = T0 + timedelta(minutes=3, seconds=12)
    assert next_fire(loop, finished, last_finished=finished) == finished + timedelta(minutes=10)
    # preview: runs assumed instantaneous
    assert next_fires(loop, T0 - timedelta(seconds=1), 3) == [
        T0, T0 + timedelta(minutes=10), T0 + timedelta(minutes=20)]


def test_manual_never_fires() -> None:
    assert next_fire(ManualTrigger(), T0) is None
    assert next_fires(ManualTrigger(), T0, 3) == []


def test_cron_window_in_local_time() -> None:
    cron = CronTrigger(expression="0 9 * * MON-FRI", timezone="Europe/Berlin")
    fires = fires_between(cron, datetime(2026, 3, 27, tzinfo=timezone.utc),
                          datetime(2026, 3, 31, tzinfo=timezone.utc))
    # Friday 27 March in winter time, Monday 30 March in summer time: 9am stays 9am
    assert fires == [datetime(2026, 3, 27, 8, tzinfo=timezone.utc),
                     datetime(2026, 3, 30, 7, tzinfo=timezone.utc)]


def test_jitter_is_stable_and_bounded() -> None:
    jitter = timedelta(minutes=5)
    offsets = {jitter_offset(f"id-{i}", jitter) for i in range(200)}
    assert all(timedelta(0) <= o < jitter for o in offsets)
    assert len(offsets) > 100  # spread out
    assert jitter_offset("id-1", jitter) == jitter_offset("id-1", jitter)
    assert jitter_offset("id-1", None) == timedelta(0)


@pytest.mark.parametrize("trigger, text", [
    (ManualTrigger(), "Only when run by hand"),
    (AtTrigger(at=T0), "Once at 2026-01-01T00:00:07Z"),
    (EveryTrigger(every=timedelta(minutes=15), start_at=T0),
     "Every 15 minutes from 2026-01-01T00:00:07Z"),
    (EveryTrigger(every=timedelta(hours=1), start_at=T0), "Every hour from 2026-01-01T00:00:07Z"),
    (EveryTrigger(every=timedelta(days=14), start_at=datetime(2027, 3, 15, 8, tzinfo=timezone.utc),
                  timezone="Europe/Berlin"),
     "Every 14 days at 09:00 (Europe/Berlin), from Monday 2027-03-15"),
    (AfterTrigger(interval=timedelta(minutes=10), start_at=T0),
     "Again 10 minutes after each run finishes, first at 2026-01-01T00:00:07Z"),
    (CronTrigger(expression="30 9 * * MON-FRI", timezone="Europe/Berlin"),
     "Every weekday at 09:30 (Europe/Berlin)"),
])
def test_descriptions(trigger: object, text: str) -> None:
    assert describe(trigger) == text  # type: ignore[arg-type]


class TestLocalDayGrid:
    """``every`` with a ``timezone``: whole local days at the start's wall-clock time."""

    MONDAY = datetime(2027, 3, 15, 8, 0, tzinfo=timezone.utc)     # 09:00 in Berlin (CET)

    def grid(self, days: int = 14, start: datetime = MONDAY, tz: str = "Europe/Berlin"
             ) -> EveryTrigger:
        return EveryTrigger(every=timedelta(days=days), start_at=start, timezone=tz)

    def test_every_other_monday_keeps_nine_across_the_spring_change(self) -> None:
        fires = next_fires(self.grid(), self.MONDAY - timedelta(seconds=1), 3)
        assert [f.isoformat() for f in fires] == [
            "2027-03-15T08:00:00+00:00",   # CET
            "2027-03-29T07:00:00+00:00",   # CEST: still 09:00 local, 13 days 23 hours later
            "2027-04-12T07:00:00+00:00"]

    def test_autumn_change_and_another_zone(self) -> None:
        start = datetime(2027, 10, 25, 13, 0, tzinfo=timezone.utc)   # Mon 09:00 EDT
        fires = next_fires(self.grid(7, start, "America/New_York"), start, 2)
        assert [f.isoformat() for f in fires] == ["2027-11-01T13:00:00+00:00",
                                                   "2027-11-08T14:00:00+00:00"]

    def test_a_wall_time_in_the_gap_moves_forward_and_the_fold_takes_the_first(self) -> None:
        start = datetime(2027, 3, 27, 1, 30, tzinfo=timezone.utc)    # Sat 02:30 CET
        fires = next_fires(self.grid(1, start), start, 2)
        assert fires[0] == datetime(2027, 3, 28, 1, 30, tzinfo=timezone.utc)  # 03:30 CEST
        assert fires[1] == datetime(2027, 3, 29, 0, 30, tzinfo=timezone.utc)  # 02:30 CEST
        start = datetime(2027, 10, 30, 0, 30, tzinfo=timezone.utc)   # Sat 02:30 CEST
        fold = next_fire(self.grid(1, start), start)
        assert fold == datetime(2027, 10, 31, 0, 30, tzinfo=timezone.utc)  # first 02:30

    def test_the_engine_window_counts_local_days(self) -> None:
        grid = self.grid()
        window = due_window(grid, self.MONDAY, datetime(2027, 4, 30, tzinfo=timezone.utc))
        assert window is not None
        assert (window.count, window.first, window.last) == (
            4, self.MONDAY, datetime(2027, 4, 26, 7, 0, tzinfo=timezone.utc))
        assert fires_between(grid, self.MONDAY, window.last)[0] == datetime(
            2027, 3, 29, 7, 0, tzinfo=timezone.utc)

    def test_the_end_of_the_calendar_ends_the_grid(self) -> None:
        late = datetime(9999, 12, 30, 9, 0, tzinfo=timezone.utc)
        assert next_fire(self.grid(14, late, "UTC"), late) is None

    def test_definition_round_trip_and_refusals(self) -> None:
        ctx = ParseContext(now=T0)
        doc = {"title": "t", "runner": {"kind": "command", "command": "true"},
               "trigger": {"kind": "every", "every": "14d", "start_at": "2027-03-15T08:00:00Z",
                           "timezone": "Europe/Berlin"}}
        definition = parse_definition(doc, ctx)
        assert definition.trigger == self.grid()
        assert definition.to_dict()["trigger"] == doc["trigger"]
        assert "timezone" not in parse_definition(
            {**doc, "trigger": {"kind": "every", "every": "15m"}}, ctx).to_dict()["trigger"]
        for trigger, field in (({**doc["trigger"], "every": "36h"}, "trigger.timezone"),
                               ({**doc["trigger"], "timezone": "Mars/Base"}, "trigger.timezone"),
                               ({"kind": "after", "interval": "1d", "timezone": "UTC"},
                                "trigger.timezone")):
            with pytest.raises(InvalidInput) as info:
                parse_definition({**doc, "trigger": trigger}, ctx)
            assert info.value.field == field
