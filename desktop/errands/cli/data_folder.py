"""The data folder a command works on, with the error that names why it cannot be used.
Kept apart from the store so commands the engine answers stay light."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import InvalidInput
from ..paths import data_dir
from ..timeutil import shown


def _dir(args: argparse.Namespace) -> Path:
    try:
        return data_dir(getattr(args, "data_dir", None))
    except OSError as exc:
        raise _unusable(args, exc) from exc


def _unusable(args: argparse.Namespace, exc: OSError) -> InvalidInput:
    """The data folder named by --data-dir (or the environment) cannot be used."""
    explicit = getattr(args, "data_dir", None)
    return InvalidInput("--data-dir" if explicit else "ERRANDS_DATA_DIR",
                        f"cannot use {shown(str(exc.filename or explicit))}: {exc.strerror}",
                        "a folder Errands may create and write", "~/errands-data")
