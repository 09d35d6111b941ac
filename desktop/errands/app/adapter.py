"""The one way the UI reaches the engine: the :class:`~errands.engine.api.Api` facade with
its notices turned into Qt signals, and snapshots that apply only while still the newest.

In the spirit of Anki's operations: a view asks for a snapshot (``await
adapter.summaries(key=...)``), applies it unless a newer request for the same key was made
meanwhile (then the answer is ``None``), and refreshes only what a notice names. Queries run
on the facade's reader threads and commands on the engine's loop, so awaiting them never
blocks this loop. Commands started with :meth:`Adapter.submit` report refusals through
:attr:`Adapter.failed` instead of raising into Qt.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal

from ..engine.api import Api, Stamped
from ..engine.notices import Notice, Stamp
from ..errors import ErrandsError
from ..records import AttentionItem, Parked, Run
from .tasks import Tasks

log = logging.getLogger(__name__)
T = TypeVar("T")

# Attention kinds that make the tray ask for the user (parked runs count on their own).
NEEDS_YOU_KINDS = frozenset({"failure", "failure_streak", "auto_paused", "expired",
                             "unattended"})


class Adapter(QObject):
    """Engine notices as Qt signals, and snapshot queries that know when they are stale."""

    notice = Signal(object)                # every Notice as it is (for a view that needs it)
    automations_changed = Signal(object)   # set[str]: automations created or changed
    automations_deleted = Signal(object)   # set[str]
    runs_changed = Signal(object)          # dict[str, str]: run id -> its latest state
    attention_changed = Signal()           # an attention item was raised or read
    parked_changed = Signal()              # a run parked, or a parked run got its decision
    settings_changed = Signal()
    engine_state = Signal(str)             # "running", "stopping", "stopped", ...
    running_count = Signal(int)            # runs going right now
    failed = Signal(str, str)              # what was asked, the engine's refusal in words

    def __init__(self, api: Api | None, parent: QObject | None = None, *,
                 data_dir: Path | None = None) -> None:
        """``api`` may come later (:meth:`bind`, with ``data_dir`` known now): the window is
        built, and shows what is stored, before the engine has started. Until then
        :attr:`api` is a stand-in whose queries and commands wait for the engine."""
        super().__init__(parent)
        self._bound = asyncio.Event()
        self._abandoned: ErrandsError | None = None
        if api is None:
            self.api: Api = _Starting(self, data_dir)  # type: ignore[assignment]
        else:
            self.api = api
            self._bound.set()
        self.stamp: Stamp = api.stamp() if api is not None else Stamp("", 0)
        self.running: set[str] = set()
        self._unsubscribe: Callable[[], None] | None = None
        self._latest: dict[Hashable, object] = {}
        self.tasks = Tasks("a window command")
        try:  # made on the app's loop (tests), or before it runs (the app: bind() sets it)
            self.tasks.loop = asyncio.get_running_loop()
        except RuntimeError:
            pass

    # ------------------------------------------------------------------ notices

    def bind(self, api: Api, loop: asyncio.AbstractEventLoop) -> None:
        """The engine's facade, once it runs, and the loop commands run on."""
        self.api = api
        self.stamp = api.stamp()
        self.tasks.loop = loop
        self._bound.set()

    @property
    def bound(self) -> bool:
        """Whether the engine runs (until then :attr:`api` is a stand-in that waits)."""
        return self._bound.is_set()

    async def ready(self) -> None:
        """Wait until the engine runs (:meth:`bind`); raises if it will not (:meth:`abandon`)."""
        await self._bound.wait()
        if self._abandoned is not None:
            raise self._abandoned

    def abandon(self, why: str) -> None:
        """The engine will not run (it failed to start, or the app quits first): what waits
        for it is refused with ``why`` instead of waiting for ever."""
        if not self._bound.is_set():
            self._abandoned = ErrandsError(why)
            self._bound.set()

    def attach(self) -> None:
        """Start hearing the engine (on the running loop: notices arrive on it)."""
        if self._unsubscribe is None:
            self._unsubscribe = self.api.subscribe(self._on_notice)

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _on_notice(self, notice: Notice) -> None:
        if self._unsubscribe is None:  # delivered after detach(): nobody listens any more
            return
        if notice.stamp.newer_than(self.stamp):
            self.stamp = notice.stamp
        self.notice.emit(notice)
        if notice.automations:
            self.automations_changed.emit(set(notice.automations))
        if notice.deleted:
            self.automations_deleted.emit(set(notice.deleted))
        if notice.run_states:
            self.runs_changed.emit(dict(notice.run_states))
            before = len(self.running)
            for run_id, state in notice.run_states.items():
                if state == "running":
                    self.running.add(run_id)
                elif state:  # "" is a transcript change: the run's state did not change
                    self.running.discard(run_id)
            if len(self.running) != before:
                self.running_count.emit(len(self.running))
        if notice.attention:
            self.attention_changed.emit()
        if notice.parked:
            self.parked_changed.emit()
        if notice.settings:
            self.settings_changed.emit()
        if notice.engine_state:
            self.engine_state.emit(notice.engine_state)

    # ---------------------------------------------------------------- snapshots

    async def latest(self, key: Hashable,
                     ask: Callable[[], Awaitable[Stamped[T]]]) -> Stamped[T] | None:
        """``ask()``'s answer, or None when another request under ``key`` was made while it
        was on its way (that one's answer is the one to show). A refusal raises."""
        token = object()
        self._latest[key] = token
        try:
            answer = await ask()
        finally:
            superseded = self._latest.get(key) is not token
            if not superseded:
                del self._latest[key]
        return None if superseded else answer

    async def summaries(self, *, key: Hashable = "summaries", **query: Any
                        ) -> Stamped[tuple[list[Any], int]] | None:
        """Sidebar rows (text, status, sort, offset, limit as :meth:`Api.summaries`)."""
        return await self.latest(key, lambda: self.api.summaries(**query))

    async def runs(self, automation_id: str, *, key: Hashable = "runs", limit: int = 50,
                   cursor: str | None = None) -> Stamped[tuple[list[Run], str | None]] | None:
        return await self.latest(key, lambda: self.api.runs(automation_id, limit=limit,
                                                            cursor=cursor))

    async def attention(self, *, key: Hashable = "attention", unread_only: bool = False
                        ) -> Stamped[list[AttentionItem]] | None:
        return await self.latest(key, lambda: self.api.attention(unread_only=unread_only))

    async def parked(self, automation_id: str | None = None, *, key: Hashable = "parked"
                     ) -> Stamped[list[Parked]] | None:
        return await self.latest(key, lambda: self.api.parked(automation_id))

    async def needs_you(self, *, key: Hashable = "needs_you") -> int | None:
        """How many things wait for the user: parked runs and unread failures."""
        async def ask() -> Stamped[int]:
            parked, counts = await asyncio.gather(self.api.parked(), self.api.unread_counts())
            failures = sum(n for kind, n in counts.value.items() if kind in NEEDS_YOU_KINDS)
            return Stamped(parked.stamp, len(parked.value) + failures)
        answer = await self.latest(key, ask)
        return None if answer is None else answer.value

    # ----------------------------------------------------------------- commands

    def submit(self, what: str, command: Awaitable[T],
               done: Callable[[T], None] | None = None) -> asyncio.Task[Any]:
        """Run a command in the background; a refusal is reported on :attr:`failed`."""
        async def go() -> None:
            try:
                value = await command
            except ErrandsError as exc:
                self.failed.emit(what, str(exc))
                return
            if done is not None:
                done(value)
        return self.tasks.spawn(go())  # type: ignore[return-value]

    async def set_all_paused(self, paused: bool) -> int:
        """Pause every active automation (or resume every paused one); how many changed."""
        answer = await self.api.summaries(status="paused" if not paused else "active")
        rows, _total = answer.value
        changed = 0
        for row in rows:
            try:
                if paused:
                    await self.api.pause(row.id)
                else:
                    await self.api.resume(row.id)
                changed += 1
            except ErrandsError as exc:  # deleted or changed meanwhile: the rest still go
                self.failed.emit(self.tr("Pause all") if paused else self.tr("Resume all"),
                                 str(exc))
        return changed

    async def drain(self) -> None:
        """Wait for the commands in flight (on quit)."""
        await self.tasks.idle()


class _Starting:
    """The facade's stand-in while the engine starts: a query or command asked of it waits
    until the engine runs, then goes to it (a click on a row of the first list opens it a
    moment later instead of failing)."""

    def __init__(self, adapter: "Adapter", data_dir: Path | None) -> None:
        self._adapter = adapter
        self.data_dir = data_dir

    def __getattr__(self, name: str) -> Any:
        if not inspect.iscoroutinefunction(getattr(Api, name, None)):
            raise AttributeError(f"{name!r} is not available before the engine runs")

        async def waiting(*args: Any, **kwargs: Any) -> Any:
            await self._adapter.ready()
            return await getattr(self._adapter.api, name)(*args, **kwargs)
        return waiting
