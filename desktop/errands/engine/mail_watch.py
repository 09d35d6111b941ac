"""The mail trigger's source: one IMAP connection per mail trigger of an active automation.

Each message fires at most once, across restarts: the trigger keeps the folder's
UIDVALIDITY and the highest UID taken in (``trigger_state``), and that watermark moves in
the same transaction that claims the run, so a crash before the claim fetches the same
messages again and one after it never does. A trigger starts from the mail that arrives
after it was made (a mailbox's old mail fires nothing); if the server renumbers the folder
(a new UIDVALIDITY) it starts again from then, and says so in the inbox.

Mail is batched: a batch fires at most once per ``batch`` (default one hour for agent
automations, a minute for others), holding every matching message since the last. The
sender and subject filters go to the server's SEARCH, so mail that does not match is never
fetched and costs no run. Between batches the connection waits in IDLE where the server
offers it (else it looks every minute). A server that cannot be reached, or refuses the
login, is said once in the inbox and tried again with a growing pause."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..event_triggers import MailTrigger, members_of
from ..ledger import Offer
from ..records import Automation
from .base import say_trouble
from ..timeutil import format_instant, parse_instant

if TYPE_CHECKING:
    from .core import Engine

log = logging.getLogger(__name__)
AGENT_BATCH = timedelta(hours=1)
OTHER_BATCH = timedelta(seconds=60)
MAX_BATCH = 200            # messages per run; more wait for the next batch
IDLE_S = 25 * 60.0         # IDLE is renewed before servers drop it (RFC 2177: 29 minutes)
RETRY_FIRST_S, RETRY_MAX_S = 5.0, 600.0


def batch_period(trigger: MailTrigger, runner_kind: str) -> timedelta:
    return trigger.batch or (AGENT_BATCH if runner_kind == "agent" else OTHER_BATCH)


@dataclass
class _Watch:
    automation_id: str
    trigger_id: str
    trigger: MailTrigger
    runner_kind: str
    task: asyncio.Task[None] | None = None
    stop: asyncio.Event = field(default_factory=asyncio.Event)


class MailSource:
    kind = "mail"

    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self.watches: dict[tuple[str, str], _Watch] = {}
        self.problems: dict[tuple[str, str], str] = {}
        self._running = False

    async def start(self) -> None:
        if not self.e.automatic:
            return
        self._running = True
        for slot in self.e.sources.eventful_slots():
            self._follow(slot.automation)

    async def stop(self) -> None:
        self._running = False
        for key in list(self.watches):
            await self._unwatch(key)

    def changed(self, automation: Automation) -> None:
        if self._running and not self.e.stopping:
            self._follow(automation)

    def account_changed(self, name: str) -> None:
        """The account was saved or removed: its watches start over with it as it is."""
        if not self._running:
            return
        for key, watch in list(self.watches.items()):
            if watch.trigger.account == name:
                self.problems.pop(key, None)
                asyncio.get_running_loop().create_task(self._unwatch(key, watch))
                slot = self.e.slots.get(key[0])
                if slot is not None:
                    fresh = _Watch(key[0], key[1], watch.trigger, watch.runner_kind)
                    self.watches[key] = fresh
                    fresh.task = asyncio.get_running_loop().create_task(self._run(fresh))

    def _wanted(self, automation: Automation) -> dict[tuple[str, str], MailTrigger]:
        d = automation.definition
        if d is None or automation.status != "active":
            return {}
        return {(automation.id, m.id): m.trigger for m in members_of(d.trigger)
                if isinstance(m.trigger, MailTrigger)}

    def _follow(self, automation: Automation) -> None:
        wanted = self._wanted(automation)
        kind = automation.definition.runner.kind if automation.definition else "command"
        for key in [k for k in self.watches if k[0] == automation.id]:
            if self.watches[key].trigger != wanted.get(key) \
                    or self.watches[key].runner_kind != kind:
                asyncio.get_running_loop().create_task(self._unwatch(key, self.watches[key]))
        for key, trigger in wanted.items():
            held = self.watches.get(key)
            if held is None or held.trigger != trigger or held.runner_kind != kind:
                watch = _Watch(key[0], key[1], trigger, kind)
                self.watches[key] = watch
                watch.task = asyncio.get_running_loop().create_task(self._run(watch))

    async def _unwatch(self, key: tuple[str, str], watch: _Watch | None = None) -> None:
        watch = watch or self.watches.get(key)
        if watch is None:
            return
        if self.watches.get(key) is watch:
            del self.watches[key]
        watch.stop.set()
        if watch.task is not None:
            watch.task.cancel()
            await asyncio.gather(watch.task, return_exceptions=True)

    # ------------------------------------------------------------------ one mailbox

    async def _run(self, watch: _Watch) -> None:
        from ..mail.accounts import get_password
        from ..mail.imap import MailError, Mailbox
        pause = RETRY_FIRST_S
        while not watch.stop.is_set():
            try:
                account = await self.e.read(self.e.store.mail_account, watch.trigger.account)
                password = await asyncio.to_thread(get_password, self.e.data_dir, account.name)
                box = await Mailbox.open(account, password, watch.trigger.folder)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # (what could not be opened is said, then tried again)
                await self._trouble(watch, str(exc) or type(exc).__name__)
                await self._sleep(watch, pause)
                pause = min(pause * 2, RETRY_MAX_S)
                continue
            self.problems.pop((watch.automation_id, watch.trigger_id), None)
            pause = RETRY_FIRST_S
            try:
                await self._serve(watch, box)
            except (MailError, OSError, TimeoutError) as exc:
                await self._trouble(watch, f"lost the connection: {exc or type(exc).__name__}")
                await self._sleep(watch, pause)
            except Exception as exc:  # an answer aioimaplib could not read
                if not watch.stop.is_set():
                    await self._trouble(watch, f"the server's answer could not be read: {exc!r}")
                    await self._sleep(watch, pause)
            finally:
                await box.close()

    async def _serve(self, watch: _Watch, box: Any) -> None:
        period = batch_period(watch.trigger, watch.runner_kind)
        while not watch.stop.is_set():
            state = await self.e.read(self.e.store.trigger_state, watch.automation_id,
                                      watch.trigger_id)
            if not isinstance(state, dict) or state.get("uidvalidity") != box.uidvalidity:
                if isinstance(state, dict) and state.get("uidvalidity") is not None:
                    await self._trouble(watch, f"the server renumbered {box.folder!r}; "
                                        "mail from now on fires it", say_once=False)
                state = {"uidvalidity": box.uidvalidity, "uid": box.uidnext - 1,
                         "batch_at": None}
                await self.e.write(lambda: self.e.store.set_trigger_state(
                    watch.automation_id, watch.trigger_id, state, self.e.clock.now()))
            now = self.e.clock.now()
            last = parse_instant(state["batch_at"]) if state.get("batch_at") else None
            if last is not None and now < last + period:
                await box.wait(min(IDLE_S, (last + period - now).total_seconds()))
                continue
            if await self._batch(watch, box, state, now):
                continue  # taken in: look again at once (more may wait)
            await box.wait(IDLE_S)

    async def _batch(self, watch: _Watch, box: Any, state: dict[str, Any],
                     now: datetime) -> bool:
        """Offer the mail since the watermark; whether anything new was there."""
        from ..mail.messages import matches
        seen = int(state.get("uid") or 0)
        fresh = await box.uids_after(seen)
        if not fresh:
            return False
        t = watch.trigger
        wanted = (await box.uids_after(seen, t.sender, t.subject) if t.sender or t.subject
                  else fresh)
        if not wanted:  # nothing matches: the watermark moves, nothing runs
            top = max(fresh)
            moved = {**state, "uid": top}
            await self.e.write(lambda: self.e.store.set_trigger_state(
                watch.automation_id, watch.trigger_id, moved, self.e.clock.now()))
            return True
        taken = wanted[:MAX_BATCH]
        top = max(fresh) if len(wanted) <= MAX_BATCH else taken[-1]
        messages = [m for m in await box.fetch(taken)
                    if "error" in m or matches(m, t.sender, t.subject)]
        moved = {"uidvalidity": box.uidvalidity, "uid": top, "batch_at": format_instant(now)}
        if not messages:
            await self.e.write(lambda: self.e.store.set_trigger_state(
                watch.automation_id, watch.trigger_id, moved, self.e.clock.now()))
            return True
        payload = {"account": t.account, "folder": box.folder, "count": len(messages),
                   "messages": messages}
        offer = Offer("mail", f"{watch.trigger_id}:{box.uidvalidity}:{taken[0]}-{top}", now,
                      payload, trigger_id=watch.trigger_id, kind="mail", state=moved)
        try:
            offer = await self.e.sources.stored(watch.automation_id, offer)
            await self.e.sources.offer(watch.automation_id, offer)
        except Exception as exc:
            if not self.e.stopping:
                log.warning("mail could not fire %s: %s", watch.automation_id, exc)
            await self._sleep(watch, RETRY_FIRST_S)
        return True

    # ------------------------------------------------------------------ trouble

    async def _sleep(self, watch: _Watch, seconds: float) -> None:
        try:
            await asyncio.wait_for(watch.stop.wait(), seconds)
        except TimeoutError:
            pass

    async def _trouble(self, watch: _Watch, problem: str, say_once: bool = True) -> None:
        key = (watch.automation_id, watch.trigger_id)
        if watch.stop.is_set() or (say_once and self.problems.get(key) == problem):
            return
        self.problems[key] = problem
        say_trouble(self.e, watch.automation_id,
                    f"mail from {watch.trigger.account} cannot be read", problem)
