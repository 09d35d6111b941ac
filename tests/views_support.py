"""A store with a week of varied history, built by a real engine on a fake clock, for the
window's passive views (sidebar, detail, run strip, history, upcoming)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from engine_support import START, Harness, fail, ok  # noqa: E402
from errands.store import Store  # noqa: E402

H = timedelta(hours=1)


@dataclass
class Scenario:
    store: Store
    now: datetime
    ids: dict[str, str]   # title → id


def build(tmp_path: Path) -> Scenario:
    """Six automations: an hourly beat that missed a night (one skipped record), a weekday
    brief in New York, a flaky check with a failure streak, a paused one, a one-shot done,
    a manual one; then the engine stops and the store is handed over."""
    return asyncio.run(_build(tmp_path))


async def _build(tmp_path: Path) -> Scenario:
    h = Harness(tmp_path, max_sleep=3600)
    await h.engine.start()
    ids = {}
    ids["Hourly beat"] = await h.add("Hourly beat", {"kind": "every", "every": "1h"})
    ids["Morning brief"] = await h.add(
        "Morning brief", {"kind": "cron", "expression": "0 9 * * 1-5",
                          "timezone": "America/New_York"}, workdir="/home/me/notes")
    ids["Site check"] = await h.add("Site check", {"kind": "every", "every": "6h"},
                                    overlap="queue_one", misfire="run_once")
    ids["Weekly review"] = await h.add("Weekly review", {"kind": "cron",
                                                         "expression": "0 16 * * 5",
                                                         "timezone": "UTC"})
    ids["Renew token"] = await h.add("Renew token", {"kind": "at", "at": "2026-01-05T12:00:00Z"})
    ids["Deploy by hand"] = await h.add("Deploy by hand", {"kind": "manual"})
    for _ in range(3):
        h.runner.script("Site check", (2, fail("exit status 1")), (2, fail("exit status 1")),
                        (2, fail("exit status 1")))
    h.runner.script("Hourly beat", (30, ok("3 new issues, 1 closed")))
    await h.clock.advance(timedelta(hours=14, minutes=30))         # to 22:30 Monday
    await h.restart(offline=timedelta(hours=9, minutes=45))        # back 08:15 Tuesday
    await h.engine.commands.set_paused(ids["Weekly review"], True)
    await h.engine.commands.run_now(ids["Deploy by hand"])
    await h.clock.advance(timedelta(hours=3))
    now = h.clock.now()
    await h.stop()
    return Scenario(h.store, now, ids)


__all__ = ["START", "Scenario", "build"]
