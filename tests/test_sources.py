"""Trigger sources: a source other than the clock fires an automation through the same claim
and the same rules as a clock fire (one claim per slot, overlap, folders, concurrency, stop
rules), and a source registered in ``engine.sources.SOURCES`` starts and stops with the
engine."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from engine_support import START, Harness, h  # noqa: F401 (fixtures)
from errands.engine import sources
from errands.errors import InvalidInput, NotFound
from errands.ledger import Offer
from errands.records import Run

MANUAL = {"kind": "manual"}
S = timedelta(seconds=1)


def offer(key: str, h: Harness, payload: dict | None = None) -> Offer:
    return Offer("test", key, h.clock.now(), payload)


async def fire(h: Harness, automation_id: str, key: str, payload: dict | None = None
               ) -> Run | str:
    answer = await h.engine.sources.offer(automation_id, offer(key, h, payload))
    await h.clock.settle()
    return answer


async def test_an_offered_fire_runs_once_and_a_repeat_is_a_duplicate(h: Harness) -> None:
    a = await h.add("on event", MANUAL)
    run = await fire(h, a, "evt-1", {"path": "notes.md"})
    assert isinstance(run, Run) and run.trigger == "event"
    assert await fire(h, a, "evt-1") == "duplicate"
    [done] = h.runs(a)
    assert done.state == "succeeded" and done.details["event"] == {
        "source": "test", "key": "evt-1", "payload": {"path": "notes.md"}}
    assert [c.title for c in h.runner.calls] == ["on event"]


async def test_event_runs_count_toward_max_runs_and_move_no_clock(h: Harness) -> None:
    a = await h.add("twice", {"kind": "every", "every": "1d"}, stop={"max_runs": 2})
    later = (START + timedelta(days=1)).isoformat()
    b = await h.add("one-shot", {"kind": "at", "at": later})
    cursor = h.store.get(b).next_fire_at
    await fire(h, a, "1")
    await fire(h, a, "2")
    assert h.store.get(a).status == "completed"
    assert await fire(h, a, "3") == "automation_completed"
    await fire(h, b, "x")  # an event run of a one-shot does not use up its fire
    assert h.store.get(b).status == "active" and h.store.get(b).next_fire_at == cursor


async def test_overlap_rules_apply_to_offered_fires(h: Harness) -> None:
    h.runner.durations.update({"skip": 60.0, "queue": 60.0, "replace": 60.0})
    skip = await h.add("skip", MANUAL)
    queue = await h.add("queue", MANUAL, overlap="queue_one")
    replace = await h.add("replace", MANUAL, overlap="cancel_previous")
    for a in (skip, queue, replace):
        assert isinstance(await fire(h, a, "first"), Run)
    assert await fire(h, skip, "second") == "skipped"
    [_, skipped] = h.runs(skip)
    assert skipped.state == "skipped" and skipped.skip_reason == "previous_run_active"
    assert skipped.trigger == "event"
    assert isinstance(await fire(h, queue, "second"), Run)
    assert h.states(queue) == ["running", "scheduled"]
    assert isinstance(await fire(h, replace, "second"), Run)
    assert h.states(replace) == ["cancelled", "running"]
    await h.clock.advance(130 * S)
    assert h.states(queue) == ["succeeded", "succeeded"]


async def test_two_offers_of_one_automation_in_one_turn_keep_overlap(h: Harness) -> None:
    h.runner.durations["busy"] = 60.0
    a = await h.add("busy", MANUAL)
    first, second = await asyncio.gather(h.engine.sources.offer(a, offer("1", h)),
                                         h.engine.sources.offer(a, offer("2", h)))
    await h.clock.settle()
    assert isinstance(first, Run) and second == "skipped"


async def test_concurrency_caps_offered_runs(h: Harness) -> None:
    await h.engine.commands.set_setting("concurrency", "1")
    h.runner.durations.update({"one": 30.0, "two": 30.0})
    one, two = await h.add("one", MANUAL), await h.add("two", MANUAL)
    await fire(h, one, "e")
    await fire(h, two, "e")
    assert h.states(one) == ["running"] and h.states(two) == ["scheduled"]
    await h.clock.advance(31 * S)
    assert h.states(one) == ["succeeded"] and h.states(two) == ["running"]


async def test_a_paused_automation_records_nothing_and_bad_offers_are_refused(
        h: Harness) -> None:
    a = await h.add("paused", MANUAL, paused=True)
    assert await fire(h, a, "e") == "automation_paused"
    assert h.runs(a) == []
    with pytest.raises(InvalidInput, match="source and a key"):
        await h.engine.sources.offer(a, Offer("test", "", h.clock.now()))
    with pytest.raises(NotFound):
        await h.engine.sources.offer("no-such-automation", offer("e", h))


async def test_a_repeat_after_a_restart_is_still_a_duplicate(h: Harness) -> None:
    a = await h.add("durable", MANUAL)
    await fire(h, a, "evt")
    await h.restart(offline=timedelta(minutes=5))
    assert await fire(h, a, "evt") == "duplicate"
    assert len(h.runs(a)) == 1


class Ticking:
    """A source of this test's own: on start, it fires every automation titled "ticked"
    once (as a folder watcher would on a change seen while it started)."""

    kind = "ticking"
    seen: list[str] = []

    def __init__(self, engine: object) -> None:
        self.e = engine
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        Ticking.seen.append("start")

        async def tick() -> None:
            for automation_id, slot in list(self.e.slots.items()):  # type: ignore[attr-defined]
                if slot.automation.title == "ticked":
                    await self.e.sources.offer(  # type: ignore[attr-defined]
                        automation_id, Offer("ticking", "boot", self.e.clock.now()))

        self.task = asyncio.get_running_loop().create_task(tick())

    async def stop(self) -> None:
        Ticking.seen.append("stop")
        if self.task is not None:
            await self.task


async def test_a_registered_source_starts_fires_and_stops_with_the_engine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sources.SOURCES, "ticking", Ticking)
    Ticking.seen = []
    h = Harness(tmp_path, max_sleep=3600)
    await h.engine.start()
    a = await h.add("ticked", MANUAL)
    await h.restart()  # the new engine's source sees the automation at its start
    await h.clock.settle()
    [run] = h.runs(a)
    assert run.trigger == "event" and run.details["event"]["source"] == "ticking"
    await h.stop()
    assert Ticking.seen == ["start", "stop", "start", "stop"]
