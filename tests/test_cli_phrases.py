"""Phrases through the command line: ``--locale``, the words ``schedule parse`` names, the
refused words in errors, and a two-weekly phrase kept at 09:00 across daylight saving.

These call the real ``errands.cli.main`` in-process (the console script's entry point), so
the many small invocations stay quick; tests/test_cli.py covers the installed script itself.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from errands.cli import main

_LOCALE_VARS = ("LC_ALL", "LC_TIME", "LANG")


class Run:
    def __init__(self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                 data: Path) -> None:
        self.capsys, self.monkeypatch, self.data = capsys, monkeypatch, data

    def __call__(self, *argv: str, expect: int = 0, env: dict[str, str] | None = None,
                 ) -> tuple[str, str]:
        """(stdout, stderr) of one invocation with exactly the locale variables in ``env``."""
        for key in _LOCALE_VARS:
            self.monkeypatch.delenv(key, raising=False)
        for key, value in (env or {}).items():
            self.monkeypatch.setenv(key, value)
        self.capsys.readouterr()
        code = main([*argv, "--data-dir", str(self.data)])
        out, err = self.capsys.readouterr()
        assert code == expect, (argv, code, out, err)
        return out, err

    def json(self, *argv: str, **kw: Any) -> Any:
        out, _ = self(*argv, "--json", **kw)
        return json.loads(out)

    def error(self, *argv: str, **kw: Any) -> dict[str, Any]:
        out, err = self(*argv, "--json", expect=2, **kw)
        assert out == ""
        return json.loads(err)["error"]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> Run:
    return Run(capsys, monkeypatch, tmp_path / "data")


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


_PARSE = ("schedule", "parse", "1pm on 8/1/2030", "--tz", "UTC")
_AUGUST, _JANUARY = "2030-08-01T13:00:00Z", "2030-01-08T13:00:00Z"


@pytest.mark.parametrize("flag, env, at", [
    ("en_US", {}, _AUGUST),
    ("en_GB", {}, _JANUARY),
    ("de_DE.UTF-8", {}, _JANUARY),
    ("en_US", {"LC_ALL": "de_DE.UTF-8"}, _AUGUST),             # the flag wins
    (None, {"LC_ALL": "en_GB.UTF-8", "LANG": "en_US.UTF-8"}, _JANUARY),
    (None, {"LC_TIME": "en_US.UTF-8", "LANG": "de_DE.UTF-8"}, _AUGUST),
    (None, {"LANG": "en_GB.UTF-8"}, _JANUARY),
])
def test_locale_orders_numeric_dates(run: Run, flag: str | None, env: dict[str, str],
                                     at: str) -> None:
    argv = (*_PARSE, "--locale", flag) if flag else _PARSE
    assert run.json(*argv, env=env)["trigger"] == {"kind": "at", "at": at}


@pytest.mark.parametrize("flag, env", [("C", {"LANG": "en_US.UTF-8"}), (None, {}),
                                       (None, {"LC_ALL": "C", "LANG": "en_US.UTF-8"})])
def test_without_a_locale_a_date_both_ways_is_refused_with_both_readings(
        run: Run, flag: str | None, env: dict[str, str]) -> None:
    argv = (*_PARSE, "--locale", flag) if flag else _PARSE
    error = run.error(*argv, env=env)
    assert error["field"] == "schedule" and error["words"] == ["8/1/2030"]
    assert "1 August 2030 (month first)" in error["message"]
    assert "8 January 2030 (day first)" in error["message"]
    out, err = run(*argv, expect=2, env=env)
    assert out == "" and err.startswith("error: schedule: '8/1/2030' could be 1 August 2030")


def test_a_locale_that_is_not_one_is_refused(run: Run) -> None:
    assert run.error(*_PARSE, "--locale", "not a locale!")["field"] == "locale"


_NOW = ("--now", "2026-12-02T10:00:00Z", "--tz", "Europe/Berlin", "--locale", "en_US")


def test_schedule_parse_prints_the_words_the_prompt_and_what_was_not_used(run: Run) -> None:
    phrase = "every weekday at 9am, review the 8/1 numbers"
    out, _ = run("schedule", "parse", phrase, *_NOW)
    lines = [(line[:13].rstrip(), line[13:]) for line in out.splitlines()]
    fields = dict(lines)
    assert fields["words"] == "every weekday | at 9am"
    assert fields["prompt"] == "review the 8/1 numbers"
    assert fields["not used"].startswith("8/1 ")
    assert fields["note"] == "'8/1' stays in the task text; it does not change the schedule"
    assert run.json("schedule", "parse", phrase, *_NOW)["words"] == {
        "schedule": ["every weekday", "at 9am"], "prompt": "review the 8/1 numbers",
        "unused": ["8/1"]}
    plain, _ = run("schedule", "parse", "every day at 9am", *_NOW)
    assert "prompt" not in plain and "not used" not in plain
    assert run.json("schedule", "parse", "every day at 9am", *_NOW)["words"] == {
        "schedule": ["every day", "at 9am"], "prompt": None, "unused": []}


@pytest.mark.parametrize("phrase, words", [
    ("every day at 9 except tomorrow", ["except tomorrow"]),
    ("every day at 25:00", ["at 25:00"]),
    ("every day at 9 on 8/1", ["8/1"]),
    ("twice a day", ["twice a day"]),
    ("every 7 minutes on weekdays", ["every 7 minutes", "on weekdays"]),
])
def test_a_refusal_carries_the_words_it_could_not_use(run: Run, phrase: str,
                                                      words: list[str]) -> None:
    error = run.error("schedule", "parse", phrase, *_NOW)
    assert error["field"] == "schedule" and error["words"] == words
    _, err = run("schedule", "parse", phrase, *_NOW, expect=2)
    assert all(f"'{w}'" in err for w in words)
    added = run.error("add", "--title", "t", "--command", "true", "--schedule", phrase,
                      *_NOW[2:])
    assert added["field"] == "--schedule" and added["words"] == words


def test_other_errors_carry_no_words(run: Run) -> None:
    _, err = run("show", "nope", "--json", expect=3)
    assert "words" not in json.loads(err)["error"]
    assert "words" not in run.error("schedule", "parse", "at 9", "--now", "nope")


def test_every_other_monday_stays_at_nine_local_across_daylight_saving(run: Run) -> None:
    berlin = ZoneInfo("Europe/Berlin")
    phrase = "every other week on Monday at 9am"
    added = run.json("add", "--title", "t", "--command", "true", "--schedule", phrase,
                     "--tz", "Europe/Berlin")
    assert {k: added["trigger"][k] for k in ("kind", "every", "timezone")} == {
        "kind": "every", "every": "14d", "timezone": "Europe/Berlin"}
    preview = run.json("schedule", "preview", "--spec", phrase, "--tz", "Europe/Berlin",
                       "--count", "30")
    fires = [_instant(f).astimezone(berlin) for f in preview["fires"]]
    # 58 weeks: both clock changes of a year, whatever the day the test runs on (28 weeks
    # from late March stay in summer time all along)
    assert len(fires) == 30
    assert {(f.weekday(), f.hour, f.minute) for f in fires} == {(0, 9, 0)}
    assert {f.utcoffset() for f in fires} == {timedelta(hours=1), timedelta(hours=2)}
    assert all((b.date() - a.date()).days == 14 for a, b in zip(fires, fires[1:]))
    shown = run.json("show", added["id"])
    assert _instant(shown["next_fire_at"]) == fires[0]
    assert "Every 14 days at 09:00 (Europe/Berlin)" in preview["description"]
