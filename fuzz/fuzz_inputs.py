"""Feed many hostile inputs to Errands' entry points and count what became of them.

    .venv/bin/python fuzz/fuzz_inputs.py [--count 50000] [--seed 1] [--only json,cli]

Uses the generators and judges of ``tests/hostile.py`` (the property tests run the same
ones, fewer times). Most inputs go to the parsers directly (fast); a share goes through
the real CLI ``main`` in-process against a prepared data folder. Prints, per target, the
inputs, refusals, successes and internal errors, with the first examples of each internal
error; exits 1 if there was any.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import hostile  # noqa: E402

# name: (share of the inputs, strategy, probe taking one drawn value)
TARGETS: dict[str, tuple[float, Any, Callable[..., str]]] = {
    "json": (0.26, st.one_of(hostile.json_texts, hostile.json_bytes), hostile.probe_json),
    "definition": (0.26, hostile.definition_docs(), hostile.probe_definition),
    "spec": (0.14, st.tuples(hostile.non_phrase_spec, st.one_of(st.none(), hostile.zones),
                             st.one_of(st.none(), hostile.odd_instant)),
             lambda v: hostile.probe_spec(*v)),
    "cron": (0.1, st.tuples(hostile.odd_cron, hostile.zones,
                            st.one_of(hostile.good_instant, hostile.odd_instant)),
             lambda v: hostile.probe_cron(*v)),
    "timeutil": (0.08, st.tuples(hostile.odd_instant, hostile.odd_duration),
                 lambda v: hostile.probe_time(*v)),
    "cli": (0.16, hostile.cli_argvs(), None),  # the probe needs the data folder: see main
}
EXAMPLES = 3


def run_target(name: str, count: int, seed_value: int, probe: Callable[[Any], str],
               strategy: Any) -> tuple[Counter[str], dict[str, list[str]]]:
    counts: Counter[str] = Counter()
    defects: dict[str, list[str]] = {}

    @seed(seed_value)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def one(value: Any) -> None:
        counts["inputs"] += 1
        try:
            counts[probe(value)] += 1
        except hostile.Defect as exc:
            counts["internal errors"] += 1
            key = f"[{exc.where or '?'}] {exc.detail.split(' <- ')[0][:120]}"
            examples = defects.setdefault(key, [])
            if len(examples) < EXAMPLES:
                examples.append(f"{value!r}"[:400])

    one()
    return counts, defects


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=50_000, help="inputs in all (default 50000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", help="comma-separated targets: " + ", ".join(TARGETS))
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(TARGETS)
    total_share = sum(TARGETS[n][0] for n in names)
    failed = False
    with tempfile.TemporaryDirectory(prefix="errands-fuzz-") as tmp:
        data_dir, ident = hostile.prepared_data_dir(Path(tmp))
        print(f"{'target':<11} {'inputs':>8} {'refusals':>9} {'successes':>10} "
              f"{'internal':>9} {'seconds':>8}")
        for name in names:
            share, strategy, probe = TARGETS[name]
            if probe is None:
                probe = lambda argv: hostile.probe_cli(hostile.with_id(argv, data_dir, ident))  # noqa: E731
            started = time.perf_counter()
            counts, defects = run_target(name, max(1, round(args.count * share / total_share)),
                                         args.seed, probe, strategy)
            print(f"{name:<11} {counts['inputs']:>8} {counts['refusal']:>9} "
                  f"{counts['success']:>10} {counts['internal errors']:>9} "
                  f"{time.perf_counter() - started:>8.1f}", flush=True)
            for key, examples in defects.items():
                failed = True
                print(f"    internal error {key}")
                for example in examples:
                    print(f"        e.g. {example}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
