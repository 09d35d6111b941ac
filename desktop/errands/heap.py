"""The garbage collector in a process that hosts one engine for its life (the app, serve).

A full collection holds every thread. Over the heap such a process keeps (tens of
thousands of definitions, slots and records; in the app ten thousand sidebar rows too) one
takes 50 to 200 ms, and Python starts them on its own in the middle of a burst, stalling
the engine's loop and the window's. So what is held for good is frozen once loaded (out of
the collector's view; an object freed later still goes by its reference count), automatic
full collections are turned off (the young generations collect as usual), and the engine's
loop collects fully once a minute at most while no run is going, or after ten minutes in
any case.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

THRESHOLDS = gc.get_threshold()
QUIET_S = 60.0    # a full collection at most this often, when no run is going
LATEST_S = 600.0  # and at the latest this long after the last one, busy or not
RECHECK_S = 10.0  # while runs are going, how often to look again


_lock = threading.Lock()
_loading = 0            # loads under way with the collector paused
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    """No collection while a catalogue loads (the engine's start, under any host): each
    few hundred allocations would start one, and the older generations' passes walk all
    that was loaded so far, objects all alive; with 10,000 automations that was a third of
    the start. Nested or overlapping loads keep it off until the last ends; then it is as
    it was before the first."""
    global _loading, _was_enabled
    with _lock:
        if _loading == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _loading += 1
    try:
        yield
    finally:
        with _lock:
            _loading -= 1
            if _loading == 0 and _was_enabled:
                gc.enable()


def settle() -> None:
    """Freeze what is alive now and leave full collections to :func:`collect_when_quiet`
    (called again after loading more for good, it freezes that too)."""
    gc.freeze()
    young, middle, _full = THRESHOLDS
    gc.set_threshold(young, middle, 1 << 30)  # never reached: full ones are ours
    gc.enable()


def restore() -> None:
    """Python's own collection schedule again (the engine stopped)."""
    gc.set_threshold(*THRESHOLDS)


async def collect_when_quiet(busy: Callable[[], bool]) -> None:
    """Run for the engine's life on its loop: full collections when they hurt least."""
    last = time.monotonic()
    while True:
        since = time.monotonic() - last
        if since >= LATEST_S or (since >= QUIET_S and not busy()):
            gc.collect()
            last = time.monotonic()
            continue
        await asyncio.sleep(max(QUIET_S - since, RECHECK_S))
