"""Shared by the channel tests: a hosted engine, no error logged by any logger, and a
watch on the change notices of an engine in another process."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from errands.engine.control import ControlConnection
from errands.engine.lock import read_owner
from errands.engine.service import EngineHost

T = TypeVar("T")


@pytest.fixture(autouse=True)
def no_error_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Any logger counts here, asyncio's included (it logs a task that died of an error)."""
    yield
    records = caplog.get_records("setup") + caplog.get_records("call") + caplog.records
    errors = [f"{r.name}: {r.getMessage()}" for r in records if r.levelno >= logging.ERROR]
    assert errors == []


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[EngineHost]:
    engine_host = EngineHost(tmp_path / "data")
    await engine_host.start()
    try:
        yield engine_host
    finally:
        await engine_host.close()


class NoticeWatch:
    """The change notices of an engine running in another process, read on a thread of
    their own so that a synchronous test can wait on real conditions instead of sleeping.

    ``until(predicate)`` evaluates the predicate now and again after each notice (a change
    committed by the engine), until it holds or the deadline passes. The predicate usually
    reads the store or a file the run wrote: a notice only says that something changed, and
    one subscribed late has missed what came before, so the state is what is judged.
    """

    def __init__(self, data_dir: Path, *, timeout: float = 30.0) -> None:
        owner = read_owner(data_dir)
        assert owner is not None and owner.address, f"no engine listening on {data_dir}: {owner}"
        self.data_dir = data_dir
        self.address = owner.address
        self.received: list[dict[str, Any]] = []
        self.ended = False
        self.error: BaseException | None = None
        self._changed = threading.Condition()
        self._subscribed = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._task = self._loop.create_task(self._read())
        self._thread = threading.Thread(target=self._run, name="notice-watch", daemon=True)
        self._thread.start()
        if not self._subscribed.wait(timeout) or self.error is not None:
            self.close()
            raise AssertionError(f"could not subscribe to {self.address}: {self.error!r}")

    def _run(self) -> None:
        try:
            self._loop.run_until_complete(self._task)
        except asyncio.CancelledError:
            pass
        finally:
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()

    async def _read(self) -> None:
        try:
            connection = await ControlConnection.open(self.address, data_dir=self.data_dir)
            try:
                await connection.call("subscribe")
                self._subscribed.set()
                async for notice in connection.notices():
                    with self._changed:
                        self.received.append(notice)
                        self._changed.notify_all()
            finally:
                await connection.aclose()
        except Exception as exc:  # reported by until(), or by the constructor
            self.error = exc
        finally:
            with self._changed:
                self.ended = True
                self._changed.notify_all()
            self._subscribed.set()

    def until(self, predicate: Callable[[], T], what: str, timeout: float = 30.0) -> T:
        """The first truthy value of ``predicate()``, evaluated now and after each notice."""
        deadline = time.monotonic() + timeout
        while True:
            with self._changed:
                seen = len(self.received)
            value = predicate()  # a notice arriving meanwhile makes it run again
            if value:
                return value
            with self._changed:
                while len(self.received) == seen and not self.ended:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise AssertionError(f"not within {timeout:g} s: {what} "
                                             f"({len(self.received)} notices received)")
                    self._changed.wait(left)
                if len(self.received) == seen:  # ended, with nothing new to judge
                    raise AssertionError(f"the engine's notices ended before {what} "
                                         f"({self.error!r})")

    def close(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._task.cancel)
            self._thread.join(10)

    def __enter__(self) -> "NoticeWatch":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
