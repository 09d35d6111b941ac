"""The engine's one async face, as the window and the channel use it: an engine on its own
thread, commands and queries through the facade, stamps, notices on the caller's loop,
decisions over the channel, and ``errands events --follow`` / ``activate`` against a real
``errands serve``."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from errands.engine.api import Api
from errands.engine.control import request
from errands.engine.lock import read_owner
from errands.engine.notices import Notice
from errands.engine.operations import perform
from errands.engine.service import EngineHost, EngineThread
from errands.errors import Conflict, InvalidInput, NotFound, StoreError
from errands.records import Blocker
from channel_support import no_error_logs  # noqa: F401
from cli_support import Result, errands
from test_lifecycle import ParkingRunner
from test_serve import ERRANDS, Serve
from engine_support import api  # noqa: F401 (fixtures)
from pg_support import on_postgresql


def doc(title: str, trigger: dict[str, Any], command: str = "echo done") -> dict[str, Any]:
    return {"title": title, "runner": {"kind": "command", "command": command},
            "trigger": trigger}


async def test_the_listing_comes_from_the_engine_records_and_is_rendered_once(api: Api) -> None:
    """``list`` is answered from the records the engine holds, which equal the database's
    after creates, runs (manual and scheduled), a pause and an archive; the rendered
    ``--json`` text is handed over again untouched until a record changes."""
    from errands.jsondoc import pretty
    from errands.store import Store

    made = [(await api.create(doc(f"T{i}", trigger))).value[0] for i, trigger in enumerate(
        [{"kind": "manual"}, {"kind": "every", "every": "1h"},
         # (whole seconds, and the creates before it may take a while on a busy machine:
         # a margin, so it is still ahead when it is created)
         {"kind": "at", "at": (datetime.now(timezone.utc) + timedelta(seconds=3)
                               ).strftime("%Y-%m-%dT%H:%M:%SZ")}])]
    await api.run_now(made[0].id, wait=True)
    for _ in range(200):  # the one-time fire runs and completes its automation
        if (await api.automation(made[2].id)).value.status == "completed":
            break
        await asyncio.sleep(0.05)
    await api.pause(made[1].id)
    await api.archive(made[0].id)
    store = Store(api.engine.store.db.location)
    try:
        for archived in (False, True):
            held, others = (await api.automations(archived=archived)).value
            stored = [a for a in store.list() if (a.status == "archived") == archived]
            assert [a.to_dict() for a in held] == [a.to_dict() for a in stored]
            assert others == 3 - len(stored)
            text = (await api.automations_json(archived=archived)).value
            assert text == pretty({"automations": [a.to_dict() for a in stored]})
            if not on_postgresql():  # (kept; a shared catalogue is read again each time)
                assert (await api.automations_json(archived=archived)).value is text
    finally:
        store.close()
    before = (await api.automations_json()).value
    await api.edit(made[1].id, doc("Renamed", {"kind": "every", "every": "1h"}))
    after = (await api.automations_json()).value
    assert after is not before and '"title": "Renamed"' in after


async def test_commands_and_queries_through_an_engine_on_its_own_thread(api: Api) -> None:
    notices: list[tuple[Notice, str]] = []
    api.subscribe(lambda n: notices.append((n, threading.current_thread().name)))
    cron = (await api.create(doc("Backup", {"kind": "cron", "expression": "30 9 * * *",
                                            "timezone": "Europe/Berlin"}))).value[0]
    every = (await api.create(doc("Poll", {"kind": "every", "every": "1h"}))).value[0]
    manual = (await api.create(doc("Report", {"kind": "manual"}))).value[0]

    page = await api.summaries(sort="title")
    items, total = page.value
    assert total == 3 and [s.title for s in items] == ["Backup", "Poll", "Report"]
    by_fire = [s.title for s in (await api.summaries()).value[0]]
    assert by_fire[-1] == "Report"  # no next fire: last
    assert [s.title for s in (await api.summaries(text="pol")).value[0]] == ["Poll"]
    first = {s.id: s for s in items}
    assert first[cron.id].schedule.startswith("At 09:30") or "9:30" in first[cron.id].schedule
    assert first[manual.id].next_fire_at is None and first[every.id].next_fire_at is not None

    await api.pause(every.id)
    assert [s.title for s in (await api.summaries(status="paused")).value[0]] == ["Poll"]
    await api.resume(every.id)

    with pytest.raises(Conflict, match="changed since you read it"):
        await api.edit(manual.id, doc("Report v2", {"kind": "manual"}), expected_revision=7)
    edited = (await api.edit(manual.id, doc("Report v2", {"kind": "manual"}),
                             expected_revision=1)).value[0]
    assert edited.revision == 2
    revisions, audit = (await api.history(manual.id)).value
    assert [r.changed for r in revisions] == [[], ["title"]]
    assert [e.action for e in audit] == ["created", "revised"]

    run = (await api.run_now(manual.id, wait=True)).value
    assert run.state == "succeeded" and run.result == "done"
    runs, cursor = (await api.runs(manual.id)).value
    assert [r.id for r in runs] == [run.id] and cursor is None
    detail = (await api.run(run.id)).value
    assert "done" in detail["output_tail"] and detail["transcript"] is None
    summary = {s.id: s for s in (await api.summaries()).value[0]}[manual.id]
    assert summary.last_state == "succeeded" and summary.last_at == run.finished_at

    fires = (await api.next_fires(cron.id, 5)).value
    assert len(fires) == 5 and fires == sorted(fires)
    assert {(f.hour, f.minute) for f in fires} <= {(7, 30), (8, 30)}  # 09:30 Berlin in UTC
    upcoming = (await api.upcoming(hours=24)).value
    assert {title for _, _, title in upcoming} >= {"Backup", "Poll"}
    assert (await api.parked()).value == []
    assert (await api.set_setting("concurrency", "2")).value == "2"
    assert (await api.mark_read()).value == 0  # nothing asked for attention yet
    assert (await api.automation(cron.id)).value.title == "Backup"
    await api.delete(every.id)
    assert (await api.summaries()).value[1] == 2
    with pytest.raises(NotFound):
        await api.automation(every.id)

    for _ in range(100):  # the last window closes
        if any(every.id in n.deleted for n, _ in notices):
            break
        await asyncio.sleep(0.02)
    assert {name for _, name in notices} == {threading.current_thread().name}  # our loop
    revisions_seen = [n.revision for n, _ in notices]
    assert revisions_seen == sorted(revisions_seen)
    assert any(run.id in n.runs for n, _ in notices)
    assert any(n.settings for n, _ in notices)


async def test_dry_runs_repeated_requests_and_attention_through_the_facade(
        api: Api, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    report = (await api.create(doc("Report", {"kind": "manual"},
                                   command=f"touch {marker}; echo made"))).value[0]
    dry = (await api.run_now(report.id, dry_run=True, wait=True)).value
    assert dry.dry_run and dry.state == "succeeded" and "touch" in (dry.result or "")
    assert not marker.exists()  # nothing with effects ran
    assert (await api.automation(report.id)).value.run_count == 0  # recorded, never counted
    first = (await api.run_now(report.id, request_id="req-1", wait=True)).value
    again = (await api.run_now(report.id, request_id="req-1", wait=True)).value
    assert again.id == first.id and marker.exists()  # the repeat is the same run
    assert (await api.automation(report.id)).value.run_count == 1

    # (no retries: the attention item is what this looks at, not 90 s of back-off)
    broken = (await api.create({**doc("Broken", {"kind": "manual"}, command="exit 3"),
                                "policy": {"retry": {"max_attempts": 1}}})).value[0]
    failed = (await api.run_now(broken.id, wait=True)).value
    assert failed.state == "failed"
    unread = (await api.attention(unread_only=True)).value
    assert [(i.kind, i.run_id) for i in unread] == [("failure", failed.id)]
    assert (await api.mark_read()).value == 1
    assert (await api.attention(unread_only=True)).value == []
    assert [i.run_id for i in (await api.attention()).value] == [failed.id]  # kept, read


async def test_a_read_kept_waiting_by_a_lock_answers_busy(
        api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read that waited out its short busy timeout (a backup holding the file, say) is
    "busy, try again", not a database error; the next read goes through."""
    def locked(*_args: Any, **_kwargs: Any) -> Any:
        raise StoreError("locked", "database is locked")

    monkeypatch.setattr(api._reader, "runs_page", locked)
    with pytest.raises(Conflict) as caught:
        await api.runs("any")
    assert caught.value.code == "busy" and "try again" in caught.value.message
    monkeypatch.undo()
    assert (await api.runs("any")).value == ([], None)


@pytest.mark.sqlite_only("another program holding the SQLite file's write lock")
async def test_a_command_kept_waiting_by_another_programs_lock_answers_busy(
        api: Api, tmp_path: Path) -> None:
    """Another program holds the write lock (a backup, an sqlite3 shell): a command says
    "busy" within a second or so instead of failing after the store's ten-second wait, and
    the work the engine itself does meanwhile waits as long as it must and still lands."""
    slow = (await api.create(doc("Slow", {"kind": "manual"}, command="sleep 1.5; echo ok"))
            ).value[0]
    run = (await api.run_now(slow.id)).value  # started by a command, finished by the engine
    holder = sqlite3.connect(tmp_path / "data" / "errands.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        began = time.monotonic()
        with pytest.raises(Conflict) as caught:
            await api.create(doc("Later", {"kind": "manual"}))
        waited = time.monotonic() - began
        assert caught.value.code == "busy" and "try again" in caught.value.message
        assert 0.5 <= waited < 5.0  # the short wait, not the store's ten seconds
        with pytest.raises(Conflict, match="busy"):
            await api.pause(slow.id)
        await asyncio.sleep(2.5)  # the run ends while the lock is still held
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    deadline = time.monotonic() + 30  # its close waited for the lock, then committed
    while (state := (await api.run(run.id)).value["state"]) not in ("succeeded", "failed"):
        assert time.monotonic() < deadline, state
        await asyncio.sleep(0.05)
    assert state == "succeeded"
    titles = [s.title for s in (await api.summaries()).value[0]]
    assert titles == ["Slow"]  # the refused create left nothing behind
    assert (await api.create(doc("Later", {"kind": "manual"}))).value[0].title == "Later"


HOLD_LOCK = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
db.execute("ROLLBACK")
"""


@pytest.mark.logs("due fires wait: another program is writing")
@pytest.mark.sqlite_only("another program holding the SQLite file's write lock")
async def test_the_engines_loop_goes_on_while_another_program_holds_the_lock(
        tmp_path: Path) -> None:
    """``errands serve`` hosts the engine on its own loop. While another program holds the
    write lock, that loop never waits for it: a heartbeat on it keeps its pace while a
    command answers busy, a run ends (its close waits on the writer thread) and a fire
    comes due (it waits too); once the lock is free all of it lands."""
    host = EngineHost(tmp_path / "data", automatic=True, listen=False)
    await host.start()
    api = host.api
    assert api is not None
    try:
        slow = (await api.create(doc("Slow", {"kind": "manual"}, command="sleep 1; echo ok"))
                ).value[0]
        soon = datetime.now(timezone.utc) + timedelta(seconds=3)
        once = (await api.create(doc("Once", {"kind": "at", "at": soon.isoformat()}))).value[0]
        run = (await api.run_now(slow.id)).value
        holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK,
                                   str(tmp_path / "data" / "errands.sqlite3")],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        gaps: list[float] = []
        beating = True

        async def heartbeat() -> None:
            last = time.monotonic()
            while beating:
                await asyncio.sleep(0.005)
                now = time.monotonic()
                gaps.append(now - last)
                last = now

        try:
            assert holder.stdout is not None and holder.stdin is not None
            assert await asyncio.to_thread(holder.stdout.readline) == "locked\n"
            beat = asyncio.ensure_future(heartbeat())
            began = time.monotonic()
            with pytest.raises(Conflict, match="busy"):
                await api.pause(once.id)
            assert time.monotonic() - began < 3.0
            assert [s.title for s in (await api.summaries(sort="title")).value[0]] == [
                "Once", "Slow"]  # reads go on
            while datetime.now(timezone.utc) < soon + timedelta(seconds=1.5):
                await asyncio.sleep(0.05)  # the run ended, the fire is due: both wait
            assert (await api.run(run.id)).value["state"] == "running"
            assert (await api.runs(once.id)).value[0] == []
            beating = False
            await beat
        finally:
            holder.communicate("go\n", timeout=30)
        worst = max(gaps)
        print(f"longest heartbeat gap under the lock: {worst * 1000:.1f} ms")
        assert worst < 0.2, f"the engine's loop stalled {worst * 1000:.0f} ms under the lock"
        deadline = time.monotonic() + 30
        while (await api.run(run.id)).value["state"] == "running" or \
                not (await api.runs(once.id)).value[0]:
            assert time.monotonic() < deadline, "nothing landed once the lock was free"
            await asyncio.sleep(0.05)
        assert (await api.run(run.id)).value["state"] == "succeeded"
        fired = (await api.runs(once.id)).value[0]
        assert [r.state for r in fired] in (["running"], ["succeeded"])
        assert (await api.pause(slow.id)).value.status == "paused"  # commands work again
    finally:
        await host.close()


async def test_every_answer_is_stamped_and_older_snapshots_are_recognisable(api: Api) -> None:
    notices: list[Notice] = []
    api.subscribe(notices.append)
    before = await api.summaries()
    created = await api.create(doc("Later", {"kind": "manual"}))
    assert created.stamp.newer_than(before.stamp)
    after = await api.summaries()
    assert after.stamp.revision >= created.stamp.revision
    for _ in range(100):
        if notices:
            break
        await asyncio.sleep(0.02)
    [notice] = [n for n in notices if created.value[0].id in n.automations]
    assert notice.stamp.newer_than(before.stamp)   # the first snapshot is older: refetch
    assert not notice.stamp.newer_than(after.stamp)  # the second already reflects it


async def test_queries_refuse_bad_arguments_by_name(api: Api) -> None:
    with pytest.raises(InvalidInput) as sort:
        await api.summaries(sort="colour")
    assert sort.value.field == "sort"
    with pytest.raises(InvalidInput) as status:
        await api.summaries(status="asleep")
    assert status.value.field == "status"


async def test_a_parked_run_is_listed_and_decided_over_the_channel(tmp_path: Path) -> None:
    host = EngineHost(tmp_path / "data", automatic=False, listen=False)
    await host.start()
    try:
        assert host.engine is not None and host.api is not None
        host.engine.runners["command"] = ParkingRunner(Blocker(kind="question",
                                                               question="Which branch?"))
        created = await perform(host.api, "create", {"doc": doc("Ask", {"kind": "manual"})})
        ident = created["automation"]["id"]
        run = await perform(host.api, "run_now", {"id": ident})
        for _ in range(200):
            parked = await perform(host.api, "parked", {})
            if parked["items"]:
                break
            await asyncio.sleep(0.01)
        [item] = parked["items"]
        assert item["run_id"] == run["id"] and item["blocker"]["question"] == "Which branch?"
        [summary] = (await perform(host.api, "summaries", {}))["items"]
        assert summary["parked"] == 1
        with pytest.raises(InvalidInput) as missing:
            await perform(host.api, "decide", {"run": run["id"], "decision": "answer"})
        assert missing.value.field == "text"
        answer = {"run": run["id"], "decision": "answer", "text": "main", "request_id": "q1"}
        await perform(host.api, "decide", answer)
        await host.engine.commands.wait_run(run["id"])
        again = await perform(host.api, "decide", answer)  # repeated: harmless
        assert again["state"] == "succeeded" and again["result"] == "answer main"
        shown = await perform(host.api, "run", {"run": run["id"]})
        assert [m["role"] for m in shown["transcript"]] == ["user", "assistant", "tool"]
    finally:
        await host.close()


def test_events_follow_and_activate_against_a_real_serve(tmp_path: Path) -> None:
    serve = Serve(tmp_path / "data").start()
    follower = subprocess.Popen([ERRANDS, "events", "--follow", "--json", "--data-dir",
                                 str(serve.data)], env=serve.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    assert follower.stdout is not None and follower.stderr is not None
    (lines, reading_out), (said, reading_err) = _lines_of(follower.stdout), \
        _lines_of(follower.stderr)
    try:
        # subscribed once it says so (a notice sent before is not replayed)
        assert said.get(timeout=30).startswith("Following the engine (epoch ")
        a = serve.cli("add", "--title", "hello", "--command", "echo hi",
                      "--schedule", "manual")["id"]
        run = serve.cli("run-now", a, "--wait")
        seen: dict[str, str] = {}
        deadline = time.monotonic() + 30
        while seen.get(run["id"]) != "succeeded":
            notice = json.loads(lines.get(timeout=max(0.0, deadline - time.monotonic())))
            assert set(notice) >= {"epoch", "revision", "runs", "automations"}
            seen.update(notice["run_states"])
        assert seen[run["id"]] == "succeeded"
        owner = read_owner(serve.data)
        assert owner is not None and owner.address
        answer = asyncio.run(request(owner.address, "activate", {}, data_dir=serve.data))
        assert answer["shown"] is False and answer["role"] == "serve"
        assert "no window" in answer["why"]
        ping = asyncio.run(request(owner.address, "ping", {}, data_dir=serve.data))
        assert ping["role"] == "serve" and ping["revision"] >= 1 and ping["epoch"]
    finally:
        serve.stop()
        try:
            follower.wait(timeout=20)
        finally:
            if follower.poll() is None:
                follower.kill()
            for reading, stream in ((reading_out, follower.stdout),
                                    (reading_err, follower.stderr)):
                reading.join(timeout=10)  # at the end of its pipe, now the process is gone
                stream.close()
    assert follower.returncode == 0, list(said.queue)


def _lines_of(stream: Any) -> tuple["queue.Queue[str]", threading.Thread]:
    """Each line of ``stream`` as it comes, read on a thread, so a test waits for one
    with a deadline instead of hanging on a silent process (``get`` raises Empty)."""
    lines: "queue.Queue[str]" = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)

    reading = threading.Thread(target=read, daemon=True)
    reading.start()
    return lines, reading


async def test_activate_reaches_the_hosting_loop_of_an_engine_on_its_own_thread(
        tmp_path: Path) -> None:
    shown: list[str] = []
    host = EngineThread(tmp_path / "data", role="app",
                        on_activate=lambda: shown.append(threading.current_thread().name))
    await host.start()
    try:
        owner = read_owner(tmp_path / "data")
        assert owner is not None and owner.address
        answer = await request(owner.address, "activate", {}, data_dir=tmp_path / "data")
        assert answer == {"role": "app", "shown": True}
        for _ in range(100):
            if shown:
                break
            await asyncio.sleep(0.01)
        assert shown == [threading.current_thread().name]  # on our loop, not the engine's
        ping = await request(owner.address, "ping", {}, data_dir=tmp_path / "data")
        assert ping["role"] == "app"
    finally:
        await host.close()


def test_watching_and_deciding_from_the_cli_without_an_engine(tmp_path: Path) -> None:
    data = str(tmp_path / "data")

    def cli(*args: str) -> Result:
        return errands([*args, "--data-dir", data], dict(os.environ), timeout=60)

    events = cli("events")
    assert events.returncode == 4 and "no engine is running" in events.stderr
    assert "internal" not in events.stderr
    assert cli("approvals").stdout.strip() == "No run is waiting for a decision."
    refused = cli("decide", "abcd")
    assert refused.returncode == 2 and "exactly one of" in refused.stderr
    assert cli("decide", "abcd", "--approve").returncode == 3  # no such run
    added = cli("add", "--title", "t", "--command", "true", "--schedule", "manual", "--json")
    ident = json.loads(added.stdout)["id"]
    ran = cli("run-now", ident, "--wait", "--json")
    run_id = json.loads(ran.stdout)["id"]
    not_parked = cli("decide", run_id[:8], "--deny")
    assert not_parked.returncode == 4 and "not waiting for a decision" in not_parked.stderr
    assert cli("edit", ident, "--title", "t2").returncode == 0
    shown = cli("history", ident)
    assert "title" in shown.stdout and "revised" in shown.stdout
    assert cli("delete", ident).returncode == 0
    after = cli("history", ident)  # the trail outlives the automation
    assert after.returncode == 0 and "deleted" in after.stdout


def _open_fds(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/fd").iterdir()))


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc")
def test_subscribers_that_hang_up_leave_nothing_behind(tmp_path: Path) -> None:
    serve = Serve(tmp_path / "data").start()
    try:
        assert serve.proc is not None
        before = _open_fds(serve.proc.pid)
        owner = read_owner(serve.data)
        assert owner is not None and owner.address

        async def hang_up_after_subscribing() -> None:
            from errands.engine.control import connect
            for _ in range(40):
                connection = await connect(owner.address, data_dir=serve.data)
                await connection.call("subscribe")
                await connection.aclose()

        asyncio.run(hang_up_after_subscribing())
        for _ in range(20):
            cli = errands(["events", "--data-dir", str(serve.data)], serve.env, timeout=60)
            assert cli.returncode == 0 and "hosted by serve" in cli.stdout
        deadline = time.monotonic() + 10
        while _open_fds(serve.proc.pid) > before + 3 and time.monotonic() < deadline:
            time.sleep(0.1)  # no notice is sent meanwhile: the hang-ups alone must end them
        assert _open_fds(serve.proc.pid) <= before + 3
    finally:
        serve.stop()


async def test_a_client_too_slow_for_its_notices_is_told_it_was_dropped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from errands.engine.api import Subscription
    from errands.engine.control import connect
    from errands.errors import ErrandsError

    monkeypatch.setattr(Subscription, "LIMIT", 3)  # a small queue, so a few notices overflow it
    host = EngineHost(tmp_path / "data", automatic=False)
    await host.start()
    try:
        assert host.server is not None and host.server.address and host.api is not None
        connection = await connect(host.server.address, data_dir=tmp_path / "data")
        await connection.call("subscribe")
        for i in range(6):  # six notices in one turn (faster than any socket), queue of three
            host.api.engine.events.publish("automation_changed", automation_id=f"n{i}")
            host.api.engine.events.flush()
        received = []
        with pytest.raises(ErrandsError, match="dropped this stream"):
            async for notice in connection.notices():
                received.append(notice)
        assert len(received) <= 3
        await connection.aclose()
    finally:
        await host.close()


def test_cli_refusals_for_history_and_decide_flags(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    empty = subprocess.run([ERRANDS, "history", "", "--data-dir", data], capture_output=True,
                           text=True, timeout=60)
    assert empty.returncode == 2 and "id" in empty.stderr
    for argv in (["--deny", "--rule", "git*"], ["--approve", "--note", "x"]):
        out = subprocess.run([ERRANDS, "decide", "abcd", *argv, "--data-dir", data],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and "goes with" in out.stderr, out.stderr


async def test_next_fires_respect_the_stop_rules(api: Api) -> None:
    now = datetime.now(timezone.utc).replace(microsecond=0)
    until = now + timedelta(hours=3, minutes=30)
    # starting a minute from now: a first fire at once would run meanwhile and use up one
    start = (now + timedelta(minutes=1)).isoformat()
    capped = (await api.create({**doc("capped", {"kind": "every", "every": "1h",
                                                 "start_at": start}),
                                "stop": {"max_runs": 2}})).value[0]
    ending = (await api.create({**doc("ending", {"kind": "every", "every": "1h",
                                                 "start_at": start}),
                                "stop": {"until": until.isoformat()}})).value[0]
    assert len((await api.next_fires(capped.id, 6)).value) == 2
    # two runs by hand use up none of them, and do not complete it (seed 000, "manual@1")
    for _ in range(2):
        assert (await api.run_now(capped.id, wait=True)).value.state == "succeeded"
    after = (await api.automation(capped.id)).value
    assert after.status == "active" and after.run_count == 2 and after.counted_runs == 0
    assert len((await api.next_fires(capped.id, 6)).value) == 2
    fires = (await api.next_fires(ending.id, 6)).value
    assert 3 <= len(fires) <= 4 and all(f < until for f in fires)
    with pytest.raises(NotFound):
        await api.parked("no-such-automation")


async def test_a_hosting_process_takes_short_turns_at_the_interpreter_lock(
        tmp_path: Path) -> None:
    """The app's engine thread shortens the switch interval to the window's while it hosts the
    engine (see errands.gil) and gives the process its own back when it closes."""
    import sys

    from errands import gil

    before = sys.getswitchinterval()
    host = EngineThread(tmp_path / "data", listen=False, role="app")
    await host.start()
    try:
        assert sys.getswitchinterval() == pytest.approx(gil.WINDOW_SWITCH_S)
        assert gil.WINDOW_SWITCH_S < gil.SWITCH_S < before
    finally:
        await host.close()
    assert sys.getswitchinterval() == pytest.approx(before)


async def test_run_now_twice_at_once_is_refused(api: Api) -> None:
    """run-now's claim is committed by the engine's writer thread while its loop goes on; a
    second run-now sent meanwhile is refused as busy, never a second run."""
    automation = (await api.create(doc("Once", {"kind": "manual"}, "sleep 0.3"))).value[0]
    first, second = await asyncio.gather(api.run_now(automation.id),
                                         api.run_now(automation.id), return_exceptions=True)
    outcomes = sorted([first, second], key=lambda r: isinstance(r, BaseException))
    run, refused = outcomes[0].value, outcomes[1]  # type: ignore[union-attr]
    assert isinstance(refused, Conflict) and refused.code == "busy"
    for _ in range(250):
        runs, _ = (await api.runs(automation.id)).value
        if runs and all(r.state == "succeeded" for r in runs):
            break
        await asyncio.sleep(0.02)
    assert [r.id for r in runs] == [run.id] and runs[0].state == "succeeded"


async def test_a_one_shot_resumed_after_its_instant_through_the_facade(api: Api) -> None:
    """The window and the channel resume through the facade: the same path as the CLI."""
    notices: list[Notice] = []
    api.subscribe(notices.append)
    await api.set_setting("grace", "1s")  # later than that is a miss: run_once catches up
    once = {"kind": "at", "in": "1s"}
    skip = (await api.create({**doc("skip", once), "paused": True})).value[0]
    catch = (await api.create({**doc("catch", once), "paused": True,
                               "misfire": "run_once"})).value[0]
    await asyncio.sleep(2.5)  # their instant passes while they are paused, and the grace
    resumed = (await api.resume(skip.id)).value
    assert (resumed.status, resumed.next_fire_at) == ("completed", None)
    [missed] = (await api.runs(skip.id)).value[0]
    assert (missed.state, missed.skip_reason, missed.missed_count) == (
        "skipped", "automation_paused", 1)
    assert (await api.resume(catch.id)).value.status == "active"  # due: the timer runs it
    for _ in range(250):
        runs = (await api.runs(catch.id)).value[0]
        if runs and runs[0].state == "succeeded" and any(missed.id in n.runs for n in notices):
            break
        await asyncio.sleep(0.02)
    [ran] = (await api.runs(catch.id)).value[0]
    assert (ran.state, ran.trigger, ran.missed_count) == ("succeeded", "catch_up", 1)
    assert (await api.automation(catch.id)).value.status == "completed"
    assert any(missed.id in n.runs for n in notices)  # the window hears of the record


async def test_unattended_expiry_is_a_setting_checked_like_parked_expiry(api: Api) -> None:
    assert (await api.settings()).value["unattended_expiry"] == "7d"
    assert (await api.set_setting("unattended_expiry", "72h")).value == "3d"
    for bad in ("2w", "soon", "367d", ""):
        with pytest.raises(InvalidInput) as refused:
            await api.set_setting("unattended_expiry", bad)
        assert refused.value.field == "unattended_expiry", bad
    assert (await api.settings()).value["unattended_expiry"] == "3d"
