"""How long a thread holds the interpreter lock while others wait, in a process that hosts
an engine (the app, ``errands serve``).

Such a process has several busy threads: the engine's loop, the writer thread that commits
its writes, the provider thread that talks to the model and, in the app, the window's.
Python takes the lock from a thread only after another has waited the switch interval for
it, 5 ms by default, and a loop thread waits again after every system call it makes in a
turn. Under load the engine's loop then stalls for tens of milliseconds while the others
compute. Half a millisecond keeps each wait short at the cost of more switches (measured:
``bench/bench_agent.py`` goal 3, the longest stall of a loop with 50 agent runs stepping).
"""

from __future__ import annotations

import sys

SWITCH_S = 0.0005
_DEFAULT = sys.getswitchinterval()


def take_short_turns() -> None:
    sys.setswitchinterval(SWITCH_S)


def restore() -> None:
    sys.setswitchinterval(_DEFAULT)
