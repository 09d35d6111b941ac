"""Desktop notifications for new attention items: plyer first, the tray's balloon when the
desktop has no notification service, grouped so that a burst is one message.

The engine decides what deserves attention (quiet by default; see its rules); this module
only decides how it reaches the user. The first item after a quiet spell is shown at once;
items that follow within :data:`GROUP_WINDOW` seconds are held and shown as one message
when the window ends ("5 automations need you"). :class:`RecordingBackend` is the test
double.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QObject, Signal

from ..records import AttentionItem
from . import words

log = logging.getLogger(__name__)
GROUP_WINDOW = 2.0  # seconds
APP_NAME = "Errands"


@dataclass(frozen=True)
class Message:
    title: str
    body: str
    items: tuple[AttentionItem, ...]  # what it is about (one, or the group)


class Backend(Protocol):
    def show(self, message: Message) -> None:
        """Show it, or raise (NotImplementedError, OSError, ...) when this way cannot."""


class PlyerBackend:
    """The desktop's own notifications, through plyer (D-Bus on Linux)."""

    def __init__(self, icon: str | None = None) -> None:
        self.icon = icon

    @staticmethod
    def usable() -> bool:
        """Whether plyer has a way here, asked without plyer (which warns and raises):
        on Linux it needs the ``dbus`` module or ``notify-send``."""
        if sys.platform.startswith("linux"):
            return (importlib.util.find_spec("dbus") is not None
                    or shutil.which("notify-send") is not None)
        return True

    def show(self, message: Message) -> None:
        from plyer import notification
        notification.notify(title=message.title, message=message.body, app_name=APP_NAME,
                            app_icon=self.icon or "", timeout=10)


class SignalBackend(QObject):
    """Hands the message to the GUI thread through :attr:`message`; connect it queued to the
    tray's balloon (``show`` is called on a worker thread)."""

    message = Signal(object)

    def show(self, message: Message) -> None:
        self.message.emit(message)


class RecordingBackend:
    """A test double: remembers what it was asked to show."""

    def __init__(self) -> None:
        self.shown: list[Message] = []

    def show(self, message: Message) -> None:
        self.shown.append(message)


class FallbackBackend:
    """Tries each backend in turn; one that failed once is not tried again."""

    def __init__(self, *backends: Backend) -> None:
        self.backends = list(backends)

    def show(self, message: Message) -> None:
        while self.backends:
            backend = self.backends[0]
            try:
                backend.show(message)
                return
            except Exception as exc:  # plyer raises NotImplementedError, dbus errors, ...
                if len(self.backends) == 1:
                    raise
                log.info("desktop notifications through %s are not available here (%s: %s); "
                         "using the next way", type(backend).__name__, type(exc).__name__, exc)
                self.backends.pop(0)


def compose(items: Sequence[AttentionItem]) -> Message:
    """One message for one item or a group."""
    if len(items) == 1:
        item = items[0]
        if item.request:   # what it asks, in words; where to decide, without a command
            return Message(words.request_sentence(item.request),
                           words.tr("It waits for your decision in Errands."), (item,))
        return Message(item.title, _body(item), (item,))
    automations = {i.automation_id for i in items}
    if len(automations) > 1:
        title = words.tr("%n automations need you", None, len(automations))
    else:
        title = words.tr("%1: %n new items", None, len(items)).replace(
            "%1", items[0].title.split(":")[0])
    lines = [f"• {i.title}" for i in items[:3]]
    if len(items) > 3:
        lines.append(words.tr("… and %n more", None, len(items) - 3))
    return Message(title, "\n".join(lines), tuple(items))


def _body(item: AttentionItem) -> str:
    body = (item.body or "").strip()
    if len(body) > 300:
        body = body[:299] + "…"
    return body or {"failure": words.tr("It failed."),
                    "awaiting_input": words.tr("It waits for your decision."),
                    "result": words.tr("It finished.")}.get(item.kind, "")


def _app_loop() -> asyncio.AbstractEventLoop | None:
    """The app's loop, also where Qt steps its callbacks outside the loop's own run (a
    nested event loop, a test driving Qt), where none counts as running."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        pass
    try:
        loop = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        return None
    return None if loop.is_closed() else loop


class Notifier(QObject):
    """New attention items in, grouped desktop notifications out.

    ``offer`` takes the unread items the adapter fetched after an attention notice; items
    seen before (``baseline``, or an earlier offer) are ignored, so a snapshot that arrives
    twice notifies once. The backend runs on a worker thread (a D-Bus call may take a while).
    """

    shown = Signal(object)  # Message, after it was handed to the backend

    def __init__(self, backend: Backend, *, window: float = GROUP_WINDOW,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.window = window
        self._seen = 0              # the highest item id already handled
        self._held: list[AttentionItem] = []
        self._quiet_until = 0.0     # loop time until which new items are held
        self._flush: asyncio.TimerHandle | None = None
        self._sending: set[asyncio.Task[None]] = set()

    def baseline(self, items: Sequence[AttentionItem]) -> None:
        """Items that existed before the app opened: no notification for them."""
        self._seen = max([self._seen, *(i.id for i in items)])

    def offer(self, items: Sequence[AttentionItem]) -> None:
        new = sorted((i for i in items if i.id > self._seen and not i.read), key=lambda i: i.id)
        if not new:
            return
        self._seen = new[-1].id
        loop = _app_loop()
        if loop is None:  # the app's loop has closed: nobody is there to see a notification
            return
        now = loop.time()
        if now >= self._quiet_until and not self._held:
            self._send(compose(new[:1]), loop)
            new = new[1:]
            self._quiet_until = now + self.window
        self._held.extend(new)
        if self._held and self._flush is None:
            self._flush = loop.call_at(max(self._quiet_until, now), self._release, loop)

    def _release(self, loop: asyncio.AbstractEventLoop) -> None:
        self._flush = None
        held, self._held = self._held, []
        if held:
            self._send(compose(held), loop)
            self._quiet_until = loop.time() + self.window

    def _send(self, message: Message, loop: asyncio.AbstractEventLoop) -> None:
        # The loop is passed along, not looked up: Qt may step this task outside the loop's
        # own run (a nested event loop, a test driving Qt), where none counts as running.
        async def go() -> None:
            try:
                await loop.run_in_executor(None, self.backend.show, message)
            except Exception as exc:
                log.info("could not show a notification: %s: %s", type(exc).__name__, exc)
                return
            self.shown.emit(message)
        task = asyncio.ensure_future(go(), loop=loop)
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def close(self) -> None:
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        if self._sending:
            await asyncio.gather(*list(self._sending), return_exceptions=True)
