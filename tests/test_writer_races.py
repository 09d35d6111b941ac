"""Races around the engine's writer thread: a run-now whose claim is still being written
while the caller gives up, a fire replaces it, the engine stops, the same request comes
again or the automation is deleted; and group commit's waits (cancelled, or under a steady
stream of writes); and, since commands and closes write there too, a stop racing a decision
or a run's end, and start under another program's lock. Each once failed (a hostile
review of the writer thread)."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from engine_support import Harness, ok
from pg_support import location_for
from errands.ledger.group_commit import GroupCommit
from errands.errors import Conflict, NotFound
from errands.records import Decision
from errands.store import Store
from sqlalchemy.orm import Session
from test_lifecycle import h, parking  # noqa: F401  (h: the parking harness fixture)

H = timedelta(hours=1)
M = timedelta(minutes=1)


def gate_claims(h: Harness) -> tuple[threading.Event, threading.Event]:
    """Hold run_now's claim on the writer thread (a slow disk) until ``gate`` is set."""
    gate, entered = threading.Event(), threading.Event()
    insert = h.store.insert_run_in

    def slow_insert(*args: Any, **kw: Any) -> Any:
        if kw.get("trigger") == "manual":
            entered.set()
            gate.wait(5)
        return insert(*args, **kw)

    h.store.insert_run_in = slow_insert  # type: ignore[method-assign]
    return gate, entered


async def until(flag: threading.Event) -> None:
    for _ in range(5000):
        if flag.is_set():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("never")


def orphans(h: Harness, automation_id: str) -> list[str]:
    """Runs left 'scheduled' that no task will ever start or end."""
    return [r.id for r in h.runs(automation_id)
            if r.state == "scheduled" and r.id not in h.engine.runs.tasks]


async def test_a_run_now_cancelled_while_its_claim_is_written_still_starts_and_says_so(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    await h.engine.start()
    a = await h.add("m", {"kind": "manual"})
    gate, entered = gate_claims(h)
    task = asyncio.ensure_future(h.engine.commands.run_now(a))
    await until(entered)
    task.cancel()  # e.g. the client hung up, the facade's future was cancelled
    gate.set()
    [outcome] = await asyncio.gather(task, return_exceptions=True)
    await h.clock.settle()
    try:
        assert orphans(h, a) == [], "a 'scheduled' run with no task"
        assert isinstance(outcome, asyncio.CancelledError), "the cancellation was swallowed"
    finally:
        await h.stop()


async def fire_during_claim(tmp_path: Path, overlap: str) -> tuple[Harness, str, Any]:
    """An hourly automation's next fire comes due while a run-now's claim is written;
    returns what run-now gave once both are through."""
    h = Harness(tmp_path, max_sleep=3600)
    await h.engine.start()
    a = await h.add("c", {"kind": "every", "every": "1h"}, overlap=overlap)
    h.runner.durations["c"] = 0
    await h.clock.advance(H - timedelta(seconds=1))  # the first fire ran; the next is 1 s away
    gate, entered = gate_claims(h)
    task = asyncio.ensure_future(h.engine.commands.run_now(a))
    await until(entered)
    h.clock._move(2_000_000)  # the fire is due now (as real time would pass)
    threading.Timer(0.2, gate.set).start()  # the disk finishes the claim in a moment
    h.engine.timer.kick()  # the timer wakes: its claim drains the writer, then fires
    for _ in range(20):
        await asyncio.sleep(0)
    manual = await task
    await h.clock.advance(5)
    return h, a, manual


async def test_a_fire_that_replaces_a_run_being_claimed_ends_it_as_cancelled(tmp_path: Path) -> None:
    """The timer's claim waits for the writer: run-now's claim lands first and its run is
    started, then the fire replaces it (cancelled before its task took a step)."""
    h, a, manual = await fire_during_claim(tmp_path, "cancel_previous")
    try:
        assert orphans(h, a) == [], "the manual run was left 'scheduled' with no task"
        [ended] = [r for r in h.runs(a) if r.id == manual.id]
        assert ended.state == "cancelled" and ended.error_code == "replaced"
    finally:
        await h.stop()


@pytest.mark.parametrize("overlap", ["skip", "queue_one"])
async def test_a_fire_during_a_claim_follows_overlap(tmp_path: Path, overlap: str) -> None:
    h, a, _ = await fire_during_claim(tmp_path, overlap)
    try:
        assert orphans(h, a) == []
    finally:
        await h.stop()


async def test_a_stop_while_a_claim_is_written_ends_the_run_as_interrupted(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    await h.engine.start()
    a = await h.add("m", {"kind": "manual"})
    h.runner.durations["m"] = 10.0
    gate, entered = gate_claims(h)
    task = asyncio.ensure_future(h.engine.commands.run_now(a))
    await until(entered)
    assert h.engine.ledger.group._writer is not None
    # this engine's own writer: a thread another test left behind is not its business
    ours = list(h.engine.ledger.group._writer._threads)
    threading.Timer(0.2, gate.set).start()
    await h.stop()  # the app quits
    outcome = (await asyncio.gather(task, return_exceptions=True))[0]
    writers = [t.name for t in ours if t.is_alive()]
    try:
        assert not h.engine.runs.tasks, "a run was started after the engine stopped"
        assert [r.state for r in h.runs(a)] == ["interrupted"]
        assert getattr(outcome, "state", None) == "interrupted"
        assert not writers, "the writer thread outlived stop()"
    finally:
        for t in list(h.engine.runs.tasks.values()):
            t.cancel()
        await asyncio.gather(*h.engine.runs.tasks.values(), return_exceptions=True)
        await h.engine.ledger.group.aclose()


async def test_the_same_request_twice_at_once_gets_one_run(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    await h.engine.start()
    a = await h.add("m", {"kind": "manual"})
    first, second = await asyncio.gather(h.engine.commands.run_now(a, request_id="req-1"),
                                         h.engine.commands.run_now(a, request_id="req-1"),
                                         return_exceptions=True)
    try:
        assert not isinstance(second, Conflict), "a resent request is refused as busy"
        assert first.id == second.id  # type: ignore[union-attr]
    finally:
        await h.stop()


async def test_a_cancelled_wait_for_the_writer_loses_no_write(
        tmp_path: Path) -> None:
    store = Store(location_for(tmp_path))
    group = GroupCommit(store)
    group.register("n", lambda s, items: list(items))
    group.open()
    assert group._writer is not None
    hold = threading.Event()
    group._writer.submit(hold.wait, 5)  # the writer thread not scheduled yet (a busy CPU)
    item = group.submit("n", 1)
    waiter = asyncio.ensure_future(group.settled())  # e.g. RunTranscript.messages()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    waiter.cancel()  # the run is stopped meanwhile
    await asyncio.gather(waiter, return_exceptions=True)
    hold.set()
    try:
        done, _ = await asyncio.wait({item}, timeout=1.0)
        assert done, "the queued write was never committed nor settled"
    finally:
        await group.aclose()
        store.close()


async def test_a_wait_for_the_writer_ends_under_a_steady_stream_of_writes(tmp_path: Path) -> None:
    """revise / set_paused / delete / transcript reads await ``settled()``; it returns only
    once the writer is idle, not once what was queued before it has committed."""
    store = Store(location_for(tmp_path))
    group = GroupCommit(store)

    def slow(s: Session, items: Any) -> list[Any]:
        time.sleep(0.002)  # a 2 ms commit
        return list(items)

    group.register("line", slow)
    stop = asyncio.Event()

    async def producer() -> None:  # runs appending transcript lines / pids, every 1 ms
        while not stop.is_set():
            group.post("line", 0)
            await asyncio.sleep(0.001)

    feeding = asyncio.ensure_future(producer())
    await asyncio.sleep(0.05)
    before = group.submit("line", 1)
    t0 = time.monotonic()
    try:
        await asyncio.wait_for(group.settled(), 1.0)
        waited = time.monotonic() - t0
    except TimeoutError:
        waited = None
    first_done = before.done()
    stop.set()
    await feeding
    await group.aclose()
    store.close()
    assert first_done
    assert waited is not None, "settled() still waiting after 1 s (the write it waits for " \
        "committed within a few ms)"



async def test_a_delete_while_a_claim_is_written_says_so(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    await h.engine.start()
    a = await h.add("m", {"kind": "manual"})
    gate, entered = gate_claims(h)
    task = asyncio.ensure_future(h.engine.commands.run_now(a))
    await until(entered)
    threading.Timer(0.1, gate.set).start()
    await h.engine.commands.delete(a)
    outcome = (await asyncio.gather(task, return_exceptions=True))[0]
    # the claim, once written, starts its run (which the delete then cancels), or the
    # delete came first and run-now says so; either way nothing is left going
    assert (isinstance(outcome, NotFound) and "was deleted" in str(outcome)) \
        or getattr(outcome, "id", None), outcome
    await h.clock.settle()
    assert not h.engine.runs.tasks and a not in h.engine.slots
    await h.stop()


# ------------------------------------------------- commands and closes off the loop

@pytest.fixture
async def he(tmp_path: Path) -> Any:
    harness = Harness(tmp_path, max_sleep=3600)
    await harness.engine.start()
    yield harness
    await harness.stop()


async def test_a_stop_while_a_decision_is_written_wins_and_the_action_never_runs(h: Harness) -> None:
    """The decision is being written on the writer thread when a stop arrives: the stop's
    close follows it and wins (closes commit before starts), so the resumed run finds itself
    ended and its approved action never runs; the slot is free again."""
    a = await h.add("ask", {"kind": "manual"})
    run = await h.engine.commands.run_now(a)
    await h.clock.settle()
    assert h.states(a) == ["awaiting_input"]
    seen: list[object] = []
    original = parking(h).run

    async def spy(ctx):  # type: ignore[no-untyped-def]
        if ctx.resume is not None:
            seen.append((h.store.get_run(ctx.run_id).state, h.engine.slots[a].active))
        return await original(ctx)
    parking(h).run = spy  # type: ignore[method-assign]
    decide = asyncio.ensure_future(h.engine.commands.decide(run.id, Decision("approve_once")))
    await asyncio.sleep(0)
    await asyncio.sleep(0)   # decide's write is on the writer thread now
    stopped = await h.engine.commands.stop_current(a)
    decided = await decide
    await h.clock.settle()
    assert stopped.state == "cancelled"
    assert seen == [], f"the stopped run's approved action ran anyway: {seen}"
    assert h.states(a) == ["cancelled"] and h.engine.slots[a].active is None
    assert decided.state == "scheduled"  # the decision itself was taken


async def _hold_close_of(h: Harness, run_id: str) -> tuple[threading.Event, threading.Event]:
    entered, release = threading.Event(), threading.Event()
    batch = h.engine.ledger.group._kinds["close"]

    def held(s, items):  # type: ignore[no-untyped-def]
        if any(item[0] == run_id for item in items):
            entered.set()
            release.wait(10)
        return batch(s, items)
    h.engine.ledger.group._kinds["close"] = held
    return entered, release

async def test_a_queued_fire_a_stop_dropped_is_not_started_by_the_run_ending_meanwhile(he: Harness) -> None:
    """queue_one: A runs, Q waits. A ends, and while its close commits a stop arrives: Q
    leaves the slot at once (so A's end does not start it) and ends cancelled."""
    h = he
    h.runner.script("q", (90 * 60, ok()))
    a = await h.add("q", {"kind": "every", "every": "1h"}, overlap="queue_one")
    await h.clock.advance(H + M)
    first, queued = h.runs(a)
    assert (first.state, queued.state) == ("running", "scheduled")
    entered, release = await _hold_close_of(h, first.id)
    advancing = asyncio.ensure_future(h.clock.advance(30 * M))  # A ends at 1h30
    deadline = time.monotonic() + 10
    while not entered.is_set():
        assert time.monotonic() < deadline
        await asyncio.sleep(0.001)
    stopping = asyncio.ensure_future(h.engine.commands.stop_current(a))
    for _ in range(5):
        await asyncio.sleep(0)
    release.set()
    stopped = await stopping
    await advancing
    await h.clock.settle()
    await h.clock.advance(M)
    runs = h.runs(a)
    assert [c.scheduled_for for c in h.runner.calls] == [first.scheduled_for], \
        "the queued fire that stop dropped was run anyway"
    assert runs[1].state == "cancelled"

@pytest.mark.sqlite_only("another program holding the SQLite file's write lock")
@pytest.mark.logs("due fires wait")
async def test_an_engine_starts_under_a_brief_lock_and_claims_the_missed_fires_after(he: Harness) -> None:
    """Another program holds the write lock for a second as the engine starts with missed
    fires to account for: it starts anyway, and accounts for them once the lock is free."""
    import sqlite3

    h = he
    a = await h.add("hourly", {"kind": "every", "every": "1h"})
    await h.stop()
    h.clock.jump_wall(2 * H)  # missed fires to account for at start
    holder = sqlite3.connect(h.tmp_path / "errands.sqlite3", isolation_level=None,
                             check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    threading.Timer(1.0, lambda: holder.execute("ROLLBACK")).start()
    h.engine = h._new_engine()
    try:
        await h.engine.start()
        started = "started"
    except Exception as exc:  # noqa: BLE001
        started = f"{type(exc).__name__}: {exc}"
    await asyncio.sleep(1.2)
    holder.close()
    assert started == "started"
    await h.clock.settle()
    assert "skipped" in h.states(a) or len(h.runs(a)) >= 2, h.states(a)

async def test_a_commands_work_is_not_kept_off_the_writer_by_a_stream_of_batches(tmp_path: Path) -> None:
    """A burst keeps the writer committing batches back to back; a command's work still
    gets its turn within one or two commits."""
    from errands.ledger.group_commit import GroupCommit
    from errands.store import Store

    store = Store(location_for(tmp_path))
    group = GroupCommit(store)
    group.register("slow", lambda s, items: [time.sleep(0.01) for _ in items[:1]] + [None] * (len(items) - 1))
    group.open()
    streaming = True

    async def stream() -> None:
        while streaming:
            group.post("slow", 1)
            await asyncio.sleep(0)

    feeder = asyncio.ensure_future(stream())
    await asyncio.sleep(0.05)
    began = time.monotonic()
    command = asyncio.ensure_future(group.run(lambda: "done"))
    await asyncio.wait({command}, timeout=2.0)
    waited = time.monotonic() - began
    streaming = False
    await feeder
    await command
    await group.aclose()
    store.close()
    assert waited < 0.5, f"run() starved {waited:.2f} s behind a stream of batches"


@pytest.mark.logs("could not be recorded yet")
async def test_a_run_end_the_store_refuses_for_a_while_is_recorded_later_as_it_was(
        he: Harness) -> None:
    """A run's end meets a database locked for longer than the engine's wait (a long
    backup): it is tried again, recorded as it ended (succeeded, not an internal error),
    and the automation runs again afterwards."""
    from errands.engine.base import RETRY_ADMISSION
    from errands.errors import StoreError

    h = he
    a = await h.add("m", {"kind": "manual"})
    h.runner.durations["m"] = 1.0
    batch = h.engine.ledger.group._kinds["close"]
    refusals = iter(range(2))

    def refused(s: Any, items: Any) -> Any:
        if next(refusals, None) is not None:
            raise StoreError("locked", "stayed locked for 10 s by another process")
        return batch(s, items)

    h.engine.ledger.group._kinds["close"] = refused
    run = await h.engine.commands.run_now(a)
    await h.clock.advance(2)
    assert h.states(a) == ["running"] and h.engine.slots[a].active == run.id  # waits
    await h.clock.advance(2 * RETRY_ADMISSION)
    [done] = h.runs(a)
    assert (done.state, done.error_code) == ("succeeded", None)
    assert done.finished_at is not None and done.finished_at < done.scheduled_for + timedelta(
        seconds=2)  # when it ended, not when it could be written
    assert h.engine.slots[a].active is None
    again = await h.engine.commands.run_now(a)
    await h.clock.advance(2)
    assert [r.state for r in h.runs(a)] == ["succeeded", "succeeded"] and again.id

