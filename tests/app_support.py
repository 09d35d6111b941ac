"""Driving the app in tests: a qasync loop over pytest-qt's QApplication, and waiting for
a condition from inside a coroutine (never ``qtbot.wait`` there: qasync refuses)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

T = TypeVar("T")


def run(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T], timeout: float = 30) -> T:
    """Run ``coro`` on the qasync loop (Qt events are processed meanwhile)."""
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


async def until(condition: Callable[[], object], timeout: float = 15,
                what: str | Callable[[], str] = "") -> None:
    """Wait for ``condition``; ``what`` (or a function giving it, asked at the timeout, so it
    can say what was seen instead) names it in the failure."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            said = what() if callable(what) else what
            raise AssertionError(f"timed out waiting for {said or condition}")
        await asyncio.sleep(0.02)


def command_doc(title: str, command: str, trigger: dict[str, Any] | None = None
                ) -> dict[str, Any]:
    return {"title": title, "runner": {"kind": "command", "command": command},
            "trigger": trigger or {"kind": "manual"},
            "policy": {"retry": {"max_attempts": 1}}}  # a failure is final at once


@pytest.fixture
def shell(qloop: Any, tmp_path: Path) -> Iterator[Any]:
    """The app shell offscreen over a real engine on the test's own data folder, its
    notifications recorded; closed after the test."""
    from errands.app.notifications import RecordingBackend
    from errands.app.shell import AppShell
    app = AppShell(tmp_path / "data", tray_available=True, notifications=RecordingBackend())
    run(qloop, app.start())
    try:
        yield app
    finally:
        run(qloop, app.idle())
        run(qloop, app.close())
        app.window.deleteLater()
