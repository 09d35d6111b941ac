"""Every field of the definition: defaults, round trip, and a refusal that names the field."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from errands.definition import (AfterTrigger, AgentTask, AtTrigger, CommandTask,
                                CronTrigger, EveryTrigger, ParseContext, parse_definition)
from errands.errors import InvalidInput

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=timezone.utc)
CTX = ParseContext(now=NOW, default_timezone="Europe/Berlin")


def base(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"title": "Backup", "runner": {"kind": "command", "command": "backup.sh"},
                           "trigger": {"kind": "every", "every": "1h"}}
    doc.update(changes)
    return doc


def agent(**changes: Any) -> dict[str, Any]:
    changes.setdefault("runner", {"kind": "agent", "prompt": "Summarize my inbox", "model": None})
    return base(**changes)


def refused(doc: Any, field: str, ctx: ParseContext = CTX) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        parse_definition(doc, ctx)
    assert info.value.field == field, str(info.value)
    assert info.value.message
    assert info.value.expected, f"no expected shape for {field}"
    return info.value


def test_defaults() -> None:
    d = parse_definition(base(), CTX)
    assert d.runner == CommandTask(command="backup.sh")
    assert d.trigger == EveryTrigger(every=timedelta(hours=1), start_at=NOW)
    assert d.context.mode == "fresh" and d.context.max_history_tokens == 50_000
    assert d.stop.empty
    assert (d.misfire, d.overlap, d.catch_up_max_age) == ("skip", "skip", timedelta(hours=24))
    p = d.policy
    assert (p.retry.max_attempts, p.retry.backoff.initial, p.retry.backoff.factor,
            p.retry.backoff.max) == (3, timedelta(seconds=30), 2, timedelta(minutes=10))
    assert (p.timeout, p.max_steps, p.notify, p.failure_notify_after, p.pause_after_failures,
            p.jitter, p.history_limit) == (timedelta(minutes=30), 50, "quiet", 3, None, None,
                                           None)
    assert d.permissions.mode == "ask" and d.permissions.tools == ()
    assert d.workdir is None and d.paused is False and d.worktree is False
    assert d.origin.kind == "user" and d.origin.depth == 0


def test_after_loop_defaults_to_continue() -> None:
    d = parse_definition(base(trigger={"kind": "after", "interval": "10m"}), CTX)
    assert d.trigger == AfterTrigger(interval=timedelta(minutes=10), start_at=NOW)
    assert d.context.mode == "continue"
    assert parse_definition(base(trigger={"kind": "after", "interval": "10m"},
                                 context={"mode": "fresh"}), CTX).context.mode == "fresh"


def test_round_trip_of_a_full_definition() -> None:
    doc = agent(
        title="Triage", trigger={"kind": "cron", "expression": "30 9 * * MON-FRI",
                                 "timezone": "America/New_York"},
        context={"mode": "continue", "max_history_tokens": 30000},
        stop={"max_runs": 5, "until": "2027-01-01T00:00:00+01:00", "when_condition_met": True},
        misfire="run_once", catch_up_max_age="6h", overlap="queue_one",
        policy={"retry": {"max_attempts": 5, "backoff": {"initial": "10s", "factor": 3,
                                                          "max": "5m"}},
                "timeout": "2h", "max_steps": 20, "notify": "on_change",
                "failure_notify_after": 2, "pause_after_failures": 4, "jitter": "5m",
                "history_limit": 250},
        permissions={"mode": "allow_listed", "tools": ["read_file", "notify"],
                     "rules": [{"tool": "run_command", "pattern": "git *", "action": "allow"}],
                     "untrusted_ok": ["fetch_url"]},
        workdir="/tmp/work", paused=True,
        origin={"kind": "template", "template": "triage", "session_id": None, "depth": 1})
    d = parse_definition(doc, CTX)
    again = parse_definition(d.to_dict(), CTX)
    assert again == d
    out = d.to_dict()
    assert out["stop"]["until"] == "2026-12-31T23:00:00Z"
    assert out["runner"] == {"kind": "agent", "prompt": "Summarize my inbox", "model": None}
    assert out["policy"]["jitter"] == "5m"
    assert out["policy"]["history_limit"] == 250 and d.policy.history_limit == 250


@pytest.mark.parametrize("doc, field", [
    ("not an object", "definition"),
    (base(colour="red"), "colour"),
    (base(id="abc"), "id"),
    (base(revision=3), "revision"),
    (base(title=""), "title"),
    (base(title="   "), "title"),
    (base(title="x" * 121), "title"),
    (base(title=5), "title"),
    (base(title="two\nlines"), "title"),
    ({"runner": {"kind": "command", "command": "x"}, "trigger": {"kind": "manual"}}, "title"),
    (base(runner=None), "runner"),
    (base(runner={"kind": "python", "code": "x"}), "runner.kind"),
    (base(runner={"kind": "command", "command": ""}), "runner.command"),
    (base(runner={"kind": "command", "command": "x" * (32 * 1024 + 1)}), "runner.command"),
    (base(runner={"kind": "command", "command": "x", "shell": "zsh"}), "runner.shell"),
    (base(runner={"kind": "agent", "prompt": ""}), "runner.prompt"),
    (base(runner={"kind": "agent", "prompt": "p", "model": ""}), "runner.model"),
    (base(runner={"kind": "agent", "prompt": "p", "model": 4}), "runner.model"),
    (base(trigger=None), "trigger"),
    (base(trigger={"kind": "sometimes"}), "trigger.kind"),
    (base(trigger={"kind": "manual", "at": "x"}), "trigger.at"),
    (base(trigger={"kind": "at", "at": "2026-12-24T18:00:00"}), "trigger.at"),
    (base(trigger={"kind": "at", "at": "2020-01-01T00:00:00Z"}), "trigger.at"),
    (base(trigger={"kind": "at"}), "trigger.at"),
    (base(trigger={"kind": "at", "in": "10 minutes"}), "trigger.in"),
    (base(trigger={"kind": "every", "every": "0m"}), "trigger.every"),
    (base(trigger={"kind": "every", "every": "1w"}), "trigger.every"),
    (base(trigger={"kind": "every", "every": "367d"}), "trigger.every"),
    (base(trigger={"kind": "every", "every": "30s"}), "trigger.every"),
    (base(trigger={"kind": "every"}), "trigger.every"),
    (base(trigger={"kind": "every", "every": "1h", "start_at": "tomorrow"}), "trigger.start_at"),
    (base(trigger={"kind": "after", "interval": "10"}), "trigger.interval"),
    (base(trigger={"kind": "cron", "expression": "30 9 * *"}), "trigger.expression"),
    (base(trigger={"kind": "cron", "expression": "@daily"}), "trigger.expression"),
    (base(trigger={"kind": "cron", "expression": 5}), "trigger.expression"),
    (base(trigger={"kind": "cron", "expression": "0 9 * * *", "timezone": "Mars/Olympus"}),
     "trigger.timezone"),
    (base(trigger={"kind": "cron", "expression": "0 9 * * *", "tz": "UTC"}), "trigger.tz"),
    (base(context={"mode": "growing"}), "context.mode"),
    (base(context={"max_history_tokens": 0}), "context.max_history_tokens"),
    (base(context={"max_history_tokens": "many"}), "context.max_history_tokens"),
    (base(stop={"max_runs": 0}), "stop.max_runs"),
    (base(stop={"max_runs": True}), "stop.max_runs"),
    (base(stop={"until": "2026-12-03"}), "stop.until"),
    (base(stop={"until": "2026-01-01T00:00:00Z"}), "stop.until"),
    (base(stop={"when_condition_met": "yes"}), "stop.when_condition_met"),
    (base(stop={"count": 3}), "stop.count"),
    (base(trigger={"kind": "at", "at": "2027-01-01T00:00:00Z"}, stop={"max_runs": 2}), "stop"),
    (base(trigger={"kind": "manual"}, stop={"when_condition_met": True}), "stop"),
    (base(misfire="coalesce"), "misfire"),
    (base(catch_up_max_age="1 day"), "catch_up_max_age"),
    (base(overlap="parallel"), "overlap"),
    (base(policy={"retry": {"max_attempts": 11}}), "policy.retry.max_attempts"),
    (base(policy={"retry": {"max_attempts": 0}}), "policy.retry.max_attempts"),
    (base(policy={"retry": {"tries": 2}}), "policy.retry.tries"),
    (base(policy={"retry": {"backoff": {"factor": 11}}}), "policy.retry.backoff.factor"),
    (base(policy={"retry": {"backoff": {"factor": 0.5}}}), "policy.retry.backoff.factor"),
    (base(policy={"retry": {"backoff": {"initial": "soon"}}}), "policy.retry.backoff.initial"),
    (base(policy={"retry": {"backoff": {"initial": "20m", "max": "10m"}}}),
     "policy.retry.backoff.max"),
    (base(policy={"retry": {"backoff": {"jitter": "1s"}}}), "policy.retry.backoff.jitter"),
    (base(policy={"timeout": "forever"}), "policy.timeout"),
    (base(policy={"max_steps": 0}), "policy.max_steps"),
    (base(policy={"notify": "loud"}), "policy.notify"),
    (base(policy={"failure_notify_after": 0}), "policy.failure_notify_after"),
    (base(policy={"pause_after_failures": 1}), "policy.pause_after_failures"),
    (base(policy={"pause_after_failures": 101}), "policy.pause_after_failures"),
    (base(policy={"jitter": "2h"}), "policy.jitter"),
    (base(policy={"history_limit": 0}), "policy.history_limit"),
    (base(policy={"history_limit": 1_000_001}), "policy.history_limit"),
    (base(policy={"history_limit": "all"}), "policy.history_limit"),
    (base(policy={"history_limit": 5.5}), "policy.history_limit"),
    (base(policy={"history_limit": True}), "policy.history_limit"),
    (base(policy={"cost_cap": 5}), "policy.cost_cap"),
    (agent(permissions={"mode": "yolo"}), "permissions.mode"),
    (agent(permissions={"tools": ["rm_rf"]}), "permissions.tools[0]"),
    (agent(permissions={"tools": "read_file"}), "permissions.tools"),
    (agent(permissions={"untrusted_ok": ["read_file", "bogus"]}), "permissions.untrusted_ok[1]"),
    (agent(permissions={"rules": [{"tool": "shell", "pattern": "*", "action": "allow"}]}),
     "permissions.rules[0].tool"),
    (agent(permissions={"rules": [{"tool": "run_command", "pattern": "*", "action": "maybe"}]}),
     "permissions.rules[0].action"),
    (agent(permissions={"rules": [{"tool": "run_command", "action": "allow", "why": "x"}]}),
     "permissions.rules[0].why"),
    (agent(permissions={"rules": "allow all"}), "permissions.rules"),
    (base(permissions={"mode": "allow_all"}), "permissions"),
    (base(workdir="relative/path"), "workdir"),
    (base(paused="no"), "paused"),
    (agent(workdir="/tmp/repo", worktree="yes"), "worktree"),
    (agent(workdir="/tmp/repo", worktree=1), "worktree"),
    (base(origin={"kind": "robot"}), "origin.kind"),
    (base(origin={"depth": -1}), "origin.depth"),
    (base(origin={"parent": "x"}), "origin.parent"),
])
def test_refusals_name_their_field(doc: Any, field: str) -> None:
    refused(doc, field)


def test_worktree_round_trips_and_is_always_written() -> None:
    """Like ``paused`` and ``workdir``, ``worktree`` is in every document, default or not;
    whether the workdir is a git repository is the catalogue's question, not the parser's."""
    assert parse_definition(base(), CTX).to_dict()["worktree"] is False
    d = parse_definition(agent(workdir="/nowhere/repo", worktree=True), CTX)
    assert d.worktree is True and d.to_dict()["worktree"] is True
    assert parse_definition(d.to_dict(), CTX) == d
    assert parse_definition(agent(worktree=False), CTX).worktree is False
    assert parse_definition(agent(worktree=None), CTX).worktree is False


def test_error_text_names_field_expected_and_example() -> None:
    err = refused(base(trigger={"kind": "cron", "expression": "30 9 * *"}), "trigger.expression")
    text = str(err)
    assert text.startswith("trigger.expression: expected five fields ")
    assert '"minute hour day-of-month month day-of-week"' in text
    assert 'e.g. "30 9 * * MON-FRI"' in text
    assert err.to_dict() == {"code": "invalid_input", "field": "trigger.expression",
                             "message": err.message, "expected": err.expected,
                             "example": "30 9 * * MON-FRI"}


def test_minimum_interval_floor_is_a_setting() -> None:
    fast = base(trigger={"kind": "every", "every": "2s"})
    refused(fast, "trigger.every")
    d = parse_definition(fast, ParseContext(now=NOW, min_interval=timedelta(seconds=1)))
    assert d.trigger.every == timedelta(seconds=2)  # type: ignore[union-attr]
    slow_floor = ParseContext(now=NOW, min_interval=timedelta(minutes=10))
    refused(base(trigger={"kind": "cron", "expression": "*/5 * * * *", "timezone": "UTC"}),
            "trigger.expression", slow_floor)
    refused(base(trigger={"kind": "after", "interval": "5m"}), "trigger.interval", slow_floor)
    assert parse_definition(base(trigger={"kind": "cron", "expression": "*/10 * * * *",
                                          "timezone": "UTC"}), slow_floor)


def test_relative_at_is_resolved_at_creation() -> None:
    d = parse_definition(base(trigger={"kind": "at", "in": "10m"}), CTX)
    assert d.trigger == AtTrigger(at=NOW + timedelta(minutes=10))
    assert d.to_dict()["trigger"] == {"kind": "at", "at": "2026-12-02T10:10:00Z"}


def test_instants_need_an_offset_and_come_out_in_utc() -> None:
    d = parse_definition(base(trigger={"kind": "at", "at": "2026-12-24T18:00:00+01:00"}), CTX)
    assert d.to_dict()["trigger"]["at"] == "2026-12-24T17:00:00Z"


def test_cron_defaults_to_the_given_zone_and_normalises_spaces() -> None:
    d = parse_definition(base(trigger={"kind": "cron", "expression": " 30  9 * * MON-FRI "}), CTX)
    assert d.trigger == CronTrigger(expression="30 9 * * MON-FRI", timezone="Europe/Berlin")


def test_past_instants_stay_valid_when_a_revision_does_not_change_them() -> None:
    doc = base(trigger={"kind": "at", "at": "2026-12-03T00:00:00Z"})
    d = parse_definition(doc, CTX)
    later = ParseContext(now=NOW + timedelta(days=5), previous=d)
    renamed = copy.deepcopy(d.to_dict())
    renamed["title"] = "Renamed"
    assert parse_definition(renamed, later).title == "Renamed"
    refused(renamed, "trigger.at", ParseContext(now=NOW + timedelta(days=5)))


def test_prompt_size_is_measured_in_bytes() -> None:
    ok = "é" * (16 * 1024)  # 32 KiB of UTF-8
    assert isinstance(parse_definition(agent(runner={"kind": "agent", "prompt": ok}), CTX).runner,
                      AgentTask)
    refused(agent(runner={"kind": "agent", "prompt": ok + "é"}), "runner.prompt")


def test_retry_backoff_delays() -> None:
    d = parse_definition(base(policy={"retry": {"max_attempts": 10}}), CTX)
    delays = [d.policy.retry.delay(n).total_seconds() for n in range(1, 7)]
    assert delays == [30, 60, 120, 240, 480, 600]


def test_stored_definitions_share_their_parsed_parts_and_each_keeps_its_own() -> None:
    """Reading many stored definitions parses a shared policy once; a different one is
    its own, and a bad one is refused every time (never remembered)."""
    from errands.definition import definition_to_dict
    from errands.errors import InvalidInput
    from errands.records import load_definition

    base = {"title": "t", "runner": {"kind": "command", "command": "true"},
            "trigger": {"kind": "manual"}}
    one = load_definition(definition_to_dict(load_definition(base)))
    two = load_definition(definition_to_dict(load_definition(base)))
    assert one.policy is two.policy and one == two
    other = load_definition({**base, "policy": {"max_steps": 7}})
    assert other.policy.max_steps == 7 and one.policy.max_steps != 7
    for _ in range(2):
        with pytest.raises(InvalidInput) as info:
            load_definition({**base, "policy": {"max_steps": "many"}})
        assert info.value.field == "policy.max_steps"
    agent = load_definition({**base, "runner": {"kind": "agent", "prompt": "p"},
                             "permissions": {"mode": "allow_all"}})
    assert agent.permissions.mode == "allow_all"
    with pytest.raises(InvalidInput):   # the same permissions on a command are refused
        load_definition({**base, "permissions": {"mode": "allow_all"}})
    # parts alike but for a value's type are told apart (the memo's key is the part's repr)
    timed = load_definition({**base, "policy": {"timeout": "30m", "email_result": True}})
    assert timed.policy.email_result is True
    with pytest.raises(InvalidInput):
        load_definition({**base, "policy": {"timeout": "30m", "email_result": 1}})
    reordered = load_definition({**base, "policy": {"email_result": True, "timeout": "30m"}})
    assert reordered.policy == timed.policy
