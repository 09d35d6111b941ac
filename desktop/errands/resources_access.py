"""Finding shipped files the same way from a checkout, an editable install or a wheel."""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable


def resource(*parts: str) -> Traversable:
    """A file under the top-level ``resources/`` folder, e.g. ``resource("icons", "errands.svg")``."""
    return files("errands.resources").joinpath(*parts)
