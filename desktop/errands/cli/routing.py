"""Where a CLI command that changes something goes.

While an engine runs it is the only writer, so the command is sent to it over the control
channel and takes effect at once. With no engine, the CLI writes the store itself while
holding the data-directory lock, so an engine starting meanwhile waits for it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Callable

from ..channel import EngineUnreachable, request_sync
from ..errors import Conflict
from ..engine.lock import DataDirLock, read_owner

ATTEMPTS = 50


def engine_address(data_dir: Path) -> str | None:
    owner = read_owner(data_dir)
    if owner is not None and owner.role == "engine":
        return owner.address
    return None


def _serving_elsewhere(data_dir: Path) -> tuple[Any, str] | None:
    """On a shared catalogue another machine's engine serves: (the catalogue, its machine).
    A change is then made by that engine (``remote_requests``): this machine's store would
    change what it holds in memory behind its back."""
    from ..db.location import ServerDatabase, database_location
    where = database_location(data_dir)
    if not isinstance(where, ServerDatabase):
        return None
    from ..db.postgres import engine_holder
    holder = engine_holder(where)
    return None if holder is None else (where, holder)


def secrets_stay_here(data_dir: Path, what: str) -> None:
    """A secret is kept in this machine's keyring, for this machine's engine: on a shared
    catalogue another machine serves, that engine could never read it. Refused, saying
    where to keep it instead, unless this data folder's own engine runs (it reads this
    keyring for what it runs); then, when another machine's engine runs what may run
    anywhere, a note says that one reads its own keyring."""
    remote = _serving_elsewhere(data_dir)
    if remote is None:
        return
    from ..db.location import machine_name
    if engine_address(data_dir) is None:
        raise Conflict("engine_elsewhere", f"{what} is kept in the keyring of the machine "
                       f"whose engine uses it, and the engine on {remote[1]} serves the "
                       f"catalogue {remote[0]}: run this command on {remote[1]}")
    if remote[1] != machine_name():
        print(f"note: {what} is kept in this computer's keyring, for what its engine runs; "
              f"automations that may run on any computer are run by the engine on "
              f"{remote[1]}, which reads its own: set it there too if they need it",
              file=sys.stderr)


def perform(data_dir: Path, op: str, op_args: dict[str, Any], local: Callable[[], Any], *,
            timeout: float | None = 30.0, local_takes_lock: bool = False) -> Any:
    """Ask the running engine, or run ``local`` under the lock when none runs.

    ``local_takes_lock``: ``local`` takes the lock itself (it hosts an engine for a moment).
    """
    for _ in range(ATTEMPTS):
        address = engine_address(data_dir)
        if address:
            try:
                return request_sync(address, op, op_args, timeout=timeout, data_dir=data_dir)
            except Conflict as exc:
                if exc.code != "engine_stopping":
                    raise
                time.sleep(0.1)  # refused unread by an engine on its way out: ask again
                continue
            except EngineUnreachable as exc:
                if getattr(exc, "reason", "refused") != "refused":
                    raise  # it may have acted: repeating could create or run twice
                time.sleep(0.1)  # starting or stopping: look again
                continue
        remote = _serving_elsewhere(data_dir)
        if remote is not None:
            from ..remote_requests import ask
            try:
                return ask(remote[0], op, op_args, timeout=timeout, serving=remote[1])
            except Conflict as exc:
                if exc.code != "engine_stopping":
                    raise
                time.sleep(0.1)
                continue
        if local_takes_lock:
            try:
                return local()
            except Conflict as exc:  # another command took the folder a moment ago: it
                if exc.code != "engine_running":  # hosts an engine that answers: ask it
                    raise
                time.sleep(0.1)
                continue
        lock = DataDirLock(data_dir, "cli")
        if lock.try_acquire():
            try:
                return local()
            finally:
                lock.release()
        time.sleep(0.1)  # another CLI is writing, or an engine is starting
    raise EngineUnreachable(f"the engine that owns {data_dir} does not answer; "
                            "try again, or check 'errands serve'")
