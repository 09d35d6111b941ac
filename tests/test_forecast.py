"""The Upcoming forecast: complete, in time order, within each automation's stop conditions,
and honest when a window holds more fires than one list may."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errands.definition import (AfterTrigger, AtTrigger, CronTrigger, EveryTrigger,
                                ManualTrigger, ParseContext, Stop, parse_definition)
from errands.forecast import forecast
from errands.records import Automation
from errands.schedule import iter_fires

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

T0 = datetime(2026, 3, 20, 8, 0, 0, tzinfo=timezone.utc)   # a week before Europe's clocks move
BASE = parse_definition({"title": "x", "runner": {"kind": "command", "command": "true"},
                         "trigger": {"kind": "manual"}}, ParseContext(now=T0))


def automation(ident: str, trigger, first: datetime | None, *, status: str = "active",
               stop: Stop = Stop(), counted: int = 0) -> Automation:
    return Automation(id=ident, title=f"title {ident}", revision=1, status=status,
                      definition=replace(BASE, title=f"title {ident}", trigger=trigger,
                                         stop=stop),
                      next_fire_at=first, failure_streak=0, run_count=counted, created_at=T0,
                      updated_at=T0, counted_runs=counted)


def oracle(automations: list[Automation], after: datetime, until: datetime
           ) -> list[tuple[datetime, str, str]]:
    """Fire after fire through ``iter_fires``: what the window listed before the forecast."""
    out = []
    for a in automations:
        d = a.definition
        if d is None or a.status != "active" or a.next_fire_at is None:
            continue
        left = None if d.stop.max_runs is None else max(0, d.stop.max_runs - a.counted_runs)
        instants = [a.next_fire_at]
        for t in iter_fires(d.trigger, a.next_fire_at):
            if t > until:
                break
            instants.append(t)
        for t in instants:
            if t > until or left == 0 or (d.stop.until is not None and t >= d.stop.until):
                break
            if left is not None:
                left -= 1
            if t > after:
                out.append((t, a.id, a.title))
    return sorted(out)


ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"]


@st.composite
def triggers(draw):
    start = T0 + timedelta(seconds=draw(st.integers(-3 * 86400, 5 * 86400)),
                           microseconds=draw(st.sampled_from([0, 0, 250_000])))
    kind = draw(st.sampled_from(["every", "every_zone", "after", "cron", "at"]))
    if kind == "every":
        return EveryTrigger(every=timedelta(seconds=draw(st.integers(60, 3 * 86400))),
                            start_at=start)
    if kind == "every_zone":
        return EveryTrigger(every=timedelta(days=draw(st.integers(1, 3))), start_at=start,
                            timezone=draw(st.sampled_from(ZONES)))
    if kind == "after":
        return AfterTrigger(interval=timedelta(minutes=draw(st.integers(1, 2000))),
                            start_at=start)
    if kind == "cron":
        expr = draw(st.sampled_from(["*/30 * * * *", "0 9 * * MON-FRI", "30 2 * * *",
                                     "15 1-3 * * SUN", "0 */6 * * *", "5 4 1,15 * *"]))
        return CronTrigger(expression=expr, timezone=draw(st.sampled_from(ZONES)))
    return AtTrigger(at=start)


@st.composite
def automations(draw):
    out = []
    for i in range(draw(st.integers(0, 6))):
        trigger = draw(triggers())
        start = getattr(trigger, "start_at", None) or getattr(trigger, "at", None)
        first = start if start is not None and not isinstance(trigger, CronTrigger) else \
            trigger.cron.next_fire(T0 - timedelta(days=1), trigger.timezone)  # type: ignore[union-attr]
        if isinstance(trigger, EveryTrigger) and trigger.timezone:
            first = None if draw(st.booleans()) else trigger.start_at
            if first is None:
                continue
        stop = Stop(max_runs=draw(st.none() | st.integers(1, 40)),
                    until=draw(st.none() | st.just(T0 + timedelta(hours=draw(st.integers(1, 200))))))
        out.append(automation(f"a{i}", trigger, first, stop=stop,
                              counted=draw(st.integers(0, 5)),
                              status=draw(st.sampled_from(["active"] * 4 + ["paused"]))))
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(autos=automations(), hours=st.sampled_from([1, 24, 168]),
       offset=st.integers(-2 * 86400, 2 * 86400))
def test_property_the_forecast_is_every_fire_the_schedule_gives(autos, hours, offset):
    after = T0 + timedelta(seconds=offset)
    until = after + timedelta(hours=hours)
    f = forecast(autos, after, until)
    assert not f.shortened
    assert sorted(tuple(fire) for fire in f) == oracle(autos, after, until)
    assert [fire.at for fire in f] == sorted(fire.at for fire in f)
    assert f.automations == len({fire.automation_id for fire in f})
    assert sum(m.count for m in f.minutes) == len(f)
    for m in f.minutes:
        assert {f[row].at.replace(second=0, microsecond=0) for row in
                range(m.first, m.first + m.count)} == {m.at}
        assert f.minute_of(m.first + m.count - 1) == m


def test_a_grid_is_a_range_and_its_stop_conditions_hold() -> None:
    grid = EveryTrigger(every=timedelta(minutes=10), start_at=T0)
    a = automation("g", grid, T0 + timedelta(minutes=30), stop=Stop(max_runs=10), counted=3)
    f = forecast([a], T0, T0 + timedelta(days=7))
    # 7 runs left from the stored next fire at 08:30
    assert [fire.at for fire in f] == [T0 + timedelta(minutes=30 + 10 * k) for k in range(7)]
    until = automation("u", grid, T0, stop=Stop(until=T0 + timedelta(hours=1)))
    assert [fire.at for fire in forecast([until], T0 - timedelta(seconds=1),
                                         T0 + timedelta(days=1))][-1] == T0 + timedelta(minutes=50)


def test_manual_paused_broken_and_archived_automations_have_no_fires() -> None:
    grid = EveryTrigger(every=timedelta(hours=1), start_at=T0)
    items = [automation("m", ManualTrigger(), None),
             automation("p", grid, T0, status="paused"),
             automation("z", grid, T0, status="archived"),
             replace(automation("b", grid, T0), definition=None, status="broken",
                     problem="bad")]
    assert len(forecast(items, T0 - timedelta(hours=1), T0 + timedelta(days=7))) == 0


def test_a_window_too_full_for_one_list_is_shortened_and_says_so() -> None:
    """A week of a minutely grid over 60 automations is 600,000 fires: the window shrinks
    until its list fits, and everything up to its new end is there."""
    items = [automation(f"m{i}", EveryTrigger(every=timedelta(minutes=1), start_at=T0), T0)
             for i in range(60)]
    asked = T0 + timedelta(days=7)
    f = forecast(items, T0 - timedelta(seconds=1), asked, limit=100_000)
    assert f.shortened and f.asked_until == asked and f.until < asked
    assert len(f) <= 100_000
    assert sorted(tuple(x) for x in f) == oracle(items, T0 - timedelta(seconds=1), f.until)
