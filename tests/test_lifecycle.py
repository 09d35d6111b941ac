"""Runs that park, resume, expire and close: the one closing path and its accounting,
decisions (repeated ones harmless), resumption after a restart under the claimed revision,
transcripts, and agent automations failing cleanly. Fake clock, real SQLite file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from errands.runners.contract import Outcome, RunContext
from errands.runners import default_runners
from errands.errors import Conflict, InvalidInput, NotFound
from errands.definition import Rule
from errands.records import Blocker, Decision
from engine_support import START, Harness, command_doc

H = timedelta(hours=1)
APPROVAL = Blocker(kind="permission", tool="shell", arguments={"command": "rm -rf build"})


class ParkingRunner:
    """Parks on its first segment (after writing to its transcript), then finishes with
    what it was told; records every context it was given."""

    kind = "command"
    needs_network = False

    def __init__(self, blocker: Blocker = APPROVAL) -> None:
        self.blocker = blocker
        self.contexts: list[RunContext] = []
        self.seen: list[list[dict[str, Any]]] = []

    async def run(self, ctx: RunContext) -> Outcome:
        self.contexts.append(ctx)
        assert ctx.session is not None
        if ctx.resume is None:
            ctx.session.append("user", {"content": f"run {ctx.run_index}"})
            ctx.session.append("assistant", {"content": "I need to delete build/"})
            return Outcome(state="awaiting_input", blocker=self.blocker)
        self.seen.append(await ctx.session.messages())
        decision = ctx.resume.decision
        ctx.session.append("tool", {"content": decision.kind})
        if decision.kind == "deny":
            return Outcome(state="failed", error_code="denied", error_message="the user said no",
                           stop_reason="denied")
        return Outcome(state="succeeded", result=f"{decision.kind} {decision.text or ''}".strip())


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = Harness(tmp_path, max_sleep=3600)
    harness.parking = ParkingRunner()  # type: ignore[attr-defined]
    harness.engine.runners["command"] = harness.parking  # type: ignore[attr-defined]
    await harness.engine.start()
    yield harness
    await harness.stop()


def parking(h: Harness) -> ParkingRunner:
    return h.parking  # type: ignore[attr-defined,no-any-return]


async def restart(h: Harness) -> None:
    await h.stop()
    h.engine = h._new_engine()
    h.engine.runners["command"] = parking(h)
    await h.engine.start()
    await h.clock.settle()


async def test_a_parked_run_records_its_blocker_and_asks_for_attention(h: Harness) -> None:
    a = await h.add("cleanup", {"kind": "manual"})
    run = await h.engine.commands.run_now(a)
    await h.clock.settle()
    [parked] = h.store.parked()
    assert parked.run_id == run.id and parked.blocker == APPROVAL
    assert parked.expires_at - parked.requested_at == timedelta(hours=24)
    [item] = h.store.attention()
    assert item.kind == "awaiting_input" and "rm -rf build" in (item.body or "")
    stored = h.store.get_run(run.id)
    assert stored.state == "awaiting_input" and stored.attempts[-1]["state"] == "awaiting_input"
    assert stored.session_id == f"r-{run.id}"


async def test_resumed_after_a_restart_under_the_claimed_revision(h: Harness) -> None:
    a = await h.add("cleanup", {"kind": "manual"})
    run = await h.engine.commands.run_now(a)
    await h.clock.settle()
    await h.engine.commands.revise(a, command_doc("cleanup v2", {"kind": "manual"}))
    await restart(h)
    resumed = await h.engine.commands.decide(run.id, Decision("approve_once"), request_id="d-1")
    assert resumed.state == "scheduled"
    await h.engine.commands.wait_run(run.id)
    first, second = parking(h).contexts
    assert second.resume is not None and second.resume.blocker == APPROVAL
    assert second.revision == 1 and second.definition.title == "cleanup"  # as claimed
    assert second.run_id == run.id and second.attempt == first.attempt
    done = h.store.get_run(run.id)
    assert done.state == "succeeded" and done.result == "approve_once"
    assert [s.get("resumed", False) for s in done.attempts] == [False, True]
    # the same decision again (a double click, a retried request): nothing happens
    again = await h.engine.commands.decide(run.id, Decision("approve_once"), request_id="d-1")
    await h.clock.settle()
    assert again.state == "succeeded" and len(parking(h).contexts) == 2
    with pytest.raises(Conflict, match="not waiting"):
        await h.engine.commands.decide(run.id, Decision("deny"), request_id="d-2")
    assert not h.store.parked()
    assert [i.read for i in h.store.attention() if i.kind == "awaiting_input"] == [True]
    assert [e.action for e in h.store.audit(a)][-1] == "decided"


async def test_one_decision_for_many_runs_commits_once_and_a_refusal_costs_one_run(
        h: Harness) -> None:
    ids = [await h.add(f"cleanup {i}", {"kind": "manual"}) for i in range(3)]
    runs = [await h.engine.commands.run_now(a) for a in ids]
    await h.clock.settle()
    await h.engine.commands.decide(runs[2].id, Decision("deny"))  # decided already: not parked
    await h.engine.commands.wait_run(runs[2].id)
    sessions: list[int] = []
    decide_in = h.engine.ledger.decide_in

    def counted(s: Any, *args: Any) -> Any:
        sessions.append(id(s))
        return decide_in(s, *args)
    h.engine.ledger.decide_in = counted  # type: ignore[method-assign]
    outcomes = await h.engine.commands.decide_many(
        [runs[0].id, runs[2].id, runs[1].id, runs[0].id, "no-such-run"],
        Decision("approve_once"), actor="cli")
    h.engine.ledger.decide_in = decide_in  # type: ignore[method-assign]
    assert len(sessions) == 4 and len(set(sessions)) == 1  # the decisions, in one transaction
    assert len(outcomes) == 4  # a run named twice is decided once
    first, denied, second, missing = outcomes
    assert isinstance(denied, Conflict) and "not waiting" in str(denied)
    assert isinstance(missing, NotFound)
    for run, outcome in ((runs[0], first), (runs[1], second)):
        assert not isinstance(outcome, Exception) and outcome.id == run.id
        assert outcome.state == "scheduled"
        done = await h.engine.commands.wait_run(run.id)
        assert done.state == "succeeded" and done.result == "approve_once"
    assert not h.store.parked()
    decided = [e for a in ids[:2] for e in h.store.audit(a) if e.action == "decided"]
    assert [e.actor for e in decided] == ["cli", "cli"]
    # an answer to approvals: refused for each, nothing changes
    more = [await h.engine.commands.run_now(a) for a in ids[:2]]
    await h.clock.settle()
    refused = await h.engine.commands.decide_many([r.id for r in more], Decision("answer", text="x"))
    assert all(isinstance(r, InvalidInput) for r in refused)
    assert len(h.store.parked()) == 2


@pytest.mark.logs("its rule could not be saved")
async def test_a_rule_that_cannot_be_saved_costs_no_run_its_approval(h: Harness) -> None:
    """"Always allow" saves a rule on the automation (an edit); when that edit is refused
    (here: a command automation takes no rules) the approved runs still go on."""
    parking(h).saved_rule = lambda *_: Rule("shell", "rm *", "allow")  # type: ignore[attr-defined]
    ids = [await h.add(f"cleanup {i}", {"kind": "manual"}) for i in range(2)]
    runs = [await h.engine.commands.run_now(a) for a in ids]
    await h.clock.settle()
    outcomes = await h.engine.commands.decide_many([r.id for r in runs], Decision("approve_always"))
    assert [getattr(o, "state", o) for o in outcomes] == ["scheduled", "scheduled"]
    for run in runs:
        done = await h.engine.commands.wait_run(run.id)
        assert done.state == "succeeded" and done.result == "approve_always"
    assert [h.store.get(a).revision for a in ids] == [1, 1]  # no rule was saved
    assert not h.store.parked()


async def test_the_transcript_survives_parking_and_a_restart(h: Harness) -> None:
    a = await h.add("cleanup", {"kind": "manual"})
    run = await h.engine.commands.run_now(a)
    await h.clock.settle()
    await restart(h)
    await h.engine.commands.decide(run.id, Decision("deny"))
    await h.engine.commands.wait_run(run.id)
    [seen] = parking(h).seen
    assert [m["role"] for m in seen] == ["user", "assistant"]
    messages = h.store.messages(f"r-{run.id}")
    assert [(m.seq, m.role) for m in messages] == [(1, "user"), (2, "assistant"), (3, "tool")]
    assert h.store.get_run(run.id).state == "failed"


async def test_a_decision_must_fit_the_blocker(h: Harness) -> None:
    a = await h.add("cleanup", {"kind": "manual"})
    run = await h.engine.commands.run_now(a)
    await h.clock.settle()
    with pytest.raises(InvalidInput, match="approval, not an answer"):
        await h.engine.commands.decide(run.id, Decision("answer", text="yes"))
    assert h.store.get_run(run.id).state == "awaiting_input"  # nothing changed


async def test_a_question_takes_an_answer_from_its_choices(tmp_path: Path) -> None:
    h = Harness(tmp_path, max_sleep=3600)
    runner = ParkingRunner(Blocker(kind="question", question="Which branch?",
                                   choices=["main", "dev"]))
    h.engine.runners["command"] = runner
    await h.engine.start()
    try:
        a = await h.add("ask", {"kind": "manual"})
        run = await h.engine.commands.run_now(a)
        await h.clock.settle()
        with pytest.raises(InvalidInput, match="not one of the choices"):
            await h.engine.commands.decide(run.id, Decision("answer", text="feature"))
        with pytest.raises(InvalidInput, match="asks a question"):
            await h.engine.commands.decide(run.id, Decision("approve_once"))
        await h.engine.commands.decide(run.id, Decision("answer", text="dev"))
        await h.engine.commands.wait_run(run.id)
        assert h.store.get_run(run.id).result == "answer dev"
    finally:
        await h.stop()


async def test_each_request_in_the_inbox_says_how_it_ended(h: Harness) -> None:
    """Two parks of two runs: one denied with a note, one still open; the first run's item
    carries the decision (who, when), the open one none."""
    a = await h.add("cleanup", {"kind": "manual"})
    first = await h.engine.commands.run_now(a)
    await h.clock.settle()
    await h.engine.commands.decide(first.id, Decision("deny", text="not today"))
    await h.engine.commands.wait_run(first.id)
    second = await h.engine.commands.run_now(a)
    await h.clock.settle()
    items = {i.run_id: i for i in h.store.attention() if i.kind == "awaiting_input"}
    denied = items[first.id].outcome
    assert denied is not None and denied["kind"] == "deny" and denied["text"] == "not today"
    assert denied["at"] is not None and denied["by"]
    assert items[second.id].outcome is None
    assert items[first.id].to_dict()["outcome"] == denied


async def test_a_parked_run_expires_and_its_loop_goes_on(h: Harness) -> None:
    await h.engine.commands.set_setting("parked_expiry", "2h")
    a = await h.add("loop", {"kind": "after", "interval": "30m"})
    await h.clock.advance(1)
    assert h.states(a) == ["awaiting_input"]
    await h.clock.advance(2 * H)
    run = h.runs(a)[0]
    assert run.state == "expired" and run.stop_reason == "approval_expired"
    assert run.error_code == "expired" and "2h" in (run.error_message or "")
    assert run.attempts[-1]["state"] == "awaiting_input" and "finished_at" in run.attempts[-1]
    assert "expired" in [i.kind for i in h.store.attention()]
    [asked] = [i for i in h.store.attention() if i.kind == "awaiting_input"]
    assert asked.outcome == {"kind": "expired", "text": None, "by": None, "at": None}
    assert not h.store.parked()
    automation = h.store.get(a)  # the loop waits its interval, then fires again
    assert automation.status == "active" and automation.next_fire_at == run.finished_at + 30 * 60 * timedelta(seconds=1)
    await h.clock.advance(31 * 60)
    assert h.states(a) == ["expired", "awaiting_input"]


async def test_parked_runs_from_before_a_restart_still_expire(h: Harness) -> None:
    await h.engine.commands.set_setting("parked_expiry", "1h")
    a = await h.add("cleanup", {"kind": "manual"})
    await h.engine.commands.run_now(a)
    await h.clock.settle()
    await restart(h)
    await h.clock.advance(H + timedelta(seconds=1))
    assert h.states(a) == ["expired"]


async def test_stopping_a_parked_after_loop_lets_it_fire_again(h: Harness) -> None:
    a = await h.add("loop", {"kind": "after", "interval": "10m"})
    await h.clock.advance(1)
    assert h.states(a) == ["awaiting_input"]
    stopped = await h.engine.commands.stop_current(a)
    assert stopped.state == "cancelled" and stopped.stop_reason == "cancelled"
    assert h.store.get(a).next_fire_at is not None  # the accounting ran
    await h.clock.advance(11 * 60)
    assert h.states(a) == ["cancelled", "awaiting_input"]


# --------------------------------------------------------- unattended expiry

async def hourly_asker(h: Harness) -> str:
    """Parks on every run; a park expires in an hour, so it asks every other hour (the fire
    while it waits is skipped) and nobody is expected to answer for more than a day."""
    await h.engine.commands.set_setting("parked_expiry", "1h")
    await h.engine.commands.set_setting("unattended_expiry", "1d")
    return await h.add("asker", {"kind": "every", "every": "1h"})


def unattended_items(h: Harness) -> list[Any]:
    return [i for i in h.store.attention() if i.kind == "unattended"]


async def test_an_automation_whose_parks_go_unanswered_for_a_day_pauses_itself(
        h: Harness) -> None:
    a = await hourly_asker(h)
    await h.clock.advance(24 * H)  # parked at 0h, 2h, ... 22h, expired at 1h ... 23h
    assert h.store.get(a).status == "active"
    await h.clock.advance(2 * H)  # the park of 24h expires at 25h: a day past the first
    automation = h.store.get(a)
    assert automation.status == "paused" and automation.next_fire_at is None
    assert automation.paused_reason == "paused after its parked runs went unanswered for 24h"
    assert automation.paused_at == START + 25 * H
    [item] = unattended_items(h)  # one for the pause, beside one per expired run
    assert (item.title, item.body, item.read) == ("asker was paused", automation.paused_reason,
                                                  False)
    assert len([i for i in h.store.attention() if i.kind == "expired"]) == 13
    paused = h.store.audit(a)[-1]
    assert (paused.action, paused.actor) == ("paused", "engine")
    runs = len(h.runs(a))
    await h.clock.advance(timedelta(days=2))  # paused: it asks no more, says it once
    assert len(h.runs(a)) == runs and len(unattended_items(h)) == 1
    # a person's resume clears it: the item is read and the day starts again
    resumed = await h.engine.commands.set_paused(a, False)
    assert resumed.status == "active" and resumed.paused_reason is None
    assert [i.read for i in unattended_items(h)] == [True]
    await h.clock.advance(24 * H)  # parks from the next fire on; a day is not up yet
    assert h.store.get(a).status == "active"
    await h.clock.advance(2 * H)
    assert h.store.get(a).status == "paused"
    assert [i.read for i in unattended_items(h)] == [False, True]


async def test_answering_a_park_starts_the_day_again(h: Harness) -> None:
    a = await hourly_asker(h)
    await h.clock.advance(12.5 * H)  # 12:30 past the start: the park of 12h waits
    [parked] = h.store.parked(a)
    assert parked.requested_at == START + 12 * H
    await h.engine.commands.decide(parked.run_id, Decision("approve_once"))
    assert (await h.engine.commands.wait_run(parked.run_id)).state == "succeeded"
    await h.clock.advance(13.5 * H)  # a day and 2 h after the first park
    assert h.store.get(a).status == "active" and not unattended_items(h)
    await h.clock.advance(12 * H)  # the first park after the answer was at 13h; 38h: a day
    automation = h.store.get(a)
    assert automation.status == "paused" and automation.paused_at == START + 38 * H
    assert len(unattended_items(h)) == 1


async def test_one_that_went_unanswered_while_errands_was_closed_pauses_at_start(
        h: Harness) -> None:
    a = await hourly_asker(h)
    waiting = await h.add("waiting", {"kind": "every", "every": "1h"})
    await h.clock.advance(4.5 * H)  # parked at 0h, 2h and 4h, expired at 1h and 3h
    await h.stop()
    h.clock.jump_wall(timedelta(days=2))  # closed for two days, nobody answering
    h.engine = h._new_engine()
    h.engine.runners["command"] = parking(h)
    await h.engine.start()
    back = h.clock.now()
    for automation in (h.store.get(a), h.store.get(waiting)):
        # paused at once, before a fire of the closed time could run
        assert automation.status == "paused" and automation.paused_at == back
        assert automation.paused_reason == ("paused after its parked runs went unanswered "
                                            "for 24h")
    assert len(unattended_items(h)) == 2
    await h.clock.advance(H)
    runs = h.runs(a)
    assert [r.state for r in runs] == ["expired", "skipped"] * 2 + ["expired", "skipped"]
    assert runs[4].finished_at == back  # the park of 4h expired as Errands started: no
    assert len(unattended_items(h)) == 2  # second item for that
    missed = runs[-1]  # the fires of the closed time: one skipped record, as always
    assert (missed.skip_reason, missed.missed_count, missed.missed_first, missed.missed_last
            ) == ("app_not_running", 48, START + 5 * H, START + 52 * H)
    await h.clock.advance(timedelta(days=1))
    assert len(h.runs(a)) == len(runs) and len(unattended_items(h)) == 2


async def test_a_one_shot_that_went_unattended_past_its_fire_completes_at_start(
        h: Harness) -> None:
    await h.engine.commands.set_setting("parked_expiry", "1h")
    await h.engine.commands.set_setting("unattended_expiry", "1d")
    a = await h.add("once", {"kind": "at", "at": (START + 30 * H).isoformat()})
    await h.engine.commands.run_now(a)  # parks, and nobody answers
    await h.clock.settle()
    await h.stop()
    h.clock.jump_wall(timedelta(days=3))  # its one fire passes while Errands is closed
    h.engine = h._new_engine()
    h.engine.runners["command"] = parking(h)
    await h.engine.start()
    await h.clock.settle()
    automation = h.store.get(a)  # nothing left to pause: it completes, its fire skipped
    assert (automation.status, automation.paused_reason) == ("completed", None)
    runs = h.runs(a)
    assert [(r.trigger, r.state, r.skip_reason) for r in runs] == [
        ("manual", "expired", None), ("schedule", "skipped", "app_not_running")]
    assert runs[1].scheduled_for == START + 30 * H and not unattended_items(h)

# ------------------------------------------------------- stop reasons, every path

class Scripted:
    kind = "command"
    needs_network = False

    def __init__(self, h: Harness, outcomes: list[Any]) -> None:
        self.h = h
        self.outcomes = outcomes

    async def run(self, ctx: RunContext) -> Outcome:
        step = self.outcomes.pop(0)
        if isinstance(step, float):
            await self.h.clock.sleep(step)
            return Outcome(state="succeeded")
        return step  # type: ignore[no-any-return]


async def test_every_terminal_run_says_why_it_stopped(tmp_path: Path) -> None:
    h = Harness(tmp_path, max_sleep=3600)
    outcomes: list[Any] = [
        Outcome(state="succeeded", result="fine"),
        Outcome(state="failed", error_code="exit_status", error_message="1"),
        Outcome(state="failed", error_code="agent", error_message="too many steps",
                stop_reason="step_cap"),
        Outcome(state="failed", error_code="timeout", error_message="timed out after 1m"),
        3600.0,  # stopped by the user
        3600.0,  # interrupted by the quit
    ]
    h.engine.runners["command"] = Scripted(h, outcomes)
    await h.engine.start()
    a = await h.add("each", {"kind": "manual"},
                    policy={"timeout": "1m", "retry": {"max_attempts": 1}})
    for _ in range(4):
        await h.engine.commands.run_now(a)
        await h.clock.advance(120)
    await h.engine.commands.run_now(a)
    await h.clock.advance(1)
    await h.engine.commands.stop_current(a)
    await h.engine.commands.run_now(a)
    await h.clock.advance(1)
    await h.stop()
    reasons = [(r.state, r.stop_reason) for r in h.runs(a)]
    assert reasons == [("succeeded", "succeeded"), ("failed", "failed"), ("failed", "step_cap"),
                       ("failed", "timeout"), ("cancelled", "cancelled"),
                       ("interrupted", "interrupted")]
    assert all(r.finished_at is not None for r in h.runs(a))
    assert h.store.get(a).last_finished_at == h.runs(a)[-1].finished_at


async def test_a_step_cap_is_not_retried(tmp_path: Path) -> None:
    h = Harness(tmp_path, max_sleep=3600)
    h.engine.runners["command"] = Scripted(h, [
        Outcome(state="failed", error_code="agent", error_message="cap", stop_reason="step_cap")])
    await h.engine.start()
    a = await h.add("capped", {"kind": "manual"}, policy={"retry": {"max_attempts": 3}})
    await h.engine.commands.run_now(a)
    await h.clock.advance(600)
    [run] = h.runs(a)
    assert run.state == "failed" and run.attempt == 1
    await h.stop()


async def test_agent_automations_fail_cleanly_without_a_provider(tmp_path: Path) -> None:
    """The agent runner Errands ships, with no provider set up (none in this test's settings,
    keyring or environment): the run fails with what to do, never an internal error."""
    h = Harness(tmp_path, max_sleep=3600)
    h.engine.runners["agent"] = default_runners()["agent"]
    await h.engine.start()
    automation, _ = await h.engine.commands.create({"title": "brief", "trigger": {"kind": "manual"},
                                           "runner": {"kind": "agent", "prompt": "Summarize"}})
    run = await h.engine.commands.run_now(automation.id)
    done = await h.engine.commands.wait_run(run.id)
    assert done.state == "failed" and done.error_code == "no_provider"
    assert (done.error_message or "").startswith("no model provider is configured")
    assert "errands provider set --base-url" in (done.error_message or "")  # what to do
    await h.stop()


# --------------------------------------------------------------------- notices

async def test_a_burst_gives_a_handful_of_stamped_notices(tmp_path: Path) -> None:
    import time

    h = Harness(tmp_path, max_sleep=3600)
    await h.engine.start()
    notices: list[Any] = []
    h.engine.events.subscribe(notices.append)
    ids = []
    for i in range(200):
        automation, _ = await h.engine.commands.create(command_doc(f"b{i}", {"kind": "manual"}))
        ids.append(automation.id)
    h.engine.events.flush()
    notices.clear()
    began = time.perf_counter()
    runs = [await h.engine.commands.run_now(a) for a in ids]
    for run in runs:
        await h.engine.commands.wait_run(run.id)
    h.engine.events.flush()
    elapsed = time.perf_counter() - began
    changes = sum(n.changes for n in notices)
    assert changes >= 200 * 3  # scheduled, running, succeeded (and more)
    # at most one notice per 50 ms window (plus the flushes), whatever the machine's load
    assert 1 <= len(notices) <= elapsed / 0.05 + 2, (len(notices), elapsed)
    # and many changes to a notice (fewer where each run takes longer to record: a
    # server's round trips spread the same burst over more 50 ms windows)
    assert len(notices) * 4 < changes, [n.changes for n in notices]
    assert {r.id for r in runs} <= set().union(*(n.runs for n in notices))
    assert set(ids) == set().union(*(n.automations for n in notices))
    revisions = [n.revision for n in notices]
    assert revisions == sorted(revisions) and len(set(revisions)) == len(revisions)
    assert {n.epoch for n in notices} == {h.engine.events.epoch}
    assert notices[-1].run_states[runs[-1].id] == "succeeded"
    await h.stop()


async def test_a_snapshot_older_than_a_notice_is_recognisable(tmp_path: Path) -> None:
    h = Harness(tmp_path, max_sleep=3600)
    await h.engine.start()
    seen: list[Any] = []
    h.engine.events.subscribe(seen.append)
    before = h.engine.events.stamp()
    a = await h.add("x", {"kind": "manual"})
    h.engine.events.flush()
    [notice] = [n for n in seen if a in n.automations]
    assert notice.stamp.newer_than(before) and not before.newer_than(notice.stamp)
    await h.restart()
    after_restart = h.engine.events.stamp()  # a new epoch: everything before is older
    assert after_restart.newer_than(notice.stamp) and after_restart.epoch != notice.epoch
    assert not notice.stamp.newer_than(after_restart)  # ... and never the other way round
    for _ in range(3):  # whatever the revisions and the epochs' random parts
        await h.restart()
        latest = h.engine.events.stamp()
        assert latest.newer_than(after_restart) and not after_restart.newer_than(latest)
        after_restart = replace(latest, revision=0)
    await h.stop()


async def test_a_run_parked_before_blockers_existed_gets_the_full_wait(h: Harness) -> None:
    from errands.db.schema import BlockerRow, RunRow

    await h.engine.commands.set_setting("parked_expiry", "1h")
    a = await h.add("old", {"kind": "manual"})
    run = await h.engine.commands.run_now(a)
    await h.clock.settle()
    await h.stop()
    with h.store.transaction() as s:  # as an upgraded 0001 database holds it: no blocker
        s.query(BlockerRow).delete()
        assert s.get(RunRow, run.id).state == "awaiting_input"
    h.engine = h._new_engine()
    h.engine.runners["command"] = parking(h)
    await h.engine.start()
    await h.clock.advance(H - timedelta(seconds=5))
    assert h.states(a) == ["awaiting_input"]
    await h.clock.advance(10)
    assert h.states(a) == ["expired"]


async def test_a_resumed_run_uses_the_task_it_was_claimed_with(h: Harness) -> None:
    """Edited into an agent automation while parked: the resumed run still runs the
    command task it was started with (not the agent runner of the new revision)."""
    a = await h.add("cleanup", {"kind": "manual"})
    run = await h.engine.commands.run_now(a)
    await h.clock.settle()
    await h.engine.commands.revise(a, {"title": "now an agent", "trigger": {"kind": "manual"},
                              "runner": {"kind": "agent", "prompt": "tidy up"}})
    await h.engine.commands.decide(run.id, Decision("approve_once"))
    done = await h.engine.commands.wait_run(run.id)
    assert done.state == "succeeded" and done.result == "approve_once"
    assert parking(h).contexts[-1].definition.runner.kind == "command"


async def test_a_stopped_or_expired_parked_run_no_longer_asks_for_attention(h: Harness) -> None:
    await h.engine.commands.set_setting("parked_expiry", "1h")
    a = await h.add("ask", {"kind": "manual"})
    await h.engine.commands.run_now(a)
    await h.clock.settle()
    await h.engine.commands.stop_current(a)
    await h.engine.commands.run_now(a)
    await h.clock.settle()
    await h.clock.advance(H + timedelta(seconds=1))
    assert h.states(a) == ["cancelled", "expired"]
    waiting = [i for i in h.store.attention() if i.kind == "awaiting_input"]
    assert len(waiting) == 2 and all(i.read for i in waiting)


async def test_deciding_a_parked_dry_run_leaves_the_real_run_in_charge(h: Harness) -> None:
    a = await h.add("ask", {"kind": "manual"})
    real = await h.engine.commands.run_now(a)
    dry = await h.engine.commands.run_now(a, dry_run=True)
    await h.clock.settle()
    await h.engine.commands.decide(dry.id, Decision("approve_once"))
    await h.engine.commands.wait_run(dry.id)
    with pytest.raises(Conflict, match="in progress"):
        await h.engine.commands.run_now(a)  # the real run still waits: busy
    stopped = await h.engine.commands.stop_current(a)
    assert stopped.id == real.id and stopped.state == "cancelled"


async def test_a_runner_with_a_slow_first_use_is_warmed_when_its_automations_exist(
        tmp_path: Path) -> None:
    """The agent runner imports its SDK on first use (half a second); the engine asks it to
    do so at start when agent automations exist, so the first run after a restart (or a
    hundred parked ones approved at once) does not wait for it."""
    h = Harness(tmp_path, max_sleep=3600)
    warmed: list[str] = []
    h.runner.warm_up = lambda: warmed.append("command")  # type: ignore[attr-defined]
    await h.engine.start()
    assert warmed == []  # nothing of its kind yet
    await h.add("job", {"kind": "manual"})
    assert warmed == ["command"]  # the first of its kind
    await h.add("other", {"kind": "manual"})
    await restart_plain(h)
    assert warmed == ["command", "command"]  # once per engine, however many there are
    await h.stop()
    # an engine a CLI command hosts for one thing (not automatic) loads nothing ahead
    (tmp_path / "cli").mkdir()
    cli = Harness(tmp_path / "cli", max_sleep=3600, automatic=False)
    cli.runner.warm_up = lambda: warmed.append("cli")  # type: ignore[attr-defined]
    await cli.engine.start()
    await cli.add("job", {"kind": "manual"})
    assert warmed == ["command", "command"]
    await cli.stop()


async def restart_plain(h: Harness) -> None:
    await h.stop()
    h.engine = h._new_engine()
    await h.engine.start()
