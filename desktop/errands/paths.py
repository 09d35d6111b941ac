"""Where Errands keeps its data: ``--data-dir``, then ``ERRANDS_DATA_DIR``, then platformdirs."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_path


def data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    if explicit:
        path = Path(explicit)
    elif os.environ.get("ERRANDS_DATA_DIR"):
        path = Path(os.environ["ERRANDS_DATA_DIR"])
    else:
        path = user_data_path("errands", appauthor=False)
    path = path.expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def database_path(root: Path) -> Path:
    return root / "errands.sqlite3"


def workspace_path(root: Path, automation_id: str) -> Path:
    """The default folder a run works in when the definition names none."""
    return root / "workspaces" / automation_id


def run_log_path(root: Path, automation_id: str, run_id: str) -> Path:
    return root / "logs" / "runs" / automation_id / f"{run_id}.log"
