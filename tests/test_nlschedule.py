"""The offline natural-language schedule parser: exact triggers, prompts, stops and refusals.

``now`` is fixed at Wednesday 2026-12-02 10:00 UTC (11:00 in Berlin, 05:00 in New York),
so every expected instant below is an exact UTC string. Berlin moves to summer time on
2027-03-28 and New York on 2027-03-14, which the DST cases cross.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errands.cron import parse_cron
from errands.definition import ParseContext, parse_definition
from errands.errors import InvalidInput
from errands.phrases import EXAMPLES, ParsedSchedule, parse_schedule_text

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=timezone.utc)
BER = "Europe/Berlin"
NY = "America/New_York"
NO_STOP = {"max_runs": None, "until": None, "when_condition_met": False}


def parse(text: str, tz: str = BER, now: datetime = NOW) -> ParsedSchedule:
    return parse_schedule_text(text, tz, now)


def cron(expression: str, tz: str = BER) -> dict:
    return {"kind": "cron", "expression": expression, "timezone": tz}


def at(instant: str) -> dict:
    return {"kind": "at", "at": instant}


def every(text: str) -> dict:
    return {"kind": "every", "every": text}


def days(step: str, start: str, tz: str = BER) -> dict:
    """A grid of local calendar days (``every`` with a ``timezone``)."""
    return {"kind": "every", "every": step, "start_at": start, "timezone": tz}


def after(text: str) -> dict:
    return {"kind": "after", "interval": text}


def stop(max_runs: int | None = None, until: str | None = None,
         condition: bool = False) -> dict:
    return {"max_runs": max_runs, "until": until, "when_condition_met": condition}


# (phrase, zone, trigger, prompt, stop)
CASES = [
    # -- daily / weekday / weekend calendar phrases -> cron in the user's zone
    ("every day at 9am", BER, cron("0 9 * * *"), None, NO_STOP),
    ("daily at 9", BER, cron("0 9 * * *"), None, NO_STOP),
    ("each morning at 7:30", BER, cron("30 7 * * *"), None, NO_STOP),
    ("every evening at 6", BER, cron("0 18 * * *"), None, NO_STOP),
    ("every day at midnight", BER, cron("0 0 * * *"), None, NO_STOP),
    ("run backups every night at 3", BER, cron("0 3 * * *"), "run backups", NO_STOP),
    ("every night at 10", BER, cron("0 22 * * *"), None, NO_STOP),
    ("every day at 9 a.m.", NY, cron("0 9 * * *", NY), None, NO_STOP),
    ("EVERY  DAY   AT   9AM!!!", BER, cron("0 9 * * *"), None, NO_STOP),
    ("daily 18:00", BER, cron("0 18 * * *"), None, NO_STOP),
    ("every day at 9am and 5pm", BER, cron("0 9,17 * * *"), None, NO_STOP),
    ("every day at quarter to 10", BER, cron("45 9 * * *"), None, NO_STOP),
    ("every day at quarter to 10pm", BER, cron("45 21 * * *"), None, NO_STOP),
    ("every weekday at 8:15", BER, cron("15 8 * * MON-FRI"), None, NO_STOP),
    ("on weekdays at 8:15 am", NY, cron("15 8 * * MON-FRI", NY), None, NO_STOP),
    ("weekday mornings at 7", BER, cron("0 7 * * MON-FRI"), None, NO_STOP),
    ("weekends at 10", BER, cron("0 10 * * SAT,SUN"), None, NO_STOP),
    ("every day except sunday", BER, cron("0 9 * * MON-SAT"), None, NO_STOP),
    ("every weekday at 9 except fridays", BER, cron("0 9 * * MON-THU"), None, NO_STOP),
    # -- weekday lists
    ("every Monday and Thursday at 17:00", BER, cron("0 17 * * MON,THU"), None, NO_STOP),
    ("every mon, wed, fri at noon", BER, cron("0 12 * * MON,WED,FRI"), None, NO_STOP),
    ("every tuesday", BER, cron("0 9 * * TUE"), None, NO_STOP),
    ("every tues and thurs at 10am", BER, cron("0 10 * * TUE,THU"), None, NO_STOP),
    ("on sundays at 20:00", BER, cron("0 20 * * SUN"), None, NO_STOP),
    ("fridays at 4pm", BER, cron("0 16 * * FRI"), None, NO_STOP),
    ("weekly on Friday at 4pm", BER, cron("0 16 * * FRI"), None, NO_STOP),
    ("every friday evening at 6", BER, cron("0 18 * * FRI"), None, NO_STOP),
    ("every week", BER, cron("0 9 * * MON"), None, NO_STOP),
    # -- days of the month and years
    ("every month on the 1st at 08:00", BER, cron("0 8 1 * *"), None, NO_STOP),
    ("monthly on the 15th", BER, cron("0 9 15 * *"), None, NO_STOP),
    ("on the 1st and 15th of every month", BER, cron("0 9 1,15 * *"), None, NO_STOP),
    ("every 2 months on the 15th", BER, {"kind": "monthly", "day": 15, "every": 2,
                                         "start": "2026-12", "at": "09:00",
                                         "timezone": "Europe/Berlin"}, None, NO_STOP),
    ("every year on 24 December", BER, cron("0 9 24 12 *"), None, NO_STOP),
    ("annually on 1 January at 8am", BER, cron("0 8 1 1 *"), None, NO_STOP),
    # -- hours and minutes: clock-aligned cron or a fixed grid
    ("every hour", BER, cron("0 * * * *"), None, NO_STOP),
    ("hourly at :30", BER, cron("30 * * * *"), None, NO_STOP),
    ("every hour at 30 past", BER, cron("30 * * * *"), None, NO_STOP),
    ("every hour at half past", BER, cron("30 * * * *"), None, NO_STOP),
    ("every minute", BER, cron("* * * * *"), None, NO_STOP),
    ("every 15 minutes", BER, cron("*/15 * * * *"), None, NO_STOP),
    ("every five minutes", BER, cron("*/5 * * * *"), None, NO_STOP),
    ("every half hour", BER, cron("*/30 * * * *"), None, NO_STOP),
    ("every 60 minutes", BER, cron("0 * * * *"), None, NO_STOP),
    ("every 2 hours", BER, cron("0 */2 * * *"), None, NO_STOP),
    ("every 2h", BER, cron("0 */2 * * *"), None, NO_STOP),
    ("every 8 hours", BER, cron("0 */8 * * *"), None, NO_STOP),
    ("every 12 hours", BER, cron("0 */12 * * *"), None, NO_STOP),
    ("every 20 minutes", BER, cron("*/20 * * * *"), None, NO_STOP),
    ("every 45 minutes", BER, every("45m"), None, NO_STOP),
    ("every 2 hours at :15", BER, cron("15 */2 * * *"), None, NO_STOP),
    ("every 2 hours on weekdays", BER, cron("0 */2 * * MON-FRI"), None, NO_STOP),
    ("every 30 minutes from 9am to 5pm on weekdays", BER, cron("*/30 9-16 * * MON-FRI"),
     None, NO_STOP),
    ("every 2 hours between 8 and 20", BER, cron("0 8-20/2 * * *"), None, NO_STOP),
    ("every 7 minutes", BER, every("7m"), None, NO_STOP),
    ("every 90 minutes", BER, every("90m"), None, NO_STOP),
    ("every 1.5 hours", BER, every("90m"), None, NO_STOP),
    ("every 5 hours", BER, every("5h"), None, NO_STOP),
    ("every 30 seconds", BER, every("30s"), None, NO_STOP),
    # -- day and week steps
    ("every other day at 9", BER, days("2d", "2026-12-03T08:00:00Z"), None, NO_STOP),
    ("every 3 days at 9am", BER, days("3d", "2026-12-03T08:00:00Z"), None, NO_STOP),
    ("every 3 days", BER, days("3d", "2026-12-03T08:00:00Z"), None, NO_STOP),
    ("every other day", BER, days("2d", "2026-12-03T08:00:00Z"), None, NO_STOP),
    ("every other week", BER, days("14d", "2026-12-07T08:00:00Z"), None, NO_STOP),
    ("every other monday at 9am", BER, days("14d", "2026-12-07T08:00:00Z"), None, NO_STOP),
    ("every fortnight", BER, days("14d", "2026-12-07T08:00:00Z"), None, NO_STOP),
    # -- one-shots, computed in local time and given in UTC
    ("in 10 minutes", BER, at("2026-12-02T10:10:00Z"), None, NO_STOP),
    ("in 2 hours", NY, at("2026-12-02T12:00:00Z"), None, NO_STOP),
    ("in an hour", BER, at("2026-12-02T11:00:00Z"), None, NO_STOP),
    ("in half an hour", BER, at("2026-12-02T10:30:00Z"), None, NO_STOP),
    ("10 minutes from now", BER, at("2026-12-02T10:10:00Z"), None, NO_STOP),
    ("in 3 days at 9am", BER, at("2026-12-05T08:00:00Z"), None, NO_STOP),
    ("tomorrow at 7pm", BER, at("2026-12-03T18:00:00Z"), None, NO_STOP),
    ("tomorrow at 7pm", NY, at("2026-12-04T00:00:00Z"), None, NO_STOP),
    ("today at 18:00", BER, at("2026-12-02T17:00:00Z"), None, NO_STOP),
    ("tonight at 10", BER, at("2026-12-02T21:00:00Z"), None, NO_STOP),
    ("tonight at 1", BER, at("2026-12-03T00:00:00Z"), None, NO_STOP),
    ("tonight at 10:30", NY, at("2026-12-03T03:30:00Z"), None, NO_STOP),
    ("the day after tomorrow at 10", BER, at("2026-12-04T09:00:00Z"), None, NO_STOP),
    ("tomorrow at midnight", BER, at("2026-12-03T23:00:00Z"), None, NO_STOP),
    ("on 24 December at 18:00", BER, at("2026-12-24T17:00:00Z"), None, NO_STOP),
    ("on 24 December at 18:00", NY, at("2026-12-24T23:00:00Z"), None, NO_STOP),
    ("on Dec 24 at 6pm", BER, at("2026-12-24T17:00:00Z"), None, NO_STOP),
    ("on Dec. 24th, 2026 at 6 p.m.", BER, at("2026-12-24T17:00:00Z"), None, NO_STOP),
    ("on 2026-12-24 at 18:00", BER, at("2026-12-24T17:00:00Z"), None, NO_STOP),
    ("next friday at 9am", BER, at("2026-12-04T08:00:00Z"), None, NO_STOP),
    ("next friday at 9am", NY, at("2026-12-04T14:00:00Z"), None, NO_STOP),
    ("on friday at 9", BER, at("2026-12-04T08:00:00Z"), None, NO_STOP),
    ("friday at 9", BER, at("2026-12-04T08:00:00Z"), None, NO_STOP),
    ("on wednesday at 18:00", BER, at("2026-12-02T17:00:00Z"), None, NO_STOP),
    ("on wednesday at 9", BER, at("2026-12-09T08:00:00Z"), None, NO_STOP),
    ("next wednesday at 18:00", BER, at("2026-12-09T17:00:00Z"), None, NO_STOP),
    ("on the 15th at 9", BER, at("2026-12-15T08:00:00Z"), None, NO_STOP),
    ("at noon", BER, at("2026-12-02T11:00:00Z"), None, NO_STOP),
    ("9:30pm", BER, at("2026-12-02T20:30:00Z"), None, NO_STOP),
    ("21:30", NY, at("2026-12-03T02:30:00Z"), None, NO_STOP),
    ("9am", BER, at("2026-12-03T08:00:00Z"), None, NO_STOP),
    ("9 am", NY, at("2026-12-02T14:00:00Z"), None, NO_STOP),
    ("at 9.30", BER, at("2026-12-03T08:30:00Z"), None, NO_STOP),
    ("half past 9", NY, at("2026-12-02T14:30:00Z"), None, NO_STOP),
    ("at midnight", BER, at("2026-12-02T23:00:00Z"), None, NO_STOP),
    # -- across daylight saving time (Berlin: 2027-03-28, New York: 2027-03-14)
    ("on 27 March at 09:00", BER, at("2027-03-27T08:00:00Z"), None, NO_STOP),
    ("on 29 March at 09:00", BER, at("2027-03-29T07:00:00Z"), None, NO_STOP),
    ("on 28 March at 02:30", BER, at("2027-03-28T01:30:00Z"), None, NO_STOP),
    ("on 13 March at 9am", NY, at("2027-03-13T14:00:00Z"), None, NO_STOP),
    ("on 15 March at 9am", NY, at("2027-03-15T13:00:00Z"), None, NO_STOP),
    ("on 14 March at 2:30am", NY, at("2027-03-14T07:30:00Z"), None, NO_STOP),
    ("on 7 November 2027 at 1:30am", NY, at("2027-11-07T05:30:00Z"), None, NO_STOP),
    # -- loops: the next run starts an interval after the previous one finished
    ("every 10 minutes after it finishes", BER, after("10m"), None, NO_STOP),
    ("10 minutes after each run", BER, after("10m"), None, NO_STOP),
    ("again 5 minutes after finishing", BER, after("5m"), None, NO_STOP),
    ("loop every 10 minutes", BER, after("10m"), None, NO_STOP),
    ("every 10 minutes after it finishes, check the queue", BER, after("10m"),
     "check the queue", NO_STOP),
    ("keep checking the deploy every 5 minutes until it is green", BER, after("5m"),
     "checking the deploy until it is green", stop(condition=True)),
    ("keep checking the deploy until it is green", BER, after("10m"),
     "checking the deploy until it is green", stop(condition=True)),
    ("keep pinging the server every minute", BER, after("1m"), "pinging the server",
     NO_STOP),
    ("check the deploy until it is green", BER, after("10m"),
     "check the deploy until it is green", stop(condition=True)),
    ("every 10 minutes until the build passes", BER, cron("*/10 * * * *"),
     "until the build passes", stop(condition=True)),
    # -- manual
    ("manually", BER, {"kind": "manual"}, None, NO_STOP),
    ("run the report on demand", BER, {"kind": "manual"}, "run the report", NO_STOP),
    ("only when I ask", BER, {"kind": "manual"}, None, NO_STOP),
    # -- stop rules
    ("every hour 5 times", BER, cron("0 * * * *"), None, stop(max_runs=5)),
    ("every day for 5 runs", BER, cron("0 9 * * *"), None, stop(max_runs=5)),
    ("every hour twice", BER, cron("0 * * * *"), None, stop(max_runs=2)),
    ("every 10 minutes after it finishes 5 times", BER, after("10m"), None,
     stop(max_runs=5)),
    ("every day at 9am until Friday", BER, cron("0 9 * * *"), None,
     stop(until="2026-12-04T23:00:00Z")),
    ("every day at 9am until Friday", NY, cron("0 9 * * *", NY), None,
     stop(until="2026-12-05T05:00:00Z")),
    ("every day until 24 December", BER, cron("0 9 * * *"), None,
     stop(until="2026-12-24T23:00:00Z")),
    ("every day until 2027-01-31", BER, cron("0 9 * * *"), None,
     stop(until="2027-01-31T23:00:00Z")),
    ("every day at 9 until 29 March", BER, cron("0 9 * * *"), None,
     stop(until="2027-03-29T22:00:00Z")),
    ("every weekday at 9 until the end of the month", BER, cron("0 9 * * MON-FRI"), None,
     stop(until="2026-12-31T23:00:00Z")),
    ("every 10 minutes until 5pm", BER, cron("*/10 * * * *"), None,
     stop(until="2026-12-02T16:00:00Z")),
    ("every 10 minutes for 3 days", BER, cron("*/10 * * * *"), None,
     stop(until="2026-12-05T10:00:00Z")),
    ("every hour for a week", BER, cron("0 * * * *"), None,
     stop(until="2026-12-09T10:00:00Z")),
    ("every day at 9 until further notice", BER, cron("0 9 * * *"), None, NO_STOP),
    # -- prompts: the schedule first, last, or around the task
    ("every day at 9am, summarize today's email", BER, cron("0 9 * * *"),
     "summarize today's email", NO_STOP),
    ("remind me to stretch every 2 hours", BER, cron("0 */2 * * *"),
     "remind me to stretch", NO_STOP),
    ("check disk space hourly", BER, cron("0 * * * *"), "check disk space", NO_STOP),
    ("at 7pm tomorrow: backup photos", BER, at("2026-12-03T18:00:00Z"), "backup photos",
     NO_STOP),
    ("remind me at 5pm to call mom", BER, at("2026-12-02T16:00:00Z"),
     "remind me to call mom", NO_STOP),
    ("at 9 a.m. on dec. 24: wrap gifts", BER, at("2026-12-24T08:00:00Z"), "wrap gifts",
     NO_STOP),
    ("Every Weekday At 9AM, Summarize Inbox.", BER, cron("0 9 * * MON-FRI"),
     "Summarize Inbox", NO_STOP),
    ("every day at 9 check email", BER, cron("0 9 * * *"), "check email", NO_STOP),
    ("water the plants on mondays and thursdays at 8", BER, cron("0 8 * * MON,THU"),
     "water the plants", NO_STOP),
    ("send the weekly report every friday at 4pm", BER, cron("0 16 * * FRI"),
     "send the weekly report", NO_STOP),
    ("summarize the 5pm meeting notes daily", BER, cron("0 9 * * *"),
     "summarize the 5pm meeting notes", NO_STOP),
    ("check prices at 5 stores daily", BER, cron("0 9 * * *"), "check prices at 5 stores",
     NO_STOP),
    ("every day at 9 summarize what happened today", BER, cron("0 9 * * *"),
     "summarize what happened today", NO_STOP),
    ("every monday at 9 remind me about friday's meeting", BER, cron("0 9 * * MON"),
     "remind me about friday's meeting", NO_STOP),
    ("prepare friday report at 9am", BER, at("2026-12-03T08:00:00Z"),
     "prepare friday report", NO_STOP),
    ("every day at 9am to summarize the news", BER, cron("0 9 * * *"),
     "summarize the news", NO_STOP),
    ("every day at 9am: 'summarize'", BER, cron("0 9 * * *"), "summarize", NO_STOP),
    ("every day at 9 run", BER, cron("0 9 * * *"), None, NO_STOP),
]


@pytest.mark.parametrize("text, tz, trigger, prompt, expected_stop", CASES,
                         ids=[f"{c[0]} [{c[1]}]" for c in CASES])
def test_phrase(text: str, tz: str, trigger: dict, prompt: str | None,
                expected_stop: dict) -> None:
    result = parse(text, tz)
    assert result.trigger == trigger
    assert result.prompt == prompt
    assert result.stop == expected_stop


def test_there_are_enough_phrases() -> None:
    assert len({(c[0], c[1]) for c in CASES}) >= 60


@pytest.mark.parametrize("text, tz, trigger, prompt, expected_stop", CASES,
                         ids=[f"{c[0]} [{c[1]}]" for c in CASES])
def test_output_shapes(text: str, tz: str, trigger: dict, prompt: str | None,
                       expected_stop: dict) -> None:
    """Every cron expression is accepted by the engine's own strict parser; durations and
    instants have the one textual form the store accepts."""
    result = parse(text, tz)
    kind = result.trigger["kind"]
    if kind == "cron":
        parse_cron(result.trigger["expression"])
        assert set(result.trigger) == {"kind", "expression", "timezone"}
    elif kind == "every":
        assert re.fullmatch(r"[1-9][0-9]*[smhd]", result.trigger["every"])
    elif kind == "after":
        assert re.fullmatch(r"[1-9][0-9]*[smhd]", result.trigger["interval"])
    elif kind == "monthly":
        assert re.fullmatch(r"\d{4}-\d\d", result.trigger["start"])
        assert re.fullmatch(r"\d\d:\d\d", result.trigger["at"])
    elif kind == "at":
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", result.trigger["at"])
        assert datetime.fromisoformat(result.trigger["at"].replace("Z", "+00:00")) > NOW
    else:
        assert result.trigger == {"kind": "manual"}
    assert set(result.stop) == {"max_runs", "until", "when_condition_met"}
    if result.prompt is None:
        assert result.title is None
    else:
        assert result.title and len(result.title) <= 120


# -- titles ---------------------------------------------------------------------------

@pytest.mark.parametrize("text, title", [
    ("every day at 9am, summarize today's email", "Summarize today's email"),
    ("check disk space hourly", "Check disk space"),
    ("every day at 9am: please summarize my inbox.", "Summarize my inbox"),
    ("every day at 9am", None),
])
def test_title(text: str, title: str | None) -> None:
    assert parse(text).title == title


def test_a_long_prompt_gets_a_title_cut_at_a_word() -> None:
    task = "summarize " + " ".join(["the important emails"] * 20)
    result = parse(f"every day at 9am, {task}")
    assert result.prompt == task
    assert result.title is not None
    assert len(result.title) <= 120
    assert result.title.endswith("\u2026")
    assert result.title.startswith("Summarize the important emails the important")
    assert result.title[:-1] == result.title[:-1].rstrip()


# -- warnings: every assumption is said out loud ------------------------------------

@pytest.mark.parametrize("text, tz, fragment", [
    ("daily at 9", BER, "'at 9' read as 09:00"),
    ("every tuesday", BER, "no time of day given; runs at 09:00"),
    ("tonight", BER, "runs at 21:00"),
    ("every 3 days", BER, "no time of day given; runs at 09:00"),
    ("every other week", BER, "no weekday given; runs on Mondays"),
    ("every week", BER, "runs on Mondays"),
    ("monthly", BER, "runs on the 1st"),
    ("monthly on the 31st", BER, "months without day 31 are skipped"),
    ("on 28 March at 02:30", BER, "does not exist in Europe/Berlin"),
    ("on 28 March at 02:30", BER, "moved to 03:30"),
    ("on 7 November 2027 at 1:30am", NY, "happens twice in America/New_York"),
    ("on 29 March at 09:00", BER, "'on 29 March' read as 2027-03-29"),
    ("9am", BER, "has passed today; read as tomorrow"),
    ("next friday at 9am", BER, "'next friday' read as Friday 2026-12-04"),
    ("on wednesday at 18:00", BER, "read as today"),
    ("tomorrow at midnight", BER, "'midnight' read as the end of Thursday 2026-12-03"),
    ("keep checking the deploy until it is green", BER, "no interval given"),
    ("every hour from 9 to 5", BER, "'from 9 to 5' read as 09:00-17:00"),
    ("every 30 minutes from 9am to 5pm", BER, "the last run each day is at 16:30"),
])
def test_warning(text: str, tz: str, fragment: str) -> None:
    warnings = parse(text, tz).warnings
    assert any(fragment in w for w in warnings), warnings


@pytest.mark.parametrize("text", ["every day at 9am", "every weekday at 8:15",
                                  "tomorrow at 7pm", "in 10 minutes", "every 15 minutes"])
def test_explicit_phrases_have_no_warnings(text: str) -> None:
    assert parse(text).warnings == []


def test_hour_window_is_inclusive() -> None:
    assert parse("every hour from 9 to 5").trigger == cron("0 9-17 * * *")


def test_daylight_saving_keeps_the_wall_clock_for_cron() -> None:
    """The same phrase in winter and summer gives the same zone-local expression."""
    summer = datetime(2027, 7, 1, 10, 0, tzinfo=timezone.utc)
    assert parse("every day at 9am", BER, summer).trigger == parse("every day at 9am").trigger


def test_a_naive_now_is_utc() -> None:
    assert parse("in 10 minutes", BER, NOW.replace(tzinfo=None)).trigger == \
        at("2026-12-02T10:10:00Z")


def test_microseconds_are_dropped_from_relative_instants() -> None:
    now = NOW + timedelta(microseconds=123456)
    assert parse("in 10 minutes", BER, now).trigger == at("2026-12-02T10:10:00Z")


# -- refusals -------------------------------------------------------------------------

def refusal(text: str, tz: str = BER) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        parse(text, tz)
    assert info.value.field == "schedule"
    return info.value


@pytest.mark.parametrize("text", ["xyz", "summarize email", "every blah", "5 times",
                                  "until friday"])
def test_unknown_phrases_are_refused_with_examples(text: str) -> None:
    error = refusal(text)
    assert error.message.startswith(f"could not understand the schedule in '{text}'")
    assert error.expected == "a schedule phrase"
    assert error.example == "every weekday at 9am"
    assert 4 <= len(EXAMPLES) <= 6
    for example in EXAMPLES:
        assert f"'{example}'" in error.message


@pytest.mark.parametrize("example", EXAMPLES)
def test_the_advertised_examples_parse(example: str) -> None:
    parse(example)


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_text_is_refused(text: str) -> None:
    error = refusal(text)
    assert "empty" in error.message
    assert "every weekday at 9am" in error.message


@pytest.mark.parametrize("text, bad", [
    ("at 25:00", "25:00"),
    ("every day at 25:00", "25:00"),
    ("13pm", "13pm"),
    ("every day at 13pm", "13pm"),
    ("0am", "0am"),
    ("at 7:75", "7:75"),
    ("every day at 24", "24"),
    ("every hour at 75 past", "75 past"),
])
def test_invalid_clock_times_name_the_bad_part(text: str, bad: str) -> None:
    error = refusal(text)
    assert bad in error.message
    assert "time of day" in error.message or "minute of the hour" in error.message


@pytest.mark.parametrize("text, fragment", [
    ("today at 9:00", "has already passed"),
    ("on 2026-01-05 at 9am", "has already passed"),
    ("tomorrow at 7pm 5 times", "takes no stop rule; remove '5 times'"),
    ("tomorrow at 7pm until friday", "takes no stop rule; remove 'until friday'"),
    ("in 2 hours for 3 days", "takes no stop rule"),
    ("every day until 2026-01-01", "already in the past"),
    ("every day until friday until monday", "cannot be combined"),
    ("run manually every day", "cannot be combined"),
    ("in 2 hours at 9am", "cannot be combined"),
    ("every 7 minutes on weekdays", "cannot be limited by 'on weekdays'"),
    ("every 15 minutes at :05", "cannot be limited by 'at :05'"),
    ("every 2 hours at 9am", "cannot narrow 'every 2 hours'"),
    ("every day on the 1st and on mondays", "cannot be combined: cron runs when either"),
    ("every weekday at 9 starting tomorrow", "cannot start 'every weekday'"),
    ("twice daily", "'twice daily' is not supported"),
    ("3 times a day", "is not supported"),
    ("on 31 February", "is not a date"),
    ("every 0 minutes", "not a positive length"),
    ("every 400 days", "longer than 366d"),
    ("every day except mon, tue, wed, thu, fri, sat, sun", "leaves no day"),
    ("next monday and friday", "a one-shot runs once"),
    ("at :30", "needs an hourly schedule"),
    ("every day at 9 next friday", "cannot be combined"),
])
def test_contradictions_and_impossible_requests_are_refused(text: str, fragment: str) -> None:
    assert fragment in refusal(text).message


def test_unknown_zone_is_refused_on_the_timezone_field() -> None:
    with pytest.raises(InvalidInput) as info:
        parse_schedule_text("every day at 9am", "Mars/Olympus", NOW)
    assert info.value.field == "timezone"


# -- properties -----------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.integers(0, 23), st.integers(0, 59))
def test_any_24_hour_daily_time(hour: int, minute: int) -> None:
    result = parse(f"every day at {hour}:{minute:02d}")
    assert result.trigger == cron(f"{minute} {hour} * * *")
    assert result.warnings == []


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 12), st.sampled_from(["am", "pm", " am", " PM", " a.m.", "p.m."]))
def test_any_twelve_hour_weekday_time(hour: int, suffix: str) -> None:
    expected = hour % 12 + (12 if "p" in suffix.lower() else 0)
    result = parse(f"every weekday at {hour}{suffix}")
    assert result.trigger == cron(f"0 {expected} * * MON-FRI")


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.integers(1, 200), st.integers(1, 48).map(lambda h: h * 60),
                 st.integers(1, 366 * 24 * 60)))
def test_every_n_minutes_aligns_only_when_it_divides_the_hour_or_day(n: int) -> None:
    trigger = parse(f"every {n} minutes").trigger
    if n in (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30):
        assert trigger == cron("* * * * *" if n == 1 else f"*/{n} * * * *")
    elif n % 60 == 0 and n // 60 in (1, 2, 3, 4, 6, 8, 12):
        hours = n // 60
        assert trigger == cron("0 * * * *" if hours == 1 else f"0 */{hours} * * *")
    else:
        assert trigger["kind"] == "every"
        text = trigger["every"]
        unit = {"s": 1, "m": 60, "h": 3600, "d": 86400}[text[-1]]
        assert int(text[:-1]) * unit == n * 60


_TOKENS = list("abcdefghijklmnopqrstuvwxyz0123456789 :.,'-") + [
    "every ", "at ", "on ", "until ", "in ", "day", "pm", "monday", "hour", "minutes",
    "tomorrow", "the 1st", "keep ", "after it finishes", "5 times", "for ", "weekly", " and ",
    "from ", " to ", "except ", "next ", "noon", "midnight", "12", "25", ":30"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=20).map("".join))
def test_arbitrary_text_either_parses_or_is_refused_cleanly(text: str) -> None:
    try:
        result = parse(text)
    except InvalidInput as error:
        assert error.field == "schedule"
        return
    assert result.trigger["kind"] in {"cron", "at", "every", "after", "manual"}
    if result.trigger["kind"] == "cron":
        parse_cron(result.trigger["expression"])
    if result.trigger["kind"] == "at":
        assert result.stop == NO_STOP


def _monthly(start: str, at: str = "09:00", every: int = 1, **fields: object) -> dict:
    return {"kind": "monthly", **fields, "every": every, "start": start, "at": at,
            "timezone": BER}


@pytest.mark.parametrize("text, trigger, prompt", [
    ("on the last day of each month at 6pm close the books",
     _monthly("2026-12", "18:00", day=-1), "close the books"),
    ("at the end of the month send the invoices", _monthly("2026-12", day=-1),
     "send the invoices"),
    ("month-end: archive the logs", _monthly("2026-12", day=-1), "archive the logs"),
    ("monthly on the last day at 18:00 close books", _monthly("2026-12", "18:00", day=-1),
     "close books"),
    ("on the 2nd to last day of the month back up", _monthly("2026-12", day=-2), "back up"),
    ("the penultimate day of the month pay", _monthly("2026-12", day=-2), "pay"),
    ("on the third-to-last working day of the month at 10 run payroll",
     _monthly("2026-12", "10:00", weekday="workday", nth=-3), "run payroll"),
    ("the last weekday of every month at 4pm", _monthly("2026-12", "16:00",
                                                        weekday="workday", nth=-1), None),
    ("the first business day of the month at 8 file taxes",
     _monthly("2027-01", "08:00", weekday="workday", nth=1), "file taxes"),
    ("the second-to-last friday of the month at 4pm demo",
     _monthly("2026-12", "16:00", weekday="fri", nth=-2), "demo"),
    ("every 2nd tuesday of the month at 7pm meetup",
     _monthly("2026-12", "19:00", weekday="tue", nth=2), "meetup"),
    ("every third month on the 5th read the meters",
     _monthly("2026-12", every=3, day=5), "read the meters"),
    ("every 3rd month on the 1st check the smoke alarms",
     _monthly("2027-01", every=3, day=1), "check the smoke alarms"),
    ("every 6 months on the 10th rotate the keys", _monthly("2026-12", every=6, day=10),
     "rotate the keys"),
    ("every other month on the last day water the bonsai",
     _monthly("2026-12", every=2, day=-1), "water the bonsai"),
    ("every other year on March 3 renew the passport",
     _monthly("2027-03", every=24, day=3), "renew the passport"),
    ("every 2 years on 1 December at 10 book the dentist",
     _monthly("2027-12", "10:00", every=24, day=1), "book the dentist"),
])
def test_days_cron_cannot_say_are_read_exactly(text: str, trigger: dict,
                                               prompt: str | None) -> None:
    """Month-end forms, N-th (to last) weekdays and working days, and several months or
    years apart: a ``monthly`` trigger, its grid starting at the first month ahead."""
    result = parse(text, BER)
    assert result.trigger == trigger
    assert result.prompt == prompt
    parse_definition({"title": "t", "runner": {"kind": "command", "command": "true"},
                      "trigger": result.trigger}, ParseContext(now=NOW))
    if not re.search(r"\d\s*(?:am|pm)|\bat \d|\d:\d", text):
        assert "no time of day given; runs at 09:00" in result.warnings


@pytest.mark.parametrize("text, words", [
    ("in week 12 plan the holidays", "in week 12"),
    ("calendar week 40 review", "calendar week 40"),
    ("on Monday of week 3 call the bank", "week 3"),
    ("KW 12 Urlaub planen", "KW 12"),
])
def test_week_numbers_are_refused_naming_their_words(text: str, words: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse(text, BER)
    assert "week number" in refused.value.message
    assert any(words.lower() in w.lower() for w in refused.value.words), refused.value.words


@pytest.mark.parametrize("text, why", [
    ("the last friday every day at 9", "needs a month"),
    ("every month on the last day at 9am and 5pm report", "one time of day"),
    ("on the last day of the month every 2 hours ping", "every 2 hours"),
    ("the last day of the month every monday report", "every monday"),
])
def test_month_days_that_do_not_fit_the_rest_are_refused(text: str, why: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse(text, BER)
    assert why in refused.value.message, refused.value.message


def test_what_the_hostile_review_found_in_the_month_days() -> None:
    """Task words stay task words; ambiguous or dayless phrases say so."""
    assert parse("every friday at 5pm send the week 12 report", BER).prompt == \
        "send the week 12 report"
    kept = parse("every monday at 9 summarize the last day of trading", BER)
    assert kept.trigger == cron("0 9 * * MON") and kept.prompt == \
        "summarize the last day of trading"
    second = parse("every second tuesday review", BER)
    assert second.trigger["kind"] == "monthly" and second.trigger["nth"] == 2
    assert any("every other tuesday" in w for w in second.warnings)
    with pytest.raises(InvalidInput) as refused:
        parse("at the end of each week send report", BER)
    assert "does not name a day" in refused.value.message
    assert parse("end of month send report", BER).trigger["day"] == -1
    yearly = parse("every other year on March 3 renew", BER)
    assert yearly.trigger["start"] == "2027-03"
    assert "'every other year' counts from 2027" in yearly.warnings
    with pytest.raises(InvalidInput) as refused:
        parse("every 101 years on the 1st of January renew", BER)
    assert "more than a hundred years" in refused.value.message


def test_quarterly_month_days_follow_the_calendar_quarters() -> None:
    read = parse("quarterly on the last day close the books", BER)
    assert read.trigger == {"kind": "monthly", "day": -1, "every": 3, "start": "2026-10",
                            "at": "09:00", "timezone": BER}
    assert read.prompt == "close the books"
