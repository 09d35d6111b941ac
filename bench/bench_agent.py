"""Benchmark: the agent loop (issue 10), against a scripted OpenAI-compatible server that
answers at once.

Run from the repository root (no install needed, but ``errands`` must be installed in the
interpreter's environment for goal 2, as ``python3 dev.py bench`` does):

    .venv/bin/python bench/bench_agent.py        (or: python3 dev.py bench bench/bench_agent.py)

The scripted server (``tests/openai_server.py``) runs in a process of its own, so its
threads never take the GIL from the loop being measured. It keeps no script: each request
is answered from the request itself. The prompt says ``[bench steps=N tool=T delay=D]``;
while the conversation holds fewer than N tool results the model calls T (``read_file`` on
notes.txt, or ``run_command`` ``true``), then it says "done"; each answer comes after D ms
(0: at once). The bench sets TCP_NODELAY on its connections (http.server writes a reply's
headers and body apart, and without it every reply waited 40 ms for a delayed ACK) and a
listen backlog of 1024 (socketserver's 5 refused a hundred runs starting together).

Goal 1 (a fresh interpreter): one agent automation (``allow_all``, ``max_steps`` 1000) on a
real engine, real clock and real SQLite store, whose run takes 300 read_file steps, against
a bare openai SDK loop doing the same calls (the same tool schemas, each step
``chat.completions.create()``, the file read through ``asyncio.to_thread``, the same
messages appended). The model wait is timed alike for both: the request, the server and
the reply decoded (Errands' own ``Provider._request``; the SDK client's ``post()``, the
reply parsed into a ChatCompletion). Everything else is
overhead: for the agent, from one request's end to the next request's start (the reply
turned into our records, the transcript, the permission check, the tool, the hops between
the engine's loop and the provider thread, the transcript's group commit when it falls in
that gap); the group commits that ran during the next wait (on the engine's writer thread)
are added for a stricter figure. For the bare loop, ``create()`` beyond its ``post()`` is its parameter transform,
shown apart: the per-step ratio is given against the bare loop without it (like for like:
the agent posts its messages as they are) and with it (create() as a user calls it). Two
rounds of each, alternating, after a short warm-up of each; the figures pool the rounds.
Goal: overhead p99 < 5 ms, and per-step total agent/bare <= 1.2 (judged without the
transform, the stricter).

Goal 2: 100 agent automations whose runs park on a ``run_command`` permission ask are made
by an in-process engine (a fresh interpreter), which then stops. ``errands approve`` sends
the 100 decisions in one request; the engine records them in one transaction.
Then, timed from the moment ``errands serve --data-dir D`` is started (the provider given
by ``ERRANDS_PROVIDER_BASE_URL``/``ERRANDS_PROVIDER_MODEL``): the serve process announcing
it runs (interpreter start, the store, the engine restoring the 100 parked runs, the
control channel), one ``errands approve --all`` call, until all 100 runs are
``succeeded`` (the database polled read-only every 5 ms). Goal: all of it < 2 s. On a
copy of the same folder, the way a script picking runs would go is timed too (not
judged): ``errands approvals --json`` listing the 100, then ``errands approve ID1 ...
ID100``.

Goal 3 (a fresh interpreter): 50 agent automations of 20 read_file steps each, concurrency
64, started with ``run_now`` one after another (each in a loop turn of its own); a ticker
task on the engine's loop sleeps 1 ms at a time and records how late it wakes. Printed:
stall p50/p99/max over the whole window (first start to last end), during the launch and
while every run is stepping, with the idle floor before the start, the longest stalls, the
garbage collections and the group commits. Goal: the longest stall < 20 ms. Then, for
context and not judged, the same with 10 steps and a model that answers after 500 ms.

Every process the bench starts reads byte-code: the errands sources and the libraries the
processes import (openai, httpx, ...) are byte-compiled first, under a temporary
PYTHONPYCACHEPREFIX (an install has byte code; this machine sets PYTHONDONTWRITEBYTECODE
and its virtual environment has none). Every phase settles the heap after its engine started, as ``errands serve`` does
(``errands.heap``: what is loaded is frozen; full collections only when no run goes) and
takes short turns at the interpreter lock (``errands.gil``). A
fixed pure-Python loop timed around goals 1 and 3 shows how fast the machine was running.
``--only N`` (repeatable) runs some goals; ``--profile`` adds cProfile listings of the
measured windows of goals 1 and 3 (the engine's thread only). Takes about a minute and a
quarter. Always exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (ROOT, byte_code, clean_environment, median, percentile,  # noqa: E402
                     report, run_phase, temp_data_dir, verdict)

MODEL = "scripted-model"
STEPS = 300               # goal 1: tool steps in one run
WARM_STEPS = 20
ROUNDS = 2
PARKED = 100              # goal 2
CONCURRENT = 50           # goal 3
CONCURRENT_STEPS = 20
TICK_S = 0.001
IDLE_S = 0.5
GOAL_OVERHEAD_P99_MS = 5.0
GOAL_RATIO = 1.2
GOAL_RESTORE_S = 2.0
GOAL_STALL_MS = 20.0
NOTES = "".join(f"line {i}: the quick brown fox jumps over the lazy dog\n" for i in range(1, 9))
PROMPT = re.compile(r"\[bench steps=(\d+) tool=(\w+) delay=(\d+)\]")
PACED_MS = 500            # goal 3, for context: each reply after this long (a quick model)
PACED_STEPS = 10


def cpu_check() -> float:
    """Milliseconds for a fixed pure-Python loop (the one the other benchmarks use): a
    virtual machine's speed drifts from minute to minute, and every figure with it."""
    t0 = time.perf_counter()
    total = 0
    for i in range(200_000):
        total += i * i
    return (time.perf_counter() - t0) * 1e3


def prompt(steps: int, tool: str, delay_ms: int = 0) -> str:
    return f"[bench steps={steps} tool={tool} delay={delay_ms}] Use the tool until told otherwise."


# ------------------------------------------------------------------ the scripted server

def serve_scripted() -> None:
    """The scripted server, answering every request from its body; prints its base URL and
    serves until stdin closes."""
    sys.path.insert(0, str(ROOT / "tests"))
    from openai_server import ScriptedServer, call, say

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        steps, tool, delay = 0, "read_file", 0
        for m in body.get("messages", ()):
            found = PROMPT.search(m.get("content") or "") if m.get("role") == "user" else None
            if found:
                steps, tool, delay = int(found.group(1)), found.group(2), int(found.group(3))
        if delay:
            time.sleep(delay / 1000)  # this request's own thread
        done = sum(1 for m in body.get("messages", ()) if m.get("role") == "tool")
        if done >= steps:
            return say("done")
        if tool == "run_command":
            return call("run_command", {"command": "true"})
        return call("read_file", {"path": "notes.txt"})

    class Endless(list):  # every request takes the same entry: the function above
        def __bool__(self) -> bool:
            return True

        def pop(self, index: Any = -1) -> Any:
            return answer

    class Forget(list):   # keeps nothing: thousands of request bodies would only pile up
        def append(self, item: Any) -> None:
            pass

    server = ScriptedServer((MODEL,))
    handler = server.httpd.RequestHandlerClass

    class NoDelay(handler):  # type: ignore[valid-type, misc]
        """The reply's headers and body leave in two writes: without TCP_NODELAY the body
        waits for the client's delayed ACK, 40 ms a request that no real server spends."""

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    server.httpd.RequestHandlerClass = NoDelay
    server.httpd.socket.listen(1024)  # socketserver's backlog of 5 refuses a burst of clients
    server.script = Endless()
    server.requests = Forget()
    server.headers = Forget()
    server.start()
    print(server.base_url, flush=True)
    sys.stdin.read()
    server.close()


class ScriptedProcess:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--phase",
                                      "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http"):
            raise RuntimeError("the scripted server did not start")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# ------------------------------------------------------------------ shared pieces

def agent_doc(title: str, steps: int, tool: str, workdir: Path, *, allow_all: bool,
              delay_ms: int = 0) -> dict:
    doc: dict[str, Any] = {"title": title, "runner": {"kind": "agent",
                                                      "prompt": prompt(steps, tool, delay_ms)},
                           "trigger": {"kind": "manual"}, "workdir": str(workdir),
                           "policy": {"max_steps": 1000, "retry": {"max_attempts": 1}}}
    if allow_all:
        doc["permissions"] = {"mode": "allow_all"}
    return doc


async def open_engine(data_dir: Path, url: str) -> Any:
    from datetime import timedelta

    from errands.runners.agent import AgentRunner
    from errands.agent.provider import ProviderConfig
    from errands.engine.core import Engine
    from errands import gil, heap
    from errands.paths import database_path
    from errands.store import Store

    config = ProviderConfig(url, MODEL, timeout=timedelta(seconds=60))

    async def source(ctx: Any) -> ProviderConfig:
        return config

    engine = Engine(Store(database_path(data_dir)), data_dir,
                    {"agent": AgentRunner(config=source)})
    await engine.start()
    heap.settle()  # as errands serve and the app do once their engine started
    gil.take_short_turns()
    asyncio.get_running_loop().create_task(heap.collect_when_quiet(lambda: engine.busy))
    return engine


class RequestTimer:
    """(start, end) of every model wait: the request sent, the server's answer and the reply
    decoded. For Errands that is its own ``Provider._request``; for the bare loop, the SDK
    client's ``post`` (``AsyncAPIClient.post``, inside ``create()``), where this SDK release
    still has it: without it ``create()`` as a whole is the wait and no transform is shown.
    Install it before any client exists: the SDK's resources keep the bound method."""

    def __init__(self) -> None:
        from errands.agent.provider import Provider

        self.marks: list[tuple[float, float]] = []
        self.patched: list[tuple[Any, str, Any]] = []
        self._wrap(Provider, "_request")
        try:
            from openai._base_client import AsyncAPIClient
        except ImportError:
            self.sdk_post = False
        else:
            self._wrap(AsyncAPIClient, "post")
            self.sdk_post = True

    def _wrap(self, cls: Any, name: str) -> None:
        original, marks = getattr(cls, name), self.marks

        async def timed(this: Any, *args: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return await original(this, *args, **kw)
            finally:
                marks.append((t0, time.perf_counter()))  # (a list append is atomic)

        setattr(cls, name, timed)
        self.patched.append((cls, name, original))

    def restore(self) -> None:
        for cls, name, original in self.patched:
            setattr(cls, name, original)


class FlushTimer:
    """Wraps the engine's group commit: (start, end) of every transaction it runs (on its
    writer thread, off the loop)."""

    def __init__(self, engine: Any) -> None:
        self.marks: list[tuple[float, float]] = []
        group = engine.ledger.group
        original = group._commit
        marks = self.marks

        def commit(batches: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return original(batches)
            finally:
                marks.append((t0, time.perf_counter()))  # (a list append is atomic)

        group._commit = commit


def profiled(enabled: bool) -> Any:
    if not enabled:
        return None
    import cProfile
    prof = cProfile.Profile()
    prof.enable()
    return prof


def profile_text(prof: Any, lines: int = 35) -> str | None:
    if prof is None:
        return None
    import io
    import pstats

    prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf)
    stats.sort_stats("cumulative").print_stats(lines)
    stats.sort_stats("tottime").print_stats(25)
    return buf.getvalue()


# ------------------------------------------------------------------ goal 1

def step_figures(posts: list[tuple[float, float]]) -> dict[str, list[float]]:
    """Per step: the model wait (one request), the overhead after it (until the next
    request starts), the total (request start to the next request start)."""
    waits = [(e - s) * 1e3 for s, e in posts[:-1]]
    gaps = [(posts[i + 1][0] - posts[i][1]) * 1e3 for i in range(len(posts) - 1)]
    totals = [(posts[i + 1][0] - posts[i][0]) * 1e3 for i in range(len(posts) - 1)]
    return {"wait": waits, "overhead": gaps, "total": totals}


async def bare_loop(client: Any, steps: int, workdir: Path, system: str,
                    tools: list[dict]) -> list[tuple[float, float]]:
    """The same conversation with the openai SDK alone; (start, end) of each create()."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system},
                                      {"role": "user", "content": prompt(steps, "read_file")}]
    marks: list[tuple[float, float]] = []
    while True:
        t0 = time.perf_counter()
        completion = await client.chat.completions.create(model=MODEL, messages=messages,
                                                          tools=tools)
        marks.append((t0, time.perf_counter()))
        message = completion.choices[0].message
        if not message.tool_calls:
            return marks
        messages.append({"role": "assistant", "content": message.content, "tool_calls": [
            {"id": c.id, "type": "function",
             "function": {"name": c.function.name, "arguments": c.function.arguments}}
            for c in message.tool_calls]})
        for c in message.tool_calls:
            path = workdir / json.loads(c.function.arguments)["path"]
            text = await asyncio.to_thread(path.read_text)
            messages.append({"role": "tool", "tool_call_id": c.id, "name": c.function.name,
                             "content": text})


async def measure_overhead(data_dir: Path, url: str, profile: bool) -> dict:
    cpu_before = cpu_check()
    timer = RequestTimer()  # first: the SDK's resources bind client.post when made

    import openai

    from errands.agent.loop import TOOL_SCHEMAS

    workdir = data_dir / "work"
    workdir.mkdir()
    (workdir / "notes.txt").write_text(NOTES)
    engine = await open_engine(data_dir, url)
    flushes = FlushTimer(engine)
    client = openai.AsyncOpenAI(base_url=url, api_key="not-needed", max_retries=0,
                                timeout=60.0)
    system = ("You are the agent of the Errands automation \"bench\". This run is unattended: "
              "nobody is watching, and a question or an approval can take hours to be "
              f"answered. Your working folder is {workdir}; file tools see only what is inside "
              "it. Tools: " + ", ".join(t["function"]["name"] for t in TOOL_SCHEMAS) + ". Some "
              "calls need the user's approval; a denied call says so, and you may go on "
              "without it. When you are done, call finish with a short summary (or reply in "
              "plain text).")

    async def agent_round(steps: int, n: int) -> tuple[list, list, dict]:
        automation, _ = await engine.commands.create(agent_doc(f"bench {n}", steps, "read_file", workdir,
                                                      allow_all=True))
        timer.marks.clear()
        flushes.marks.clear()
        run = await engine.commands.run_now(automation.id)
        run = await engine.commands.wait_run(run.id)
        info = {"state": run.state, "steps": (run.details or {}).get("steps"),
                "error": run.error_message}
        return list(timer.marks), list(flushes.marks), info

    async def bare_round(steps: int) -> tuple[list, list]:
        timer.marks.clear()
        creates = await bare_loop(client, steps, workdir, system, TOOL_SCHEMAS)
        return (list(timer.marks) if timer.sdk_post else list(creates)), creates

    await agent_round(WARM_STEPS, 0)
    await bare_round(WARM_STEPS)
    agent: dict[str, list[float]] = {"wait": [], "overhead": [], "total": [], "strict": []}
    bare: dict[str, list[float]] = {"wait": [], "overhead": [], "total": [], "transform": [],
                                    "posted_overhead": [], "posted_total": []}
    rounds = []
    infos = []
    prof = text = None
    for n in range(1, ROUNDS + 1):
        posts, creates = await bare_round(STEPS)
        b = step_figures(posts)
        # create() beyond its request: the SDK's transform of the parameters, per step (the
        # transform of the request that ends the step)
        transform = [((c1 - c0) - (p1 - p0)) * 1e3
                     for (c0, c1), (p0, p1) in zip(creates[1:], posts[1:])]
        b["transform"] = transform
        b["posted_overhead"] = [g - t for g, t in zip(b["overhead"], transform)]
        b["posted_total"] = [g - t for g, t in zip(b["total"], transform)]
        if n == ROUNDS:
            prof = profiled(profile)
        marks, commits, info = await agent_round(STEPS, n)
        text = profile_text(prof)
        infos.append(info)
        a = step_figures(marks)
        # stricter: add the commits that ran (writer thread) while the next request waited
        strict = []
        for i in range(len(marks) - 1):
            w0, w1 = marks[i + 1]
            inside = sum(e - s for s, e in commits if s >= w0 and e <= w1)
            strict.append(a["overhead"][i] + inside * 1e3)
        a["strict"] = strict
        for key in bare:
            bare[key] += b[key]
        for key in agent:
            agent[key] += a[key]
        rounds.append({"agent_p99": percentile(a["overhead"], 99),
                       "agent_strict_p99": percentile(strict, 99),
                       "bare_p99": percentile(b["posted_overhead"], 99),
                       "ratio": median(a["total"]) / median(b["posted_total"]),
                       "ratio_create": median(a["total"]) / median(b["total"]),
                       "commit_ms_per_step": sum(e - s for s, e in commits) * 1e3
                       / max(1, len(marks) - 1)})
    timer.restore()
    await client.close()
    await engine.stop()
    engine.store.close()
    return {"agent": agent, "bare": bare, "rounds": rounds, "runs": infos, "profile": text,
            "cpu_ms": [cpu_before, cpu_check()]}


# ------------------------------------------------------------------ goal 2

async def make_parked(data_dir: Path, url: str) -> dict:
    workdir = data_dir / "work"
    workdir.mkdir()
    engine = await open_engine(data_dir, url)
    await engine.commands.set_setting("concurrency", "128")
    t0 = time.perf_counter()
    ids = []
    for i in range(PARKED):
        automation, _ = await engine.commands.create(agent_doc(f"parked {i:03d}", 1, "run_command",
                                                      workdir, allow_all=False))
        ids.append((await engine.commands.run_now(automation.id)).id)
    runs = [await engine.commands.wait_run(r) for r in ids]
    made_s = time.perf_counter() - t0
    await engine.stop()
    engine.store.close()
    # an in-process restart, for comparison with the serve process: the engine alone
    from errands.engine.core import Engine
    from errands.paths import database_path
    from errands.store import Store
    t0 = time.perf_counter()
    store = Store(database_path(data_dir))
    again = Engine(store, data_dir, {})
    await again.start()
    restore_s = time.perf_counter() - t0
    restored = len(again._expiries)
    await again.stop()
    store.close()
    states: dict[str, int] = {}
    for r in runs:
        states[r.state] = states.get(r.state, 0) + 1
    return {"ids": ids, "states": states, "made_s": made_s, "inproc_restore_s": restore_s,
            "inproc_restored": restored}


def errands_command() -> list[str]:
    found = Path(sys.executable).parent / "errands"
    if found.exists():
        return [str(found)]
    which = shutil.which("errands")
    if which:
        return [which]
    return [sys.executable, "-c", "import sys; from errands.cli import main; sys.exit(main())"]


def states_of(db: Path, ids: list[str]) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1.0)
    try:
        marks = ",".join("?" * len(ids))
        rows = conn.execute(f"SELECT state, count(*) FROM runs WHERE id IN ({marks}) "
                            "GROUP BY state", ids).fetchall()
    except sqlite3.OperationalError:  # busy for a moment: look again
        return {}
    finally:
        conn.close()
    return dict(rows)


def measure_restart(data_dir: Path, url: str, ids: list[str], *, listing: bool) -> dict:
    """serve, then ``errands approve --all`` (or, ``listing``, ``errands approvals --json``
    and ``errands approve ID1 ... IDn``), until every run is final."""
    from errands.paths import database_path

    db = database_path(data_dir)
    env = dict(os.environ, ERRANDS_PROVIDER_BASE_URL=url, ERRANDS_PROVIDER_MODEL=MODEL,
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", PYTHONUNBUFFERED="1")
    errands = errands_command()
    where = ["--data-dir", str(data_dir)]
    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    serve = subprocess.Popen([*errands, "serve", *where], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    try:
        assert serve.stdout is not None
        line = serve.stdout.readline()
        if "running" not in line:
            out["error"] = f"serve said: {line.strip()!r}"
            return out
        t_ready = time.perf_counter()
        if listing:
            listed = subprocess.run([*errands, "approvals", "--json", *where], env=env,
                                    capture_output=True, text=True)
            waiting = [a["run_id"] for a in json.loads(listed.stdout)["approvals"]]
        else:
            waiting = ["--all"]
        t_listed = time.perf_counter()
        approved = subprocess.run([*errands, "approve", *waiting, *where, "--json"], env=env,
                                  capture_output=True, text=True)
        if approved.returncode == 0:
            out["approved"] = len(json.loads(approved.stdout)["runs"])
        t_approved = time.perf_counter()
        out["approve_status"] = approved.returncode
        if approved.returncode != 0:
            out["error"] = f"approve failed: {approved.stdout[-300:]} {approved.stderr[-300:]}"
        states: dict[str, int] = {}
        deadline = time.perf_counter() + 30
        while time.perf_counter() < deadline:
            states = states_of(db, ids)
            if states.get("succeeded", 0) == len(ids) or (
                    states and sum(v for k, v in states.items()
                                   if k not in ("succeeded", "failed", "interrupted",
                                                "cancelled", "expired")) == 0):
                break
            time.sleep(0.005)
        t_done = time.perf_counter()
        out.update(states=states, ready_s=t_ready - t0, list_s=t_listed - t_ready,
                   approve_s=t_approved - t_listed, finish_s=t_done - t_approved,
                   total_s=t_done - t0)
        # the CLI's own start, for scale: an errands command that does nothing
        t1 = time.perf_counter()
        subprocess.run([*errands, "--version"], env=env, capture_output=True)
        out["cli_start_s"] = time.perf_counter() - t1
    finally:
        serve.send_signal(signal.SIGINT)
        try:
            serve.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.communicate()
    return out


# ------------------------------------------------------------------ goal 3

async def measure_concurrent(data_dir: Path, url: str, profile: bool, delay_ms: int = 0,
                             steps: int = CONCURRENT_STEPS) -> dict:
    cpu_before = cpu_check()
    workdir = data_dir / "work"
    workdir.mkdir()
    (workdir / "notes.txt").write_text(NOTES)
    engine = await open_engine(data_dir, url)
    await engine.commands.set_setting("concurrency", "64")
    flushes = FlushTimer(engine)
    timer = RequestTimer()
    ids = []
    for i in range(CONCURRENT):
        automation, _ = await engine.commands.create(agent_doc(f"together {i:02d}", steps,
                                                      "read_file", workdir, allow_all=True,
                                                      delay_ms=delay_ms))
        ids.append(automation.id)

    gcs: list[tuple[float, float, int]] = []
    gc_start: dict[str, float] = {}

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            gc_start["t"] = time.perf_counter()
        elif "t" in gc_start:
            gcs.append((gc_start.pop("t"), time.perf_counter(), info["generation"]))

    ticks: list[tuple[float, float]] = []  # (woke at, lateness ms)
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            t0 = time.perf_counter()
            await asyncio.sleep(TICK_S)
            t1 = time.perf_counter()
            ticks.append((t1, (t1 - t0 - TICK_S) * 1e3))

    gc.callbacks.append(on_gc)
    tick = asyncio.get_running_loop().create_task(ticker())
    await asyncio.sleep(IDLE_S)
    prof = profiled(profile)
    t_start = time.perf_counter()
    runs = []
    for automation_id in ids:
        runs.append(await engine.commands.run_now(automation_id))
        await asyncio.sleep(0)
    t_launched = time.perf_counter()
    finished = await asyncio.gather(*(engine.commands.wait_run(r.id) for r in runs))
    t_end = time.perf_counter()
    text = profile_text(prof)
    stop.set()
    await tick
    gc.callbacks.remove(on_gc)
    timer.restore()
    # the steady part: every run started and stepping, none finished yet
    first_final = t_end
    ends = [r.finished_at for r in finished if r.finished_at is not None]
    if ends:  # finished_at is wall-clock: map the earliest onto perf_counter
        import datetime as _dt
        earliest = min(ends)
        lag = (_dt.datetime.now(_dt.timezone.utc) - earliest).total_seconds()
        first_final = time.perf_counter() - lag
    states: dict[str, int] = {}
    for r in finished:
        states[r.state] = states.get(r.state, 0) + 1
    steps = sum((r.details or {}).get("steps", 0) for r in finished)
    await engine.stop()
    engine.store.close()

    def window(a: float, b: float) -> list[float]:
        return [late for at, late in ticks if a <= at <= b]

    worst = sorted(((late, at) for at, late in ticks if t_start <= at <= t_end), reverse=True)[:5]
    flush_in = [(e - s) * 1e3 for s, e in flushes.marks if t_start <= s <= t_end]
    gcs_in = [(g, (e - s) * 1e3) for s, e, g in gcs if t_start <= s <= t_end]
    waits = [(b - a) * 1e3 for a, b in timer.marks if t_start <= a <= t_end]
    return {"idle": window(t_start - IDLE_S, t_start), "all": window(t_start, t_end),
            "launch": window(t_start, t_launched),
            "steady": window(t_launched, max(t_launched, first_final)),
            "launch_s": t_launched - t_start, "steady_s": max(0.0, first_final - t_launched),
            "total_s": t_end - t_start, "states": states, "steps": steps,
            "requests": len(waits), "wait_p50": percentile(waits, 50) if waits else None,
            "worst": [(late, (at - t_start) * 1e3) for late, at in worst],
            "flush_count": len(flush_in), "flush_max": max(flush_in, default=0.0),
            "flush_p99": percentile(flush_in, 99) if flush_in else 0.0,
            "gcs": gcs_in, "profile": text, "cpu_ms": [cpu_before, cpu_check()]}


# ------------------------------------------------------------------ main

def _row(label: str, values: list[float]) -> str:
    if not values:
        return f"  {label:44s} (no samples)"
    return (f"  {label:44s} {percentile(values, 50):8.3f} {percentile(values, 99):8.3f} "
            f"{max(values):8.3f}   n={len(values)}")


def compile_sources(prefix: Path) -> None:
    """Every process the bench starts reads byte-code, as an installed Errands does
    (``_common.byte_code``: without it each compiles errands and the openai SDK again, and
    a module imported late, compiled while runs go, holds the interpreter for tens of ms)."""
    byte_code(prefix, "errands.cli, errands.engine.service, errands.agent.loop, openai, "
                      "openai.types.chat, httpx")
    print("  (errands and its libraries byte-compiled first, as an install has them)")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--phase", choices=["server", "overhead", "park", "concurrent"])
    parser.add_argument("--url")
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--steps", type=int, default=CONCURRENT_STEPS)
    parser.add_argument("data_dir", nargs="?")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile the measured windows of goals 1 and 3")
    parser.add_argument("--only", choices=["1", "2", "3"], action="append",
                        help="run only these goals (repeatable)")
    args = parser.parse_args()
    clean_environment()
    if args.phase == "server":
        serve_scripted()
        return 0
    if args.phase == "overhead":
        report(asyncio.run(measure_overhead(Path(args.data_dir), args.url, args.profile)))
        return 0
    if args.phase == "park":
        report(asyncio.run(make_parked(Path(args.data_dir), args.url)))
        return 0
    if args.phase == "concurrent":
        report(asyncio.run(measure_concurrent(Path(args.data_dir), args.url, args.profile,
                                              args.delay_ms, args.steps)))
        return 0

    script = Path(__file__).resolve()
    goals = set(args.only or ["1", "2", "3"])
    extra = ["--profile"] if args.profile else []
    verdicts: list[str] = []
    cleanup = contextlib.ExitStack()
    compile_sources(cleanup.enter_context(temp_data_dir("errands-bench-pyc-")))
    server = ScriptedProcess()
    print(f"scripted server (its own process): {server.url}", flush=True)
    try:
        if "1" in goals:
            print(f"\ngoal 1: one agent run of {STEPS} read_file steps against a bare openai "
                  f"SDK loop of the same calls ({ROUNDS} rounds each, alternating) ...", flush=True)
            with temp_data_dir("errands-bench-agent-") as d:
                r = run_phase(script, "overhead", str(d), "--url", server.url, *extra)
            verdicts += report_overhead(r)
        if "2" in goals:
            print(f"\ngoal 2: {PARKED} runs parked on a run_command ask, then errands serve, "
                  "errands approvals, errands approve ...", flush=True)
            with temp_data_dir("errands-bench-agent-") as d, \
                    temp_data_dir("errands-bench-agent-") as again:
                made = run_phase(script, "park", str(d), "--url", server.url)
                shutil.copytree(d, again, dirs_exist_ok=True)
                r = measure_restart(d, server.url, made["ids"], listing=False)
                listed = measure_restart(again, server.url, made["ids"], listing=True)
            verdicts += report_restart(made, r, listed)
        if "3" in goals:
            print(f"\ngoal 3: {CONCURRENT} agent runs of {CONCURRENT_STEPS} steps at once, a "
                  f"{TICK_S * 1e3:.0f} ms ticker on the same loop ...", flush=True)
            with temp_data_dir("errands-bench-agent-") as d:
                r = run_phase(script, "concurrent", str(d), "--url", server.url, *extra)
            verdicts += report_concurrent(r)
            print(f"\n  for context (not judged): {CONCURRENT} runs of {PACED_STEPS} steps "
                  f"against a model that answers after {PACED_MS} ms ...", flush=True)
            with temp_data_dir("errands-bench-agent-") as d:
                paced = run_phase(script, "concurrent", str(d), "--url", server.url,
                                  "--delay-ms", str(PACED_MS), "--steps", str(PACED_STEPS))
            report_concurrent(paced)
    finally:
        server.close()
        cleanup.close()
    print()
    for line in verdicts:
        print(line)
    return 0


def cpu_line(r: dict) -> str:
    before, after = r["cpu_ms"]
    return (f"  CPU check (a fixed pure-Python loop, before and after): {before:.0f} ms, "
            f"{after:.0f} ms")


def report_overhead(r: dict) -> list[str]:
    a, b = r["agent"], r["bare"]
    print(cpu_line(r))
    print(f"  runs: {r['runs']}")
    print("  the model wait: the request, the server's answer, the reply decoded (Errands' "
          "own Provider._request; the SDK client's post())")
    try:
        import importlib.metadata
        print(f"  peer: openai {importlib.metadata.version('openai')}; Errands on httpx "
              f"{importlib.metadata.version('httpx')}")
    except importlib.metadata.PackageNotFoundError:
        pass
    print(f"\n  per tool step, milliseconds {'p50':>25s} {'p99':>8s} {'max':>8s}")
    print("  agent loop (Engine + AgentRunner, real SQLite)")
    print(_row("overhead: request end -> next request", a["overhead"]))
    print(_row("  + the writer's commits during the wait", a["strict"]))
    print(_row("model wait", a["wait"]))
    print(_row("total per step", a["total"]))
    print("  bare openai SDK loop (chat.completions.create)")
    print(_row("non-model part: request end -> next", b["overhead"]))
    print(_row("  of which create()'s parameter transform", b["transform"]))
    print(_row("  the rest (tool, messages)", b["posted_overhead"]))
    print(_row("model wait", b["wait"]))
    print(_row("total per step", b["total"]))
    print(_row("total per step without the transform", b["posted_total"]))
    ratio = median(a["total"]) / median(b["posted_total"])
    ratio_create = median(a["total"]) / median(b["total"])
    mean = (lambda xs: sum(xs) / len(xs))  # noqa: E731
    print(f"\n  per-step total, agent / bare: {ratio:.3f} against the bare loop without "
          f"create()'s transform (means {mean(a['total']) / mean(b['posted_total']):.3f}); "
          f"{ratio_create:.3f} against create() as it is (means "
          f"{mean(a['total']) / mean(b['total']):.3f}); medians unless said")
    print(f"  overhead alone, agent / bare: p50 {percentile(a['overhead'], 50):.3f} ms against "
          f"{percentile(b['posted_overhead'], 50):.3f} ms (without the transform)")
    print("  each round: agent overhead p99 / with commits / bare p99 without the transform "
          "(ms), ratios (no transform, create()), commit ms per step:")
    for i, x in enumerate(r["rounds"], 1):
        print(f"    round {i}: {x['agent_p99']:.3f} / {x['agent_strict_p99']:.3f} / "
              f"{x['bare_p99']:.3f}, {x['ratio']:.3f}, {x['ratio_create']:.3f}, "
              f"{x['commit_ms_per_step']:.3f}")
    if r.get("profile"):
        print("\n  cProfile of the last agent round:")
        print(r["profile"].rstrip())
    ok_runs = all(x["state"] == "succeeded" and x["steps"] == STEPS for x in r["runs"])
    p99 = percentile(a["overhead"], 99)
    strict = percentile(a["strict"], 99)
    return [
        f"{verdict(ok_runs and p99 < GOAL_OVERHEAD_P99_MS)}: goal 1a, agent loop overhead per "
        f"tool step p99 {p99:.2f} ms (goal < {GOAL_OVERHEAD_P99_MS:.0f} ms; "
        f"{strict:.2f} ms counting the commits that ran during the model wait; "
        f"bare SDK loop {percentile(b['posted_overhead'], 99):.2f} ms without create()'s "
        f"transform, {percentile(b['overhead'], 99):.2f} ms with it)",
        f"{verdict(ok_runs and ratio <= GOAL_RATIO)}: goal 1b, per-step total agent/bare "
        f"{ratio:.3f} against the bare loop without create()'s transform, {ratio_create:.3f} "
        f"against create() as it is (medians; goal <= {GOAL_RATIO})",
    ]


def report_restart(made: dict, r: dict, listed: dict) -> list[str]:
    print(f"  setup (excluded): {PARKED} runs made and parked in {made['made_s']:.1f} s "
          f"{made['states']}; an in-process engine.start() restores them in "
          f"{made['inproc_restore_s'] * 1e3:.0f} ms ({made['inproc_restored']} parked)")
    verdicts = []
    for figures, how in ((r, "approve --all"), (listed, "approvals, then approve ID1 ... IDn")):
        print(f"  {how}:")
        if "error" in figures and "total_s" not in figures:
            print(f"    FAILED: {figures['error']}")
            verdicts.append(f"FAIL: goal 2 ({how}) could not be measured: {figures['error']}")
            continue
        if "error" in figures:
            print(f"    problem: {figures['error']}")
        print(f"    errands serve start -> 'engine running' (restored): "
              f"{figures['ready_s'] * 1e3:7.0f} ms")
        if figures is listed:
            print(f"    errands approvals --json (lists {PARKED}):            "
                  f"{figures['list_s'] * 1e3:7.0f} ms")
        print(f"    errands {how.split(', then ')[-1]} (one call): "
              f"{figures['approve_s'] * 1e3:7.0f} ms ({figures.get('approved')} decided)")
        print(f"    approve returned -> all runs final:                 "
              f"{figures['finish_s'] * 1e3:7.0f} ms")
        print(f"    total:                                              "
              f"{figures['total_s'] * 1e3:7.0f} ms (final states {figures['states']})")
        ok = (figures["states"].get("succeeded", 0) == PARKED
              and figures.get("approved") == PARKED and figures.get("approve_status") == 0)
        if figures is r:
            verdicts.append(
                f"{verdict(ok and r['total_s'] < GOAL_RESTORE_S)}: goal 2, {PARKED} parked "
                f"runs restored by a restarted serve, approved with one 'errands approve "
                f"--all' and all succeeded in {r['total_s']:.2f} s (goal < "
                f"{GOAL_RESTORE_S:.0f} s; listed first and approved by id: "
                + (f"{listed['total_s']:.2f} s)" if "total_s" in listed else "not measured)"))
    print(f"  for scale, 'errands --version' (interpreter + CLI start): "
          f"{r.get('cli_start_s', 0) * 1e3:.0f} ms")
    return verdicts


def report_concurrent(r: dict) -> list[str]:
    print(cpu_line(r))
    print(f"  {CONCURRENT} runs: {r['states']}, {r['steps']} tool steps, {r['requests']} model "
          f"requests (wait p50 {r['wait_p50']:.1f} ms) in {r['total_s']:.2f} s; launched in "
          f"{r['launch_s'] * 1e3:.0f} ms, all stepping for {r['steady_s']:.2f} s")
    print(f"\n  ticker lateness, milliseconds {'p50':>23s} {'p99':>8s} {'max':>8s}")
    print(_row("idle, before the start", r["idle"]))
    print(_row("whole window: first start -> last end", r["all"]))
    print(_row("launch (50 run_now, each a loop turn)", r["launch"]))
    print(_row("all stepping (launched -> first end)", r["steady"]))
    print("  longest stalls (ms, at ms after the start): "
          + ", ".join(f"{late:.1f} at {at:.0f}" for late, at in r["worst"]))
    print(f"  group commits (on the writer thread): {r['flush_count']}, p99 "
          f"{r['flush_p99']:.2f} ms, "
          f"longest {r['flush_max']:.2f} ms")
    gcs = r["gcs"]
    full = [ms for g, ms in gcs if g == 2]
    print(f"  garbage collections in the window: {len(gcs)}, longest "
          f"{max((ms for _, ms in gcs), default=0):.2f} ms; full (gen 2): {len(full)}"
          + (f", longest {max(full):.2f} ms" if full else ""))
    if r.get("profile"):
        print("\n  cProfile of the window:")
        print(r["profile"].rstrip())
    ok = r["states"].get("succeeded", 0) == CONCURRENT
    worst = max(r["all"], default=float("inf"))
    return [f"{verdict(ok and worst < GOAL_STALL_MS)}: goal 3, longest event-loop stall while "
            f"{CONCURRENT} agent runs step at once {worst:.1f} ms (goal < "
            f"{GOAL_STALL_MS:.0f} ms; p99 {percentile(r['all'], 99):.2f} ms)"]


if __name__ == "__main__":
    main()
    sys.exit(0)
