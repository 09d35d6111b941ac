"""The collector policy of a process that hosts an engine for its life: no automatic full
collection, one when no run goes (at most once a QUIET_S), and one after LATEST_S anyway."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from typing import Any

import pytest

from errands import heap
from pg_support import location_for


@pytest.fixture
def full_collections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    monkeypatch.setattr(heap, "QUIET_S", 0.1)
    monkeypatch.setattr(heap, "RECHECK_S", 0.02)
    seen: list[float] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info["generation"] == 2:
            seen.append(asyncio.get_event_loop_policy().get_event_loop().time())

    gc.callbacks.append(note)
    heap.settle()
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)
        heap.restore()
        gc.unfreeze()


@pytest.mark.catalogue_free
async def test_a_full_collection_waits_until_no_run_goes(full_collections: list[float],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "LATEST_S", 60.0)
    busy = True
    task = asyncio.create_task(heap.collect_when_quiet(lambda: busy))
    try:
        junk = [[i] for i in range(200_000)]  # would set off automatic ones
        await asyncio.sleep(0.3)
        del junk
        assert full_collections == []  # busy: none, and none by Python itself either
        busy = False
        await asyncio.sleep(0.2)
        assert 1 <= len(full_collections) <= 3  # quiet now: one, and at most one a QUIET_S
        gaps = [b - a for a, b in zip(full_collections, full_collections[1:])]
        assert all(gap >= 0.09 for gap in gaps), gaps
    finally:
        task.cancel()


@pytest.mark.catalogue_free
async def test_a_busy_engine_still_gets_one_after_latest_s(full_collections: list[float],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "LATEST_S", 0.15)
    task = asyncio.create_task(heap.collect_when_quiet(lambda: True))
    try:
        await asyncio.sleep(0.4)
        assert 1 <= len(full_collections) <= 3
    finally:
        task.cancel()


@pytest.mark.catalogue_free
def test_loading_pauses_the_collector_until_the_last_load_ends() -> None:
    """The engine's start loads with the collector off; overlapping loads (another thread's)
    keep it off until the last ends, and it is then as it was before the first."""
    import threading

    assert gc.isenabled()
    seen: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        outer = heap.paused()
        outer.__enter__()
        inner_entered, release = threading.Event(), threading.Event()

        def other_load() -> None:
            with heap.paused():
                inner_entered.set()
                release.wait(5)

        thread = threading.Thread(target=other_load)
        thread.start()
        inner_entered.wait(5)
        outer.__exit__(None, None, None)
        junk = [[i] for i in range(100_000)]  # would set off automatic collections
        assert not gc.isenabled() and seen == []
        release.set()
        thread.join(5)
        assert gc.isenabled()
        del junk
    finally:
        gc.callbacks.remove(note)
    gc.disable()
    with heap.paused():
        pass
    assert not gc.isenabled()  # (a host that had it off keeps it off)
    gc.enable()


async def test_an_engine_start_collects_nothing(tmp_path: Any) -> None:
    """The start of an engine with a few hundred automations makes no collection until
    all is loaded and armed (they would walk everything loaded so far, again and again)."""
    from errands.catalog import Catalog
    from errands.engine.core import Engine
    from errands.runners.command import CommandRunner
    from errands.store import DEFINITIONS, Store

    store = Store(location_for(tmp_path))
    catalog = Catalog(store)
    for i in range(300):
        catalog.create({"title": f"t{i}", "runner": {"kind": "command", "command": "true"},
                        "trigger": {"kind": "every", "every": f"{i + 1}h"}})
    DEFINITIONS.clear()
    seen: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    engine = Engine(store, tmp_path, {"command": CommandRunner()})
    last_step, during = engine.sources.start, []

    async def sources_start() -> None:  # the start's last step
        await last_step()
        during.extend(seen)

    engine.sources.start = sources_start  # type: ignore[method-assign]
    gc.callbacks.append(note)
    try:
        await engine.start()
        assert during == [] and len(engine.slots) == len(engine.timer.heap) == 300
    finally:
        gc.callbacks.remove(note)
        await engine.stop()
        store.close()
    assert gc.isenabled()
