"""Benchmark: 1,000 fires due at once across three engines on one PostgreSQL catalogue,
beside one engine on an SQLite file; and how soon a change reaches the other machines.

Run from the repository root (no install needed):

    .venv/bin/python bench/bench_engines_shared.py             # 3 rounds
    .venv/bin/python bench/bench_engines_shared.py --rounds 1

SQLite (the figure beside): ``bench_engine_burst.py``'s own burst, one engine on a file,
in a fresh interpreter: 1,000 command automations (``true``) with an ``at`` trigger at one
instant T, concurrency 1,000.

PostgreSQL: a server started on loopback as the tests start one (Debian's ``postgresql``),
a fresh catalogue each round, concurrency 1,000, and the same 1,000 automations bound in
turn to three machines (``runs_on``: ``m1``, ``m2``, ``m3``). Three engines, each in a fresh
interpreter hosted as ``errands serve`` hosts it (``EngineHost``: its hold on the
catalogue, change notices, requests), each named by ``ERRANDS_MACHINE``; the command runner
is wrapped only to timestamp when each child spawned. Figures over all 1,000 runs, as in
``bench_engine_burst.py``: when each claim was committed (the engine's first
``run_changed`` notice) and when each child spawned, after T.

Notices: then the bench, as a fourth machine without an engine (a command typed there),
pauses 30 automations one after another (100 ms apart), ten bound to each machine; each
engine timestamps when it announced each change to its machine's windows
(``automation_changed``: the one that runs it takes it in, the others pass it on). The
figure is the time from the pause's commit to that notice, over every engine and change:
the goal is 1 s at most.

Prints the p50/p99/max of each figure for the last round, the medians of the rounds' p99s
beside SQLite's with their ratio, and PASS/FAIL for the notices' goal. A fixed pure-Python
loop timed in each engine shows how fast the machine was running. Always exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (RESULT_MARK, clean_environment, command_doc, median,  # noqa: E402
                     percentile, ratio, report, run_phase, temp_data_dir, verdict, wall)

N = 1_000
MACHINES = ("m1", "m2", "m3")
LEAD_S = 6.0           # T is this long after the engines are armed
CHANGES = 30           # pauses whose notices are timed
CHANGE_GAP_S = 0.1
GOAL_NOTICE_MS = 1000.0
HERE = Path(__file__).resolve()


def _ms(delta: timedelta) -> float:
    return delta.total_seconds() * 1e3


# ------------------------------------------------------------------- one engine

async def engine_phase(data_dir: Path, url: str, expected: int) -> dict[str, Any]:
    """One machine's engine (``ERRANDS_MACHINE`` names it): serves until its ``expected``
    runs ended and standard input closes, then reports what it timed."""
    from bench_engine_burst import FINAL, StampingRunner, cpu_check

    from errands import gil, heap
    from errands.engine.service import EngineHost

    os.environ["ERRANDS_DATABASE_URL"] = url
    cpu = [cpu_check()]
    host = EngineHost(data_dir, listen=False)
    engine = await host.start()
    runner = StampingRunner(engine.runners["command"])
    engine.runners["command"] = runner
    heap.settle()
    gil.take_short_turns()
    committed: dict[str, str] = {}
    finished: set[str] = set()
    changed: dict[str, list[str]] = {}  # automation -> when each of its notices came
    done = asyncio.Event()

    def listen(event: Any) -> None:
        if event.kind == "run_changed" and event.run_id:
            committed.setdefault(event.run_id, wall().isoformat())
            if event.data.get("state") in FINAL:
                finished.add(event.run_id)
                if len(finished) >= expected:
                    done.set()
        elif event.kind == "automation_changed" and event.automation_id:
            changed.setdefault(event.automation_id, []).append(wall().isoformat())

    engine.events.tap(listen)
    print("ready", flush=True)
    await asyncio.wait_for(done.wait(), timeout=240)
    print("finished", flush=True)
    await asyncio.to_thread(sys.stdin.read)  # (the parent closes it after the changes)
    cpu.append(cpu_check())
    await host.close()
    return {"machine": os.environ.get("ERRANDS_MACHINE"), "committed": committed,
            "spawned": {k: v.isoformat() for k, v in runner.spawned.items()},
            "changed": changed, "cpu_ms": cpu}


# --------------------------------------------------------------------- a round

def shared_round(url: str, root: Path) -> dict[str, Any]:
    """Three engines on ``url``: the burst's claim and spawn lateness, and the notices'."""
    from errands.catalog import Catalog
    from errands.db.location import parse_database_url
    from errands.store import Store

    os.environ["ERRANDS_MACHINE"] = "bench"
    store = Store(parse_database_url(url))
    store.set_setting("concurrency", str(N))
    catalog = Catalog(store)
    target = (wall() + timedelta(seconds=LEAD_S + 6.0)).replace(microsecond=0)
    at = target.strftime("%Y-%m-%dT%H:%M:%SZ")
    made = [catalog.create({**command_doc(f"burst {i:04d}", {"kind": "at", "at": at}),
                            "runs_on": MACHINES[i % len(MACHINES)]})[0].id for i in range(N)]
    engines = []
    for machine in MACHINES:
        env = dict(os.environ, ERRANDS_MACHINE=machine,
                   PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
        engines.append(subprocess.Popen(
            [sys.executable, str(HERE), "--phase", "engine", str(root / machine), url,
             str(sum(1 for i in range(N) if MACHINES[i % len(MACHINES)] == machine))],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    for proc in engines:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.strip() != "ready":
            raise SystemExit(f"an engine did not start: {line}")
    armed_before_s = (target - wall()).total_seconds()
    for proc in engines:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.strip() != "finished":
            raise SystemExit(f"an engine did not finish its runs: {line}")
    # the notices: pauses typed on a machine with no engine, 100 ms apart
    paused_at: dict[str, datetime] = {}
    for k in range(CHANGES):
        automation_id = made[k]
        catalog.set_paused(automation_id, True)
        paused_at[automation_id] = wall()
        time.sleep(CHANGE_GAP_S)
    time.sleep(1.5)
    results = []
    for proc in engines:
        out, _ = proc.communicate(input="", timeout=120)
        for line in out.splitlines():
            if line.startswith(RESULT_MARK):
                results.append(json.loads(line[len(RESULT_MARK):]))
    store.close()
    committed = {k: datetime.fromisoformat(v) for r in results for k, v in r["committed"].items()}
    spawned = {k: datetime.fromisoformat(v) for r in results for k, v in r["spawned"].items()}
    notices, missing = [], 0
    for r in results:  # (each engine's first notice of the automation after its pause)
        for a, t in paused_at.items():
            after = [d for d in map(datetime.fromisoformat, r["changed"].get(a, ())) if d >= t]
            if after:
                notices.append(_ms(min(after) - t))
            else:
                missing += 1
    return {"armed_before_s": armed_before_s,
            "admission_commit": [_ms(t - target) for t in committed.values()],
            "spawn": [_ms(t - target) for t in spawned.values()],
            "notice": notices, "notices_missing": missing,
            "by_machine": {r["machine"]: len(r["spawned"]) for r in results},
            "cpu_ms": [c for r in results for c in r["cpu_ms"]]}


# ------------------------------------------------------------------------- main

def _row(label: str, values: list[float]) -> str:
    if not values:
        return f"  {label:26s} (none)"
    return (f"  {label:26s} p50 {percentile(values, 50):8.1f}  p99 {percentile(values, 99):8.1f}"
            f"  max {max(values):8.1f}  (n={len(values)})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phase", choices=["engine"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("rest", nargs="*")
    args = parser.parse_args()
    if args.phase == "engine":
        data_dir, url, expected = args.rest
        report(asyncio.run(engine_phase(Path(data_dir), url, int(expected))))
        return 0
    clean_environment()
    sys.path.insert(0, str(HERE.parent.parent / "tests"))
    from pg_support import PostgresServer  # (initdb and pg_ctl on loopback, as the tests)

    burst = HERE.parent / "bench_engine_burst.py"
    sqlite_rounds, shared_rounds = [], []
    server = PostgresServer()
    try:
        for round_no in range(1, args.rounds + 1):
            with temp_data_dir("errands-bench-shared-") as data_dir:
                print(f"round {round_no}/{args.rounds}: one engine on SQLite ...", flush=True)
                sqlite_rounds.append(run_phase(burst, "ours", str(data_dir)))
            location = server.fresh()
            with temp_data_dir("errands-bench-shared-") as root:
                print(f"round {round_no}/{args.rounds}: three engines on PostgreSQL ...",
                      flush=True)
                shared_rounds.append(shared_round(server.url(location.database), root))
            server.drop(location)
    finally:
        server.stop()

    last = shared_rounds[-1]
    print(f"\nthree engines on PostgreSQL, last round (ms after T; armed "
          f"{last['armed_before_s']:.1f} s before T; runs by machine {last['by_machine']})")
    print(_row("claim committed", last["admission_commit"]))
    print(_row("child spawned", last["spawn"]))
    print(_row("notice to other machines", last["notice"]))
    print(f"  CPU check (ms, lower is faster): "
          f"{', '.join(f'{c:.0f}' for c in last['cpu_ms'])}")

    def p99(rounds: list[dict[str, Any]], key: str) -> float:
        return median([percentile(r[key], 99) if r[key] else float("inf") for r in rounds])

    print("\np99 in ms, median of the rounds")
    print(f"  {'':26s} {'SQLite, 1 engine':>17s} {'PostgreSQL, 3 engines':>22s} {'ratio':>8s}")
    for label, key in (("claim committed", "admission_commit"), ("child spawned", "spawn")):
        a, b = p99(sqlite_rounds, key), p99(shared_rounds, key)
        print(f"  {label:26s} {a:17.1f} {b:22.1f} {ratio(b, a):>8s}")
    notice = p99(shared_rounds, "notice")
    missing = sum(r["notices_missing"] for r in shared_rounds)
    print(f"  {'notice to other machines':26s} {'':17s} {notice:22.1f}")
    print(f"\n{verdict(notice <= GOAL_NOTICE_MS and missing == 0)}: a change reaches every "
          f"other machine's engine within {GOAL_NOTICE_MS:.0f} ms (p99 {notice:.1f} ms; "
          f"{missing} never arrived)")
    return 0


if __name__ == "__main__":
    main()
    sys.exit(0)
