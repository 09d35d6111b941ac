"""Fixtures shared by the channel tests: a hosted engine, and no error logged by any logger."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from errands.engine.service import EngineHost


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
