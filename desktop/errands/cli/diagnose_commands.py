"""``errands doctor`` and ``errands autostart``."""

from __future__ import annotations

from typing import Any


def register(cmd: Any) -> None:
    pass
