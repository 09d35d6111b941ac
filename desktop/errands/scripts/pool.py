"""The engine's side of the script workers: a few long-lived processes
(:mod:`.worker`), one job each at a time, each job with a hard deadline.

Nothing here blocks the loop: requests and answers go over pipes with asyncio. A job that
overruns its deadline (its time limit plus a grace for the interrupt to land) has its worker
killed, and is answered as a timeout; a worker that dies answers its job as a crash. Either
way the next job gets a fresh worker. Workers start on first use (or ``warm_up``) and stop
with the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import sys
from typing import Any

log = logging.getLogger(__name__)
GRACE = 2.0          # seconds past a job's time limit before its worker is killed
START_GRACE = 20.0   # how long a new worker may take to say it is ready (a cold disk)
ANSWER_LIMIT = 64 * 1024 * 1024
WORKER_ARG = "__script_worker__"  # the bundle's hidden argument (packaging/entry.py)
_ENV_KEYS = ("PATH", "PYTHONPATH", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP", "LANG", "LC_ALL",
             "HOME", "USERPROFILE")


def worker_command() -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable, WORKER_ARG]
    return [sys.executable, "-m", "errands.scripts.worker"]


class _Worker:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.dead = False

    @property
    def alive(self) -> bool:
        return not self.dead and self.process.returncode is None

    async def end(self) -> None:
        """Kill it and wait until it is gone; it takes no job again."""
        self.dead = True
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        await self.process.wait()


class Pool:
    """At most ``size`` workers; jobs beyond wait their turn (in order)."""

    def __init__(self, size: int | None = None) -> None:
        self.size = size or max(1, min(2, os.cpu_count() or 1))
        self._idle: asyncio.Queue[_Worker | None] | None = None
        self._all: set[_Worker] = set()
        self._ids = itertools.count(1)
        self._closed = False

    def _queue(self) -> asyncio.Queue[_Worker | None]:
        if self._idle is None:
            self._idle = asyncio.Queue()
            for _ in range(self.size):
                self._idle.put_nowait(None)  # a place for a worker, started when first needed
        return self._idle

    async def _start(self) -> _Worker:
        """A new worker, once it has said it is ready (raises OSError when it does not)."""
        env = {k: v for k, v in os.environ.items() if k in _ENV_KEYS}
        env["TZ"] = "UTC"   # (a Date's local time is the same on every machine)
        process = await asyncio.create_subprocess_exec(
            *worker_command(), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, env=env, limit=ANSWER_LIMIT,
            start_new_session=sys.platform != "win32")
        worker = _Worker(process)
        self._all.add(worker)
        assert process.stdout is not None
        try:
            ready = await asyncio.wait_for(process.stdout.readline(), START_GRACE)
        except asyncio.TimeoutError:
            ready = b""
        if ready.strip() != b'{"ready":true}':
            await worker.end()
            self._all.discard(worker)
            raise OSError("the script sandbox did not start")
        return worker

    def warm_up(self) -> None:
        """Start the workers now, so the first run does not wait for one."""
        async def start() -> None:
            queue = self._queue()
            for _ in range(queue.qsize()):
                slot = queue.get_nowait()
                if slot is None and not self._closed:
                    try:
                        slot = await self._start()
                    except OSError as exc:
                        log.warning("could not start a script worker: %s", exc)
                queue.put_nowait(slot)
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().create_task(start())

    async def call(self, request: dict[str, Any], time_limit: float) -> dict[str, Any]:
        """One job's answer; never raises for what the job or its worker did."""
        if self._closed:
            return {"status": "failed", "error": "Errands is quitting"}
        queue = self._queue()
        worker = await queue.get()
        try:
            if worker is None or not worker.alive:
                try:
                    worker = await self._start()
                except OSError as exc:
                    worker = None
                    return {"status": "failed", "error": str(exc)}
            try:
                data = json.dumps({**request, "id": next(self._ids)},
                                  ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"
            except (ValueError, RecursionError) as exc:
                return {"status": "failed", "error": f"its event could not be handed over: "
                                                     f"{exc}"}
            assert worker.process.stdin is not None and worker.process.stdout is not None
            try:
                worker.process.stdin.write(data)
                await worker.process.stdin.drain()
                line = await asyncio.wait_for(worker.process.stdout.readline(),
                                              time_limit + GRACE)
            except asyncio.TimeoutError:
                await worker.end()
                return {"status": "timeout", "limit_hit": "execution_time",
                        "error": "did not stop at its time limit (inside one long native "
                                 "call): its sandbox process was killed"}
            except (OSError, ValueError, asyncio.LimitOverrunError) as exc:
                await worker.end()
                return {"status": "failed", "error": f"the sandbox process failed: {exc}"}
            if not line:
                await worker.end()
                return {"status": "failed", "error": "the sandbox process crashed (exit "
                                                     f"{worker.process.returncode})"}
            try:
                answer = json.loads(line)
            except (ValueError, RecursionError):
                await worker.end()
                return {"status": "failed", "error": "the sandbox process answered garbage"}
            return answer if isinstance(answer, dict) else {"status": "failed",
                                                            "error": "a bad answer"}
        except asyncio.CancelledError:
            if worker is not None:
                worker.dead = True   # the job may still be running: this worker is done
                with contextlib.suppress(ProcessLookupError):
                    worker.process.kill()
            raise
        finally:
            if worker is not None and not worker.alive:
                with contextlib.suppress(ProcessLookupError):
                    worker.process.kill()
                self._all.discard(worker)
                worker = None
            queue.put_nowait(worker)

    async def aclose(self) -> None:
        self._closed = True
        for worker in list(self._all):
            if worker.process.stdin is not None:
                with contextlib.suppress(OSError, RuntimeError):
                    worker.process.stdin.close()
        for worker in list(self._all):
            try:
                await asyncio.wait_for(worker.process.wait(), 2)
            except asyncio.TimeoutError:
                await worker.end()
        self._all.clear()
