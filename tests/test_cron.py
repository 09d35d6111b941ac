"""Cron parsing and evaluation: grammar, the Unix day rule, daylight saving, descriptions.

The evaluation is checked against a brute-force oracle that walks every UTC minute, turns
it into wall time in the zone and checks the five fields: no clever arithmetic, so gaps
(wall minutes that never happen) and folds (wall minutes that happen twice) come out right
by construction.
"""

from __future__ import annotations

import itertools
import sys
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

try:
    import errands  # noqa: F401
except ImportError:  # running from a checkout without an install
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "desktop"))

from errands.cron import CronExpression  # noqa: E402
from errands.errors import InvalidInput  # noqa: E402

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

UTC = timezone.utc
MINUTE = timedelta(minutes=1)

ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata",
         "Australia/Adelaide", "Pacific/Chatham", "America/St_Johns", "Antarctica/Troll",
         "UTC"]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# ---------------------------------------------------------------------------- the oracle


def oracle(expr: CronExpression, start: datetime, end: datetime, tz: ZoneInfo
           ) -> list[datetime]:
    """Every UTC minute in (start, end] whose wall time in ``tz`` matches, by brute force."""
    t = start.astimezone(UTC).replace(second=0, microsecond=0) + MINUTE
    out = []
    while t <= end:
        wall = t.astimezone(tz)
        if (wall.minute in expr.minutes and wall.hour in expr.hours
                and wall.month in expr.months):
            dom = wall.day in expr.days
            dow = wall.isoweekday() % 7 in expr.weekdays
            if expr.dom_restricted and expr.dow_restricted:
                day_ok = dom or dow
            elif expr.dom_restricted:
                day_ok = dom
            elif expr.dow_restricted:
                day_ok = dow
            else:
                day_ok = True
            if day_ok:
                out.append(t)
        t += MINUTE
    return out


@lru_cache(maxsize=None)
def transitions(zone_name: str, year: int = 2026) -> tuple[datetime, ...]:
    """UTC instants in ``year`` where the zone's offset changes (found by sampling)."""
    tz = ZoneInfo(zone_name)
    out = []
    t = utc(year, 1, 1)
    previous = t.astimezone(tz).utcoffset()
    while t.year == year:
        nxt = t + timedelta(hours=1)
        offset = nxt.astimezone(tz).utcoffset()
        if offset != previous:
            lo, hi = t, nxt                       # narrow to the exact minute
            while hi - lo > MINUTE:
                mid = lo + (hi - lo) / 2
                mid = mid.replace(second=0, microsecond=0)
                if mid.astimezone(tz).utcoffset() == previous:
                    lo = mid
                else:
                    hi = mid
            out.append(hi)
            previous = offset
        t = nxt
    return tuple(out)


def windows(zone_name: str) -> list[datetime]:
    """Instants near which to test: the zone's transitions, or two fixed dates for UTC."""
    found = list(transitions(zone_name))
    return found or [utc(2026, 3, 29, 1), utc(2026, 10, 25, 1)]


def test_transitions_are_found_for_every_dst_zone():
    for name in ZONES:
        expected = 0 if name in ("UTC", "Asia/Kolkata") else 2
        assert len(transitions(name)) == expected, name


ORACLE_EXPRESSIONS = [
    "* * * * *", "*/15 * * * *", "*/20 * * * *", "*/7 */3 * * *", "30 2 * * *",
    "45 1 * * *", "15 2 * * *", "0 3 * * *", "30 1 * * *", "0,30 0-4 * * *",
    "59 23 * * *", "0 0 * * *", "10-50/20 1-3 * * SUN", "0 0 13 * FRI",
    "*/10 0-5 */2 * 0", "5-5 2-2 * * *", "0 */2 * JAN-JUN,OCT *", "30 3 1-7,25-31 * *",
]


@pytest.mark.parametrize("zone_name", ZONES)
def test_fires_between_equals_the_brute_force_oracle_around_transitions(zone_name):
    tz = ZoneInfo(zone_name)
    for text in ORACLE_EXPRESSIONS:
        expr = CronExpression.parse(text)
        for transition in windows(zone_name):
            start = transition - timedelta(hours=27, minutes=13, seconds=7)
            end = transition + timedelta(hours=26)
            assert expr.fires_between(start, end, tz) == oracle(expr, start, end, tz), (
                text, zone_name, transition)


# Hypothesis: random expressions, zones and windows (mostly around a transition).

def _value_text(index: int, value: int, draw) -> str:
    if index == 3 and draw(st.booleans()):
        return ["jan", "FEB", "Mar", "APR", "may", "JUN", "JUL", "AUG", "SEP", "OCT",
                "NOV", "DEC"][value - 1]
    if index == 4 and draw(st.booleans()):
        return ["SUN", "mon", "TUE", "Wed", "THU", "FRI", "SAT", "sun"][value]
    return str(value)


BOUNDS = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]


@st.composite
def field_text(draw, index: int) -> str:
    low, high = BOUNDS[index]
    # day fields and month mostly "*": a window of two days rarely meets a random day
    star_weight = {0: 1, 1: 2, 2: 6, 3: 8, 4: 3}[index]
    kind = draw(st.integers(0, star_weight + 4))
    if kind < star_weight:
        return "*"
    kind -= star_weight
    if kind == 0:
        return f"*/{draw(st.integers(1, high))}"

    def item() -> str:
        a = draw(st.integers(low, high))
        shape = draw(st.integers(0, 2))
        if shape == 0:
            return _value_text(index, a, draw)
        b = draw(st.integers(a, high))
        text = f"{_value_text(index, a, draw)}-{_value_text(index, b, draw)}"
        if shape == 2:
            text += f"/{draw(st.integers(1, high - low + 1))}"
        return text

    return ",".join(item() for _ in range(draw(st.integers(1, 3))))


@st.composite
def expressions(draw) -> CronExpression:
    text = " ".join(draw(field_text(i)) for i in range(5))
    try:
        return CronExpression.parse(text)
    except InvalidInput:   # a day that never occurs in the chosen months
        assume(False)
        raise


@st.composite
def zone_and_window(draw):
    name = draw(st.sampled_from(ZONES))
    anchor = draw(st.sampled_from(windows(name)))
    start = anchor + timedelta(seconds=draw(st.integers(-36 * 3600, 12 * 3600)))
    return name, start, start + timedelta(hours=draw(st.integers(1, 40)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=expressions(), window=zone_and_window())
def test_property_fires_between_equals_oracle(expr, window):
    name, start, end = window
    tz = ZoneInfo(name)
    got = expr.fires_between(start, end, tz)
    assert got == oracle(expr, start, end, tz)
    if got:
        assert expr.next_fire(start, tz) == got[0]
        assert all(f.tzinfo is UTC for f in got)


@st.composite
def steady_window(draw):
    """Windows of up to nine days anywhere in 2026-2027, most with no transition inside
    (the walked-walls path), some across one (the per-fire search)."""
    name = draw(st.sampled_from(ZONES))
    start = utc(2026, 1, 1) + timedelta(seconds=draw(st.integers(0, 700 * 86400)),
                                        microseconds=draw(st.integers(0, 999_999)))
    return name, start, start + timedelta(seconds=draw(st.integers(60, 9 * 86400)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=expressions(), window=steady_window())
def test_property_fires_between_equals_the_search_fire_by_fire(expr, window):
    """The walked walls of a steady stretch give exactly what searching fire after fire
    gives, fractions of a second in the window's edges included."""
    name, start, end = window
    tz = ZoneInfo(name)
    searched = []
    for fire in expr.fires(start, tz):
        if fire > end:
            break
        searched.append(fire)
    assert expr.fires_between(start, end, tz) == searched


def test_a_week_in_a_steady_zone_is_walked_not_searched(monkeypatch):
    """A week of fires with no transition inside does not search fire by fire; a week
    across one does (and both agree with the oracle)."""
    tz = ZoneInfo("Europe/Berlin")
    expr = CronExpression.parse("*/15 8-18 * * MON-FRI")
    searches = []
    real = CronExpression.next_fire
    monkeypatch.setattr(CronExpression, "next_fire",
                        lambda self, after, zone: searches.append(after) or real(self, after, zone))
    calm = expr.fires_between(utc(2026, 6, 1), utc(2026, 6, 8), tz)
    assert len(calm) == 5 * 44 and not searches
    assert calm == oracle(expr, utc(2026, 6, 1), utc(2026, 6, 8), tz)
    across = expr.fires_between(utc(2026, 3, 25), utc(2026, 4, 1), tz)
    assert searches and across == oracle(expr, utc(2026, 3, 25), utc(2026, 4, 1), tz)


def test_oracle_over_a_whole_year_of_sundays_in_lord_howe():
    """One long run: a sparse expression over a full year, both transitions included."""
    tz = ZoneInfo("Australia/Lord_Howe")
    expr = CronExpression.parse("*/30 1-2 * * SUN")
    start, end = utc(2026, 1, 1), utc(2027, 1, 1)
    got = expr.fires_between(start, end, tz)
    # the oracle only needs to look at Sundays; check it on the UTC days around each one
    expected = []
    day = start
    while day < end:
        local = day.astimezone(tz)
        if local.isoweekday() == 7 or (day + timedelta(days=1)).astimezone(tz).isoweekday() == 7:
            expected += oracle(expr, day, day + timedelta(days=1), tz)
        day += timedelta(days=1)
    assert got == sorted(set(expected))


# ---------------------------------------------------------------------------- daylight saving


class TestDaylightSaving:
    """Explicit gap and fold cases, one zone shape at a time (after cronsim's tests)."""

    def test_berlin_spring_gap_skips_the_missing_half_past_two(self):
        expr = CronExpression.parse("30 2 * * *")
        tz = ZoneInfo("Europe/Berlin")
        assert expr.next_fire(utc(2026, 3, 28, 12), tz) == utc(2026, 3, 30, 0, 30)
        assert expr.fires_between(utc(2026, 3, 27, 12), utc(2026, 3, 31), tz) == [
            utc(2026, 3, 28, 1, 30), utc(2026, 3, 30, 0, 30)]

    def test_berlin_autumn_fold_fires_on_both_passes(self):
        expr = CronExpression.parse("30 2 * * *")
        tz = ZoneInfo("Europe/Berlin")
        assert expr.fires_between(utc(2026, 10, 24, 12), utc(2026, 10, 26), tz) == [
            utc(2026, 10, 25, 0, 30), utc(2026, 10, 25, 1, 30)]
        assert expr.next_fire(utc(2026, 10, 25, 0, 30), tz) == utc(2026, 10, 25, 1, 30)
        assert expr.next_fire(utc(2026, 10, 25, 1, 30), tz) == utc(2026, 10, 26, 1, 30)

    def test_every_quarter_hour_across_the_berlin_gap(self):
        expr = CronExpression.parse("*/15 * * * *")
        tz = ZoneInfo("Europe/Berlin")
        got = expr.fires_between(utc(2026, 3, 29, 0, 30), utc(2026, 3, 29, 1, 30), tz)
        walls = [f.astimezone(tz).strftime("%H:%M") for f in got]
        assert walls == ["01:45", "03:00", "03:15", "03:30"]
        assert got == [utc(2026, 3, 29, 0, 45), utc(2026, 3, 29, 1), utc(2026, 3, 29, 1, 15),
                       utc(2026, 3, 29, 1, 30)]
        day = [f for f in expr.fires_between(utc(2026, 3, 28), utc(2026, 3, 30), tz)
               if f.astimezone(tz).date() == date(2026, 3, 29)]
        assert len(day) == 23 * 4

    def test_every_quarter_hour_across_the_berlin_fold(self):
        expr = CronExpression.parse("*/15 * * * *")
        tz = ZoneInfo("Europe/Berlin")
        got = expr.fires_between(utc(2026, 10, 24, 23, 50), utc(2026, 10, 25, 1, 50), tz)
        assert got == [utc(2026, 10, 25, 0) + timedelta(minutes=15 * i) for i in range(8)]
        walls = [f.astimezone(tz).strftime("%H:%M") for f in got]
        assert walls == ["02:00", "02:15", "02:30", "02:45"] * 2
        day = [f for f in expr.fires_between(utc(2026, 10, 24), utc(2026, 10, 27), tz)
               if f.astimezone(tz).date() == date(2026, 10, 25)]
        assert len(day) == 25 * 4 and len(set(day)) == len(day)

    def test_next_fire_from_inside_the_fold(self):
        expr = CronExpression.parse("*/15 * * * *")
        tz = ZoneInfo("Europe/Berlin")
        # 02:40 first pass (+02:00): next is 02:45 first pass, then 02:00 second pass
        assert expr.next_fire(utc(2026, 10, 25, 0, 40), tz) == utc(2026, 10, 25, 0, 45)
        assert expr.next_fire(utc(2026, 10, 25, 0, 45), tz) == utc(2026, 10, 25, 1)
        hourly = CronExpression.parse("10 * * * *")
        assert hourly.next_fire(utc(2026, 10, 25, 0, 20), tz) == utc(2026, 10, 25, 1, 10)

    def test_new_york_gap_and_fold(self):
        tz = ZoneInfo("America/New_York")
        gap = CronExpression.parse("30 2 * * *")
        assert gap.fires_between(utc(2026, 3, 7, 12), utc(2026, 3, 9, 12), tz) == [
            utc(2026, 3, 9, 6, 30)]
        fold = CronExpression.parse("30 1 * * *")
        assert fold.fires_between(utc(2026, 10, 31, 12), utc(2026, 11, 2), tz) == [
            utc(2026, 11, 1, 5, 30), utc(2026, 11, 1, 6, 30)]

    def test_lord_howe_half_hour_gap(self):
        tz = ZoneInfo("Australia/Lord_Howe")     # 02:00 +10:30 -> 02:30 +11:00 on 4 Oct
        expr = CronExpression.parse("15 2 * * *")
        assert expr.fires_between(utc(2026, 10, 3), utc(2026, 10, 5), tz) == [
            utc(2026, 10, 4, 15, 15)]
        every20 = CronExpression.parse("*/20 * * * *")
        got = every20.fires_between(utc(2026, 10, 3, 15), utc(2026, 10, 3, 16), tz)
        assert [f.astimezone(tz).strftime("%H:%M") for f in got] == [
            "01:40", "02:40", "03:00"]
        assert got[:2] == [utc(2026, 10, 3, 15, 10), utc(2026, 10, 3, 15, 40)]

    def test_lord_howe_half_hour_fold(self):
        tz = ZoneInfo("Australia/Lord_Howe")     # 02:00 +11:00 -> 01:30 +10:30 on 5 Apr
        expr = CronExpression.parse("45 1 * * *")
        assert expr.fires_between(utc(2026, 4, 4), utc(2026, 4, 5), tz) == [
            utc(2026, 4, 4, 14, 45), utc(2026, 4, 4, 15, 15)]

    def test_chatham_fold_fires_both_passes(self):
        tz = ZoneInfo("Pacific/Chatham")          # 03:45 +13:45 -> 02:45 +12:45 on 5 Apr
        expr = CronExpression.parse("0 3 * * *")
        assert expr.fires_between(utc(2026, 4, 3), utc(2026, 4, 5, 12), tz) == [
            utc(2026, 4, 3, 13, 15), utc(2026, 4, 4, 13, 15), utc(2026, 4, 4, 14, 15)]
        offsets = [f.astimezone(tz).utcoffset() for f in expr.fires_between(
            utc(2026, 4, 4), utc(2026, 4, 5), tz)]
        assert offsets == [timedelta(hours=13, minutes=45), timedelta(hours=12, minutes=45)]

    def test_chatham_gap(self):
        tz = ZoneInfo("Pacific/Chatham")          # 02:45 +12:45 -> 03:45 +13:45 on 27 Sep
        expr = CronExpression.parse("0 3 * * *")
        assert expr.fires_between(utc(2026, 9, 25), utc(2026, 9, 28), tz) == [
            utc(2026, 9, 25, 14, 15), utc(2026, 9, 27, 13, 15)]

    def test_troll_two_hour_gap_and_fold(self):
        tz = ZoneInfo("Antarctica/Troll")         # +00 <-> +02
        for text in ("30 1 * * *", "30 2 * * *"):
            expr = CronExpression.parse(text)
            got = expr.fires_between(utc(2026, 3, 28, 12), utc(2026, 3, 29, 22), tz)
            assert got == [], text
        expr = CronExpression.parse("30 1 * * *")
        assert expr.fires_between(utc(2026, 10, 24, 12), utc(2026, 10, 25, 12), tz) == [
            utc(2026, 10, 24, 23, 30), utc(2026, 10, 25, 1, 30)]
        every_hour = CronExpression.parse("0 * * * *")
        got = every_hour.fires_between(utc(2026, 10, 24, 22, 30), utc(2026, 10, 25, 3), tz)
        assert [f.astimezone(tz).strftime("%H") for f in got] == [
            "01", "02", "01", "02", "03"]

    def test_adelaide_southern_hemisphere(self):
        tz = ZoneInfo("Australia/Adelaide")       # 03:00 +10:30 -> 02:00 +09:30 on 5 Apr
        expr = CronExpression.parse("30 2 * * *")
        assert expr.fires_between(utc(2026, 4, 4), utc(2026, 4, 5), tz) == [
            utc(2026, 4, 4, 16), utc(2026, 4, 4, 17)]
        assert expr.fires_between(utc(2026, 10, 3), utc(2026, 10, 4, 12), tz) == []

    def test_fixed_offset_zones(self):
        for name, wall, fire in [("Asia/Kolkata", "30 9 * * *", utc(2026, 3, 29, 4)),
                                 ("America/St_Johns", "30 9 * * *", utc(2026, 3, 29, 12))]:
            expr = CronExpression.parse(wall)
            assert expr.next_fire(utc(2026, 3, 29), ZoneInfo(name)) == fire

    def test_croniter_fires_after_the_gap_and_we_do_not(self):
        croniter = pytest.importorskip("croniter").croniter
        tz = ZoneInfo("Europe/Berlin")
        start = utc(2026, 3, 28, 12)
        theirs = croniter("30 2 * * *", start.astimezone(tz)).get_next(datetime)
        assert theirs.astimezone(UTC) == utc(2026, 3, 29, 1)     # 03:00, a fire nobody asked
        assert CronExpression.parse("30 2 * * *").next_fire(start, tz) == utc(2026, 3, 30, 0, 30)


# ---------------------------------------------------------------------------- day rule and fields


def test_or_rule_thirteenth_or_friday():
    expr = CronExpression.parse("0 0 13 * FRI")
    got = expr.fires_between(utc(2026, 1, 1), utc(2026, 7, 1), ZoneInfo("UTC"))
    days = [date(2026, 1, 1) + timedelta(days=i) for i in range(182)]
    expected = [utc(d.year, d.month, d.day) for d in days[1:] + [date(2026, 7, 1)]
                if d.day == 13 or d.isoweekday() == 5]
    assert got == expected
    assert utc(2026, 5, 13) in got and utc(2026, 5, 15) in got     # a Wednesday, a Friday
    assert expr.matches_day(date(2026, 5, 13)) and expr.matches_day(date(2026, 5, 15))
    assert not expr.matches_day(date(2026, 5, 14))


def test_step_on_day_of_month_is_restricted_so_or_applies():
    every_day = CronExpression.parse("0 0 */2 * 0-7")
    assert every_day.dom_restricted and every_day.dow_restricted
    got = every_day.fires_between(utc(2026, 5, 31), utc(2026, 6, 10), ZoneInfo("UTC"))
    assert got == [utc(2026, 6, d) for d in range(1, 11)]
    odd_days = CronExpression.parse("0 0 */2 * *")
    assert not odd_days.dow_restricted
    got = odd_days.fires_between(utc(2026, 5, 31), utc(2026, 6, 10), ZoneInfo("UTC"))
    assert got == [utc(2026, 6, d) for d in (1, 3, 5, 7, 9)]


def test_only_the_restricted_day_field_counts():
    tz = ZoneInfo("UTC")
    mondays = CronExpression.parse("0 0 * * MON")
    assert [f.isoweekday() for f in mondays.fires_between(utc(2026, 6, 1), utc(2026, 7, 1), tz)
            ] == [1] * 4
    fifteenth = CronExpression.parse("0 0 15 * *")
    assert fifteenth.fires_between(utc(2026, 6, 1), utc(2026, 8, 1), tz) == [
        utc(2026, 6, 15), utc(2026, 7, 15)]


def test_equal_range_is_one_value():
    assert CronExpression.parse("5-5 * * * *").minutes == (5,)
    expr = CronExpression.parse("0 0 * 11-11 *")
    assert expr.months == (11,)
    assert expr.next_fire(utc(2026, 3, 28), ZoneInfo("UTC")) == utc(2026, 11, 1)


def test_day_of_week_seven_is_sunday():
    assert CronExpression.parse("0 0 * * 7").weekdays == (0,)
    assert CronExpression.parse("0 0 * * 5-7").weekdays == (0, 5, 6)
    assert CronExpression.parse("0 0 * * 0,7").weekdays == (0,)
    tz = ZoneInfo("UTC")
    sundays = [CronExpression.parse(f"0 0 * * {d}").fires_between(
        utc(2026, 6, 1), utc(2026, 7, 1), tz) for d in ("0", "7", "SUN", "sun")]
    assert sundays[0] == sundays[1] == sundays[2] == sundays[3]
    assert [f.day for f in sundays[0]] == [7, 14, 21, 28]


def test_names_are_case_insensitive():
    named = CronExpression.parse("0 0 * jan,Feb,mAR mon-FRI")
    numbered = CronExpression.parse("0 0 * 1,2,3 1-5")
    assert (named.months, named.weekdays) == (numbered.months, numbered.weekdays)
    assert CronExpression.parse("0 0 * * sat-SUN".replace("sat-SUN", "SUN,sat")).weekdays == (
        0, 6)


def test_ranges_lists_and_steps_expand():
    expr = CronExpression.parse("1,3,8-10 */6 1-30/10 */4 MON-FRI/2")
    assert expr.minutes == (1, 3, 8, 9, 10)
    assert expr.hours == (0, 6, 12, 18)
    assert expr.days == (1, 11, 21)
    assert expr.months == (1, 5, 9)
    assert expr.weekdays == (1, 3, 5)
    assert CronExpression.parse("*/90 * * * *").minutes == (0,)


def test_leap_day():
    expr = CronExpression.parse("0 0 29 2 *")
    assert expr.next_fire(utc(2026, 3, 1), ZoneInfo("UTC")) == utc(2028, 2, 29)
    assert expr.next_fire(utc(2096, 3, 1), ZoneInfo("UTC")) == utc(2104, 2, 29)  # 2100: no


def test_text_is_whitespace_normalised_and_parse_is_cached():
    expr = CronExpression.parse("  30\t9 *  * mon-fri ")
    assert expr.text == "30 9 * * mon-fri"
    assert CronExpression.parse("30 9 * * MON-FRI") is CronExpression.parse("30 9 * * MON-FRI")
    assert expr == CronExpression.parse("30 9 * * mon-fri")


def test_fires_is_ascending_lazy_and_strict():
    expr = CronExpression.parse("*/30 * * * *")
    tz = ZoneInfo("Europe/Berlin")
    first = list(itertools.islice(expr.fires(utc(2026, 6, 1, 0, 30), tz), 4))
    assert first == [utc(2026, 6, 1, 1), utc(2026, 6, 1, 1, 30), utc(2026, 6, 1, 2),
                     utc(2026, 6, 1, 2, 30)]
    # start is exclusive, end inclusive; a fraction of a second after a fire skips it
    assert expr.fires_between(utc(2026, 6, 1, 1), utc(2026, 6, 1, 2), tz) == [
        utc(2026, 6, 1, 1, 30), utc(2026, 6, 1, 2)]
    assert expr.next_fire(utc(2026, 6, 1, 1) + timedelta(microseconds=1), tz) == utc(
        2026, 6, 1, 1, 30)
    # any aware input is accepted, the result is UTC
    berlin_after = datetime(2026, 6, 1, 3, 0, tzinfo=tz)
    result = expr.next_fire(berlin_after, tz)
    assert result == utc(2026, 6, 1, 1, 30) and result.tzinfo is UTC


def test_zone_may_be_given_by_name():
    expr = CronExpression.parse("30 9 * * *")
    assert expr.next_fire(utc(2026, 6, 1), "Europe/Berlin") == utc(2026, 6, 1, 7, 30)
    with pytest.raises(InvalidInput) as info:
        expr.next_fire(utc(2026, 6, 1), "Mars/Olympus_Mons")
    assert info.value.field == "timezone"


def test_absurdly_long_numbers_are_refused_not_crashed():
    assert "out of range" in refusal("9" * 5000 + " * * * *").message
    assert CronExpression.parse("*/" + "9" * 5000 + " * * * *").minutes == (0,)  # like */90


def test_naive_after_is_refused():
    with pytest.raises(InvalidInput):
        CronExpression.parse("* * * * *").next_fire(datetime(2026, 1, 1), ZoneInfo("UTC"))


# ---------------------------------------------------------------------------- refusals


def refusal(text) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        CronExpression.parse(text)
    error = info.value
    assert error.field == "expression"
    assert error.code == "invalid_input"
    assert error.expected and error.example
    return error


def test_wrong_number_of_fields_message_is_exact():
    for text, count in [("* * * * * *", 6), ("0 0 * * * * 2026", 7), ("* * * *", 4), ("", 0)]:
        error = refusal(text)
        assert error.message == (
            f'expected five fields "minute hour day-of-month month day-of-week", got {count}')
        assert error.expected == 'five fields "minute hour day-of-month month day-of-week"'
        assert error.example == "30 9 * * MON-FRI"


def test_unknown_name_message_names_the_field_and_the_name():
    error = refusal("0 9 * * MON-SUNX")
    assert error.message.startswith('day-of-week field "MON-SUNX": unknown name "SUNX"')


@pytest.mark.parametrize("text, field, fragment", [
    ("@daily", None, "macro"),
    ("@reboot", None, "macro"),
    ("0 0 0 * * * *", None, "got 7"),
    ("0 0 L * *", "day-of-month", '"L"'),
    ("0 0 * * 5L", "day-of-week", '"L"'),
    ("0 0 ? * MON", "day-of-month", '"?"'),
    ("0 0 * * MON#2", "day-of-week", '"#"'),
    ("0 0 15W * *", "day-of-month", '"W"'),
    ("H * * * *", "minute", '"H"'),
    ("1,,2 * * * *", "minute", "empty list item"),
    ("1, * * * *", "minute", "empty list item"),
    (",5 * * * *", "minute", "empty list item"),
    ("-5 * * * *", "minute", "negative"),
    ("0 0 1--3 * *", "day-of-month", "negative"),
    ("*/0 * * * *", "minute", "step 0"),
    ("*/-5 * * * *", "minute", "negative"),
    ("*/x * * * *", "minute", "step"),
    ("5/15 * * * *", "minute", "a step needs"),
    ("0 0 * * MON/2", "day-of-week", "a step needs"),
    ("0 JAN * * *", "hour", "names"),
    ("MON * * * *", "minute", "names"),
    ("0 0 FRI * *", "day-of-month", "names"),
    ("60 * * * *", "minute", "60 is out of range 0-59"),
    ("0 24 * * *", "hour", "24 is out of range 0-23"),
    ("0 0 0 * *", "day-of-month", "0 is out of range 1-31"),
    ("0 0 32 * *", "day-of-month", "32 is out of range 1-31"),
    ("0 0 * 13 *", "month", "13 is out of range 1-12"),
    ("0 0 * 0 *", "month", "0 is out of range 1-12"),
    ("0 0 * * 8", "day-of-week", "8 is out of range 0-7"),
    ("0 0 * * FRI-MON", "day-of-week", "wraps around"),
    ("50-10 * * * *", "minute", "wraps around"),
    ("0 0 * * MONDAY", "day-of-week", 'unknown name "MONDAY"'),
    ("0 0 * JANUARY *", "month", "unknown name"),
    ("1.5 * * * *", "minute", "not a whole number"),
    ("1-2-3 * * * *", "minute", "exactly one"),
    ("5- * * * *", "minute", "no end"),
    ("*/5/2 * * * *", "minute", "one step"),
    ("0 0 * * +1", "day-of-week", "signed"),
])
def test_refused_forms(text, field, fragment):
    error = refusal(text)
    assert fragment in error.message
    if field is not None:
        assert error.message.startswith(f"{field} field ")


def test_wrap_around_refusal_suggests_a_list():
    assert 'e.g. "FRI-SAT,SUN-MON"' in refusal("0 0 * * FRI-MON").message
    assert 'e.g. "50-59,0-10"' in refusal("50-10 * * * *").message


def test_macro_is_refused_with_the_five_field_shape():
    error = refusal("@daily")
    assert '"@daily" is a macro' in error.message
    assert error.example == "30 9 * * MON-FRI"


def test_non_text_is_refused():
    with pytest.raises(InvalidInput) as info:
        CronExpression.parse(None)  # type: ignore[arg-type]
    assert info.value.field == "expression"


@pytest.mark.parametrize("text", ["0 0 30 2 *", "0 0 31 4,6 *", "0 0 31 2,4,6,9,11 *",
                                  "0 0 30-31 2 *"])
def test_expressions_that_can_never_fire_are_refused(text):
    error = refusal(text)
    assert "never" in error.message and "day-of-month" in error.message


@pytest.mark.parametrize("text", ["0 0 29 2 *", "0 0 31 4,5 *", "0 0 30 2 MON",
                                  "0 0 31 * *", "0 0 30,31 2,3 *"])
def test_expressions_that_can_fire_are_accepted(text):
    CronExpression.parse(text)


def test_str_of_refusal_is_helpful():
    text = str(refusal("0 0 * * FUNDAY"))
    assert text.startswith('expression: day-of-week field "FUNDAY": unknown name "FUNDAY"')
    assert "MON-FRI" in text


# ---------------------------------------------------------------------------- describe, min_gap


@pytest.mark.parametrize("text, zone_name, expected", [
    ("30 9 * * MON-FRI", "Europe/Berlin", "Every weekday at 09:30 (Europe/Berlin)"),
    ("0 9 * * *", "UTC", "Every day at 09:00 (UTC)"),
    ("*/15 * * * *", "UTC", "Every 15 minutes (UTC)"),
    ("* * * * *", "UTC", "Every minute (UTC)"),
    ("0 * * * *", "UTC", "Every hour at :00 (UTC)"),
    ("0 */2 * * *", "UTC", "Every 2 hours at :00 (UTC)"),
    ("0 0 1,15 * *", "UTC", "On the 1st and 15th at 00:00 (UTC)"),
    ("0 9,17 * * *", "UTC", "Every day at 09:00 and 17:00 (UTC)"),
    ("0 9 * * MON,WED,FRI", "UTC", "Every Monday, Wednesday and Friday at 09:00 (UTC)"),
    ("0 10 * * SAT,SUN", "UTC", "Every Saturday and Sunday at 10:00 (UTC)"),
    ("0 0 */2 * 0-7", "UTC", "Every day at 00:00 (UTC)"),   # OR with every weekday
])
def test_describe_common_shapes(text, zone_name, expected):
    assert CronExpression.parse(text).describe(zone_name) == expected


def test_describe_falls_back_to_cron_descriptor_in_24_hour_form():
    text = CronExpression.parse("*/5 9-17 * * 1-5").describe("Asia/Kolkata")
    assert text.endswith(" (Asia/Kolkata)")
    assert "17:59" in text and "PM" not in text
    assert "Friday" in text
    or_rule = CronExpression.parse("0 0 13 * FRI").describe("UTC")
    assert "13" in or_rule and "Friday" in or_rule and or_rule.endswith(" (UTC)")


@pytest.mark.parametrize("text, minutes", [
    ("* * * * *", 1), ("*/15 * * * *", 15), ("0 * * * *", 60), ("0 */2 * * *", 120),
    ("0 9 * * *", 1440), ("0 9 * * MON", 1440), ("0 9,17 * * *", 8 * 60),
    ("0,50 23 * * *", 50), ("0 0,23 * * *", 60), ("59 23 * * *", 1440),
    ("*/7 * * * *", 4),    # 56 -> 0 of the next hour
])
def test_min_gap(text, minutes):
    assert CronExpression.parse(text).min_gap() == timedelta(minutes=minutes)


# ---------------------------------------------------------------------------- croniter agreement


@pytest.mark.parametrize("text", [
    "* * * * *", "*/15 * * * *", "30 9 * * MON-FRI", "0 0 1,15 * *", "5 */3 * * *",
    "0 12 * JAN,JUL SUN", "10-40/10 8-18 * * 1-5", "0 0 29 2 *", "0 6 31 * *",
    "45 23 * * 6,0", "0 0 * * 7", "15 4 1-7 * *", "0 0 */2 * *",
])
def test_agrees_with_croniter_in_utc(text):
    croniter = pytest.importorskip("croniter").croniter
    expr = CronExpression.parse(text)
    tz = ZoneInfo("UTC")
    start = utc(2026, 2, 27, 13, 7, 30)
    theirs = croniter(text, start)
    expected = [theirs.get_next(datetime) for _ in range(40)]
    assert list(itertools.islice(expr.fires(start, tz), 40)) == expected


def test_croniter_reads_equal_ranges_as_star_and_we_do_not():
    """Why ``5-5`` is tested above: croniter 7 expands it to every value."""
    croniter = pytest.importorskip("croniter").croniter
    start = utc(2026, 3, 28)
    assert croniter("0 0 * 11-11 *", start).get_next(datetime) == utc(2026, 3, 29)
    assert CronExpression.parse("0 0 * 11-11 *").next_fire(start, ZoneInfo("UTC")) == utc(
        2026, 11, 1)
