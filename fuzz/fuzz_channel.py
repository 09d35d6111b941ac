"""Fuzz the control channel: odd request lines through the real request handler.

    python fuzz/fuzz_channel.py [--count 50000] [--seed 1] [--socket-share 0.05]

An engine is hosted in-process on a temporary data folder (it fires nothing on its own)
with one automation to aim at. Generated lines (random operations and arguments of every
JSON type: huge integers, lone surrogates, deep nesting, valid definition documents with
one field swapped for an odd value, raw random bytes, mutated valid lines) go to the
channel's own handler, a share of them over the real socket. Every answer must be ok or a
refusal (``invalid_input``, ``not_found``, ``busy`` …); the script prints the counts and
exits 1 on any ``internal``/``database`` answer, any refusal of a field without naming
it, any answer that is not one JSON line, and any warning or error logged meanwhile.

The same generators drive ``tests/test_channel_fuzz.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import logging
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from errands.engine.control import ControlConnection
from errands.engine.operations import OPERATIONS
from errands.engine.service import EngineHost
from errands.settings import SPECS

KNOWN = "@known"  # replaced by the id of the automation aimed at
BAD_CODES = ("internal", "database")
SLOW = 10.0  # seconds: an answer slower than this is a failure
DOC = {"title": "fuzzed", "runner": {"kind": "command", "command": "true"},
       "trigger": {"kind": "manual"}}
# what runs is never fuzzed (runner.command, workdir): a revised target runs for real
DOC_PATHS = [("title",), ("runner", "kind"), ("trigger",),
             ("trigger", "kind"), ("trigger", "every"), ("trigger", "at"), ("trigger", "timezone"),
             ("trigger", "expression"), ("policy",), ("policy", "timeout"),
             ("policy", "retry"), ("policy", "jitter"), ("stop",), ("stop", "max_runs"),
             ("stop", "until"), ("context",), ("paused",), ("worktree",), ("origin",),
             ("notify",), ("overlap",), ("misfire",), ("permissions",)]

# ---------------------------------------------------------------- generators

any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 10), st.integers(),
    st.integers(-(2 ** 200), 2 ** 200), st.sampled_from([2 ** 63, 2 ** 64, -(2 ** 63) - 1, 2 ** 70]),
    st.floats(allow_nan=False, allow_infinity=False), any_text,
    st.sampled_from(["", " ", "\x00", "\ud800", "a\udfffb", "ü", "✓" * 300, "1s", "15m",
                     "manual", "every:1m", "2026-12-24T18:00:00+01:00", "9999-12-31T23:59:59Z",
                     "0001-01-01T00:00:00Z", "Europe/Berlin", "* * * * *"]))
json_values = st.recursive(scalars, lambda children: st.one_of(
    st.lists(children, max_size=4), st.dictionaries(any_text, children, max_size=4)),
    max_leaves=12)


def _with(doc: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    doc = json.loads(json.dumps(doc))
    node = doc
    for key in path[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    node[path[-1]] = value
    return doc


documents = st.one_of(
    st.just(DOC),
    st.builds(_with, st.just(DOC), st.sampled_from(DOC_PATHS), json_values),
    st.dictionaries(any_text, json_values, max_size=5))
argument_values = st.one_of(
    json_values, st.just(KNOWN), st.sampled_from(["user", "agent", "engine", "cli"]),
    st.sampled_from(sorted(SPECS)), documents)
argument_names = st.one_of(
    st.sampled_from(sorted({name for op in OPERATIONS.values() for name in op.args})),
    any_text)
operations = st.one_of(st.sampled_from(sorted(OPERATIONS)),
                       st.sampled_from(["status", "", "PING", "run-now", "__init__"]), any_text)


def _arguments(op: str) -> st.SearchStrategy[dict[str, Any]]:
    declared = OPERATIONS.get(op)
    names = sorted(declared.args) if declared else []
    fitting = st.fixed_dictionaries({}, optional={n: argument_values for n in names}) \
        if names else st.just({})
    return st.one_of(fitting, st.dictionaries(argument_names, argument_values, max_size=5))


envelopes = operations.flatmap(lambda op: st.fixed_dictionaries(
    {"op": st.one_of(st.just(op), json_values), "args": st.one_of(_arguments(op), json_values)},
    optional={"id": st.one_of(st.integers(0, 1000), json_values), "token": json_values,
              "extra": json_values}))


LIKELY: dict[str, st.SearchStrategy[Any]] = {  # what a real client sends for each argument
    "id": st.one_of(st.just(KNOWN), st.just(KNOWN), st.text(min_size=1, max_size=40)),
    "doc": documents, "request_id": st.one_of(st.none(), st.sampled_from(["r1", "r2", "r3"])),
    "actor": st.sampled_from(["user", "agent"]), "dry_run": st.booleans(),
    "wait": st.booleans(), "item": st.one_of(st.none(), st.integers(1, 5)),
    "key": st.sampled_from(sorted(SPECS)),
    "value": st.sampled_from([None, "1", "4", "0", "1s", "90m", "2m", "-1", "lots"]),
}


def _well_formed(op: str) -> st.SearchStrategy[dict[str, Any]]:
    """A request a client might really send: a declared operation, its own arguments,
    mostly of the right kind."""
    declared = OPERATIONS[op].args

    def value(name: str) -> st.SearchStrategy[Any]:
        likely = LIKELY.get(name, argument_values)
        return st.one_of(likely, likely, likely, argument_values)

    args = st.fixed_dictionaries({n: value(n) for n in declared if declared[n].required},
                                 optional={n: value(n) for n in declared
                                           if not declared[n].required})
    return st.fixed_dictionaries({"id": st.integers(1, 10 ** 6), "op": st.just(op), "args": args})


well_formed = st.sampled_from(sorted(OPERATIONS)).flatmap(_well_formed)


def _line(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=True).encode("ascii")


def _mutate(line: bytes, at: int, junk: bytes) -> bytes:
    at %= len(line) + 1
    return line[:at] + junk + line[at + len(junk):]


raw_lines = st.binary(max_size=200)
deep_lines = st.integers(20, 3000).map(lambda n: b"[" * n + b"]" * n)
huge_numbers = st.integers(50, 6000).map(
    lambda n: b'{"id": 1, "op": "ping", "args": {"n": ' + b"7" * n + b"}}")
lines = st.one_of(
    well_formed.map(_line), well_formed.map(_line), well_formed.map(_line),
    envelopes.map(_line), envelopes.map(_line),
    st.builds(_mutate, envelopes.map(_line), st.integers(0, 400), st.binary(min_size=1, max_size=6)),
    raw_lines, deep_lines, huge_numbers, json_values.map(_line),
).map(lambda line: line.replace(b"\n", b" ").replace(b"\r", b" "))


# ---------------------------------------------------------------- the target

class Findings(logging.Handler):
    """Counts answers by outcome and keeps what must never happen."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.counts: collections.Counter[str] = collections.Counter()
        self.failures: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(("errands", "asyncio")):
            self.failures.append(f"logged {record.levelname} {record.name}: "
                                 f"{record.getMessage()[:300]}")

    def judge(self, line: bytes, reply: bytes, seconds: float) -> None:
        shown = line[:120]
        if seconds > SLOW:
            self.failures.append(f"{seconds:.1f} s to answer {shown!r}")
        try:
            answer = json.loads(reply)
        except ValueError:
            self.failures.append(f"not a JSON answer to {shown!r}: {reply[:200]!r}")
            return
        if not reply.endswith(b"\n") or reply.count(b"\n") != 1:
            self.failures.append(f"not one line answering {shown!r}")
        if answer.get("ok") is True:
            self.counts["ok"] += 1
            return
        error = answer.get("error") or {}
        code = error.get("code")
        self.counts[str(code)] += 1
        if code in BAD_CODES:
            self.failures.append(f"{code} answering {shown!r}: {error.get('message')}")
        elif error.get("kind") == "InvalidInput" and not error.get("field"):
            self.failures.append(f"a refusal naming no field, answering {shown!r}: {error}")


class Target:
    """An engine hosted in-process, its handler and its socket, on one event loop."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="erfz", dir="/tmp" if Path("/tmp").is_dir()
                                            else None))
        self.loop = asyncio.new_event_loop()
        self.host = EngineHost(self.folder / "data", automatic=False)
        self.findings = Findings()
        logging.getLogger().addHandler(self.findings)
        self.loop.run_until_complete(self.host.start())
        self.known = self._create()
        assert self.host.server is not None and self.host.server.address
        self.connection = self.loop.run_until_complete(ControlConnection.open(
            self.host.server.address, data_dir=self.host.data_dir))

    def _create(self) -> str:
        assert self.host.engine is not None
        automation, _ = self.loop.run_until_complete(self.host.engine.commands.create(DOC))
        return automation.id

    def _aim(self, line: bytes) -> bytes:
        assert self.host.engine is not None
        if self.known not in self.host.engine.slots:  # deleted by a fuzzed request
            self.known = self._create()
        return line.replace(KNOWN.encode(), self.known.encode())

    def answer(self, line: bytes) -> None:
        """Through the handler itself: fast."""
        assert self.host.server is not None
        line = self._aim(line)
        started = time.monotonic()
        reply = self.loop.run_until_complete(self.host.server._answer(line))
        if isinstance(reply, tuple):  # a subscription: its first line is the answer
            reply, stream = reply
            stream.close()
        self.findings.judge(line, reply, time.monotonic() - started)

    def send(self, line: bytes) -> None:
        """Over the socket, on one connection that must survive every line."""
        line = self._aim(line)
        connection = self.connection
        started = time.monotonic()

        async def exchange() -> bytes:
            connection._writer.write(line + b"\n")
            await connection._writer.drain()
            if not line.strip():
                line_ping = b'{"id": 0, "op": "ping"}\n'  # a blank line gets no answer
                connection._writer.write(line_ping)
                await connection._writer.drain()
            return await asyncio.wait_for(connection._reader.readline(), SLOW)

        reply = self.loop.run_until_complete(exchange())
        self.findings.judge(line, reply, time.monotonic() - started)
        if b'"subscribed":true' in reply:  # the connection now carries notices only
            self.loop.run_until_complete(connection.aclose())
            self.connection = self.loop.run_until_complete(ControlConnection.open(
                self.host.server.address, data_dir=self.host.data_dir))  # type: ignore[union-attr]

    def close(self) -> None:
        try:
            self.loop.run_until_complete(self.connection.aclose())
            self.loop.run_until_complete(self.host.close())
            self.loop.close()
        finally:
            logging.getLogger().removeHandler(self.findings)
            shutil.rmtree(self.folder, ignore_errors=True)


def run(target: Target, count: int, seed_value: int, *, socket_share: float) -> None:
    """Send ``count`` generated lines; every ``1/socket_share``-th goes over the socket."""
    every = max(1, round(1 / socket_share)) if socket_share > 0 else 0
    sent = [0]

    @seed(seed_value)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(lines)
    def one(line: bytes) -> None:
        sent[0] += 1
        if every and sent[0] % every == 0:
            target.send(line)
        else:
            target.answer(line)

    one()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--socket-share", type=float, default=0.05,
                        help="the share of lines sent over the real socket (default 0.05)")
    args = parser.parse_args(argv)
    target = Target()
    started = time.monotonic()
    try:
        run(target, args.count, args.seed, socket_share=args.socket_share)
    finally:
        target.close()
    findings = target.findings
    total = sum(findings.counts.values())
    print(f"{total} requests in {time.monotonic() - started:.0f} s (seed {args.seed})")
    for code, n in findings.counts.most_common():
        print(f"  {code:<20} {n}")
    internal = sum(findings.counts[c] for c in BAD_CODES)
    print(f"internal errors: {internal}; other failures: {len(findings.failures) - internal}")
    for failure in findings.failures[:20]:
        print("  " + failure)
    return 1 if findings.failures else 0


if __name__ == "__main__":
    sys.exit(main())
