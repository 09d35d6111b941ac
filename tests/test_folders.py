"""Two automations that work in the same folder never run at once (seed 002 §3): the second
waits (its row says for which folder and whom) or, with ``overlap: skip``, is skipped as
``folder_busy``; across the concurrency cap, retries, parked runs, a stop and a restart
after a crash. Fake clock on the chosen catalogue (SQLite or PostgreSQL), and one real-time
run with real shells."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from errands.engine import runs as core
from errands.runners.command import CommandRunner
from errands.engine.core import Engine
from errands.engine.folders import waiting_for
from errands.runners.processes import process_start_ticks
from errands.runners.contract import Outcome, RunContext
from errands.records import Blocker, Decision
from errands.store import Store
from engine_support import START, h, Harness, command_doc  # noqa: F401 (fixtures)
from pg_support import location_for

M = timedelta(minutes=1)
H = timedelta(hours=1)
HOURLY = {"kind": "every", "every": "1h"}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    made = tmp_path / "project"
    made.mkdir()
    return made


class Overlaps:
    """Runs (by title) of a scripted runner, with when each attempt began and ended."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.spans: list[tuple[str, float, float]] = []
        self.plans: dict[str, list[tuple[float, Outcome]]] = {}
        self.contexts: list[RunContext] = []
        h.engine.runners["command"] = self  # type: ignore[assignment]

    kind = "command"
    needs_network = False

    async def run(self, ctx: RunContext) -> Outcome:
        self.contexts.append(ctx)
        title = ctx.definition.title
        begin = self.h.clock.monotonic()
        plan = self.plans.get(title)  # else ten minutes, and success
        seconds, outcome = plan.pop(0) if plan else (600.0, Outcome(state="succeeded"))
        try:
            await self.h.clock.sleep(seconds)
        finally:
            self.spans.append((title, begin, self.h.clock.monotonic()))
        return outcome

    def overlapping(self, *titles: str) -> list[tuple[str, str]]:
        spans = [s for s in self.spans if s[0] in titles]
        return [(a[0], b[0]) for i, a in enumerate(spans) for b in spans[i + 1:]
                if a[1] < b[2] and b[1] < a[2]]


async def test_the_second_automation_in_a_folder_waits_and_says_so(h: Harness,
                                                                    folder: Path) -> None:
    runs = Overlaps(h)
    link = folder.parent / "link-to-project"
    link.symlink_to(folder)  # the same folder by another name: compared resolved
    a = await h.add("first", HOURLY, workdir=str(folder))
    b = await h.add("second", HOURLY, workdir=str(link) + "/", overlap="queue_one")
    await h.clock.advance(M)
    [waiting] = [r for r in h.runs(b) if r.state == "scheduled"]
    shown = waiting_for(waiting.details)
    assert shown is not None and shown["folder"] == os.path.realpath(folder)
    assert (shown["automation_id"], shown["title"]) == (a, "first")
    assert shown["run_id"] == h.runs(a)[0].id
    await h.clock.advance(30 * M)
    assert [r.state for r in h.runs(a)] == ["succeeded"]
    [done] = h.runs(b)
    assert done.state == "succeeded" and waiting_for(done.details) is None
    assert done.started_at == START + 10 * M  # the moment the first one ended
    assert runs.overlapping("first", "second") == []


async def test_overlap_skip_skips_a_fire_whose_folder_is_busy(h: Harness, folder: Path) -> None:
    runs = Overlaps(h)
    runs.plans["long"] = [(100 * 60, Outcome(state="succeeded"))] * 2  # 100 minutes
    a = await h.add("long", {"kind": "manual"}, workdir=str(folder))
    b = await h.add("hourly", {"kind": "every", "every": "1h", "start_at": "2026-01-05T08:30:00Z"},
                    workdir=str(folder))  # overlap: skip (the default)
    await h.engine.commands.run_now(a)  # 08:00 to 09:40
    await h.clock.advance(2 * H + 45 * M)
    rows = h.runs(b)
    assert [(r.state, r.skip_reason, r.scheduled_for) for r in rows] == [
        ("skipped", "folder_busy", START + 30 * M), ("skipped", "folder_busy", START + 90 * M),
        ("succeeded", None, START + 150 * M)]
    assert (rows[0].missed_count, rows[0].missed_first) == (1, START + 30 * M)
    assert runs.overlapping("long", "hourly") == []
    # a run asked for by hand is never skipped: it waits
    await h.engine.commands.run_now(a)
    await h.clock.advance(M)
    manual = await h.engine.commands.run_now(b)
    await h.clock.advance(M)
    assert waiting_for(h.store.get_run(manual.id).details) is not None
    await h.clock.advance(2 * H)
    assert h.store.get_run(manual.id).state == "succeeded"
    assert runs.overlapping("long", "hourly") == []


async def test_what_shares_no_folder_runs_at_once(h: Harness, folder: Path) -> None:
    runs = Overlaps(h)
    (folder / "inner").mkdir()
    await h.add("no workdir 1", HOURLY)
    await h.add("no workdir 2", HOURLY)
    await h.add("outer", HOURLY, workdir=str(folder))
    await h.add("inner", HOURLY, workdir=str(folder / "inner"))  # inside it: another folder
    await h.clock.advance(15 * M)
    assert len(runs.spans) == 4
    assert runs.overlapping("no workdir 1", "no workdir 2") != []
    assert runs.overlapping("outer", "inner") != []


async def test_a_run_waiting_to_retry_holds_no_folder(h: Harness, folder: Path) -> None:
    runs = Overlaps(h)
    runs.plans["flaky"] = [(60, Outcome(state="failed", error_code="exit_status",
                                        error_message="boom")),
                           (60, Outcome(state="succeeded"))]
    a = await h.add("flaky", {"kind": "manual"}, workdir=str(folder),
                    policy={"retry": {"max_attempts": 2, "backoff": {"initial": "30s"}}})
    b = await h.add("other", {"kind": "manual"}, workdir=str(folder))
    await h.engine.commands.run_now(a)
    await h.clock.advance(70)  # the first attempt failed at 60 s; its retry is due at 90 s
    other = await h.engine.commands.run_now(b)  # the folder is free: it starts at once
    await h.clock.advance(1)
    assert h.store.get_run(other.id).state == "running"
    await h.clock.advance(60)  # the retry came due while "other" ran: it waits
    [flaky] = h.runs(a)
    assert flaky.state == "scheduled" and waiting_for(flaky.details) is not None
    await h.clock.advance(20 * M)
    assert h.store.get_run(flaky.id).state == "succeeded"
    assert h.store.get_run(flaky.id).attempt == 2
    assert runs.overlapping("flaky", "other") == []


class Parking(Overlaps):
    async def run(self, ctx: RunContext) -> Outcome:
        if ctx.definition.title == "asks" and ctx.resume is None:
            self.contexts.append(ctx)
            return Outcome(state="awaiting_input",
                           blocker=Blocker(kind="question", question="go on?"))
        return await super().run(ctx)


async def test_a_parked_run_holds_no_folder_and_waits_for_it_when_it_goes_on(
        h: Harness, folder: Path) -> None:
    runs = Parking(h)
    a = await h.add("asks", {"kind": "manual"}, workdir=str(folder))
    b = await h.add("other", {"kind": "manual"}, workdir=str(folder))
    parked = await h.engine.commands.run_now(a)
    await h.clock.advance(1)
    assert h.store.get_run(parked.id).state == "awaiting_input"
    other = await h.engine.commands.run_now(b)  # the parked run is not running: the folder is free
    await h.clock.advance(1)
    assert h.store.get_run(other.id).state == "running"
    await h.engine.commands.decide(parked.id, Decision(kind="answer", text="yes"))
    await h.clock.advance(1)
    resumed = h.store.get_run(parked.id)
    assert resumed.state == "scheduled" and waiting_for(resumed.details)["title"] == "other"
    await h.clock.advance(30 * M)
    assert h.store.get_run(parked.id).state == "succeeded"
    assert runs.overlapping("asks", "other") == []


async def test_the_folder_rule_holds_under_the_concurrency_cap(h: Harness, folder: Path,
                                                              tmp_path: Path) -> None:
    runs = Overlaps(h)
    await h.engine.commands.set_setting("concurrency", "2")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ids = [await h.add(f"f{i}", HOURLY, workdir=str(folder), overlap="queue_one")
           for i in range(3)]
    ids += [await h.add(f"g{i}", HOURLY, workdir=str(elsewhere), overlap="queue_one")
            for i in range(2)]
    await h.clock.advance(55 * M)
    assert all(h.states(a) == ["succeeded"] for a in ids)  # nothing stuck
    assert runs.overlapping(*[f"f{i}" for i in range(3)]) == []
    assert runs.overlapping("g0", "g1") == []
    moments = sorted({s[1] for s in runs.spans})
    assert max(sum(1 for _, b, e in runs.spans if b <= m < e) for m in moments) == 2  # the cap
    assert max(e for _, _, e in runs.spans) - min(b for _, b, _ in runs.spans) == 30 * 60


async def test_a_stopped_waiting_run_hands_the_folder_on(h: Harness, folder: Path) -> None:
    runs = Overlaps(h)
    a = await h.add("holder", {"kind": "manual"}, workdir=str(folder))
    b = await h.add("waiter", {"kind": "manual"}, workdir=str(folder))
    c = await h.add("next", {"kind": "manual"}, workdir=str(folder))
    await h.engine.commands.run_now(a)
    await h.clock.advance(1)
    waiter = await h.engine.commands.run_now(b)
    nxt = await h.engine.commands.run_now(c)
    await h.clock.advance(1)
    stopped = await h.engine.commands.stop_current(b)
    assert stopped.id == waiter.id and stopped.state == "cancelled"
    assert waiting_for(stopped.details) is None  # (it waits no more)
    await h.clock.advance(30 * M)
    assert h.store.get_run(nxt.id).state == "succeeded"
    assert [s[0] for s in runs.spans] == ["holder", "next"]
    assert h.engine.folders.holds == {}  # nothing left held


async def test_a_crashed_engines_child_holds_its_folder_until_it_has_ended(
        tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("process groups and /proc")
    monkeypatch.setattr(core, "LEFTOVER_GRACE", 1.0)
    h = Harness(tmp_path, max_sleep=3600)
    await h.engine.start()
    a = await h.add("crashed", {"kind": "manual"}, workdir=str(folder))
    b = await h.add("after", {"kind": "manual"}, workdir=str(folder))
    child = subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 30"], start_new_session=True)
    try:
        with h.store.transaction() as s:  # what a kill -9 leaves: a running run and its child
            row = h.store.insert_run_in(s, h.store.get_in(s, a), slot="manual:x",
                                        trigger="manual", state="running", now=START,
                                        scheduled_for=START)
            row.pid, row.pid_started = child.pid, process_start_ticks(child.pid)
        await h.stop()
        h.engine = h._new_engine()
        await h.engine.start()
        await h.clock.settle()
        run = await h.engine.commands.run_now(b)
        await h.clock.settle()
        shown = waiting_for(h.store.get_run(run.id).details)
        assert shown is not None and shown["run_id"] is None and shown["title"] == "crashed"
        for _ in range(100):  # the leftover ignores SIGTERM: killed after its (real) grace
            await asyncio.sleep(0.05)
            await h.clock.advance(1)
            if h.store.get_run(run.id).state == "succeeded":
                break
        assert h.store.get_run(run.id).state == "succeeded"
        assert child.poll() is not None
    finally:
        child.kill()
        child.wait()
        await h.stop()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="real shells")
async def test_real_commands_in_one_folder_do_not_interleave(tmp_path: Path,
                                                              folder: Path) -> None:
    store = Store(location_for(tmp_path))
    engine = Engine(store, tmp_path, {"command": CommandRunner()})
    await engine.start()
    try:
        script = ("for i in 1 2 3; do echo \"$ERRANDS_RUN_ID $i\" >> out.txt; sleep 0.1; done")
        ids = []
        for n in range(3):
            made, _ = await engine.commands.create(command_doc(f"writer {n}", {"kind": "manual"},
                                                      runner={"kind": "command",
                                                              "command": script},
                                                      workdir=str(folder)))
            ids.append(made.id)
        started = [await engine.commands.run_now(i) for i in ids]
        ended = [await engine.commands.wait_run(r.id) for r in started]
        assert [r.state for r in ended] == ["succeeded"] * 3
        lines = (folder / "out.txt").read_text().split()
        writers = lines[0::2]
        assert [writers[i:i + 3] for i in range(0, 9, 3)] == [[r.id] * 3 for r in started]
    finally:
        await engine.stop()
        store.close()



@pytest.mark.catalogue_free
def test_the_command_line_and_the_window_say_what_a_run_waits_for() -> None:
    from dataclasses import replace as changed

    from errands.app import words
    from errands.cli import render
    from errands.records import Run

    waiting = Run(id="r", automation_id="a", index=3, revision=1, trigger="schedule",
                  scheduled_for=START, state="scheduled",
                  details={"waiting_for": {"folder": "/home/me/site", "title": "Backup",
                                           "run_id": "x", "automation_id": "b",
                                           "since": "2026-01-05T08:00:00Z"}})
    assert render.run_summary(waiting) == \
        "waiting for the folder /home/me/site (in use by Backup)"
    assert words.run_summary(waiting, START.tzinfo) == "Waiting for the folder"
    queued = changed(waiting, details=None)
    assert render.run_summary(queued) == "" and words.run_summary(queued, START.tzinfo) == "Queued"
    skipped = changed(waiting, state="skipped", details=None, skip_reason="folder_busy",
                      missed_count=1, missed_first=START, missed_last=START)
    assert render.run_summary(skipped) == "folder_busy"
    assert words.skip_words(skipped, START.tzinfo).startswith(
        "Another automation was using the folder")
    merged = changed(skipped, missed_count=4, missed_last=START + H,
                     details={"coalesced": {"records": 3, "reasons": {"folder_busy": 4}}})
    assert render.run_summary(merged).endswith("; 3 records merged)")
