"""Is the network there? Catch-ups of runners that need it wait for it, up to a bound."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Protocol

from .clock import Clock

log = logging.getLogger(__name__)


class NetworkProbe(Protocol):
    def reachable(self) -> bool: ...


class RouteProbe:
    """True when the machine has a default route (Linux ``/proc/net/route``); elsewhere,
    or when that cannot be read, it assumes the network is there rather than block runs."""

    def __init__(self, route_file: Path = Path("/proc/net/route")) -> None:
        self.route_file = route_file

    def reachable(self) -> bool:
        try:
            lines = self.route_file.read_text().splitlines()[1:]
        except OSError:
            return True
        return any(len(f := line.split()) > 1 and f[1] == "00000000" for line in lines)


async def wait_for_network(probe: NetworkProbe, clock: Clock, bound: float) -> bool:
    """Check with growing pauses (1 s, 2 s, … up to 30 s) until reachable or ``bound`` passes."""
    waited, pause = 0.0, 1.0
    while not probe.reachable():
        if waited >= bound:
            log.info("network still unreachable after %.0f s; running anyway", waited)
            return False
        step = min(pause, bound - waited)
        await clock.sleep(step)
        waited += step
        pause = min(pause * 2, 30.0)
    return True
