"""Benchmark: how long `errands` takes to answer, as a whole process, against the bare
interpreter measured in the same run.

Run from the repository root (no install needed):

    .venv/bin/python bench/bench_cli.py [--runs 7]

Each figure is the median wall time of ``--runs`` whole-process runs (byte code compiled
first), interleaved with runs of the peer, a bare ``python -c 'import json, argparse,
sqlite3'``, so a busy moment costs both alike; the ratio is ours / the peer's median:

* ``errands --version`` and ``errands --help``: goal at most 2x the peer;
* with 1,000 automations and ``errands serve`` running: ``errands list --json`` and
  ``errands runs ID --json``: goal at most 4x the peer;
* for comparison (no goal): ``errands list --json`` with no engine (it reads the database
  itself), the same with the engine just after an edit (the engine keeps the rendered
  listing until a record changes: this is the price of a change), and ``errands show ID``
  (its text is rendered from the stored record).

The data folder is made with ``errands import`` (one document, 1,000 paused automations,
so nothing fires meanwhile); the runs listed belong to one automation run a few times by
hand before the engine starts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, byte_code, ratio, temp_data_dir, verdict

PYTHON = sys.executable
PEER = [PYTHON, "-c", "import json, argparse, sqlite3"]
ERRANDS = [PYTHON, "-c", "import sys; from errands.cli import main; sys.exit(main())"]


def env_for(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRANDS_")}
    env.update({"ERRANDS_DATA_DIR": str(data), "PYTHONPATH": str(ROOT / "desktop"),
                "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"})
    return env


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          timeout=120)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[3:])} failed: {done.stderr.decode()[-400:]}")
    return took


def paired(argv: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    """(ours, peer) medians in seconds, runs interleaved."""
    ours, peer = [], []
    timed(argv, env)  # a first run warms the file cache
    for _ in range(runs):
        ours.append(timed(argv, env))
        peer.append(timed(PEER, env))
    return statistics.median(ours), statistics.median(peer)


def after_a_change(ident: str, env: dict[str, str], runs: int) -> tuple[float, float]:
    """(ours, peer) medians of ``list --json`` each time just after an edit (a rename, not
    timed): the engine renders the listing anew then, instead of handing over its last."""
    ours, peer = [], []
    for i in range(runs):
        subprocess.run([*ERRANDS, "edit", ident, "--title", f"Task renamed {i}"], env=env,
                       check=True, stdout=subprocess.DEVNULL, timeout=120)
        ours.append(timed([*ERRANDS, "list", "--json"], env))
        peer.append(timed(PEER, env))
    return statistics.median(ours), statistics.median(peer)


def populate(data: Path, env: dict[str, str]) -> str:
    doc = {"format": "errands-export", "version": 1, "automations": [
        {"request_id": f"bench-{i}", "definition": {
            "title": f"Task {i:04d}", "runner": {"kind": "command", "command": "true"},
            "trigger": {"kind": "every", "every": "1h"}, "paused": True}}
        for i in range(1000)]}
    path = data.parent / "export.json"
    path.write_text(json.dumps(doc))
    subprocess.run([*ERRANDS, "import", str(path)], env=env, check=True,
                   stdout=subprocess.DEVNULL, timeout=300)
    listed = json.loads(subprocess.run([*ERRANDS, "list", "--json"], env=env, check=True,
                                       capture_output=True, timeout=120).stdout)
    ident = listed["automations"][0]["id"]
    for _ in range(5):
        subprocess.run([*ERRANDS, "run-now", ident, "--wait"], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    return ident


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    cache = tempfile.mkdtemp(prefix="bench-cli-pyc-")
    byte_code(Path(cache), "errands.cli, errands.cli.commands, errands.cli.reading, "
                           "errands.engine.service, errands.runners.command")
    rows: list[tuple[str, float, float, float | None]] = []
    with temp_data_dir("bench-cli-") as data:
        env = env_for(data)
        for name, argv in (("errands --version", ["--version"]), ("errands --help", ["--help"])):
            ours, peer = paired([*ERRANDS, *argv], env, runs)
            rows.append((name, ours, peer, 2.0))
        ident = populate(data, env)
        ours, peer = paired([*ERRANDS, "list", "--json"], env, runs)
        rows.append(("list --json, no engine (reads the database)", ours, peer, None))
        serve = subprocess.Popen([*ERRANDS, "serve"], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
        try:
            assert serve.stdout is not None
            line = serve.stdout.readline()
            if "Errands engine running" not in line:
                raise SystemExit(f"errands serve did not start: {line}")
            ours, peer = after_a_change(ident, env, runs)
            rows.append(("list --json, engine running, first after a change", ours, peer, None))
            for name, argv, goal in (
                    ("list --json, 1,000 automations, engine running", ["list", "--json"], 4.0),
                    ("runs ID --json, engine running", ["runs", ident, "--json"], 4.0),
                    ("list (text), engine running", ["list"], None),
                    ("show ID (text), engine running", ["show", ident], None)):
                ours, peer = paired([*ERRANDS, *argv], env, runs)
                rows.append((name, ours, peer, goal))
        finally:
            serve.terminate()
            serve.communicate(timeout=60)
    print(f"median of {runs} whole-process runs each, interleaved with the peer "
          f"(python -c 'import json, argparse, sqlite3')")
    print(f"{'command':52} {'ours ms':>8} {'peer ms':>8} {'ratio':>8}  goal")
    failed = False
    for name, ours, peer, goal in rows:
        ok = goal is None or ours / peer <= goal
        failed |= not ok
        judged = "" if goal is None else f"<= {goal:g}x  {verdict(ok)}"
        print(f"{name:52} {ours * 1000:8.1f} {peer * 1000:8.1f} {ratio(ours, peer):>8}  {judged}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
