"""Agent runs as a user drives them: `errands serve` as a real process talking to a scripted
OpenAI-compatible server on 127.0.0.1, and the CLI for approvals, transcripts, follow-up
turns and saved approvals. A parked run survives a restart of the engine."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openai_server import ScriptedServer, call, say
from pg_support import catalogue_sql
from errands.cli import main as cli_main
from errands.cli import observe
from errands.cli.routing import perform
from test_serve import Serve, wait_for


@pytest.fixture
def model() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.close()


@pytest.fixture
def serve(tmp_path: Path, model: ScriptedServer) -> Iterator[Serve]:
    s = Serve(tmp_path / "data", ERRANDS_PROVIDER_BASE_URL=model.base_url,
              ERRANDS_PROVIDER_MODEL="scripted-model")
    yield s
    if s.proc is not None and s.proc.poll() is None:
        s.kill9()


def run_state(serve: Serve, run_id: str) -> str:
    [(state,)] = catalogue_sql(serve.data, "SELECT state FROM runs WHERE id = :r", r=run_id)
    return str(state)


def add_agent(serve: Serve, workdir: Path, title: str = "builder", *extra: str) -> str:
    return str(serve.cli("add", "--title", title, "--prompt", "Build it.", "--schedule", "manual",
                         "--workdir", str(workdir), "--max-attempts", "1", *extra)["id"])


def test_park_restart_approve_completes_and_the_transcript_shows_it(
        serve: Serve, model: ScriptedServer, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    serve.start()
    a = add_agent(serve, work)
    model.play(call("run_command", {"command": "echo built > out.txt"}), say("Built it."))
    run = serve.cli("run-now", a)
    wait_for(lambda: run_state(serve, run["id"]) == "awaiting_input")
    listed = serve.cli("approvals")["approvals"]
    assert [(p["run_id"], p["kind"], p["tool"], p["arguments"]) for p in listed] == [
        (run["id"], "permission", "run_command", {"command": "echo built > out.txt"})]
    assert serve.stop()
    serve.start()  # a new engine: the parked run is still there and can be approved
    assert serve.cli("approvals")["approvals"][0]["run_id"] == run["id"]
    approved = serve.cli("approve", run["id"][:8])
    assert approved["id"] == run["id"]
    wait_for(lambda: run_state(serve, run["id"]) == "succeeded")
    assert (work / "out.txt").read_text() == "built\n"
    done = serve.cli("runs", a)["runs"][0]
    assert done["result"] == "Built it." and done["usage"]["prompt_tokens"] == 20
    shown = serve.cli("session", "show", done["session_id"])
    turns = [m["content"].get("turn") for m in shown["messages"]]
    assert turns == ["prompt", "step", "tool", "final"]
    text = serve.cli("session", "show", done["session_id"], check=False)
    assert text.returncode == 0
    assert serve.cli("approvals")["approvals"] == []
    serve.stop()


def test_approving_many_runs_is_one_request_and_a_refusal_costs_only_its_run(
        serve: Serve, model: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    serve.start()
    ids = [add_agent(serve, work, f"builder {i}") for i in range(7)]
    runs = []
    for i, a in enumerate(ids):
        model.play(call("run_command", {"command": f"echo {i} >> out.txt"}))
        runs.append(serve.cli("run-now", a)["id"])
        wait_for(lambda: run_state(serve, runs[-1]) == "awaiting_input")
    model.play(say("Stopped."))
    serve.cli("deny", runs[2])
    wait_for(lambda: run_state(serve, runs[2]) in ("succeeded", "failed"))
    model.play(say("Done."), say("Done."))
    out = serve.cli("approve", runs[0][:8], runs[1], runs[2], runs[0], check=False)
    assert out.returncode == 4, out.stderr  # one of them no longer waits
    replies = json.loads(out.stdout)["runs"]
    assert [r["id"] for r in replies] == runs[:3]  # named twice, decided once
    assert [r.get("state") for r in replies[:2]] == ["scheduled", "scheduled"]
    assert replies[2]["refused"]["code"] == "not_parked"
    for run_id in runs[:2]:
        wait_for(lambda: run_state(serve, run_id) == "succeeded")
    assert sorted((work / "out.txt").read_text().split()) == ["0", "1"]
    # more runs than a request carries go in several (here one run a request)
    sent: list[Any] = []
    with monkeypatch.context() as patched:
        patched.setattr(observe, "BATCH", 1)
        patched.setattr(observe, "perform", lambda *a, **k: sent.append(a[2]["runs"])
                        or perform(*a, **k))
        model.play(say("Done."), say("Done."))
        assert cli_main(["approve", runs[3], runs[4], "--data-dir", str(serve.data)]) == 0
    assert sent == [[runs[3]], [runs[4]]]
    assert capsys.readouterr().out.splitlines() == ["Run #1: approve once → scheduled"] * 2
    for run_id in runs[3:5]:
        wait_for(lambda: run_state(serve, run_id) == "succeeded")
    # with no engine running the CLI hosts one for the runs and waits until they end;
    # --all takes every run waiting (of one automation with --automation)
    assert serve.stop()
    model.play(say("Done."), say("Done."))
    only = serve.cli("approve", "--all", "--automation", ids[5])["runs"]
    assert [(r["id"], r["state"]) for r in only] == [(runs[5], "succeeded")]
    rest = serve.cli("approve", "--all")["runs"]
    assert [(r["id"], r["state"]) for r in rest] == [(runs[6], "succeeded")]
    assert sorted((work / "out.txt").read_text().split()) == ["0", "1", "3", "4", "5", "6"]
    assert serve.cli("approve", "--all") == {"runs": []}  # nothing waits: nothing to do
    for wrong, field in ((("approve",), "run"), (("approve", "--all", runs[0]), "--all"),
                         (("deny", runs[0], "--automation", ids[0]), "--automation")):
        refused = serve.cli(*wrong, check=False)
        assert refused.returncode == 2, refused.stderr
        assert json.loads(refused.stderr or refused.stdout)["error"]["field"] == field


def test_always_saves_a_rule_that_rules_lists_and_remove_revokes(
        serve: Serve, model: ScriptedServer, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    serve.start()
    a = add_agent(serve, work)
    model.play(call("run_command", {"command": "make"}), say("one"))
    run = serve.cli("run-now", a)
    wait_for(lambda: run_state(serve, run["id"]) == "awaiting_input")
    serve.cli("approve", run["id"], "--always")
    wait_for(lambda: run_state(serve, run["id"]) == "succeeded")
    rules = serve.cli("rules", a)
    assert rules["rules"] == [{"n": 1, "tool": "run_command", "pattern": "make",
                               "action": "allow"}]
    revision = serve.cli("show", a)["revision"]
    model.play(call("run_command", {"command": "make"}), say("two"))
    again = serve.cli("run-now", a, "--wait")
    assert again["state"] == "succeeded" and again["result"] == "two"  # asked nothing
    removed = serve.cli("rules", "remove", a, "1")
    assert removed["revision"] == revision + 1
    assert serve.cli("rules", a)["rules"] == []
    bad = serve.cli("rules", "remove", a, "1", check=False)
    assert bad.returncode == 2 and json.loads(bad.stderr)["error"]["field"] == "N"
    odd = serve.cli("rules", "remove", a, "\u00b2", check=False)  # "²".isdigit(), not int
    assert odd.returncode == 2 and json.loads(odd.stderr)["error"]["field"] == "N"
    serve.stop()


def test_deny_answer_and_a_reply_in_the_session(serve: Serve, model: ScriptedServer,
                                                tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    serve.start()
    a = add_agent(serve, work)
    model.play(call("ask_user", {"question": "Which branch?"}), say("On dev."))
    run = serve.cli("run-now", a)
    wait_for(lambda: run_state(serve, run["id"]) == "awaiting_input")
    wrong = serve.cli("approve", run["id"], check=False)  # a question wants an answer
    assert wrong.returncode == 2 and "answer" in json.loads(wrong.stderr)["error"]["message"]
    serve.cli("answer", run["id"], "dev")
    wait_for(lambda: run_state(serve, run["id"]) == "succeeded")
    session = serve.cli("runs", a)["runs"][0]["session_id"]
    model.play(say("Merged dev into main."))
    before = serve.cli("session", "show", session)["messages"]
    follow = serve.cli("session", "reply", session, "Now merge it.")  # a discussion of run 1
    assert follow["answer"] == "Merged dev into main." and follow["run_index"] == 1
    sent = model.requests[-1]["messages"]
    assert sent[-1]["role"] == "user" and sent[-1]["content"].endswith("Now merge it.")
    assert any(m.get("content") == "On dev." for m in sent)  # the turn before it, replayed
    assert serve.cli("session", "show", session)["messages"] == before  # its history kept
    shown = serve.cli("session", "show", follow["session_id"])
    assert [m["content"].get("turn") for m in shown["messages"]][-2:] == ["reply", "final"]
    model.play(call("write_file", {"path": "x", "content": "x"}), say("Fine, not writing."))
    second = serve.cli("run-now", a)
    wait_for(lambda: run_state(serve, second["id"]) == "awaiting_input")
    serve.cli("deny", second["id"], "--note", "not now")
    wait_for(lambda: run_state(serve, second["id"]) == "succeeded")
    assert not (work / "x").exists()
    missing = serve.cli("session", "show", "r-nope", check=False)
    assert missing.returncode == 3
    serve.stop()


def test_an_agent_run_without_a_provider_says_how_to_set_one(tmp_path: Path) -> None:
    serve = Serve(tmp_path / "data")
    serve.start()
    try:
        a = serve.cli("add", "--title", "lonely", "--prompt", "hi", "--schedule", "manual")["id"]
        out = serve.cli("run-now", a, "--wait", check=False)
        assert out.returncode == 1  # --wait: the run's outcome
        run: dict[str, Any] = json.loads(out.stdout)
        assert run["state"] == "failed" and run["error"]["code"] == "no_provider"
        assert "errands provider set" in run["error"]["message"]
    finally:
        serve.stop()


def test_the_api_key_reaches_the_provider_and_nothing_else(tmp_path: Path,
                                                           model: ScriptedServer) -> None:
    key = "sk-test-5ecret-never-stored-0123456789"
    serve = Serve(tmp_path / "data", ERRANDS_PROVIDER_BASE_URL=model.base_url,
                  ERRANDS_PROVIDER_MODEL="scripted-model", ERRANDS_API_KEY=key)
    work = tmp_path / "work"
    work.mkdir()
    serve.start()
    try:
        a = add_agent(serve, work)
        model.play(call("read_file", {"path": "nothing-here"}), say("done"))
        run = serve.cli("run-now", a, "--wait")
        assert run["state"] == "succeeded"
        assert model.headers and all({k.lower(): v for k, v in h.items()}.get("authorization")
                                     == f"Bearer {key}" for h in model.headers)
        shown = serve.cli("provider", "show")
        assert key not in json.dumps(shown)
        leaked = [p for p in (serve.data).rglob("*")
                  if p.is_file() and key.encode() in p.read_bytes()]
        assert leaked == []
    finally:
        output = serve.stop()
    assert key not in output
    assert not [p for p in serve.data.rglob("*") if p.is_file() and key.encode() in p.read_bytes()]
