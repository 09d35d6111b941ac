"""History retention, as a user meets it: an automation keeps its newest ``history_limit``
ended runs with their logs and transcripts, older skipped fires merged into one record;
parked and running runs are never touched; output logs stay within ``output_log_limit``;
pruning waits for a quiet moment, at most once a minute per automation, and happens at
start too. Fake clock on the chosen catalogue (SQLite or PostgreSQL); logs are real files."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from errands import history
from errands.db.schema import BlockerRow, MessageRow, SessionRow
from errands.runners.contract import Outcome, RunContext
from errands.errors import InvalidInput, NotFound
from errands.records import Blocker, Decision
from errands.store import Store
from engine_support import START, Harness
from pg_support import location_for

M = timedelta(minutes=1)
H = timedelta(hours=1)


class Writing:
    """Writes a log (``size`` bytes, its modification time its run index in seconds) and a
    transcript line per run; parks the runs of titles in ``park`` until decided; takes
    ``durations`` (seconds) per title."""

    kind = "command"
    needs_network = False

    def __init__(self, h: Harness, size: int = 400) -> None:
        self.h = h
        self.size = size
        self.park: set[str] = set()
        self.durations: dict[str, list[float]] = {}

    async def run(self, ctx: RunContext) -> Outcome:
        title = ctx.definition.title
        ctx.log_path.parent.mkdir(parents=True, exist_ok=True)
        ctx.log_path.write_text(f"run {ctx.run_index}\n".ljust(self.size, "."))
        os.utime(ctx.log_path, ns=(ctx.run_index * 10**9,) * 2)
        assert ctx.session is not None
        ctx.session.append("user", {"content": f"run {ctx.run_index}"})
        if title in self.park and ctx.resume is None:
            return Outcome(state="awaiting_input",
                           blocker=Blocker(kind="question", question="go on?"))
        durations = self.durations.get(title)
        if durations:
            await self.h.clock.sleep(durations.pop(0))
        return Outcome(state="succeeded", result=f"ok {ctx.run_index}")


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = Harness(tmp_path, max_sleep=3600)
    harness.writer = Writing(harness)  # type: ignore[attr-defined]
    harness.engine.runners["command"] = harness.writer  # type: ignore[assignment]
    await harness.engine.start()
    yield harness
    await harness.stop()


def writer(h: Harness) -> Writing:
    return h.writer  # type: ignore[attr-defined,no-any-return]


def logs(h: Harness, automation_id: str) -> set[str]:
    return {run_id for _, run_id, _ in history.logs_size(h.tmp_path, automation_id)}


def count(h: Harness, table: type, *where: object) -> int:
    with h.store.db.read() as s:
        return s.scalar(select(func.count()).select_from(table).where(*where)) or 0


async def test_history_limit_keeps_the_newest_runs_and_merges_the_skipped_fires(
        h: Harness) -> None:
    writer(h).durations["hourly"] = [3.5 * 3600]  # the first run takes 3.5 hours: 3 skips
    a = await h.add("hourly", {"kind": "every", "every": "1h"}, policy={"history_limit": 5})
    await h.clock.advance(14 * H + 2 * M)  # 12 runs (08:00, then 12:00 to 22:00), 3 skipped
    rows = h.runs(a)
    assert [r.state for r in rows] == ["skipped"] + ["succeeded"] * 5
    merged = rows[0]
    assert merged.skip_reason == "previous_run_active"
    assert (merged.missed_count, merged.missed_first, merged.missed_last) == (
        3, START + H, START + 3 * H)
    assert merged.details == {"coalesced": {"records": 3,
                                            "reasons": {"previous_run_active": 3}}}
    kept = rows[1:]
    assert [r.scheduled_for for r in kept] == [START + i * H for i in range(10, 15)]
    assert logs(h, a) == {r.id for r in kept}  # the deleted runs' logs went with them
    assert count(h, SessionRow, SessionRow.automation_id == a) == 5  # one transcript each
    assert count(h, MessageRow) == 5
    assert h.store.get(a).run_count == 12  # the counters still count every run


async def test_parked_and_running_runs_are_never_pruned(h: Harness) -> None:
    writer(h).park.add("asks")
    a = await h.add("asks", {"kind": "manual"}, policy={"history_limit": 2})
    parked = await h.engine.commands.run_now(a, dry_run=True)  # parks, and never blocks a real run
    await h.clock.settle()
    writer(h).durations["asks"] = []
    decided = await h.engine.commands.run_now(a)  # parks, then goes on once decided
    await h.clock.settle()
    await h.engine.commands.decide(decided.id, Decision(kind="answer", text="yes"))
    await h.clock.settle()
    writer(h).park.discard("asks")
    writer(h).durations["asks"] = [30 * 60]
    running = await h.engine.commands.run_now(a, dry_run=True)  # half an hour, still going
    for _ in range(4):
        await h.engine.commands.run_now(a)
        await h.clock.advance(M)
    await h.clock.advance(2 * M)
    states = {r.id: r.state for r in h.runs(a)}
    assert states[parked.id] == "awaiting_input" and states[running.id] == "running"
    assert decided.id not in states  # ended, old: deleted, and its blocker with it
    assert list(states.values()).count("succeeded") == 2
    assert count(h, BlockerRow, BlockerRow.run_id == decided.id) == 0
    assert count(h, BlockerRow, BlockerRow.run_id == parked.id) == 1
    assert logs(h, a) == set(states)  # (every kept run wrote one)


async def test_output_logs_stay_within_their_limit(h: Harness) -> None:
    await h.engine.commands.set_setting("output_log_limit", "1KB")
    a = await h.add("chatty", {"kind": "manual"})
    ids = []
    for _ in range(6):
        ids.append((await h.engine.commands.run_now(a)).id)
        await h.clock.advance(2 * M)
    assert logs(h, a) == set(ids[-2:])  # 400 bytes each: two fit in 1 KiB
    assert len(h.runs(a)) == 6  # the runs stay, with their tails
    assert history.logs_size(h.tmp_path, "nothing") == []


async def test_pruning_waits_and_comes_at_most_once_a_minute(h: Harness) -> None:
    a = await h.add("often", {"kind": "manual"}, policy={"history_limit": 1})
    for _ in range(2):
        await h.engine.commands.run_now(a)
        await h.clock.advance(1)
    assert len(h.runs(a)) == 2  # not at once: a burst ends first
    await h.clock.advance(5)
    assert len(h.runs(a)) == 1
    for _ in range(3):
        await h.engine.commands.run_now(a)
        await h.clock.advance(10)
    assert len(h.runs(a)) == 4  # pruned a minute ago at most: not yet again
    await h.clock.advance(30)
    assert len(h.runs(a)) == 1


async def test_history_is_pruned_at_start_after_the_limit_was_lowered(h: Harness) -> None:
    a = await h.add("daily", {"kind": "manual"})
    for _ in range(4):
        await h.engine.commands.run_now(a)
        await h.clock.advance(2 * M)
    assert len(h.runs(a)) == 4
    await h.stop()
    h.store.set_setting("run_history_limit", "2")  # as the CLI does with no engine running
    h.engine = h._new_engine()
    h.engine.runners["command"] = writer(h)  # type: ignore[assignment]
    await h.engine.start()
    await h.clock.advance(5)
    assert len(h.runs(a)) == 4  # the start's own work first
    await h.clock.advance(10)
    assert [r.index for r in h.runs(a)] == [3, 4]
    assert logs(h, a) == {r.id for r in h.runs(a)}


def test_the_limits_are_validated(tmp_path: Path) -> None:
    store = Store(location_for(tmp_path))
    try:
        assert store.set_setting("output_log_limit", "52428800") == "50MB"
        assert store.set_setting("output_log_limit", "2 gb") == "2GB"
        assert store.set_setting("run_history_limit", "50") == "50"
        for key, value in [("run_history_limit", "0"), ("run_history_limit", "many"),
                           ("run_history_limit", "1000001"), ("output_log_limit", "1.5MB"),
                           ("output_log_limit", "10"), ("output_log_limit", "2TB")]:
            with pytest.raises(InvalidInput) as refused:
                store.set_setting(key, value)
            assert refused.value.field == key
        assert store.settings().get("output_log_limit") == 2 * 1024 ** 3
    finally:
        store.close()


def test_merging_skipped_records_in_batches_keeps_every_count(tmp_path: Path) -> None:
    store = Store(location_for(tmp_path))
    try:
        from errands.catalog import Catalog
        from engine_support import command_doc

        catalog = Catalog(store, lambda: START)
        a, _ = catalog.create(command_doc("t", {"kind": "manual"}))
        reasons = ["app_not_running", "machine_asleep", "app_not_running"] * 5
        with store.transaction() as s:
            row = store.get_in(s, a.id)
            for i, reason in enumerate(reasons):
                at = START + i * H
                store.insert_run_in(s, row, slot=f"sched:{i}", trigger="schedule",
                                    state="skipped", now=at, scheduled_for=at,
                                    skip_reason=reason, missed_count=2, missed_first=at - M,
                                    missed_last=at, finished_at=at)
            store.insert_run_in(s, row, slot="manual:last", trigger="manual", state="succeeded",
                                now=START, scheduled_for=START, finished_at=START)
        before = history.cutoff(store, a.id, 1)
        assert before == 16
        rounds = 0
        while True:
            rounds += 1
            _, more = history.coalesce_skipped(store, a.id, before, batch=4)
            if not more:
                break
        assert rounds == 4
        assert history.cutoff(store, a.id, 1) is None  # nothing left to do
        [merged, last] = store.runs_page(a.id)[0][::-1]
        assert last.index == 16 and merged.index == 15
        assert merged.missed_count == 30
        assert (merged.missed_first, merged.missed_last) == (START - M, START + 14 * H)
        assert merged.skip_reason == "app_not_running"
        assert merged.details == {"coalesced": {"records": 15, "reasons": {
            "app_not_running": 20, "machine_asleep": 10}}}
    finally:
        store.close()



def test_a_transcript_goes_with_the_last_run_that_uses_it(tmp_path: Path) -> None:
    from errands.catalog import Catalog
    from engine_support import command_doc

    store = Store(location_for(tmp_path))
    try:
        a, _ = Catalog(store, lambda: START).create(command_doc("t", {"kind": "manual"}))
        with store.transaction() as s:
            row = store.get_in(s, a.id)
            runs = [store.insert_run_in(s, row, slot=f"manual:{i}", trigger="manual",
                                        state="succeeded", now=START, scheduled_for=START,
                                        finished_at=START) for i in range(4)]
            first, reply, continuing, last = runs
            lines = [(f"r-{first.id}", a.id, "run", "t", first.id, "user", {"content": "1"},
                      START),
                     (f"r-{first.id}", a.id, "run", "t", reply.id, "user", {"content": "2"},
                      START),  # a reply in the first run's session
                     (f"a-{a.id}", a.id, "automation", "t", continuing.id, "user",
                      {"content": "3"}, START)]  # the automation's continuing session
            store.append_messages_in(s, lines)
            reply.session_id = f"r-{first.id}"
        ids, more = history.prune_runs(store, a.id, before=reply.index)
        assert ids == [first.id] and not more
        assert store.session(f"r-{first.id}")  # the reply still uses it
        ids, _ = history.prune_runs(store, a.id, before=last.index)
        assert ids == [reply.id, continuing.id]
        with pytest.raises(NotFound):
            store.session(f"r-{first.id}")  # gone with its last run, messages too
        assert [m.seq for m in store.messages(f"r-{first.id}")] == []
        assert [m.run_id for m in store.messages(f"a-{a.id}")] == [continuing.id]  # kept
    finally:
        store.close()
