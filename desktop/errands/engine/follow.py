"""The trigger source for another automation's end (``{"kind": "automation"}``).

The ledger records the end as a pending event in the very transaction that closes the
upstream run (``ledger/follows.py``), asking this source's index which automations follow
which; this source then offers each pending event through the one claim path, and does so
again at start for any a crash left between the two commits."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ..event_triggers import AutomationTrigger, members_of
from ..ledger import Offer
from ..records import Automation

if TYPE_CHECKING:
    from .core import Engine

log = logging.getLogger(__name__)
Entry = tuple[str, str, tuple[str, ...]]   # follower, its trigger's id, the ends it follows


def _follows(automation: Automation) -> list[tuple[str, Entry]]:
    d = automation.definition
    if d is None:
        return []
    return [(m.trigger.automation, (automation.id, m.id, m.trigger.states))
            for m in members_of(d.trigger) if isinstance(m.trigger, AutomationTrigger)]


class FollowSource:
    kind = "automation"

    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self._index: dict[str, list[Entry]] = {}   # replaced whole: the writer reads it
        self._followers: set[str] = set()
        self._draining: asyncio.Task[None] | None = None
        self._again = False

    async def start(self) -> None:
        self.reindex()
        self.e.ledger.followers = self.followers
        self.drain()

    async def stop(self) -> None:
        self._again = False
        if self._draining is not None:
            await asyncio.gather(self._draining, return_exceptions=True)

    def followers(self, upstream: str) -> list[Entry]:
        """(On the writer thread.) Who follows ``upstream``'s ends, and which."""
        return [entry for entry in self._index.get(upstream, ())
                if entry[0] in self.e.slots]  # (not one deleted since the index was made)

    def changed(self, automation: Automation) -> None:
        """An automation was written: the index follows when it is, or was, a follower."""
        now = sorted(_follows(automation))
        held = sorted((upstream, entry) for upstream, entries in self._index.items()
                      for entry in entries if entry[0] == automation.id)
        if now != held:
            self.reindex()

    def reindex(self) -> None:
        index: dict[str, list[Entry]] = {}
        for slot in self.e.sources.eventful_slots():
            for upstream, entry in _follows(slot.automation):
                index.setdefault(upstream, []).append(entry)
        self._followers = {entry[0] for entries in index.values() for entry in entries}
        self._index = index

    def drain(self) -> None:
        """Offer every pending event (after a close that recorded some, and at start)."""
        if self._draining is not None and not self._draining.done():
            self._again = True
            return
        self._draining = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        while not self.e.stopping:
            self._again = False
            pending = [(p["automation_id"], Offer(
                p["source"], p["key"], p["at"], p["payload"], trigger_id=p["trigger_id"],
                kind=p["kind"], depth=p["depth"], chain=p["chain"], pending=p["id"]))
                for p in await self.e.read(self.e.store.pending_events)
                if p["automation_id"] in self.e.slots]  # (another engine's: for it to offer)
            answers = await asyncio.gather(*(self.e.sources.offer(automation_id, offer)
                                             for automation_id, offer in pending),
                                           return_exceptions=True)
            for (automation_id, _), answer in zip(pending, answers):
                if isinstance(answer, BaseException) and not self.e.stopping:
                    log.warning("the end of another automation could not fire %s: %s",
                                automation_id, answer)
            if not self._again and len(pending) < 1000:
                return
