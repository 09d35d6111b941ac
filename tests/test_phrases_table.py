"""The phrase regression table, the "no date-like word dropped" rule, and robustness."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errands.definition import ParseContext, parse_definition
from errands.errors import InvalidInput
from errands.phrases import parse_schedule_text
from errands.phrases.numeric import date_order, locale_from_environment
from errands.phrases.tokens import date_like
from errands.schedule import next_fires
from errands.timeutil import zone

from phrases_table import PHRASES

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_the_table_is_large_and_varied() -> None:
    assert len({(e["phrase"], e["zone"]) for e in PHRASES}) >= 150
    assert len({e["zone"] for e in PHRASES}) >= 5
    handled = [e for e in PHRASES if "refused" not in e]
    assert len(handled) >= 120
    offsets = [{f[-6:] for f in e["fires"]} for e in handled]
    assert sum(len(o) > 1 for o in offsets) >= 3      # fires across a DST change


@pytest.mark.parametrize("entry", PHRASES, ids=[f"{e['phrase']} [{e['zone']}]" for e in PHRASES])
def test_phrase_gives_its_fires(entry: dict) -> None:
    now = _instant(entry["now"])
    if "refused" in entry:
        with pytest.raises(InvalidInput) as info:
            parse_schedule_text(entry["phrase"], entry["zone"], now, entry["locale"])
        assert info.value.field == "schedule"
        assert entry["refused"] in info.value.message
        words = info.value.words               # structured: the phrase's own words
        assert words and all(w.lower() in entry["phrase"].lower() for w in words), words
        return
    parsed = parse_schedule_text(entry["phrase"], entry["zone"], now, entry["locale"])
    assert parsed.trigger["kind"] == entry["kind"]
    assert {k: v for k, v in parsed.stop.items() if v} == entry["stop"]
    assert parsed.prompt == entry.get("prompt")
    assert parsed.unused == entry.get("unused", [])
    doc = {"title": "t", "runner": {"kind": "command", "command": "true"},
           "trigger": parsed.trigger, "stop": entry["stop"]}
    definition = parse_definition(doc, ParseContext(now=now, min_interval=timedelta(0)))
    fires = next_fires(definition.trigger, now - timedelta(microseconds=1), 3)
    if definition.stop.until:
        fires = [f for f in fires if f < definition.stop.until]
    tz = zone(entry["zone"])
    assert [f.astimezone(tz).isoformat(timespec="minutes") for f in fires] == entry["fires"]


@pytest.mark.parametrize("locale, order", [
    ("en_US.UTF-8", "mdy"), ("en_GB.UTF-8", "dmy"), ("de_DE", "dmy"), ("en_PH", "mdy"),
    ("C", None), ("POSIX", None), (None, None), ("", None), ("en", None)])
def test_locale_decides_the_order_of_numeric_dates(locale: str | None, order: str | None
                                                    ) -> None:
    assert date_order(locale) == order


def test_locale_comes_from_the_environment_in_posix_order() -> None:
    assert locale_from_environment({"LANG": "de_DE", "LC_TIME": "en_US"}) == "en_US"
    assert locale_from_environment({"LC_ALL": "C", "LC_TIME": "en_US"}) == "C"
    assert locale_from_environment({}) is None
    with pytest.raises(InvalidInput) as info:
        date_order("not a locale!")
    assert info.value.field == "locale"


def test_an_ambiguous_date_names_both_readings() -> None:
    with pytest.raises(InvalidInput) as info:
        parse_schedule_text("1pm on 8/1/2030", "UTC", _instant("2026-12-02T10:00:00Z"))
    assert "1 August 2030 (month first)" in info.value.message
    assert "8 January 2030 (day first)" in info.value.message


def test_the_result_names_the_words_that_shaped_the_schedule() -> None:
    parsed = parse_schedule_text("every other week on Monday at 9am, water the plants",
                                 "Europe/Berlin", _instant("2026-12-02T10:00:00Z"))
    assert parsed.used == ["every other week", "on Monday", "at 9am"]
    assert parsed.prompt == "water the plants"


# -- the rule: every date-like word is used or named ---------------------------------

_SCHEDULES = ["every day at 9am", "every weekday at 8:15", "tomorrow at 7pm", "every 2 hours",
              "every monday at 9", "in 10 minutes", "every month on the 1st"]
_TASKS = ["summarize my inbox", "water the plants", "call the office", "check the build"]
_DATE_LIKE = ["8/1/2030", "on 8/1", "friday", "next tuesday", "the 3rd", "in april",
              "june 5", "5p", "at 17:30", "except tomorrow", "until 2027-01-01",
              "starting monday", "for 3 times", "4x", "the last friday", "2nd fri in feb",
              "from monday to friday", "today", "2031", "12.5.2030", "holidays"]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_SCHEDULES), st.sampled_from(_TASKS), st.sampled_from(_DATE_LIKE),
       st.integers(0, 3), st.sampled_from(["en_US", "de_DE", None]))
def test_no_date_like_word_silently_becomes_the_prompt(schedule: str, task: str, token: str,
                                                       where: int, locale: str | None) -> None:
    parts = [schedule, task]
    parts.insert(min(where, 2), token)
    text = " ".join(parts) if where != 3 else f"{schedule}, {task} {token}"
    try:
        parsed = parse_schedule_text(text, "Europe/Berlin", _instant("2026-12-02T10:00:00Z"),
                                     locale)
    except InvalidInput as error:
        assert error.field == "schedule"
        return
    prompt = parsed.prompt or ""
    for start, end in date_like(prompt):
        word = prompt[start:end].strip()
        assert any(word.lower() in w.lower() for w in parsed.warnings), (text, word,
                                                                           parsed.warnings)


_NOWS = st.sampled_from([datetime(1970, 1, 1, tzinfo=timezone.utc),
                         datetime(9999, 12, 31, 23, 59, tzinfo=timezone.utc),
                         datetime(9999, 12, 30, tzinfo=timezone.utc),
                         datetime(2026, 12, 2, 10, tzinfo=timezone.utc)])
_PIECES = st.sampled_from([
    "every ", "99999999999999999999 ", "seconds", "days", " at ", "9", "pm", "1969", "9999",
    "/", ".", "-", "12", "31", "tomorrow", "next ", "year", "until ", "starting ", "except ",
    "the last ", "2nd ", "fri", " in ", "feb", "for ", "x", "\x00", "\ud800", "\u202e", "é",
    "\x07", ", ", "month", "weeks", "every other ", "monday"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join) | st.text(max_size=40), _NOWS,
       st.sampled_from(["UTC", "Pacific/Kiritimati", "America/Adak"]),
       st.sampled_from(["en_US", "de_DE", None]))
def test_the_parser_only_ever_refuses(text: str, now: datetime, tz: str,
                                      locale: str | None) -> None:
    try:
        parse_schedule_text(text, tz, now, locale)
    except InvalidInput as error:
        assert error.field in ("schedule", "now")
