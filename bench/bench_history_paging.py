"""Benchmark: paging the run history of one automation with 100,000 runs.

Run from the repository root (no install needed):

    .venv/bin/python bench/bench_history_paging.py

Creates one automation in a temporary data directory and bulk-inserts 100,000 runs for it
(SQLAlchemy Core ``insert(RunRow.__table__)``, 10,000 rows per transaction, index
1..100000, one slot each, the automation's ``last_index`` set to match). Most runs carry a
result and an output tail of 0.2–1.5 KB; 2 % failed, 3 % are skipped records. Runs
70,001–70,050 carry full 64 KiB output tails (a chatty stretch) for a worst-case page.

Then times ``store.runs_page(id, limit=50)`` 50 times each for the first page and for the
pages after cursors ``r50000`` and ``r100``, printing median and max in milliseconds against
the goal of 20 ms per page; also the worst-case page (cursor ``r70051``), a walk through all
2,000 pages checking nothing is lost or repeated, and SQLite's plan for the page query.
Always exits 0.
"""

from __future__ import annotations

import random
import sys
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (UTC, clean_environment, command_doc, median, temp_data_dir,  # noqa: E402
                     verdict)

RUNS = 100_000
CHUNK = 10_000
LIMIT = 50
REPEATS = 50
GOAL_MS = 20.0
HEAVY = range(70_001, 70_051)   # runs with a full 64 KiB output tail
HEAVY_TAIL = 64 * 1024
SEED = 100_000
START = datetime(2023, 1, 2, tzinfo=UTC)
EVERY = timedelta(minutes=15)


def _instant(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def run_rows(automation_id: str, rng: random.Random, first: int, last: int) -> list[dict]:
    words = ("backup copied files sync ok checked updated fetched rows mail sent report "
             "build tests passed warning retry elapsed bytes").split()
    tails = [" ".join(rng.choice(words) for _ in range(rng.randint(30, 250)))
             for _ in range(97)]
    out = []
    for i in range(first, last + 1):
        due = START + (i - 1) * EVERY
        roll = rng.random()
        skipped = roll < 0.03
        failed = 0.03 <= roll < 0.05
        started = None if skipped else due + timedelta(milliseconds=rng.randint(2, 40))
        finished = (due if skipped else
                    started + timedelta(milliseconds=rng.randint(50, 90_000)))  # type: ignore[operator]
        state = "skipped" if skipped else ("failed" if failed else "succeeded")
        tail = None if skipped else tails[i % len(tails)]
        if i in HEAVY:
            tail = (tails[0] * (HEAVY_TAIL // len(tails[0]) + 1))[:HEAVY_TAIL]
        attempts = [] if skipped else [{"attempt": 1, "started_at": _instant(started),
                                        "finished_at": _instant(finished), "state": state}]
        out.append({
            "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "automation_id": automation_id, "index": i, "slot": f"sched:{_instant(due)}",
            "revision": 1, "trigger": "schedule", "scheduled_for": due, "state": state,
            "attempt": 1, "attempts": attempts, "retry_at": None, "started_at": started,
            "finished_at": finished,
            "skip_reason": "machine_asleep" if skipped else None,
            "missed_count": 1 if skipped else None, "missed_first": due if skipped else None,
            "missed_last": due if skipped else None, "stop_reason": None,
            "error_code": "exit_status" if failed else None,
            "error_message": "exited with status 1: rsync: connection refused" if failed else None,
            "result": None if skipped else f"run {i}: " + (tail or "")[-rng.randint(40, 200):],
            "output_tail": tail, "session_id": None, "dry_run": False, "request_id": None,
            "pid": None, "pid_started": None, "prompt_tokens": None, "completion_tokens": None,
            "created_at": due,
        })
    return out


def time_pages(store, automation_id: str, cursor: str | None) -> tuple[list[float], int, str | None]:
    times = []
    runs, nxt = [], None
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        runs, nxt = store.runs_page(automation_id, limit=LIMIT, cursor=cursor)
        times.append((time.perf_counter() - t0) * 1e3)
    return times, len(runs), (f"{runs[0].index}..{runs[-1].index}" if runs else "-")


def main() -> int:
    clean_environment()
    from sqlalchemy import insert, text, update

    from errands.catalog import Catalog
    from errands.db.schema import AutomationRow, RunRow
    from errands.paths import database_path
    from errands.store import Store

    with temp_data_dir("errands-bench-history-") as data_dir:
        path = database_path(data_dir)
        store = Store(path)
        automation, _ = Catalog(store).create(command_doc(
            "history", {"kind": "every", "every": "15m", "start_at": _instant(START)}))
        rng = random.Random(SEED)
        t0 = time.perf_counter()
        for first in range(1, RUNS + 1, CHUNK):
            rows = run_rows(automation.id, rng, first, min(RUNS, first + CHUNK - 1))
            with store.transaction() as s:
                s.execute(insert(RunRow.__table__), rows)
        with store.transaction() as s:
            s.execute(update(AutomationRow).where(AutomationRow.id == automation.id)
                      .values(last_index=RUNS, run_count=RUNS))
        insert_s = time.perf_counter() - t0
        size_mb = sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 1e6
        count = store.count_runs(automation.id)
        with store.db.read() as s:
            plan = [r[-1] for r in s.execute(text(
                'EXPLAIN QUERY PLAN SELECT * FROM runs WHERE automation_id = :a AND "index" < :b '
                'ORDER BY "index" DESC LIMIT 51'), {"a": automation.id, "b": 50_000})]

        print(f"inserted {count} runs in {insert_s:.1f} s ({CHUNK} per transaction, excluded); "
              f"database {size_mb:.0f} MB")
        print(f"query plan of a page: {' / '.join(plan)}")
        print(f"\nruns_page(limit={LIMIT}), {REPEATS} calls each, milliseconds "
              f"{'median':>8s} {'max':>8s}  returned")
        cases = [("first page (no cursor)", None), ("cursor r50000 (middle)", "r50000"),
                 ("cursor r100 (near the oldest)", "r100")]
        results = []
        for label, cursor in cases:
            times, n, span = time_pages(store, automation.id, cursor)
            results.append((label, times))
            print(f"  {label:48s} {median(times):8.2f} {max(times):8.2f}  {n} runs, index {span}")
        heavy_times, n, span = time_pages(store, automation.id, f"r{HEAVY.stop}")
        print(f"  {'cursor r70051 (50 runs with 64 KiB output tails)':48s} "
              f"{median(heavy_times):8.2f} {max(heavy_times):8.2f}  {n} runs, index {span}")

        t0 = time.perf_counter()
        seen, cursor, pages = [], None, 0
        while True:
            runs, cursor = store.runs_page(automation.id, limit=LIMIT, cursor=cursor)
            pages += 1
            seen.extend(r.index for r in runs)
            if cursor is None:
                break
        walk_s = time.perf_counter() - t0
        complete = seen == list(range(RUNS, 0, -1))
        print(f"\nwalk of every page: {pages} pages, {len(seen)} runs in {walk_s:.1f} s "
              f"({walk_s / pages * 1e3:.2f} ms per page); newest to oldest, each run once: "
              f"{'yes' if complete else 'NO'}")
        store.close()

    print()
    for label, times in results:
        print(f"{verdict(max(times) < GOAL_MS)}: {label}: median {median(times):.2f} ms, "
              f"max {max(times):.2f} ms (goal < {GOAL_MS:.0f} ms per page)")
    print(f"{verdict(max(heavy_times) < GOAL_MS)}: (extra, worst case) page of 64 KiB tails: "
          f"median {median(heavy_times):.2f} ms, max {max(heavy_times):.2f} ms "
          f"(goal < {GOAL_MS:.0f} ms)")
    print(f"{verdict(complete)}: paging returns all {RUNS} runs once, in order")
    return 0


if __name__ == "__main__":
    main()
    sys.exit(0)
