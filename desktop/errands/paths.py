"""Where Errands keeps its data: ``--data-dir``, then ``ERRANDS_DATA_DIR``, then platformdirs.

The data folder holds prompts, commands, results and logs, so it is private: folders
Errands creates are 0700 and the database and logs 0600, whatever the umask; an existing
data folder of ours that others may enter is tightened when a command or the engine opens it.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from platformdirs import user_data_path

from .errors import StoreError

log = logging.getLogger(__name__)

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def default_data_dir() -> Path:
    """The user data folder Errands uses when nothing names another one."""
    return user_data_path("errands", appauthor=False).expanduser().resolve()


def data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    if explicit:
        path = Path(explicit)
    elif os.environ.get("ERRANDS_DATA_DIR"):
        path = Path(os.environ["ERRANDS_DATA_DIR"])
    else:
        path = user_data_path("errands", appauthor=False)
    path = path.expanduser().resolve()
    _open_data_dir(path)
    return path


def _open_data_dir(path: Path) -> None:
    """Create the folder (0700) or check the existing one; tighten it and the folders
    Errands makes inside it. Every problem names the path and what is wrong."""
    try:
        private_dir(path)
    except FileExistsError as exc:
        raise StoreError("store_unusable", f"{exc.filename} is a file, not a folder, but Errands "
                         f"keeps its data in the folder {path}: move the file aside or choose "
                         "another --data-dir.") from exc
    except OSError as exc:
        raise StoreError("store_unusable", f"cannot create the data folder {path}: "
                         f"{exc.strerror or exc}; choose another --data-dir.") from exc
    if not os.access(path, os.W_OK | os.X_OK):
        raise StoreError("store_unusable", f"the data folder {path} is not writable by you; "
                         "fix its permissions or choose another --data-dir.")
    tighten(path, path.stat(), PRIVATE_DIR)
    for name in ("logs", "workspaces", "worktrees"):
        inner = path / name
        try:
            inner_info = inner.stat()
        except OSError:
            continue
        if stat.S_ISDIR(inner_info.st_mode):
            tighten(inner, inner_info, PRIVATE_DIR)


def private_dir(path: Path) -> None:
    """``path`` and its missing parents, each created 0700 whatever the umask (``mkdir``'s
    mode is masked by it, and ``parents=True`` ignores the mode for parents)."""
    missing = []
    probe = path
    while not probe.is_dir():
        if probe.exists() or probe.is_symlink():
            if probe.is_dir():  # made a moment ago by another thread or process: fine
                break
            raise FileExistsError(17, "File exists", str(probe))
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, PRIVATE_DIR)
        except FileExistsError:
            if not folder.is_dir():
                raise
            continue  # made meanwhile by another process
        if os.name == "posix":
            os.chmod(folder, PRIVATE_DIR)


def tighten(path: Path, info: os.stat_result, mode: int) -> None:
    """Give ``path`` exactly ``mode`` if it is wider and ours; say why not if it is not ours."""
    if os.name != "posix" or stat.S_IMODE(info.st_mode) & ~mode == 0:
        return
    if info.st_uid != os.geteuid():
        log.warning("%s can be read by others (mode %o) but belongs to another user, so "
                    "Errands leaves its mode alone", path, stat.S_IMODE(info.st_mode))
        return
    try:
        os.chmod(path, mode)
    except OSError as exc:
        log.warning("could not restrict %s to mode %o: %s", path, mode, exc.strerror or exc)


def database_path(root: Path) -> Path:
    return root / "errands.sqlite3"


def workspace_path(root: Path, automation_id: str) -> Path:
    """The default folder a run works in when the definition names none."""
    return root / "workspaces" / automation_id


def worktrees_path(root: Path) -> Path:
    """Where the git worktrees of runs with ``worktree: true`` are made, one folder per
    automation: ``worktrees/<automation id>/<run index>``."""
    return root / "worktrees"


def run_log_path(root: Path, automation_id: str, run_id: str) -> Path:
    return root / "logs" / "runs" / automation_id / f"{run_id}.log"
