"""Group commit on the chosen catalogue: one transaction per loop turn, bad items fail alone,
and the engine's run starts and pid records go through it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from errands.catalog import Catalog
from errands.db.schema import RunRow
from errands.runners.command import CommandRunner
from errands.engine.core import Engine
from errands.ledger.group_commit import GroupCommit
from errands.runners.processes import pid_alive
from errands.errors import NotFound
from errands.store import Store
from engine_support import START, Harness
from pg_support import location_for


def counting(store: Store) -> list[int]:
    """Count the write transactions ``store`` opens from now on."""
    opened: list[int] = []
    original = store.transaction

    @contextlib.contextmanager
    def transaction() -> Iterator[Session]:
        opened.append(1)
        with original() as s:
            yield s

    store.transaction = transaction  # type: ignore[method-assign]
    return opened


async def test_a_kind_with_a_delay_waits_for_company_unless_another_write_comes(
        tmp_path: Path) -> None:
    store = Store(location_for(tmp_path))
    group = GroupCommit(store)
    seen: list[tuple[str, list[int]]] = []

    def batch(kind: str) -> Any:
        def apply(s: Session, items: Sequence[int]) -> list[int]:
            seen.append((kind, list(items)))
            return list(items)
        return apply

    group.register("line", batch("line"), delay=0.3)   # (wide: a loaded machine is slow)
    group.register("start", batch("start"))
    opened = counting(store)
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    first = [group.submit("line", i) for i in range(3)]
    await asyncio.sleep(0.01)
    later = group.submit("line", 3)  # a later turn, still within the delay: same transaction
    await asyncio.gather(*first, later)
    assert loop.time() - t0 >= 0.29 and len(opened) == 1
    assert seen == [("line", [0, 1, 2, 3])]
    # a write of a kind without delay takes the waiting lines with it at the next turn
    waiting = group.submit("line", 4)
    t1 = loop.time()
    assert await group.submit("start", 9) == 9 and await waiting == 4
    assert loop.time() - t1 < 0.2 and len(opened) == 2
    assert seen[1:] == [("line", [4]), ("start", [9])]  # registered order, one transaction
    group.submit("line", 5)
    group.drain()  # commits now, on this thread, and leaves no timer behind
    assert seen[-1] == ("line", [5]) and len(opened) == 3
    await asyncio.sleep(0.35)
    assert len(opened) == 3
    store.close()


async def test_writes_of_one_loop_turn_share_one_transaction(tmp_path: Path) -> None:
    store = Store(location_for(tmp_path))
    group = GroupCommit(store)
    seen: list[list[int]] = []

    def batch(s: Session, items: Sequence[int]) -> list[int]:
        seen.append(list(items))
        return [i * 2 for i in items]

    group.register("double", batch)
    opened = counting(store)
    futures = [group.submit("double", i) for i in range(100)]
    assert await asyncio.gather(*futures) == [i * 2 for i in range(100)]
    assert seen == [list(range(100))] and len(opened) == 1
    assert await group.submit("double", 7) == 14  # a later turn: a new transaction
    assert len(opened) == 2
    store.close()


async def test_writes_queued_while_a_commit_is_under_way_share_the_next(
        tmp_path: Path) -> None:
    """The commit runs on the writer thread, so the loop goes on meanwhile; what is queued
    then waits for it to end and goes in one transaction, in order."""
    import threading

    store = Store(location_for(tmp_path))
    group = GroupCommit(store)
    seen: list[list[int]] = []
    threads: set[str] = set()
    release = threading.Event()

    def batch(s: Session, items: Sequence[int]) -> list[int]:
        threads.add(threading.current_thread().name)
        if items == [0]:
            release.wait(5)  # a slow disk
        seen.append(list(items))
        return list(items)

    group.register("n", batch)
    opened = counting(store)
    first = group.submit("n", 0)
    ticks = 0
    while ticks < 5:  # the loop turns while the first commit is held
        await asyncio.sleep(0)
        ticks += 1
    later = [group.submit("n", i) for i in range(1, 6)]
    assert not first.done()
    release.set()
    assert await asyncio.gather(first, *later) == [0, 1, 2, 3, 4, 5]
    assert seen == [[0], [1, 2, 3, 4, 5]] and len(opened) == 2
    assert threads and threading.current_thread().name not in threads
    await group.aclose()
    store.close()


async def test_a_failing_batch_is_retried_item_by_item(tmp_path: Path) -> None:
    store = Store(location_for(tmp_path))
    group = GroupCommit(store)

    def batch(s: Session, items: Sequence[int]) -> list[Any]:
        if 13 in items:
            raise ValueError("unlucky")
        return [NotFound("gone") if i == 4 else i for i in items]

    group.register("items", batch)
    futures = [group.submit("items", i) for i in (1, 4, 13, 20)]
    results = await asyncio.gather(*futures, return_exceptions=True)
    assert results[0] == 1 and results[3] == 20
    assert isinstance(results[1], NotFound) and isinstance(results[2], ValueError)
    store.close()


def _hourly(tmp_path: Path, *, count: int, concurrency: int, lasting: float
            ) -> tuple[Harness, list[str]]:
    """``count`` hourly automations, all due at the engine's start, each run lasting
    ``lasting`` seconds of the fake clock, under a cap of ``concurrency``."""
    h = Harness(tmp_path, max_sleep=3600)
    h.store.set_setting("concurrency", str(concurrency))
    catalog = Catalog(h.store, h.clock.now)
    ids = [catalog.create({"title": f"b{i}", "runner": {"kind": "command", "command": "true"},
                           "trigger": {"kind": "every", "every": "1h"}})[0].id
           for i in range(count)]
    h.runner.durations.update({f"b{i}": lasting for i in range(count)})
    return h, ids


async def test_a_burst_of_starts_commits_together(tmp_path: Path) -> None:
    h, ids = _hourly(tmp_path, count=60, concurrency=100, lasting=30)
    opened = counting(h.store)
    await h.engine.start()  # admits the 60 first fires in one transaction, then starts them
    await h.clock.settle()
    runs = [h.runs(a)[0] for a in ids]
    assert {r.state for r in runs} == {"running"}
    assert all(r.started_at == START and r.attempts[0]["attempt"] == 1 for r in runs)
    assert all(r.attempts == [{"attempt": 1, "started_at": "2026-01-05T08:00:00Z"}]
               for r in runs), runs[0].attempts
    # recovery, admission (the 60 start in their claim's commit) and the pause-unattended
    # check of the start: no transaction of their own for the starts
    assert len(opened) <= 3
    await h.clock.advance(timedelta(seconds=31))
    assert {h.runs(a)[0].state for a in ids} == {"succeeded"}
    await h.stop()


async def test_only_runs_with_a_place_start_in_their_claim_s_commit(tmp_path: Path) -> None:
    """Five due under a cap of two: two start with their claim, three wait scheduled (not
    "running" while they wait) and start through the writer as places free up."""
    h, ids = _hourly(tmp_path, count=5, concurrency=2, lasting=60)
    later: list[str] = []  # runs started by a commit of their own
    original = h.engine.ledger.start

    def start(run_id: str, attempt: int, now: Any) -> Any:
        later.append(run_id)
        return original(run_id, attempt, now)

    h.engine.ledger.start = start  # type: ignore[method-assign]
    await h.engine.start()
    await h.clock.settle()
    states = sorted(h.runs(a)[0].state for a in ids)
    assert states == ["running", "running", "scheduled", "scheduled", "scheduled"]
    assert later == []
    await h.clock.advance(timedelta(seconds=61))
    assert len(later) == 2 and sorted(h.runs(a)[0].state for a in ids).count("running") == 2
    await h.clock.advance(timedelta(seconds=121))
    assert len(later) == 3 and {h.runs(a)[0].state for a in ids} == {"succeeded"}
    await h.stop()


async def test_the_child_pid_is_recorded_while_running_and_cleared_after(tmp_path: Path) -> None:
    store = Store(location_for(tmp_path))
    engine = Engine(store, tmp_path, {"command": CommandRunner()}, automatic=False)
    await engine.start()
    automation, _ = await engine.commands.create({"title": "nap", "runner": {
        "kind": "command", "command": "sleep 0.6"}, "trigger": {"kind": "manual"}})
    run = await engine.commands.run_now(automation.id)

    def pid() -> int | None:
        with store.db.read() as s:
            return s.get(RunRow, run.id).pid  # type: ignore[union-attr]

    for _ in range(100):
        await asyncio.sleep(0.02)
        if pid():
            break
    recorded = pid()
    assert store.get_run(run.id).state == "running" and recorded and recorded > 1
    assert pid_alive(recorded)
    done = await engine.commands.wait_run(run.id)
    assert done.state == "succeeded" and pid() is None
    await engine.stop()
    store.close()


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRANDS_SHUTDOWN_GRACE", "1s")


async def test_a_pause_in_the_turn_a_run_starts_leaves_the_run_alone(tmp_path: Path) -> None:
    """A command arriving while a run's start is still queued acts on the store as it will
    be: the starting run is not mistaken for a pending retry and dropped."""
    h = Harness(tmp_path, max_sleep=3600)
    await h.engine.start()
    h.runner.durations["r"] = 30
    a = await h.add("r", {"kind": "every", "every": "1h"})
    await h.clock.advance(3600 - 5)
    go = asyncio.Event()

    async def command() -> None:
        await go.wait()
        await h.engine.commands.set_paused(a, True)

    pause = asyncio.ensure_future(command())
    group = h.engine.ledger.group
    submit = group.submit

    def submit_then_command(kind: str, item: Any) -> Any:
        go.set()  # the control command becomes ready in this same loop turn
        return submit(kind, item)

    group.submit = submit_then_command  # type: ignore[method-assign]
    await h.clock.advance(timedelta(minutes=10))
    await pause
    runs = h.runs(a)
    assert [r.state for r in runs] == ["succeeded", "succeeded"]
    assert len(h.runner.calls) == 2 and h.store.get(a).status == "paused"
    await h.stop()


@pytest.mark.logs("could not record the process")
async def test_a_child_whose_pid_cannot_be_recorded_is_ended(tmp_path: Path) -> None:
    """Without its pid on record a crash could orphan the child, so it is not left running."""
    store = Store(location_for(tmp_path))

    def refuse(s: Session, items: Sequence[Any]) -> list[None]:
        raise RuntimeError("disk full")

    engine = Engine(store, tmp_path, {"command": CommandRunner()}, automatic=False)
    engine.ledger.group.register("pid", refuse)
    await engine.start()
    automation, _ = await engine.commands.create({"title": "long", "runner": {
        "kind": "command", "command": "sleep 30"}, "trigger": {"kind": "manual"},
        "policy": {"retry": {"max_attempts": 1}}})
    run = await engine.commands.run_now(automation.id)
    done = await asyncio.wait_for(engine.commands.wait_run(run.id), timeout=20)
    assert done.state == "failed" and done.error_code == "signal"
    await engine.stop()
    store.close()


async def test_run_now_claims_and_a_run_ends_on_the_writer_thread(tmp_path: Path) -> None:
    """The engine's writes of runs are committed off its loop's thread."""
    import threading

    store = Store(location_for(tmp_path))
    engine = Engine(store, tmp_path, {"command": CommandRunner()}, automatic=False)
    await engine.start()
    automation, _ = await engine.commands.create({"title": "quick", "runner": {
        "kind": "command", "command": "true"}, "trigger": {"kind": "manual"}})
    threads: dict[str, set[str]] = {"claim": set(), "close": set()}
    insert, close = store.insert_run_in, engine.ledger._close_batch_in

    def noting_insert(*args: Any, **kw: Any) -> Any:
        threads["claim"].add(threading.current_thread().name)
        return insert(*args, **kw)

    def noting_close(s: Session, items: Any) -> Any:
        threads["close"].add(threading.current_thread().name)
        return close(s, items)

    store.insert_run_in = noting_insert  # type: ignore[method-assign]
    engine.ledger.group.register("close", noting_close)
    run = await engine.commands.run_now(automation.id)
    assert (await engine.commands.wait_run(run.id)).state == "succeeded"
    loop_thread = threading.current_thread().name
    assert threads["claim"] and loop_thread not in threads["claim"]
    assert threads["close"] and loop_thread not in threads["close"]
    await engine.stop()
    store.close()


async def test_after_close_writes_commit_at_once_and_open_starts_the_writer_again(
        tmp_path: Path) -> None:
    """A write after the engine stopped (a late pid record) is not lost and starts no
    thread; an engine started again gets its writer back."""
    import threading

    store = Store(location_for(tmp_path))
    group = GroupCommit(store)
    where: list[str] = []
    group.register("n", lambda s, items: [where.append(threading.current_thread().name)
                                          or i for i in items])
    assert await group.submit("n", 1) == 1
    await group.aclose()
    late = group.submit("n", 2)
    await asyncio.sleep(0)  # the flush at the next turn commits it here
    assert late.done() and late.result() == 2 and group._writer is None
    assert where[-1] == threading.current_thread().name
    group.open()
    assert await group.submit("n", 3) == 3 and where[-1] != threading.current_thread().name
    await group.aclose()
    store.close()
