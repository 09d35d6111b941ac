"""Shared fixtures. Tests never touch the user's real data folder or environment."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for key in list(os.environ):
        if key.startswith("ERRANDS_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("ERRANDS_DATA_DIR", str(tmp_path / "default-data"))
    yield
