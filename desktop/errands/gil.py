"""How long a thread holds the interpreter lock while others wait, in a process that hosts
an engine (the app, ``errands serve``).

Such a process has several busy threads: the engine's loop, the writer thread that commits
its writes, the provider thread that talks to the model and, in the app, the window's.
Python takes the lock from a thread only after another has waited the switch interval for
it, 5 ms by default, and a loop thread waits again after every system call it makes in a
turn. Under load the engine's loop then stalls for tens of milliseconds while the others
compute. Half a millisecond keeps each wait short at the cost of more switches (measured:
``bench/bench_agent.py`` goal 3, the longest stall of a loop with 50 agent runs stepping).

The window's thread suffers most: Qt calls into Python (a row's paint, a model's data) and
back out many times a frame, and each return into Python is another wait for the lock. While
the writer thread commits a 1,000-run burst, those waits added up to 80-130 ms frames at
half a millisecond; a tenth of a millisecond keeps them near 20-40 ms (``bench/bench_app.py``,
the burst stall). So a process with a window takes shorter turns still.
"""

from __future__ import annotations

import sys

SWITCH_S = 0.0005
WINDOW_SWITCH_S = 0.0001
_DEFAULT = sys.getswitchinterval()


def take_short_turns(*, window: bool = False) -> None:
    """``window``: this process also runs a Qt window on its main thread."""
    sys.setswitchinterval(WINDOW_SWITCH_S if window else SWITCH_S)


def restore() -> None:
    sys.setswitchinterval(_DEFAULT)
