"""Benchmark: script automations (issue 30).

Run from the repository root (no install needed):

    .venv/bin/python bench/bench_scripts.py [--only runtime|pool|burst]

* **runtime**: inside one process, as the sandbox worker does it: a fresh QuickJS runtime
  with the prelude (no clock, no randomness, the context object) 500 times, and a trivial
  run (a runtime, the script compiled as a module, its default export called, one action
  proposed) 500 times. Goal: each under 10 ms at p99.
* **pool**: the engine's side: 500 trivial jobs one after another through a worker process
  (the pipe there and back, the JSON, the runtime). Reported as p50/p99.
* **burst**: 100 script automations on a real engine and SQLite file, each run by hand at
  the same moment; each proposes a file write and a notice, checked and applied. Reported:
  the time until all 100 had ended, and the longest stall of the engine's loop meanwhile
  (goal: under 20 ms).

Each phase runs in a fresh interpreter. Prints the figures and PASS/FAIL per goal; always
exits 0."""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (clean_environment, percentile, report, run_phase,  # noqa: E402
                     temp_data_dir, verdict)

ROUNDS = 500
BURST = 100
START_GOAL_MS = RUN_GOAL_MS = 10.0
STALL_GOAL_MS = 20.0
LIMITS = {"time_ms": 100, "heap_mb": 16, "actions": 50, "reads": 20, "rows": 200}
TRIVIAL = "export default function ({ event, actions }) { actions.notify('at ' + event.at) }"


async def runtime() -> dict[str, Any]:
    from errands.scripts import sandbox
    job = {"op": "run", "source": TRIVIAL, "limits": LIMITS,
           "event": {"type": "manual", "at": "2026-12-05T09:00:00Z"}}
    sandbox.run(job)  # (the first loads the library)
    starts, runs = [], []
    for _ in range(ROUNDS):
        began = time.perf_counter()
        sandbox._runtime(job, sandbox.Host(job))
        starts.append((time.perf_counter() - began) * 1000)
    for _ in range(ROUNDS):
        began = time.perf_counter()
        answer = sandbox.run(job)
        runs.append((time.perf_counter() - began) * 1000)
        assert answer["status"] == "ok" and len(answer["actions"]) == 1
    return {"start_p50": percentile(starts, 50), "start_p99": percentile(starts, 99),
            "run_p50": percentile(runs, 50), "run_p99": percentile(runs, 99)}


async def pool() -> dict[str, Any]:
    from errands.scripts.pool import Pool
    p = Pool(1)
    job = {"op": "run", "source": TRIVIAL, "limits": LIMITS, "event": {"at": "x"}}
    await p.call(job, 0.1)   # (the worker starts)
    times = []
    for _ in range(ROUNDS):
        began = time.perf_counter()
        answer = await p.call(job, 0.1)
        times.append((time.perf_counter() - began) * 1000)
        assert answer["status"] == "ok"
    await p.aclose()
    return {"p50": percentile(times, 50), "p99": percentile(times, 99)}


class Ticker:
    def __init__(self) -> None:
        self.worst = 0.0

    async def tick(self) -> None:
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(0.005)
            self.worst = max(self.worst, time.perf_counter() - asked - 0.005)


async def burst() -> dict[str, Any]:
    from errands.engine.core import Engine
    from errands.runners.script import ScriptRunner
    from errands.store import Store
    with temp_data_dir("bench-scripts") as data:
        work = data / "work"
        work.mkdir()
        store = Store(data / "errands.sqlite3")
        engine = Engine(store, data, {"script": ScriptRunner()})
        await engine.start()
        from errands import gil, heap
        gil.take_short_turns()   # as engine/service.py does after the start
        heap.settle()
        ids = []
        for i in range(BURST):
            made, _ = await engine.commands.create({
                "title": f"Script {i}", "workdir": str(work), "trigger": {"kind": "manual"},
                "runner": {"kind": "script", "source":
                           "export default function ({ event, actions }) {\n"
                           f"  actions.writeFile('out-{i}.txt', event.at);\n"
                           f"  actions.notify('done {i}');\n}}\n"}})
            ids.append(made.id)
        engine.runners["script"].warm_up()
        await asyncio.sleep(1.0)
        ticker = Ticker()
        task = asyncio.get_running_loop().create_task(ticker.tick())
        began = time.perf_counter()
        started = await asyncio.gather(*(engine.commands.run_now(a) for a in ids))
        ended = await asyncio.gather(*(engine.commands.wait_run(r.id) for r in started))
        took = time.perf_counter() - began
        task.cancel()
        await engine.stop()
        store.close()
        return {"seconds": took, "stall_ms": ticker.worst * 1000,
                "succeeded": sum(1 for r in ended if r.state == "succeeded"),
                "files": len(list(work.glob("out-*.txt")))}


PHASES = {"runtime": runtime, "pool": pool, "burst": burst}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--phase", choices=sorted(PHASES))
    parser.add_argument("--only", choices=sorted(PHASES))
    args = parser.parse_args()
    clean_environment()
    if args.phase:
        report(asyncio.run(PHASES[args.phase]()))
        return
    script = Path(__file__).resolve()
    for name in ([args.only] if args.only else list(PHASES)):
        try:
            r = run_phase(script, name, timeout=600)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            print(f"{name}: did not finish ({exc})")
            continue
        if name == "runtime":
            print(f"runtime: a fresh runtime p50 {r['start_p50']:.2f} ms, p99 "
                  f"{r['start_p99']:.2f} ms; a trivial run p50 {r['run_p50']:.2f} ms, p99 "
                  f"{r['run_p99']:.2f} ms ({ROUNDS} each)")
            print(f"  {verdict(r['start_p99'] < START_GOAL_MS)}: runtime start under "
                  f"{START_GOAL_MS:.0f} ms at p99")
            print(f"  {verdict(r['run_p99'] < RUN_GOAL_MS)}: a trivial run under "
                  f"{RUN_GOAL_MS:.0f} ms at p99")
        elif name == "pool":
            print(f"pool: a trivial job through a worker process p50 {r['p50']:.2f} ms, "
                  f"p99 {r['p99']:.2f} ms ({ROUNDS} one after another)")
        else:
            print(f"burst: {BURST} script runs started at once, all ended in "
                  f"{r['seconds']:.2f} s ({r['succeeded']} succeeded, {r['files']} files "
                  f"written); longest loop stall {r['stall_ms']:.1f} ms")
            print(f"  {verdict(r['succeeded'] == BURST and r['files'] == BURST)}: every run "
                  "applied its changes")
            print(f"  {verdict(r['stall_ms'] < STALL_GOAL_MS)}: the loop never stalled over "
                  f"{STALL_GOAL_MS:.0f} ms")


if __name__ == "__main__":
    main()
