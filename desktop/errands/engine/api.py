"""The one async face of the engine: what the window, the CLI's control channel and tests
call. Commands go to the engine's own loop; queries read on reader threads with a short
busy timeout, so no caller's loop ever waits on disk. Every answer is stamped with the
``(epoch, revision)`` of the changes it reflects (see :mod:`errands.engine.notices`).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import operator
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from .. import queries
from ..db.database import waiting_at_most
from ..definition import ANY_MACHINE
from ..errors import Conflict, ErrandsError, StoreError
from ..event_triggers import MailTrigger, members_of
from ..forecast import Forecast, forecast
from ..jsondoc import pretty
from ..records import (ACTIVE_STATES, AttentionItem, AuditEntry, Automation, Decision, Machines,
                       Parked, Run)
from ..schedule import iter_fires
from ..settings import SPECS
from ..store import Store
from .core import Engine
from .live import Piece
from .notices import Notice, Stamp

T = TypeVar("T")
READ_BUSY_MS = 750  # a read that waits longer on a lock answers "busy" instead
COMMAND_BUSY_MS = 750  # ... and a command's own write transactions
BUSY = "the database is busy (another program is writing to it); try again in a moment"
OnEngine = Callable[[Coroutine[Any, Any, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class Stamped(Generic[T]):
    """An answer and the state of the engine it reflects."""

    stamp: Stamp
    value: T


def _mail_accounts_of(automation: Automation) -> set[str]:
    if automation.definition is None:
        return set()
    return {m.trigger.account for m in members_of(automation.definition.trigger)
            if isinstance(m.trigger, MailTrigger)}


async def _inline(coro: Coroutine[Any, Any, Any]) -> Any:
    return await coro


class Api:
    """Commands and queries over one engine.

    ``on_engine`` runs a coroutine on the engine's loop: inline when the caller shares that
    loop (``errands serve``, tests), across threads when the engine has its own (the app).
    """

    def __init__(self, engine: Engine, *, on_engine: OnEngine = _inline,
                 role: str = "serve", readers: int = 2,
                 on_activate: Callable[[], None] | None = None,
                 reading_with: Api | None = None) -> None:
        """``reading_with``: another face of the same engine whose reader threads and
        connection this one shares (and leaves that one to close)."""
        self.engine = engine
        self.role = role
        self.on_activate = on_activate
        self._on_engine = on_engine
        self._owns_readers = reading_with is None
        if reading_with is not None:
            self._reader, self._pool = reading_with._reader, reading_with._pool
        else:
            self._reader = Store(engine.store.db.location, busy_ms=READ_BUSY_MS)
            self._pool = ThreadPoolExecutor(readers, thread_name_prefix="errands-read")
        # ``automations_json``'s last text for each of archived / not, with the records it
        # was rendered from
        self._listings: dict[bool, tuple[list[Automation], str]] = {}

    @property
    def data_dir(self) -> Any:
        return self.engine.data_dir

    def stamp(self) -> Stamp:
        return self.engine.events.stamp()

    def close(self) -> None:
        if self._owns_readers:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._reader.close()

    # ------------------------------------------------------------------ notices

    def subscribe(self, listener: Callable[[Notice], None]) -> Callable[[], None]:
        """``listener`` gets every notice on the caller's loop."""
        loop = asyncio.get_running_loop()

        def deliver(notice: Notice) -> None:
            if loop.is_closed():
                return
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                listener(notice)
            else:
                loop.call_soon_threadsafe(listener, notice)

        return self.engine.events.subscribe(deliver)

    async def activate(self) -> dict[str, Any]:
        """Ask the host to bring its window forward (a second launch of the app does)."""
        if self.on_activate is None:
            return {"shown": False, "why": f"this engine is hosted by errands {self.role}, "
                    "which has no window"}
        self.on_activate()
        return {"shown": True}

    # ----------------------------------------------------------------- commands

    async def _command(self, coro: Coroutine[Any, Any, T]) -> Stamped[T]:
        value = await self._on_engine(self._briefly(coro))
        return Stamped(self.stamp(), value)

    async def _briefly(self, coro: Coroutine[Any, Any, T]) -> T:
        """A command's writes wait a short while for another program's lock, then answer
        "busy", on the engine's loop (the engine's own writes still wait as long as they
        must). A command first waits for the engine's queued writes; when those are held
        up by such a lock, it answers "busy" too instead of queueing behind them."""
        try:
            if not await self.engine.writes_settled(within=COMMAND_BUSY_MS / 1000):
                if self.engine.store.db.waiting_for_lock:
                    coro.close()
                    raise Conflict("busy", BUSY)
                await self.engine.writes_settled()  # only slow (a big burst): wait for it
            with waiting_at_most(COMMAND_BUSY_MS):
                return await coro
        except StoreError as exc:
            if exc.code == "locked":
                raise Conflict("busy", BUSY) from exc
            raise

    async def create(self, doc: Any, *, request_id: str | None = None,
                     actor: str = "user") -> Stamped[tuple[Automation, bool]]:
        return await self._command(self.engine.commands.create(doc, request_id=request_id, actor=actor))

    async def import_document(self, doc: Any, *, dry_run: bool = False,
                              actor: str = "user") -> Stamped[Any]:
        """Import an export document (:mod:`errands.transfer`); the value is the plan."""
        return await self._command(self.engine.commands.import_document(doc, dry_run=dry_run,
                                                               actor=actor))

    async def edit(self, automation_id: str, doc: Any, *, expected_revision: int | None = None,
                   actor: str = "user") -> Stamped[tuple[Automation, bool]]:
        return await self._command(self.engine.commands.revise(
            automation_id, doc, actor=actor, expected_revision=expected_revision))

    async def pause(self, automation_id: str, *, actor: str = "user") -> Stamped[Automation]:
        return await self._command(self.engine.commands.set_paused(automation_id, True, actor=actor))

    async def resume(self, automation_id: str, *, actor: str = "user") -> Stamped[Automation]:
        return await self._command(self.engine.commands.set_paused(automation_id, False, actor=actor))

    async def archive(self, automation_id: str, *,
                      actor: str = "user") -> Stamped[tuple[Automation, bool]]:
        """Stop it for good, keeping its runs, transcripts, revisions and logs; the value
        says whether anything changed (archiving an archived one does not)."""
        return await self._command(self.engine.commands.set_archived(automation_id, True, actor=actor))

    async def unarchive(self, automation_id: str, *,
                        actor: str = "user") -> Stamped[tuple[Automation, bool]]:
        """Bring it back, paused (or completed, if it was); a resume re-arms it."""
        return await self._command(self.engine.commands.set_archived(automation_id, False, actor=actor))

    async def delete(self, automation_id: str, *,
                     actor: str = "user") -> Stamped[dict[str, int]]:
        """Delete it and its ledger; the value counts what went: runs, transcripts,
        revisions (run logs and the audit trail are kept)."""
        return await self._command(self.engine.commands.delete(automation_id, actor=actor))

    async def run_now(self, automation_id: str, *, request_id: str | None = None,
                      dry_run: bool = False, wait: bool = False,
                      actor: str = "user") -> Stamped[Run]:
        async def go() -> Run:
            run = await self.engine.commands.run_now(automation_id, request_id=request_id,
                                            dry_run=dry_run, actor=actor)
            return await self.engine.commands.wait_run(run.id) if wait else run
        return await self._command(go())

    async def try_script(self, automation_id: str | None = None, *, doc: Any = None,
                         event: Any = None) -> Stamped[dict[str, Any]]:
        """A script's dry run (a stored one, or ``doc`` unsaved): what it would propose and
        whether each would apply; nothing applied, nothing recorded."""
        return await self._command(self.engine.scripts.try_script(automation_id, doc=doc,
                                                                  event=event))

    async def run_over_existing(self, automation_id: str, *, offset: int = 0,
                                dry_run: bool = False) -> Stamped[dict[str, Any]]:
        """A folder script run once for each file already in its scope (a page at a time)."""
        return await self._command(self.engine.scripts.run_over_existing(
            automation_id, offset=offset, dry_run=dry_run))

    async def reply(self, session_id: str, text: str, *, request_id: str | None = None,
                    actor: str = "user") -> Stamped[dict[str, Any]]:
        """A follow-up: a discussion's next turn, or a discussion forked from the run (its
        turn's end: the answer, or what it waits for)."""
        return await self._command(self.engine.commands.reply(
            session_id, text, request_id=request_id, actor=actor))

    # ------------------------------------------------------------------ discussions

    async def discuss(self, automation_id: str, run_index: int, text: str, *,
                      request_id: str | None = None) -> Stamped[dict[str, Any]]:
        """A discussion forked from run ``run_index`` and its first turn's end."""
        return await self._command(self.engine.discussions.start(
            automation_id, run_index, text, request_id=request_id))

    async def discussion_say(self, session_id: str, text: str) -> Stamped[dict[str, Any]]:
        return await self._command(self.engine.discussions.say(session_id, text))

    async def discussion_decide(self, session_id: str, decision: Decision
                                ) -> Stamped[dict[str, Any]]:
        return await self._command(self.engine.discussions.decide(session_id, decision))

    async def discussion(self, session_id: str) -> Stamped[dict[str, Any]]:
        return Stamped(self.stamp(), await self._on_engine(
            self.engine.discussions.get(session_id, transcript=True)))

    async def discussions(self, automation_id: str, run_index: int | None = None
                          ) -> Stamped[list[dict[str, Any]]]:
        return Stamped(self.stamp(), await self._on_engine(
            self.engine.discussions.of_automation(automation_id, run_index)))

    async def stop(self, automation_id: str, *, actor: str = "user") -> Stamped[Run]:
        return await self._command(self.engine.commands.stop_current(automation_id, actor=actor))

    async def decide(self, run_id: str, decision: Decision, *, request_id: str | None = None,
                     actor: str = "user") -> Stamped[Run]:
        return await self._command(self.engine.commands.decide(run_id, decision, request_id=request_id,
                                                      actor=actor))

    async def decide_many(self, run_ids: Sequence[str], decision: Decision, *,
                          actor: str = "user") -> Stamped[list[Run | ErrandsError]]:
        """One decision for several parked runs in one transaction; a refusal stands in
        the list for the run it concerns."""
        return await self._command(self.engine.commands.decide_many(run_ids, decision, actor=actor))

    async def mark_read(self, item_id: int | None = None) -> Stamped[int]:
        return await self._command(self.engine.commands.mark_attention_read(item_id))

    async def set_setting(self, key: str, value: str | None) -> Stamped[str]:
        return await self._command(self.engine.commands.set_setting(key, value))

    async def webhook_token(self, automation_id: str, trigger_id: str
                            ) -> Stamped[dict[str, str]]:
        """A new token for a webhook trigger (the old one stops working): ``trigger``,
        ``url`` and ``token``, the only time the token is shown."""
        async def go() -> dict[str, str]:
            source = self.engine.sources.kinds["webhook"]
            token = await source.issue(automation_id, trigger_id)  # type: ignore[attr-defined]
            return {"trigger": trigger_id, "token": token,
                    "url": source.url(automation_id, trigger_id)}  # type: ignore[attr-defined]
        return await self._command(go())

    async def webhooks(self, automation_id: str) -> Stamped[list[dict[str, Any]]]:
        """An automation's webhook triggers: ``trigger``, ``url``, whether a token was
        issued (``has_token``), and ``problem`` when the server cannot listen."""
        async def go() -> list[dict[str, Any]]:
            from .webhooks import webhook_members
            source: Any = self.engine.sources.kinds["webhook"]
            automation = (await self.engine.slot(automation_id)).automation
            return [{"trigger": t, "url": source.url(automation_id, t),
                     "has_token": (automation_id, t) in source.hashes,
                     "problem": source.problem} for t in webhook_members(automation)]
        return Stamped(self.stamp(), await self._on_engine(go()))

    async def save_mail_account(self, doc: dict[str, Any]) -> Stamped[dict[str, Any]]:
        """Add or change a mail account (its password is kept by the caller, in the
        keyring); the mail triggers using it connect again."""
        from ..mail.accounts import parse_account

        async def go() -> dict[str, Any]:
            account = parse_account(doc)
            await self.engine.write(lambda: self.engine.store.save_mail_account(
                account, self.engine.clock.now()))
            self.engine.sources.mail_account_changed(account.name)
            return account.to_dict()
        return await self._command(go())

    async def delete_mail_account(self, name: str) -> Stamped[bool]:
        """Remove a mail account no automation's trigger uses."""
        async def go() -> bool:
            every = ([slot.automation for slot in self.engine.slots.values()]
                     if not self.engine.fleet.shared else  # (the others' too)
                     await self.engine.read(self.engine.store.list))
            users = [automation.title for automation in every
                     if name in _mail_accounts_of(automation)]
            if users:
                raise Conflict("in_use", f"mail account {name!r} is used by "
                               + ", ".join(sorted(users)[:5]) + "; change those first")
            gone = await self.engine.write(lambda: self.engine.store.delete_mail_account(name))
            self.engine.sources.mail_account_changed(name)
            return gone
        return await self._command(go())

    # ------------------------------------------------------------------ queries

    async def _read(self, fn: Callable[..., T], *args: Any, **kw: Any) -> Stamped[T]:
        stamp = self.stamp()  # taken first: the answer reflects at least these changes
        try:
            # get_event_loop: a Qt host may step this task between its loop's turns (the
            # loop is then the thread's current one, not a running one)
            value = await asyncio.get_event_loop().run_in_executor(
                self._pool, functools.partial(fn, *args, **kw))
        except StoreError as exc:
            if exc.code == "locked":
                raise Conflict("busy", BUSY) from exc
            raise
        return Stamped(stamp, value)

    async def summaries(self, *, text: str | None = None, status: str | None = None,
                        sort: str = "next_fire", offset: int = 0,
                        limit: int = queries.PAGE_LIMIT, ids: Iterable[str] | None = None
                        ) -> Stamped[tuple[list[queries.Summary], int]]:
        return await self._read(queries.summaries, self._reader, text=text, status=status,
                                sort=sort, offset=offset, limit=limit,
                                ids=None if ids is None else list(ids))

    async def test_mail_account(self, name: str) -> Stamped[str]:
        """Log in to the account and open its inbox: what a Test button says. A server that
        cannot be reached or refuses is a ``Conflict`` (``mail_unreachable``) in words."""
        async def go() -> str:
            from ..mail.accounts import get_password
            from ..mail.imap import MailError, check
            account = await self.engine.read(self.engine.store.mail_account, name)
            password = await asyncio.to_thread(get_password, self.engine.data_dir, name)
            try:
                return await check(account, password)
            except MailError as exc:
                raise Conflict("mail_unreachable", str(exc)) from exc
        return Stamped(self.stamp(), await self._on_engine(go()))

    async def mail_accounts(self) -> Stamped[list[Any]]:
        """The mail accounts (``mail.accounts.MailAccount``; no passwords)."""
        return await self._read(self._reader.mail_accounts)

    async def automations(self, *, archived: bool = False
                          ) -> Stamped[tuple[list[Automation], int]]:
        """Every automation but the archived ones (``archived``: only those), as
        ``errands list`` shows them, and how many the list leaves out."""
        return await self._read(self._pick, await self._held(), archived)

    async def automations_json(self, *, archived: bool = False) -> Stamped[str]:
        """``errands list --json``'s whole text (``automations`` as ``jsondoc.pretty``
        prints it), rendered off the loop and kept until one of the records changes: a
        status bar asking every few seconds costs a comparison, not a rendering."""
        held = await self._held()
        kept = self._listings.get(archived)
        if held is not None and kept is not None and len(kept[0]) == len(held) \
                and all(map(operator.is_, kept[0], held)):
            return Stamped(self.stamp(), kept[1])

        def render() -> str:
            items, _ = self._pick(held, archived)
            return pretty({"automations": [a.to_dict() for a in items]})
        answer = await self._read(render)
        if held is not None:
            self._listings[archived] = (held, answer.value)
        return answer

    def _pick(self, held: list[Automation] | None, archived: bool
              ) -> tuple[list[Automation], int]:
        every = self._reader.list() if held is None else held
        items = [a for a in every if (a.status == "archived") == archived]
        return items, len(every) - len(items)

    async def _held(self) -> list[Automation] | None:
        """The records of every automation, current, in creation order, as the engine holds
        them (it is the only writer); None before it has loaded them, or when it holds only
        its part (a shared catalogue). Taken on the engine's loop (the window calls from
        another thread)."""
        async def snapshot() -> list[Automation] | None:
            if not self.engine.loaded or self.engine.fleet.shared:  # (on a shared catalogue
                return None  # it holds only what it fires: the catalogue is read whole)
            return [slot.automation for slot in self.engine.slots.values()]
        return await self._on_engine(snapshot())

    async def resolve_id(self, ident: str) -> str:
        """An automation's full id from its id or an unambiguous prefix (as the CLI takes
        them); NotFound or InvalidInput (ambiguous) otherwise."""
        return (await self._read(self._reader.resolve_id, ident)).value

    async def automation(self, automation_id: str) -> Stamped[Automation]:
        return await self._read(self._reader.get, automation_id)

    async def runs(self, automation_id: str, *, limit: int = 50,
                   cursor: str | None = None) -> Stamped[tuple[list[Run], str | None]]:
        return await self._read(self._reader.runs_page, automation_id, limit=limit,
                                cursor=cursor)

    async def run(self, run_id: str) -> Stamped[dict[str, Any]]:
        """A run with its output and, for a run with a session, its transcript."""
        def read() -> dict[str, Any]:
            run = self._reader.get_run(run_id)
            doc = run.to_dict(with_output=True)
            doc["transcript"] = ([m.to_dict() for m in self._reader.messages(run.session_id)]
                                 if run.session_id else None)
            parked = self._reader.parked_run(run_id) if run.state == "awaiting_input" else None
            doc["blocker"] = parked.to_dict() if parked else None
            return doc
        return await self._read(read)

    async def output(self, run_id: str, *, after: int | None = None,
                     wait: float = 0.0) -> Stamped[dict[str, Any]]:
        """A run's output so far, for watching it live (``errands output``, the run page).

        While it runs: what it printed after byte ``after`` (None: all the engine keeps),
        waiting up to ``wait`` seconds for more or for its end; ``position`` is where to
        ask from next, ``cut`` says bytes were dropped before they were asked for. Once it
        has ended (or for a run the engine does not hold): its kept output, ``ended`` when
        nothing more will come. A run with a session carries its transcript too."""
        run_id = (await self._read(self._reader.resolve_run, run_id)).value  # (a prefix too)

        deadline = asyncio.get_running_loop().time() + wait   # (one wait, however split)

        def left() -> float:
            return max(0.0, deadline - asyncio.get_running_loop().time())

        async def live() -> Piece | None:
            stream = self.engine.live.get(run_id)
            if stream is None:
                return None
            piece = stream.after(after)
            if left() > 0 and not piece.text and not piece.ended:
                await stream.changed(left())
                piece = stream.after(after)
            return piece
        changed = asyncio.Event()   # (subscribed before the first read: nothing is missed)
        unsubscribe = self.subscribe(
            lambda notice: changed.set() if run_id in notice.run_states else None)
        try:
            piece = await self._on_engine(live())
            answer = await self._read(self._output_of, run_id, piece, after)
            if piece is None and wait > 0 and not answer.value["ended"]:
                # no live output to wait on (queued, parked, an agent's run): its next
                # change (a transcript message, a new state) is worth another look
                try:
                    await asyncio.wait_for(changed.wait(), left())
                except asyncio.TimeoutError:
                    return answer
                piece = await self._on_engine(live())
                answer = await self._read(self._output_of, run_id, piece, after)
            return answer
        finally:
            unsubscribe()

    def _output_of(self, run_id: str, piece: Piece | None, after: int | None
                   ) -> dict[str, Any]:
        """``output``'s answer from the stored run and what the engine holds live."""
        run = self._reader.get_run(run_id)
        doc: dict[str, Any] = {"run": run.id, "automation_id": run.automation_id,
                               "state": run.state}
        if piece is not None:
            doc.update(output=piece.text, position=piece.end, cut=piece.cut,
                       ended=piece.ended and run.state not in ACTIVE_STATES)
        else:   # (a follower that had a position and lost the stream learns it was cut)
            doc.update(output=run.output_tail or "", position=None,
                       cut=bool(run.output_tail) and after is not None,
                       ended=run.state not in ACTIVE_STATES)
        doc["transcript"] = ([m.to_dict() for m in self._reader.messages(run.session_id)]
                             if run.session_id else None)
        return doc

    async def attention(self, *, unread_only: bool = False) -> Stamped[list[AttentionItem]]:
        return await self._read(self._reader.attention, unread_only=unread_only)

    async def unread_counts(self) -> Stamped[dict[str, int]]:
        """Unread attention items by kind, every one counted."""
        return await self._read(self._reader.unread_counts)

    async def parked(self, automation_id: str | None = None) -> Stamped[list[Parked]]:
        def read() -> list[Parked]:
            if automation_id is not None:
                self._reader.get(automation_id)  # an unknown id is not_found, not "none"
            return self._reader.parked(automation_id)
        return await self._read(read)

    async def next_fires(self, automation_id: str, count: int = 5) -> Stamped[list[datetime]]:
        def read() -> list[datetime]:
            automation = self._reader.get(automation_id)
            d = automation.definition
            if d is None or automation.status != "active" or automation.next_fire_at is None:
                return []
            most = count
            if d.stop.max_runs is not None:  # the stop rules end it before its trigger does
                most = min(count, max(0, d.stop.max_runs - automation.counted_runs))
            fires: list[datetime] = []
            for fire in itertools.chain([automation.next_fire_at],
                                        iter_fires(d.trigger, automation.next_fire_at)):
                if len(fires) >= most or (d.stop.until is not None and fire >= d.stop.until):
                    break
                fires.append(fire)
            return fires
        return await self._read(read)

    async def upcoming(self, hours: float = 24) -> Stamped[Forecast]:
        """Every automatic fire in the next ``hours``, complete (see ``forecast``). Worked
        out off the loop from the records the engine holds (every automation, current: no
        second read and parse of the catalogue); before the engine holds any, from the
        database."""
        now = self.engine.clock.now()
        held = await self._held()

        def read() -> Forecast:
            every = self._reader.list() if held is None else held
            return forecast(every, now, now + timedelta(hours=hours))
        return await self._read(read)

    async def machines(self) -> Stamped[Machines | None]:
        """Where an automation may be bound to run, for the form's choice: this machine,
        and the others that run an engine now or are named by an automation. None on a
        file catalogue (one machine runs everything)."""
        fleet = self.engine.fleet

        def read() -> Machines | None:
            if not fleet.shared:
                return None
            from ..db.engine_hold import engines_running, live_machines, session_fetch
            named = {a.definition.runs_on for a in self._reader.list()
                     if a.definition is not None and a.definition.runs_on}
            with self._reader.db.read() as s:
                fetch = session_fetch(s)
                # (a connection's name keeps 63 characters: a longer machine name is found
                # by its lock only whole, so a shortened one is left out)
                shown = [name for name, _ in engines_running(fetch)]
                named |= live_machines(fetch, shown) if shown else set()
            return Machines(fleet.machine, tuple(sorted(named - {fleet.machine, ANY_MACHINE})))
        return await self._read(read)

    async def settings(self) -> Stamped[dict[str, str]]:
        """Every setting's stored text (or its default), the environment aside: what a
        settings form edits and ``set_setting`` changes."""
        def read() -> dict[str, str]:
            stored = self._reader.settings()
            return {key: stored.stored(key) for key in SPECS}
        return await self._read(read)

    async def export(self, ids: list[str] | None = None
                     ) -> Stamped[tuple[dict[str, Any], list[str]]]:
        """The export document of ``ids`` (all when None) and notes on what was left out."""
        from .. import transfer
        return await self._read(transfer.export_document, self._reader, ids,
                                now=self.engine.clock.now())

    async def history(self, automation_id: str
                      ) -> Stamped[tuple[list[queries.Revision], list[AuditEntry]]]:
        """Its revisions, each with what changed, and its audit trail."""
        return await self._read(queries.history, self._reader, automation_id)


class Subscription:
    """Notices for one channel client, in order. A client that stops reading loses its
    stream (the queue is bounded) rather than the engine's memory."""

    is_stream = True
    LIMIT = 1000

    def __init__(self, api: Api) -> None:
        self.stamp = api.stamp()
        self.queue: asyncio.Queue[Notice | None] = asyncio.Queue(self.LIMIT)
        self._unsubscribe = api.subscribe(self._put)

    def _put(self, notice: Notice) -> None:
        try:
            self.queue.put_nowait(notice)
        except asyncio.QueueFull:
            self._unsubscribe()
            self.queue = asyncio.Queue(1)
            self.queue.put_nowait(None)  # tells the server to end the stream

    def first(self) -> dict[str, Any]:
        return {"subscribed": True, **self.stamp.to_dict()}

    async def next(self) -> Notice | None:
        return await self.queue.get()

    def close(self) -> None:
        self._unsubscribe()
