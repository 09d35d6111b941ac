"""Discussions forked from an agent automation's run N: seeded with its conversation through
N, the automation's folder read-only, a writable folder of its own, tools asking (no grant),
approvals kept in the discussion; the automation's history and run count untouched. The
real agent loop against a scripted OpenAI-compatible server, on a real SQLite file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from errands.errors import Conflict, InvalidInput
from errands.records import Decision
from agent_support import AgentHarness, h, server  # noqa: F401 (fixtures)
from openai_server import ScriptedServer, call, say


def sent(server: ScriptedServer, index: int = -1) -> str:
    """Everything the model was sent in one request, as text."""
    return json.dumps(server.requests[index]["messages"], ensure_ascii=False)


def history(h: AgentHarness, a: str) -> tuple[Any, ...]:
    """What the automation's history is: its runs, its counts, its sessions' messages."""
    automation = h.store.get(a)
    runs = h.runs(a)
    messages = {r.session_id: len(h.store.messages(r.session_id)) for r in runs
                if r.session_id}
    return (automation.run_count, automation.revision, [(r.index, r.state) for r in runs],
            messages)


async def two_runs(h: AgentHarness, server: ScriptedServer, **extra: Any) -> str:
    (h.workdir / "notes.txt").write_text("milk\neggs\n")
    a = await h.agent("shopping", "Update the shopping list.", **extra)
    server.play(say("First: I added milk."))
    assert (await h.run(a)).state == "succeeded"
    server.play(say("Second: I added eggs."))
    assert (await h.run(a)).state == "succeeded"
    return a


async def test_a_five_turn_discussion_leaves_the_automation_untouched(
        h: AgentHarness, server: ScriptedServer) -> None:
    a = await two_runs(h, server)
    before = history(h, a)
    discussions = h.engine.discussions

    server.play(say("In run 1 I only added milk."))
    d = await discussions.start(a, 1, "What did you do in that run?")
    sid = d["session_id"]
    assert d["answer"] == "In run 1 I only added milk." and d["waiting"] is None
    assert d["run_index"] == 1 and d["turns"] == 1
    first = sent(server)
    assert "First: I added milk." in first and "Second: I added eggs." not in first
    assert "mounted READ-ONLY at " + str(h.workdir) in first
    assert sid.startswith("d-")

    # 2: a write into the mounted folder is refused before anyone is asked
    server.play(call("write_file", {"path": str(h.workdir / "notes.txt"), "content": "x"}),
                say("I may not change it."))
    d = await discussions.say(sid, "Add butter to the list.")
    assert d["waiting"] is None and d["answer"] == "I may not change it."
    refusal = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"][-1]
    assert "mounted read-only" in refusal["content"]
    assert (h.workdir / "notes.txt").read_text() == "milk\neggs\n"

    # 3: reading the mount works (reads are allowed)
    server.play(call("read_file", {"path": str(h.workdir / "notes.txt")}), say("milk, eggs"))
    d = await discussions.say(sid, "What is on the list?")
    tool = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"][-1]
    assert "milk" in tool["content"] and d["answer"] == "milk, eggs"

    # 4: a write into its own folder asks (no grant), waits, and is approved here
    server.play(call("write_file", {"path": "draft.txt", "content": "butter\n"}))
    d = await discussions.say(sid, "Draft the new list in your own folder.")
    assert d["waiting"]["tool"] == "write_file" and d["waiting"]["kind"] == "permission"
    with pytest.raises(Conflict):  # a question while it waits is refused
        await discussions.say(sid, "hello?")
    assert h.store.parked() == []  # a discussion's wait is no parked run of the automation
    server.play(say("Drafted."))
    d = await discussions.decide(sid, Decision(kind="approve_always"))
    assert d["answer"] == "Drafted." and d["waiting"] is None
    workspace = Path(d["workspace"])
    assert (workspace / "draft.txt").read_text() == "butter\n"
    assert workspace != h.workdir and not (h.workdir / "draft.txt").exists()

    # 5: the conversation goes on, with what was said before
    server.play(say("We drafted butter."))
    d = await discussions.say(sid, "What did we just do?")
    assert d["turns"] == 5 and "Drafted." in sent(server)

    assert history(h, a) == before  # no run, no count, no message in its history
    assert h.store.get(a).definition.permissions.rules == ()  # "always" saved nothing
    listed = await discussions.of_automation(a, 1)
    assert [x["session_id"] for x in listed] == [sid] and listed[0]["turns"] == 5
    assert await discussions.of_automation(a, 2) == []


async def test_a_discussion_is_continued_after_a_restart_and_its_seed_outlives_the_run(
        h: AgentHarness, server: ScriptedServer) -> None:
    a = await two_runs(h, server)
    server.play(say("ok"))
    sid = (await h.engine.discussions.start(a, 2, "Summarize."))["session_id"]
    await h.restart()
    server.play(say("Still here."))
    d = await h.engine.discussions.say(sid, "Again?")
    assert d["answer"] == "Still here." and "Second: I added eggs." in sent(server)


async def test_a_discussion_reads_only_the_runs_through_n_within_the_history_window(
        h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("long", "Do it.", context={"max_history_tokens": 60})
    for n in range(1, 6):
        server.play(say(f"answer number {n} " + "x" * 40))
        await h.run(a)
    server.play(say("ok"))
    await h.engine.discussions.start(a, 4, "Which runs do you see?")
    text = sent(server)
    assert "answer number 4" in text and "answer number 5" not in text
    assert "answer number 1" not in text  # the oldest dropped first
    assert "earlier runs of this automation are not shown" in text


async def test_what_cannot_be_discussed_is_refused_with_the_field(
        h: AgentHarness, server: ScriptedServer) -> None:
    a = await two_runs(h, server)
    with pytest.raises(Exception) as info:
        await h.engine.discussions.start(a, 9, "?")
    assert "no run #9" in str(info.value)
    plain = (await h.engine.commands.create({"title": "cmd", "runner": {
        "kind": "command", "command": "true"}, "trigger": {"kind": "manual"}}))[0].id
    with pytest.raises(InvalidInput) as bad:
        await h.engine.discussions.start(plain, 1, "?")
    assert bad.value.field == "id"
    with pytest.raises(InvalidInput):
        await h.engine.discussions.say("r-not-a-discussion", "?")


def test_from_the_command_line_a_discussion_is_started_decided_listed_and_replies_fork_one(
        tmp_path: Path) -> None:
    from test_serve import Serve, wait_for
    model = ScriptedServer().start()
    work = tmp_path / "work"
    work.mkdir()
    serve = Serve(tmp_path / "data", ERRANDS_PROVIDER_BASE_URL=model.base_url,
                  ERRANDS_PROVIDER_MODEL="scripted-model")
    try:
        serve.start()
        a = serve.cli("add", "--title", "Site", "--prompt", "Build it.", "--schedule",
                      "manual", "--workdir", str(work), "--max-attempts", "1")["id"]
        model.play(say("Built it."))
        first = serve.cli("run-now", a)
        wait_for(lambda: serve.cli("runs", a)["runs"][0]["state"] == "succeeded")
        model.play(say("It was quick."))
        d = serve.cli("discuss", a, "--run", "1", "How did it go?")
        assert d["answer"] == "It was quick." and d["run_index"] == 1
        sid = d["session_id"]
        model.play(call("run_command", {"command": "echo hi > mine.txt"}))
        d = serve.cli("discuss", sid, "Make a file.")
        assert d["waiting"]["tool"] == "run_command"
        import subprocess
        from test_serve import ERRANDS
        text = subprocess.run([ERRANDS, "discuss", sid, "--data-dir", str(serve.data)],
                              env=serve.env, capture_output=True, text=True, timeout=60).stdout
        assert "It waits for your approval to call run_command" in text
        assert f"errands discuss {sid} --approve" in text
        model.play(say("Made it."))
        d = serve.cli("discuss", sid, "--approve")
        assert d["answer"] == "Made it."
        assert (Path(d["workspace"]) / "mine.txt").read_text() == "hi\n"
        listed = serve.cli("discuss", a)["discussions"]
        assert [x["session_id"] for x in listed] == [sid] and listed[0]["turns"] == 2
        # a reply in the run's conversation is a discussion too, never run #2
        model.play(say("Replied."))
        session = serve.cli("runs", a)["runs"][0]["session_id"]
        replied = serve.cli("session", "reply", session, "And now?")
        assert replied["answer"] == "Replied." and replied["session_id"].startswith("d-")
        assert [r["index"] for r in serve.cli("runs", a)["runs"]] == [1]
        bad = serve.cli("discuss", a, "no run given", check=False)
        assert bad.returncode == 2 and "--run" in bad.stdout + bad.stderr
        shown = serve.cli("session", "show", sid)
        assert [m["content"].get("turn") for m in shown["messages"]][:3] == [
            "discussion", "prompt", "final"]
        assert first["id"]
        serve.stop()
        # with no engine running, the command hosts one for the turn
        model.play(say("Offline answer."))
        d = serve.cli("discuss", sid, "Still there?")
        assert d["answer"] == "Offline answer."
    finally:
        if serve.proc is not None and serve.proc.poll() is None:
            serve.kill9()
        model.close()


async def test_deleting_the_automation_ends_its_discussions_and_their_folders(
        h: AgentHarness, server: ScriptedServer) -> None:
    import asyncio
    a = await two_runs(h, server)
    server.play(say("ok"))
    d = await h.engine.discussions.start(a, 1, "Hello?")
    workspace = Path(d["workspace"])
    assert workspace.is_dir()
    from openai_server import stall
    server.play(stall(30))   # the next turn hangs at the model
    turn = asyncio.ensure_future(h.engine.discussions.say(d["session_id"], "And?"))
    for _ in range(200):
        if d["session_id"] in h.engine.discussions._turns:
            break
        await asyncio.sleep(0.01)
    await h.engine.commands.delete(a)
    with pytest.raises(BaseException):
        await turn
    for _ in range(200):
        if not workspace.exists():
            break
        await asyncio.sleep(0.01)
    assert not workspace.exists()
    with pytest.raises(Exception):
        await h.engine.discussions.get(d["session_id"])
    assert h.engine.discussions._turns == {}


async def test_one_command_at_a_time_acts_on_a_discussion(
        h: AgentHarness, server: ScriptedServer) -> None:
    """Two decisions sent together run the approved call once; two questions at once
    are one turn and a refusal; the same request id started twice is one discussion."""
    import asyncio
    a = await two_runs(h, server)
    server.play(say("ok"))
    d = await h.engine.discussions.start(a, 1, "Hi")
    sid = d["session_id"]
    server.play(call("write_file", {"path": "d.txt", "content": "1"}))
    d = await h.engine.discussions.say(sid, "Write it.")
    assert d["waiting"] is not None
    server.play(say("Done."), say("Too late."))
    both = await asyncio.gather(
        h.engine.discussions.decide(sid, Decision(kind="approve_once")),
        h.engine.discussions.decide(sid, Decision(kind="approve_once")),
        return_exceptions=True)
    assert sum(isinstance(x, Conflict) for x in both) == 1, both
    results = [m.content for m in h.store.messages(sid) if m.role == "tool"]
    assert len(results) == 1, results   # the write ran once
    assert results[0]["name"] == "write_file"
    server.play(say("A."), say("B."))
    both = await asyncio.gather(h.engine.discussions.say(sid, "one"),
                                h.engine.discussions.say(sid, "two"), return_exceptions=True)
    assert sum(isinstance(x, Conflict) for x in both) == 1, both

    server.play(say("same"), say("other"))
    twice = await asyncio.gather(
        h.engine.discussions.start(a, 2, "Q", request_id="r1"),
        h.engine.discussions.start(a, 2, "Q", request_id="r1"))
    assert twice[0]["session_id"] == twice[1]["session_id"]
    heads = [m for m in h.store.messages(twice[0]["session_id"])
             if m.content.get("turn") == "discussion"]
    assert len(heads) == 1 and twice[1]["turns"] == 1
    with pytest.raises(InvalidInput):
        await h.engine.discussions.start(a, 10 ** 30, "?")


async def test_a_turn_that_fails_says_so_in_the_discussion_and_the_next_goes_on(
        h: AgentHarness, server: ScriptedServer) -> None:
    from openai_server import fail
    a = await two_runs(h, server)
    server.play(fail(500, "the model server fell over"))
    d = await h.engine.discussions.start(a, 1, "Hello?")
    assert d["error"]["code"] == "provider_error" and d["waiting"] is None
    again = await h.engine.discussions.get(d["session_id"])
    assert again["error"] == d["error"]   # kept: a window opened later shows it
    assert "ended without an answer" in again["answer"]
    server.play(say("Back."))
    d = await h.engine.discussions.say(d["session_id"], "Now?")
    assert d["answer"] == "Back." and d["error"] is None
