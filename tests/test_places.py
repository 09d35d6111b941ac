"""The concurrency cap's places: taken now or in turn, never lost to a cancellation."""

from __future__ import annotations

import asyncio

import pytest
from errands.engine.places import Places

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough


async def test_places_are_taken_now_until_full_then_in_turn() -> None:
    places = Places(2)
    assert places.take_now() and places.free() == 1
    await places.take()
    assert places.free() == 0 and not places.take_now()
    order: list[str] = []

    async def wait(name: str) -> None:
        await places.take()
        order.append(name)

    waiting = [asyncio.create_task(wait(n)) for n in ("a", "b")]
    await asyncio.sleep(0)
    places.give_back()
    places.give_back()
    await asyncio.gather(*waiting)
    assert order == ["a", "b"] and places.held == 2
    places.give_back()
    places.give_back()
    assert places.held == 0 and places.free() == 2


async def test_nobody_takes_a_place_now_while_others_wait_for_one() -> None:
    places = Places(1)
    assert places.take_now()
    waiter = asyncio.create_task(places.take())
    await asyncio.sleep(0)
    places.give_back()  # handed to the waiter: not free for someone coming now
    assert places.free() == 0 and not places.take_now()
    await waiter
    places.give_back()
    assert places.free() == 1


async def test_a_cancelled_waiter_leaves_the_line_and_hands_on_a_place_it_was_given() -> None:
    places = Places(1)
    assert places.take_now()
    first = asyncio.create_task(places.take())
    second = asyncio.create_task(places.take())
    await asyncio.sleep(0)
    first.cancel()  # still waiting: it just leaves the line
    await asyncio.sleep(0)
    places.give_back()  # to the second
    await second
    third = asyncio.create_task(places.take())
    await asyncio.sleep(0)
    places.give_back()  # given to the third at the moment it is cancelled: handed back
    third.cancel()
    await asyncio.gather(third, return_exceptions=True)
    assert places.held == 0 and places.free() == 1
