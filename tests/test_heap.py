"""The collector policy of a process that hosts an engine for its life: no automatic full
collection, one when no run goes (at most once a QUIET_S), and one after LATEST_S anyway."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from typing import Any

import pytest

from errands import heap


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


async def test_a_busy_engine_still_gets_one_after_latest_s(full_collections: list[float],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "LATEST_S", 0.15)
    task = asyncio.create_task(heap.collect_when_quiet(lambda: True))
    try:
        await asyncio.sleep(0.4)
        assert 1 <= len(full_collections) <= 3
    finally:
        task.cancel()
