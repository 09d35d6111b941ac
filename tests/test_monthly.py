"""The ``monthly`` trigger: days of the month cron cannot say (the last day, the N-th to
last, the N-th or last weekday or working day, any day every N months or years). Exact
against a brute-force walk over every day, across daylight saving, and refused field by
field when its document is wrong."""

from __future__ import annotations

import calendar
from datetime import date, datetime, time, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errands.definition import (WEEKDAY_NAMES, WORKDAY, MonthlyTrigger, ParseContext,
                                parse_definition, trigger_to_dict)
from errands.errors import InvalidInput
from errands.schedule import describe, fires_between, next_fire, next_fires, wall_clock
from errands.timeutil import zone

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

NOW = datetime(2026, 12, 5, 7, 0, tzinfo=timezone.utc)
BERLIN = "Europe/Berlin"


def monthly(**fields: object) -> MonthlyTrigger:
    doc = {"title": "t", "runner": {"kind": "notify", "message": "m"},
           "trigger": {"kind": "monthly", "at": "09:00", **fields}}
    trigger = parse_definition(doc, ParseContext(now=NOW, default_timezone=BERLIN)).trigger
    assert isinstance(trigger, MonthlyTrigger)
    return trigger


def local_days(trigger: MonthlyTrigger, count: int, after: datetime = NOW) -> list[str]:
    tz = zone(trigger.timezone)
    return [f.astimezone(tz).strftime("%Y-%m-%d %H:%M") for f in
            next_fires(trigger, after, count)]


def brute_force(trigger: MonthlyTrigger, after: datetime, months: int) -> list[datetime]:
    """Every fire within ``months`` months of ``after``, found day by day."""
    out = []
    tz = zone(trigger.timezone)
    local = after.astimezone(tz)
    year, month = local.year, local.month
    for _ in range(months):
        index = year * 12 + month - 1
        if index >= trigger.start and (index - trigger.start) % trigger.every == 0:
            last = calendar.monthrange(year, month)[1]
            days = [d for d in range(1, last + 1) if _matches(trigger, year, month, d)]
            for d in days:
                fire = wall_clock(date(year, month, d), time(trigger.at_hour,
                                                             trigger.at_minute),
                                  trigger.timezone)
                if fire > after:
                    out.append(fire)
        month += 1
        if month == 13:
            year, month = year + 1, 1
    return out


def _matches(t: MonthlyTrigger, year: int, month: int, day: int) -> bool:
    """Whether ``day`` is the one the trigger names, by counting, not by formula."""
    last = calendar.monthrange(year, month)[1]
    if t.day is not None:
        return day == (t.day if t.day > 0 else last + 1 + t.day)
    def fits(d: int) -> bool:
        weekday = calendar.weekday(year, month, d)
        return weekday < 5 if t.weekday == WORKDAY else \
            weekday == WEEKDAY_NAMES.index(t.weekday or "mon")
    if not fits(day):
        return False
    before = sum(fits(d) for d in range(1, day))
    after = sum(fits(d) for d in range(day + 1, last + 1))
    assert t.nth is not None
    return before == t.nth - 1 if t.nth > 0 else after == -t.nth - 1


class TestDays:
    def test_the_last_day_of_every_month(self) -> None:
        assert local_days(monthly(day=-1), 4) == [
            "2026-12-31 09:00", "2027-01-31 09:00", "2027-02-28 09:00", "2027-03-31 09:00"]

    def test_the_second_to_last_day_and_a_leap_february(self) -> None:
        t = monthly(day=-2, start="2028-01")
        assert local_days(t, 3) == ["2028-01-30 09:00", "2028-02-28 09:00",
                                    "2028-03-30 09:00"]

    def test_a_day_a_month_lacks_is_skipped(self) -> None:
        assert local_days(monthly(day=31), 4) == [
            "2026-12-31 09:00", "2027-01-31 09:00", "2027-03-31 09:00", "2027-05-31 09:00"]

    def test_the_last_friday_and_the_last_working_day(self) -> None:
        assert local_days(monthly(weekday="fri", nth=-1), 3) == [
            "2026-12-25 09:00", "2027-01-29 09:00", "2027-02-26 09:00"]
        assert local_days(monthly(weekday=WORKDAY, nth=-1), 3) == [
            "2026-12-31 09:00", "2027-01-29 09:00", "2027-02-26 09:00"]
        assert local_days(monthly(weekday=WORKDAY, nth=1), 3) == [
            "2027-01-01 09:00", "2027-02-01 09:00", "2027-03-01 09:00"]

    def test_a_fifth_monday_exists_in_some_months_only(self) -> None:
        assert local_days(monthly(weekday="mon", nth=5), 3) == [
            "2027-03-29 09:00", "2027-05-31 09:00", "2027-08-30 09:00"]

    def test_every_three_months_from_its_start(self) -> None:
        # 07:00 UTC on 5 December is 08:00 in Berlin: that day's 09:00 is still ahead
        t = monthly(day=5, every=3, start="2026-12")
        assert local_days(t, 3) == ["2026-12-05 09:00", "2027-03-05 09:00", "2027-06-05 09:00"]
        assert local_days(t, 1, NOW + timedelta(hours=2)) == ["2027-03-05 09:00"]
        assert describe(t) == ("Every 3 months on the 5th at 09:00 (Europe/Berlin), from "
                               "December 2026")

    def test_every_other_year_on_a_day_of_a_month(self) -> None:
        t = monthly(day=3, every=24, start="2027-03")
        assert local_days(t, 3) == ["2027-03-03 09:00", "2029-03-03 09:00", "2031-03-03 09:00"]
        assert describe(t) == ("Every 2 years on the 3rd of March at 09:00 (Europe/Berlin), "
                               "from 2027")

    def test_29_february_every_year_waits_for_leap_years(self) -> None:
        assert local_days(monthly(day=29, every=12, start="2027-02"), 2) == [
            "2028-02-29 09:00", "2032-02-29 09:00"]


class TestDaylightSaving:
    def test_a_wall_time_in_the_spring_gap_moves_on_by_the_gap(self) -> None:
        """The last Sunday of March 2027 in Berlin is the change: 02:30 does not exist."""
        t = monthly(weekday="sun", nth=-1, at="02:30", start="2027-03")
        fire = next_fire(t, datetime(2027, 3, 1, tzinfo=timezone.utc))
        assert fire == datetime(2027, 3, 28, 1, 30, tzinfo=timezone.utc)  # 03:30 CEST
        assert fire.astimezone(zone(BERLIN)).strftime("%H:%M") == "03:30"

    def test_a_wall_time_that_happens_twice_fires_once_at_the_first(self) -> None:
        t = monthly(weekday="sun", nth=-1, at="02:30", start="2027-10")
        fires = fires_between(t, datetime(2027, 10, 1, tzinfo=timezone.utc),
                              datetime(2027, 11, 1, tzinfo=timezone.utc))
        assert fires == [datetime(2027, 10, 31, 0, 30, tzinfo=timezone.utc)]  # 02:30 CEST

    def test_the_wall_time_is_kept_across_the_change(self) -> None:
        t = monthly(day=-1, at="18:00", start="2027-02")
        assert [f.astimezone(zone(BERLIN)).strftime("%m-%d %H:%M %z") for f in
                next_fires(t, datetime(2027, 2, 1, tzinfo=timezone.utc), 3)] == [
            "02-28 18:00 +0100", "03-31 18:00 +0200", "04-30 18:00 +0200"]


@settings(max_examples=300, deadline=None)
@given(day=st.one_of(st.integers(1, 31), st.integers(-31, -1), st.none()),
       weekday=st.sampled_from((*WEEKDAY_NAMES, WORKDAY)),
       nth=st.sampled_from((1, 2, 3, 4, 5, -1, -2, -3, -5)),
       every=st.sampled_from((1, 2, 3, 5, 12, 24)),
       start=st.integers(2020 * 12, 2030 * 12),
       hour=st.integers(0, 23), minute=st.sampled_from((0, 15, 30, 59)),
       tz=st.sampled_from(("UTC", "Europe/Berlin", "America/New_York", "Australia/Sydney",
                           "Asia/Kolkata")),
       after=st.datetimes(min_value=datetime(2019, 1, 1), max_value=datetime(2031, 1, 1),
                          timezones=st.just(timezone.utc)))
def test_next_fire_is_the_first_day_a_walk_finds(day: int | None, weekday: str, nth: int,
                                                 every: int, start: int, hour: int,
                                                 minute: int, tz: str,
                                                 after: datetime) -> None:
    t = MonthlyTrigger(hour, minute, tz, start, every, day=day,
                       weekday=None if day is not None else weekday,
                       nth=None if day is not None else nth)
    walked = brute_force(t, after, 13 * every + 12)
    expected = walked[0] if walked else None
    found = next_fire(t, after)
    if expected is None:
        assert found is None or found > after + timedelta(days=360)
    else:
        assert found == expected


@pytest.mark.parametrize("fields, field, says", [
    ({}, "trigger.day", "give day"),
    ({"day": -1, "weekday": "fri", "nth": 1}, "trigger.day", "give day"),
    ({"day": 0}, "trigger.day", "0 is no day"),
    ({"day": 32}, "trigger.day", ""),
    ({"day": 1, "nth": 2}, "trigger.nth", "goes with weekday"),
    ({"weekday": "fri"}, "trigger.nth", "is required"),
    ({"weekday": "friday", "nth": 1}, "trigger.weekday", "unsupported value"),
    ({"weekday": "fri", "nth": 6}, "trigger.nth", ""),
    ({"weekday": "fri", "nth": 0}, "trigger.nth", "no position"),
    ({"day": 1, "every": 0}, "trigger.every", ""),
    ({"day": 1, "at": "9am"}, "trigger.at", "not a time of day"),
    ({"day": 1, "at": None}, "trigger.at", "is required"),
    ({"day": 1, "start": "2027-13"}, "trigger.start", "not a month"),
    ({"day": 1, "timezone": "Mars/Olympus"}, "trigger.timezone", ""),
    ({"day": 1, "hour": 9}, "trigger", "hour"),
])
def test_a_wrong_document_is_refused_naming_the_field(fields: dict, field: str,
                                                      says: str) -> None:
    doc = {"title": "t", "runner": {"kind": "notify", "message": "m"},
           "trigger": {"kind": "monthly", "at": "09:00", **fields}}
    if doc["trigger"].get("at") is None:
        del doc["trigger"]["at"]
    with pytest.raises(InvalidInput) as refused:
        parse_definition(doc, ParseContext(now=NOW, default_timezone=BERLIN))
    assert refused.value.field.startswith(field), refused.value
    assert says in str(refused.value) and refused.value.example


def test_it_is_written_out_whole_and_reads_back_the_same() -> None:
    t = monthly(weekday="fri", nth=-2, every=3)
    doc = trigger_to_dict(t)
    assert doc == {"kind": "monthly", "weekday": "fri", "nth": -2, "every": 3,
                   "start": "2026-12", "at": "09:00", "timezone": BERLIN}
    again = parse_definition({"title": "t", "runner": {"kind": "notify", "message": "m"},
                              "trigger": doc},
                             ParseContext(now=NOW + timedelta(days=400))).trigger
    assert again == t                        # the grid's start is kept, not re-anchored


@pytest.mark.parametrize("fields", [
    {"day": 30, "every": 12, "start": "2027-02"},
    {"day": 29, "every": 48, "start": "2029-02"},
    {"day": 31, "every": 12, "start": "2027-04"},
    {"weekday": "mon", "nth": 5, "every": 12, "start": "2026-02"},  # 2026-02 has 4 Mondays
])
def test_a_grid_whose_months_never_have_the_day_is_refused(fields: dict) -> None:
    if fields.get("weekday") == "mon":  # a fifth Monday comes in some February (2044)
        monthly(**fields)
        return
    with pytest.raises(InvalidInput) as refused:
        monthly(**fields)
    assert refused.value.reason == "never" and refused.value.field == "trigger"
