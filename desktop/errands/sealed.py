"""The API key given in the environment, taken out of the environment at start.

``ERRANDS_API_KEY`` in a process's environment can be read by every program that process
starts (they inherit it) and, on Linux, through ``/proc/<pid>/environ`` by any program of the
same user. So the first thing ``errands`` does, when the variable is set, is keep the value
in memory only: it overwrites the value in the environment block the kernel shows (the
original strings, which removing the variable alone leaves in place), removes the variable,
and on Linux marks the process not dumpable (its ``/proc`` files then belong to root).
Standard library only: it runs before anything else is imported.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

ENV_VAR = "ERRANDS_API_KEY"
PR_SET_DUMPABLE = 4

_value: str | None = None
_sealed = False


def seal() -> None:
    """Keep ``ERRANDS_API_KEY`` in memory only (see the module text). Idempotent."""
    global _value, _sealed
    if _sealed:
        return
    _sealed = True
    value = os.environ.get(ENV_VAR)
    _value = value.strip() if value is not None and value.strip() else None
    if value is None:
        return
    if os.name == "posix":
        try:
            _wipe(ENV_VAR.encode())
        except (OSError, AttributeError, ValueError):
            pass  # no libc to reach (a static build): removing the variable still helps
    os.environ.pop(ENV_VAR, None)
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        except (OSError, AttributeError):
            pass


def _wipe(name: bytes) -> None:
    """Overwrite the value of ``name`` in the C ``environ`` strings with NUL bytes."""
    libc = ctypes.CDLL(None)
    environ = ctypes.POINTER(ctypes.c_void_p).in_dll(libc, "environ")
    prefix = name + b"="
    i = 0
    while environ[i]:
        address = environ[i]
        entry = ctypes.string_at(address)
        if entry.startswith(prefix):
            ctypes.memset(address + len(prefix), 0, len(entry) - len(prefix))
        i += 1


def environment_key() -> str | None:
    """The key the environment gave (sealed away at start, or read now if not sealed)."""
    if _sealed:
        return _value
    value = os.environ.get(ENV_VAR, "").strip()
    return value or None
