"""Watching a run live: what a running command prints reaches ``api.output`` and
``errands output --follow`` as it is printed, bounded in memory, and the same text stays
readable once the run has ended (with no engine too)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errands.engine.api import Api
from errands.engine.live import Live, Stream
from errands.errors import InvalidInput, NotFound
from engine_support import api  # noqa: F401 (fixtures)
from test_serve import ERRANDS, Serve

TICKER = 'for i in 1 2 3 4 5 6; do echo "line $i ü"; sleep 0.3; done'


def command(title: str, text: str) -> dict[str, Any]:
    return {"title": title, "runner": {"kind": "command", "command": text},
            "trigger": {"kind": "manual"}}


# ------------------------------------------------------------------------ the stream

@pytest.mark.catalogue_free
def test_a_stream_keeps_its_last_bytes_and_says_what_was_dropped() -> None:
    stream = Stream(limit=1000)
    for i in range(300):
        stream.add(f"{i:04d}\n".encode())          # 1,500 bytes in all
    assert len(stream.data) == 1000 and stream.end == 1500 and stream.start == 500
    piece = stream.after(0)
    assert piece.cut and piece.start == 500 and piece.text.startswith("0100\n")
    assert piece.end == 1500 and not piece.ended
    assert stream.after(1495).text == "0299\n" and not stream.after(1495).cut
    assert stream.after(1500).text == ""
    stream.finish()
    assert stream.after(1500).ended


@pytest.mark.catalogue_free
def test_a_character_split_between_chunks_waits_for_its_end() -> None:
    stream = Stream()
    stream.add("aü".encode()[:2])                   # "a" and the first byte of "ü"
    first = stream.after(None)
    assert first.text == "a" and first.end == 1
    stream.add("ü".encode()[1:] + b"!")
    assert stream.after(first.end).text == "ü!"


@pytest.mark.catalogue_free
@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=300), cuts=st.lists(st.integers(0, 1200), max_size=12))
def test_property_reading_as_it_comes_gives_the_text_exactly(text: str, cuts: list[int]) -> None:
    data = text.encode()
    stream, read, position = Stream(), [], None
    bounds = sorted({0, len(data), *[c for c in cuts if c <= len(data)]})
    for a, b in zip(bounds, bounds[1:]):
        stream.add(data[a:b])
        piece = stream.after(position)
        read.append(piece.text)
        position = piece.end
    stream.finish()
    piece = stream.after(position)
    read.append(piece.text)
    assert "".join(read) == text and piece.ended


@pytest.mark.catalogue_free
async def test_followers_wake_on_output_and_on_the_end() -> None:
    live = Live()
    stream = live.open("r1")
    waiting = asyncio.ensure_future(stream.changed(5))
    await asyncio.sleep(0)
    stream.add(b"hello\n")
    await asyncio.wait_for(waiting, 1)
    waiting = asyncio.ensure_future(stream.changed(5))
    await asyncio.sleep(0)
    live.finish("r1")
    await asyncio.wait_for(waiting, 1)
    assert live.get("r1") is stream and stream.ended     # still readable a while


@pytest.mark.catalogue_free
async def test_waits_that_time_out_leave_nothing_behind() -> None:
    """A follower of a silent run asks again and again: no wait is left pending."""
    stream = Live().open("r1")
    for _ in range(20):
        await stream.changed(0.001)
    await asyncio.sleep(0)
    assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []


# ---------------------------------------------------------------- through the engine

async def test_output_arrives_while_the_run_goes_on_and_matches_what_is_kept(api: Api) -> None:
    made = (await api.create(command("Ticker", TICKER))).value[0]
    run = (await api.run_now(made.id)).value
    pieces: list[dict[str, Any]] = []
    position = None
    for _ in range(100):
        answer = (await api.output(run.id, after=position, wait=5)).value
        pieces.append(answer)
        position = answer["position"] if answer["position"] is not None else position
        if answer["ended"]:
            break
    text = "".join(p["output"] for p in pieces)
    assert text == "".join(f"line {i} ü\n" for i in range(1, 7))
    # it came in several pieces while the run was still running
    running = [p for p in pieces if p["state"] == "running" and p["output"]]
    assert len(running) >= 3
    assert pieces[-1]["ended"] and pieces[-1]["state"] == "succeeded"
    stored = (await api.output(run.id)).value
    assert stored["output"] == text and stored["ended"] and stored["transcript"] is None
    assert (await api.output(run.id[:8])).value["run"] == run.id     # a prefix will do


async def test_a_flood_of_output_is_bounded_and_the_cut_is_said(api: Api) -> None:
    made = (await api.create(command("Flood", "head -c 3000000 /dev/zero | tr '\\0' a"))).value[0]
    run = (await api.run_now(made.id, wait=True)).value
    assert run.state == "succeeded"
    held = api.engine.live.get(run.id)
    assert held is not None and len(held.data) <= held.limit and held.end == 3_000_000
    late = (await api.output(run.id, after=0)).value
    assert late["cut"] and late["ended"] and len(late["output"]) == held.limit


async def test_an_unknown_run_is_not_found(api: Api) -> None:
    with pytest.raises(NotFound):
        await api.output("nosuchrun")


@pytest.mark.parametrize("args, field", [({"run": "r", "wait": 31}, "wait"),
                                         ({"run": "r", "after": -1}, "after"),
                                         ({"run": "r", "wait": "soon"}, "wait"),
                                         ({"after": 0}, "run")])
async def test_bad_output_requests_name_their_field(api: Api, args: dict[str, Any],
                                                    field: str) -> None:
    from errands.engine.operations import perform
    with pytest.raises(InvalidInput) as caught:
        await perform(api, "output", args)
    assert caught.value.field == field


# ------------------------------------------------------------------- the command line

def test_errands_output_follows_a_run_and_reads_it_afterwards(tmp_path: Path) -> None:
    serve = Serve(tmp_path / "data").start()
    try:
        made = serve.cli("add", "--title", "Ticker", "--command", TICKER, "--schedule", "manual")
        run = serve.cli("run-now", made["id"])["id"]
        with subprocess.Popen([ERRANDS, "output", run, "--follow", "--data-dir",
                               str(serve.data)], env=serve.env, stdout=subprocess.PIPE,
                              text=True) as follower:
            assert follower.stdout is not None
            first = follower.stdout.readline()
            state_then = serve.cli("output", run)["state"]
            rest = follower.stdout.read()
            assert follower.wait(timeout=30) == 0
        assert first == "line 1 ü\n" and state_then == "running"   # printed as it came
        assert first + rest == "".join(f"line {i} ü\n" for i in range(1, 7))
        doc = serve.cli("output", run[:8])
        assert doc["state"] == "succeeded" and doc["output"] == first + rest and doc["ended"]
        follow_json = subprocess.run([ERRANDS, "output", run, "--follow", "--json",
                                      "--data-dir", str(serve.data)], env=serve.env,
                                     capture_output=True, text=True, timeout=30)
        lines = [json.loads(line) for line in follow_json.stdout.splitlines()]
        assert lines[-1]["ended"] and "".join(d["output"] for d in lines) == first + rest
    finally:
        serve.stop()
    # no engine: the kept output, from the database
    done = subprocess.run([ERRANDS, "output", run, "--data-dir", str(serve.data)],
                          env=serve.env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout == first + rest
    missing = subprocess.run([ERRANDS, "output", "nosuch", "--data-dir", str(serve.data)],
                             env=serve.env, capture_output=True, text=True, timeout=30)
    assert missing.returncode == 3 and "no run" in missing.stderr
