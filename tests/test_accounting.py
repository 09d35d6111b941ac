"""Pure accounting: what a run's end means for its automation, without a store."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from errands.definition import ParseContext, parse_definition
from errands.ledger.accounting import Counters, Ended, account

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
CTX = ParseContext(now=NOW, min_interval=timedelta(0), default_timezone="UTC")


def d(trigger: dict[str, Any], **extra: Any) -> Any:
    doc = {"title": "job", "runner": {"kind": "command", "command": "true"}, "trigger": trigger}
    doc.update(extra)
    return parse_definition(doc, CTX)


def counters(**kw: Any) -> Counters:
    base = dict(status="active", run_count=0, failure_streak=0, last_result=None,
                next_fire_at=None)
    base.update(kw)
    return Counters(**base)  # type: ignore[arg-type]


def ended(state: str, trigger: str = "schedule", **kw: Any) -> Ended:
    return Ended(state=state, trigger=trigger, result=kw.pop("result", None),
                 error=kw.pop("error", None), **kw)


LOOP = {"kind": "after", "interval": "10m"}


def test_an_after_loop_waits_its_interval_after_every_kind_of_end() -> None:
    for state in ("succeeded", "failed", "cancelled", "expired", "timeout"):
        v = account(d(LOOP), counters(), ended(state), NOW)
        assert v.next_fire_at == NOW + timedelta(minutes=10), state
        assert v.complete is None


def test_an_after_loop_cut_off_by_a_crash_goes_on_at_once() -> None:
    assert account(d(LOOP), counters(), ended("interrupted"), NOW).next_fire_at == NOW


def test_only_succeeded_and_failed_count() -> None:
    job = d(LOOP)
    assert account(job, counters(), ended("succeeded"), NOW).run_count == 1
    assert account(job, counters(), ended("failed"), NOW).run_count == 1
    for state in ("cancelled", "expired", "interrupted"):
        assert account(job, counters(), ended(state), NOW).run_count == 0


def test_failures_streak_notify_and_pause() -> None:
    job = d(LOOP, policy={"failure_notify_after": 2, "pause_after_failures": 3})
    first = account(job, counters(), ended("failed", error="exit_status: 1"), NOW)
    assert first.failure_streak == 1 and [k for k, _, _ in first.attention] == ["failure"]
    second = account(job, counters(failure_streak=1), ended("failed"), NOW)
    assert [k for k, _, _ in second.attention] == ["failure", "failure_streak"]
    third = account(job, counters(failure_streak=2), ended("failed"), NOW)
    assert third.pause == "paused after 3 consecutive failures"
    assert third.next_fire_at is None and "auto_paused" in [k for k, _, _ in third.attention]
    assert account(job, counters(failure_streak=2), ended("succeeded"), NOW).failure_streak == 0


def test_expiry_raises_its_own_attention() -> None:
    v = account(d(LOOP), counters(), ended("expired", error="expired: nobody decided"), NOW)
    assert v.attention == [("expired", "job: a parked run expired", "expired: nobody decided")]


def test_stop_rules() -> None:
    capped = d(LOOP, stop={"max_runs": 2})
    assert account(capped, counters(run_count=1, counted_runs=1), ended("succeeded"),
                   NOW).complete == "reached 2 runs"
    # runs by hand are outside the schedule's count (seed 000, "manual@1")
    by_hand = account(capped, counters(run_count=5, counted_runs=1),
                      ended("succeeded", trigger="manual"), NOW)
    assert by_hand.complete is None and (by_hand.run_count, by_hand.counted_runs) == (6, 1)
    until = d(LOOP, stop={"until": (NOW + timedelta(minutes=5)).isoformat()})
    v = account(until, counters(), ended("succeeded"), NOW)
    assert v.complete == "reached its end time" and v.next_fire_at is None
    once = d({"kind": "at", "at": (NOW + timedelta(hours=1)).isoformat()})
    assert account(once, counters(), ended("succeeded"), NOW).complete == "one-shot fired"
    assert account(once, counters(), ended("succeeded", trigger="manual"), NOW).complete is None
    condition = d(LOOP, stop={"when_condition_met": True})
    assert account(condition, counters(), ended("succeeded", condition_met=True),
                   NOW).complete == "its condition was met"


def test_results_notify_on_change_only_when_they_change() -> None:
    job = d(LOOP, policy={"notify": "on_change"})
    same = account(job, counters(last_result="42"), ended("succeeded", result="42"), NOW)
    assert same.attention == []
    new = account(job, counters(last_result="42"), ended("succeeded", result="43"), NOW)
    assert new.attention == [("result", "job", "43")] and new.last_result == "43"


def test_a_paused_automation_keeps_its_cursor() -> None:
    v = account(d(LOOP), counters(status="paused"), ended("succeeded"), NOW)
    assert v.next_fire_at is None and v.complete is None


def test_an_expiry_pauses_an_automation_whose_parks_went_unanswered_for_the_setting() -> None:
    week = timedelta(days=7)
    job = d(LOOP)
    v = account(job, counters(unanswered_since=NOW - week), ended("expired", error="expired: x"),
                NOW, unattended_expiry=week)
    assert v.pause == "paused after its parked runs went unanswered for 7d"
    assert v.next_fire_at is None and v.complete is None  # the loop does not go on
    assert [k for k, _, _ in v.attention] == ["expired", "unattended"]  # one item for the pause
    assert v.attention[1] == ("unattended", "job was paused", v.pause)
    younger = account(job, counters(unanswered_since=NOW - week + timedelta(seconds=1)),
                      ended("expired"), NOW, unattended_expiry=week)
    assert younger.pause is None and younger.next_fire_at == NOW + timedelta(minutes=10)
    # only an expiry pauses (any other end breaks the streak), only an active automation,
    # and only with the setting given
    assert account(job, counters(unanswered_since=NOW - week), ended("failed"), NOW,
                   unattended_expiry=week).pause is None
    assert account(job, counters(status="paused", unanswered_since=NOW - week),
                   ended("expired"), NOW, unattended_expiry=week).pause is None
    assert account(job, counters(unanswered_since=NOW - week), ended("expired"), NOW).pause is None
    assert account(job, counters(), ended("expired"), NOW, unattended_expiry=week).pause is None


def test_a_reminder_that_also_notifies_every_result_tells_once() -> None:
    """A reminder's result is its note: with ``policy.notify`` every_run it is one item."""
    from datetime import datetime, timezone
    from errands.definition import ParseContext, parse_definition
    from errands.ledger.accounting import Counters, Ended, account
    now = datetime(2026, 12, 5, tzinfo=timezone.utc)
    d = parse_definition({"title": "Call mom", "runner": {"kind": "notify", "message": "Call"},
                          "trigger": {"kind": "manual"}, "policy": {"notify": "every_run"}},
                         ParseContext(now=now))
    v = account(d, Counters("active", 0, 0, None, None, 0, None),
                Ended("succeeded", "manual", "Call", None, ("Call",)), now)
    assert [kind for kind, _t, _b in v.attention] == ["notify"]
