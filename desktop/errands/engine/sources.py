"""What fires an automation: its trigger sources, one registry of them.

A source watches for its kind of trigger and tells the engine when an automation fires.
Today there are two: the clock (``at``, ``every``, ``after`` and ``cron`` triggers, whose
fires the timer finds from each automation's durable cursor and admits in batches) and a
person (``run_now``). Both end in the ledger's claim, so every fire meets the same rules:
a slot is claimed once, ``overlap`` decides what a fire does while a run is active,
``concurrency`` caps what runs at once, the stop rules and the attention items follow the
run's end. A source of events (a changed folder, a webhook, mail, another automation's
end) registers here the same way and is started and stopped with the engine."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import Conflict, InvalidInput, StoreError
from ..event_artifacts import store_if_large
from ..event_triggers import EVENT_KINDS
from ..ledger import Due, Offer
from ..records import Automation, Run

if TYPE_CHECKING:
    from .core import Engine



class TriggerSource(Protocol):
    """One kind of trigger: started once the engine's memory is loaded, stopped before
    its runs are; it tells the engine of fires through the engine's parts."""

    kind: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class ClockSource:
    """Fires that come due by the clock: the timer (``engine.timer``) finds and admits
    them; this source starts and stops it with the engine."""

    kind = "clock"

    def __init__(self, engine: Engine) -> None:
        self.e = engine

    async def start(self) -> None:
        if self.e.automatic:  # (an engine a CLI command hosts fires nothing by itself)
            await self.e.timer.start(self.e.clock.now())

    async def stop(self) -> None:
        await self.e.timer.stop()


class ManualSource:
    """Runs asked for by a person or a program (``commands.run_now``): nothing to watch."""

    kind = "manual"

    def __init__(self, engine: Engine) -> None:
        self.e = engine

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        await self.e.commands.settle()  # claims being written end as interrupted


def _follow(engine: Engine) -> TriggerSource:
    from .follow import FollowSource
    return FollowSource(engine)


def _webhook(engine: Engine) -> TriggerSource:
    from .webhooks import WebhookSource
    return WebhookSource(engine)


def _folder(engine: Engine) -> TriggerSource:
    from .folder_watch import FolderSource
    return FolderSource(engine)


def _mail(engine: Engine) -> TriggerSource:
    from .mail_watch import MailSource
    return MailSource(engine)


SOURCES: dict[str, Callable[[Engine], TriggerSource]] = {
    "manual": ManualSource, "clock": ClockSource, "automation": _follow, "webhook": _webhook,
    "folder": _folder, "mail": _mail}


def _eventful(automation: Automation) -> bool:
    d = automation.definition
    return d is not None and (d.trigger.kind == "set" or d.trigger.kind in EVENT_KINDS)


class Sources:
    """The engine's trigger sources, one of each registered kind, started in order and
    stopped in reverse; and the one way a source other than the clock fires an
    automation (``offer``)."""

    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self.all: list[TriggerSource] = [make(engine) for make in SOURCES.values()]
        self.kinds = {source.kind: source for source in self.all}
        self._eventful: set[str] = set()   # automations with an event trigger or a set
        self._offers: list[tuple[str, Offer, asyncio.Future[Run | str]]] = []
        self._admitting: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._eventful = {slot.automation.id for slot in self.e.slots.values()
                          if _eventful(slot.automation)}
        for source in self.all:
            await source.start()

    def eventful_slots(self) -> list[Any]:
        """The slots of the automations with an event trigger (or a set): all a source
        needs to look at, at its start (10,000 clock automations cost it nothing)."""
        return [slot for ident in sorted(self._eventful)
                if (slot := self.e.slots.get(ident)) is not None]

    def changed(self, automation: Automation) -> None:
        """An automation was written: each source that watches definitions hears it (one
        that has, and had, only clock triggers concerns none of them: a burst's closes
        pass here a thousand times)."""
        eventful = _eventful(automation)
        if not eventful and automation.id not in self._eventful:
            return
        if eventful:
            self._eventful.add(automation.id)
        else:
            self._eventful.discard(automation.id)
        for source in self.all:
            changed = getattr(source, "changed", None)
            if changed is not None:
                changed(automation)

    def configured(self) -> None:
        """The settings changed: each source that depends on them hears it."""
        for source in self.all:
            configured = getattr(source, "configured", None)
            if configured is not None:
                configured()

    def mail_account_changed(self, name: str) -> None:
        """A mail account was saved or removed: its triggers connect again."""
        mail = self.kinds.get("mail")
        if mail is not None:
            mail.account_changed(name)  # type: ignore[attr-defined]

    def followed(self) -> None:
        """A close recorded events for the automations that follow its automation."""
        follow = self.kinds.get("automation")
        if follow is not None and not self.e.stopping:
            follow.drain()  # type: ignore[attr-defined]

    async def stop(self) -> None:
        for source in reversed(self.all):
            await source.stop()
        if self._admitting is not None:  # offers made before the stop are answered
            await asyncio.gather(self._admitting, return_exceptions=True)

    async def offer(self, automation_id: str, offer: Offer) -> Run | str:
        """``offer.source`` fired the automation: admitted through the ledger's claim with
        the rules of any fire (one claim per slot: an offer repeated with the same key
        is answered ``"duplicate"``; ``overlap``; one run per folder; ``concurrency``
        when it starts). The run claimed, or why none was: ``"skipped"`` (recorded, with
        its reason), ``"duplicate"``, ``"automation_paused"`` and the like (the automation
        is not active: nothing recorded), ``"broken"``. Offers of one loop turn share
        one transaction."""
        if not offer.source or not offer.key:
            raise InvalidInput("offer", "needs a source and a key", "the source's kind and "
                               "the event's own key", 'Offer("folder", "notes.md@1733…", at)')
        if self.e.stopping:
            raise Conflict("stopping", "Errands is quitting; the event was not admitted")
        await self.e.slot(automation_id)  # (NotFound for one that does not exist)
        future: asyncio.Future[Run | str] = asyncio.get_running_loop().create_future()
        self._offers.append((automation_id, offer, future))
        if self._admitting is None or self._admitting.done():
            self._admitting = asyncio.get_running_loop().create_task(self._admit())
        return await asyncio.shield(future)

    def _admit_alone(self, due: Due, item: tuple[str, Offer, asyncio.Future[Run | str]]
                     ) -> None:
        automation_id, offer, future = item
        try:
            admitted = self.e.timer.admit([due], self.e.clock.now())
        except Exception as exc:
            if not future.done():
                future.set_exception(exc)
            return
        if not future.done():
            future.set_result(admitted.answer((automation_id, offer.slot)))

    async def stored(self, automation_id: str, offer: Offer) -> Offer:
        """``offer`` with a large payload kept as a file (the sources whose payloads can
        grow large ask, off the loop, before they offer: the database stays small)."""
        if offer.payload is None:
            return offer
        kept = await asyncio.to_thread(store_if_large, self.e.data_dir, automation_id,
                                       offer.payload)
        return offer if kept is offer.payload else replace(offer, payload=kept)

    async def _admit(self) -> None:
        """Admit the offers waiting, one per automation per transaction (a second offer of
        the same automation then sees the first one's run, as ``overlap`` needs)."""
        await asyncio.sleep(0)  # the offers of this loop turn go together
        while self._offers:
            await self.e.ledger.group.idle()  # (the claim then waits for no write of ours)
            batch, later, seen = [], [], set()
            for item in self._offers:
                (later if item[0] in seen else batch).append(item)
                seen.add(item[0])
            self._offers = later
            dues, asked = [], []
            for automation_id, offer, future in batch:
                slot = self.e.slots.get(automation_id)
                if slot is None:
                    future.set_result("deleted")
                    continue
                dues.append(Due(slot.automation, slot.active, slot.queued, offer))
                asked.append((automation_id, offer, future))
            if not dues:
                continue
            try:
                admitted = self.e.timer.admit(dues, self.e.clock.now())
            except Exception as exc:  # nothing was recorded: each offer alone, so one
                # that cannot be written costs only itself (a store that is locked or
                # failing fails them all at once: trying each would hold the loop)
                if len(dues) == 1 or isinstance(exc, StoreError):
                    for _, _, future in asked:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for due, item in zip(dues, asked):
                    self._admit_alone(due, item)
                continue
            for automation_id, offer, future in asked:
                if not future.done():
                    future.set_result(admitted.answer((automation_id, offer.slot)))
