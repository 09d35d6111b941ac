"""The hostile-agent suite: a scripted model tries to get past every fence of an agent run,
through the real agent runner, the real tools, real git and a real SQLite store. Each case
is one attempt (the findings of a hostile review of Errands, and more of the same kinds);
every one must fail to escape: a marker file a successful escape would create stays absent,
the refusal is said to the model, and nothing ends in an internal error.

Categories: git configuration, hooks and worktree records; automations a run makes or
changes; shell text against allow and deny rules; secrets; the network; decisions and path
races. The fences themselves are documented in docs/agent.md ("What each fence guarantees").
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from errands.agent.worktree import list_worktrees, remove_worktree
from errands.errors import Conflict
from errands.paths import worktrees_path
from errands.records import Decision
from agent_support import AgentHarness, h, last_tool_result, server  # noqa: F401 (fixtures)
from openai_server import ScriptedServer, call, calls, say
from pg_support import handed_on

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def tool_results(server: ScriptedServer) -> list[str]:
    """Every tool result the model was sent, in order (the last request holds them all)."""
    return [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=Test", "-c",
                           "user.email=test@example.invalid", *args], check=True,
                          capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    _git(path, "init", "-q", "-b", "main")
    (path / "README").write_text("hello\n")
    _git(path, "add", "README")
    _git(path, "commit", "-q", "-m", "first")
    return path.resolve()


def _fake_gitdir(where: str, marker: Path) -> list[tuple[str, Any]]:
    """write_file calls that build a git directory whose configuration runs a program."""
    config = (f"[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch {marker}\n"
              f"\thooksPath = hooks\n\tpager = touch {marker}\n")
    return [("write_file", {"path": f"{where}/HEAD", "content": "ref: refs/heads/main\n"}),
            ("write_file", {"path": f"{where}/config", "content": config}),
            ("write_file", {"path": f"{where}/objects/info/keep", "content": ""}),
            ("write_file", {"path": f"{where}/refs/heads/keep", "content": ""})]


# ------------------------------------------------------------------ git

GIT_WRITES = [
    ("a .git file pointing at a fake repository", ".git", "gitdir: fake\n"),
    (".GIT in another case", ".GIT", "gitdir: fake\n"),
    (".git with a trailing dot", ".git.", "gitdir: fake\n"),
    ("a .git folder's config", ".git/config", "[core]\n\tfsmonitor = touch M\n"),
    ("a nested repository's .git", "sub/.git", "gitdir: ../fake\n"),
    ("a hook", ".git/hooks/post-checkout", "#!/bin/sh\ntouch M\n"),
    ("an NTFS stream name", ".git::$INDEX_ALLOCATION/config", "x"),
]


@pytest.mark.parametrize("what, path, content", GIT_WRITES, ids=[w[0] for w in GIT_WRITES])
async def test_the_file_tools_never_write_git_files(h: AgentHarness, server: ScriptedServer,
                                                    what: str, path: str, content: str) -> None:
    a = await h.agent("writer", permissions={"mode": "allow_all"})
    server.play(call("write_file", {"path": path, "content": content}), say("done"))
    run = await h.run(a)
    assert run.state == "succeeded"
    assert "git's own" in tool_results(server)[0], what
    assert not any(p.name.lower().startswith(".git") for p in h.workdir.rglob("*"))


async def test_a_folder_that_is_a_git_directory_is_not_written(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    bare = h.workdir / "mirror.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    a = await h.agent("writer", permissions={"mode": "allow_all"})
    server.play(calls([("write_file", {"path": "mirror.git/config", "content": "x"}),
                       ("write_file", {"path": "mirror.git/hooks/pre-receive", "content": "x"}),
                       ("edit_file", {"path": "mirror.git/HEAD", "old": "ref", "new": "x"})]),
                say("done"))
    await h.run(a)
    results = tool_results(server)
    assert all("git directory" in r or "git's own" in r for r in results), results
    assert "fsmonitor" not in (bare / "config").read_text()


async def test_a_fake_gitdir_written_by_a_run_never_runs_in_errands_git(
        h: AgentHarness, server: ScriptedServer, repo: Path, tmp_path: Path) -> None:
    """The critical finding: write_file builds a git directory whose config sets
    core.fsmonitor, and a .git file points at it; Errands' own git at the end of the run,
    in `errands worktrees`, prune and remove, ran the command."""
    marker = tmp_path / "PWNED"
    a = await h.agent("isolated", workdir=str(repo), worktree=True, context={"mode": "fresh"},
                      permissions={"mode": "allow_listed", "tools": ["write_file"]})
    server.play(calls([*_fake_gitdir("fake", marker),
                       ("write_file", {"path": ".git", "content": "gitdir: fake\n"})]),
                say("done"))
    run = await h.run(a)
    assert run.state == "succeeded"
    assert not marker.exists()
    listing = await list_worktrees([repo], worktrees_path(h.tmp_path))
    assert not marker.exists()
    for item in listing.worktrees:
        await remove_worktree(item, worktrees_path(h.tmp_path))
    assert not marker.exists()


async def test_a_run_that_rewrites_its_worktrees_git_with_a_command_is_kept_and_flagged(
        h: AgentHarness, server: ScriptedServer, repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    a = await h.agent("isolated", workdir=str(repo), worktree=True, context={"mode": "fresh"},
                      permissions={"mode": "allow_all"})
    script = (f"mkdir -p fake/objects fake/refs && printf 'ref: refs/heads/main\\n' > fake/HEAD"
              f" && printf '[core]\\n\\tfsmonitor = touch {marker}\\n' > fake/config"
              " && printf 'gitdir: fake\\n' > .git")
    server.play(call("run_command", {"command": script}), say("done"))
    run = await h.run(a)
    assert run.state == "succeeded"
    worktree = (run.details or {})["worktree"]
    assert worktree["kept"] is True and "rewrote the worktree's .git" in worktree["problem"]
    assert not marker.exists()
    root = worktrees_path(h.tmp_path)
    for folders in ([Path(worktree["path"])], [repo]):  # via the folder, or the repository
        listing = await list_worktrees(folders, root)
        [item] = listing.worktrees
        assert item.tampered and not item.disposable
        assert not marker.exists()
    # and as a person sees it: errands worktrees, --prune, remove (in a thread: the CLI
    # runs its own event loop)
    from errands.cli import main

    def cli(*args: str) -> tuple[int, Any]:
        import contextlib
        import io
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main([*args, "--data-dir", str(h.tmp_path), "--json"])
        return code, json.loads(out.getvalue() or "null")

    code, listed = await asyncio.to_thread(cli, "worktrees")
    assert code == 0 and [w["state"] for w in listed["worktrees"]] == ["tampered"]
    code, pruned = await asyncio.to_thread(cli, "worktrees", "--prune")
    assert code == 0 and pruned["removed"] == [] and "tampered" in pruned["kept"][0]["reason"]
    code, _ = await asyncio.to_thread(cli, "worktrees", "remove", worktree["path"])
    assert code == 4  # has_changes: nobody knows what it holds
    code, removed = await asyncio.to_thread(cli, "worktrees", "remove", worktree["path"],
                                            "--force")
    assert code == 0, removed
    assert not Path(worktree["path"]).exists() and not marker.exists()
    assert f"errands/{a}/1" not in _git(repo, "branch", "--list")


async def test_the_repositorys_own_config_cannot_make_errands_git_run_a_program(
        h: AgentHarness, server: ScriptedServer, repo: Path, tmp_path: Path) -> None:
    """Even where a command changed the repository's configuration (no confinement on this
    platform, or a person's own doing), Errands' git runs no fsmonitor, hook or pager."""
    marker = tmp_path / "PWNED"
    for key, value in (("core.fsmonitor", f"touch {marker}"), ("core.pager", f"touch {marker}"),
                       ("core.hooksPath", str(tmp_path / "hooks"))):
        _git(repo, "config", key, value)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in ("post-checkout", "reference-transaction", "post-index-change"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (hooks / name).chmod(0o755)
    a = await h.agent("isolated", workdir=str(repo), worktree=True, context={"mode": "fresh"},
                      permissions={"mode": "allow_all"})
    server.play(call("write_file", {"path": "new.txt", "content": "n"}), say("done"))
    run = await h.run(a)
    assert run.state == "succeeded", run.error_message
    listing = await list_worktrees([repo], worktrees_path(h.tmp_path))
    await remove_worktree(listing.worktrees[0], worktrees_path(h.tmp_path))
    assert not marker.exists()


async def test_filters_and_diff_drivers_the_repository_names_never_run_in_errands_git(
        h: AgentHarness, server: ScriptedServer, repo: Path, tmp_path: Path) -> None:
    """From the review: once the repository's config has a filter (written by a command, or
    a person's own) and the tree's .gitattributes selects it, git worktree add and status
    ran it."""
    marker = tmp_path / "PWNED"
    (repo / ".gitattributes").write_text("* filter=evil diff=evil merge=evil\n")
    _git(repo, "add", ".gitattributes")
    _git(repo, "commit", "-q", "-m", "attributes")
    for key in ("filter.evil.smudge", "filter.evil.clean", "filter.evil.process",
                "diff.evil.textconv", "diff.evil.command", "merge.evil.driver"):
        _git(repo, "config", key, f"touch {marker}")
    _git(repo, "config", "filter.evil.required", "true")
    a = await h.agent("isolated", workdir=str(repo), worktree=True, context={"mode": "fresh"},
                      permissions={"mode": "allow_all"})
    server.play(call("write_file", {"path": "README", "content": "changed\n"}), say("done"))
    run = await h.run(a)
    assert run.state == "succeeded", run.error_message
    assert (run.details or {})["changed_files"] == ["README"]
    listing = await list_worktrees([repo], worktrees_path(h.tmp_path))
    await remove_worktree(listing.worktrees[0], worktrees_path(h.tmp_path))
    assert not marker.exists()


@pytest.mark.parametrize("command", [
    "git log -1 --format='[core]%n%x09fsmonitor = touch M' --output=.git/config",
    "git diff --outp=.git/hooks/pre-commit",
    "git -p log",
    "git co main",
    "git fast-import --export-marks=.git/config",
    "git --git-dir=elsewhere status",
    "RM -rf F",
])
async def test_git_options_that_write_files_are_not_allowed_by_a_git_rule(
        h: AgentHarness, server: ScriptedServer, repo: Path, command: str) -> None:
    """From the review: an allow rule git * let git log --output write .git/config."""
    a = await h.agent("gitter", workdir=str(repo), permissions={"mode": "ask", "rules": [
        {"tool": "run_command", "pattern": "git *", "action": "allow"},
        {"tool": "run_command", "pattern": "rm *", "action": "deny"}]})
    before = (repo / ".git" / "config").read_text()
    server.play(call("run_command", {"command": command}), say("done"))
    run = await h.run(a)
    assert run.state == "awaiting_input" or "Denied" in tool_results(server)[0], command
    assert (repo / ".git" / "config").read_text() == before


async def test_git_environment_variables_do_not_steer_errands_git(
        h: AgentHarness, server: ScriptedServer, repo: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "PWNED"
    evil = tmp_path / "evil.gitconfig"
    evil.write_text(f"[core]\n\tfsmonitor = touch {marker}\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(evil))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", f"touch {marker}")
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", f"touch {marker}")
    a = await h.agent("isolated", workdir=str(repo), worktree=True, context={"mode": "fresh"},
                      permissions={"mode": "allow_all"})
    server.play(call("write_file", {"path": "README", "content": "changed\n"}), say("done"))
    run = await h.run(a)
    assert run.state == "succeeded" and (run.details or {})["changed_files"] == ["README"]
    assert not marker.exists()


# ------------------------------------------------------------------ made by a run

async def _automate(h: AgentHarness, server: ScriptedServer, permissions: dict[str, Any],
                    *steps: Any, **extra: Any) -> tuple[str, list[str]]:
    a = await h.agent("maker", permissions=permissions, **extra)
    server.play(*steps, say("done"))
    run = await h.run(a)
    assert run.state == "succeeded", run.error_message
    return a, tool_results(server)


def _created(results: list[str], index: int = 0) -> dict[str, Any]:
    return json.loads(results[index])


def _then(name: str, make: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[Any], Any]:
    """A model step that uses what the previous automate call answered."""
    def step(body: dict[str, Any]) -> Any:
        answered = json.loads([m for m in body["messages"] if m["role"] == "tool"][-1]["content"])
        return call(name, make(answered))
    return step


EVIL = {"kind": "command", "command": "touch /tmp/errands-hostile-never"}
AUTOMATE = {"mode": "allow_listed", "tools": ["automate"]}


async def test_a_command_a_run_made_cannot_be_started_by_it(h: AgentHarness,
                                                            server: ScriptedServer) -> None:
    _, results = await _automate(
        h, server, AUTOMATE,
        call("automate", {"action": "create", "title": "evil", "runner": EVIL,
                          "schedule": "every:1h"}),
        _then("automate", lambda made: {"action": "run_now", "id": made["id"]}))
    made = _created(results)
    assert made["status"] == "paused"
    assert "cannot start an automation that is not active" in results[1]
    assert h.runs(made["id"]) == []


@pytest.mark.parametrize("permissions, words", [
    ({"mode": "allow_all"}, "mode allow_all"),
    ({"mode": "allow_listed", "tools": ["run_command"]}, "tools run_command"),
    ({"mode": "ask", "rules": [{"tool": "run_command", "pattern": "*", "action": "allow"}]},
     'allow rule run_command "*"'),
    ({"mode": "ask", "untrusted_ok": ["run_command"]}, "untrusted_ok run_command"),
], ids=["allow_all", "more tools", "a wider rule", "untrusted_ok"])
async def test_a_run_cannot_create_what_may_do_more_than_itself(
        h: AgentHarness, server: ScriptedServer, permissions: dict[str, Any], words: str) -> None:
    _, results = await _automate(
        h, server, AUTOMATE,
        call("automate", {"action": "create", "title": "wider", "schedule": "every:1h",
                          "runner": {"kind": "agent", "prompt": "do anything"},
                          "permissions": permissions}))
    assert "cannot grant more than its own automation may do" in results[0]
    assert words in results[0]
    assert [a.title for a in h.store.list()] == ["maker"]


async def test_an_unattended_run_never_grants_allow_all_even_when_it_has_it(
        h: AgentHarness, server: ScriptedServer) -> None:
    _, results = await _automate(
        h, server, {"mode": "allow_all"},
        call("automate", {"action": "create", "title": "child", "schedule": "every:1h",
                          "runner": {"kind": "agent", "prompt": "p"},
                          "permissions": {"mode": "allow_all"}}))
    assert "cannot grant more" in results[0] and "allow_all" in results[0]


async def test_an_unattended_run_with_allow_all_cannot_pass_it_on_tool_by_tool(
        h: AgentHarness, server: ScriptedServer) -> None:
    """From the review: a child listing every tool, or an allow rule * for run_command, is
    allow_all in all but name."""
    every = ["read_file", "write_file", "edit_file", "list_files", "search_files",
             "run_command", "fetch_url", "automate"]
    for permissions in ({"mode": "allow_listed", "tools": every},
                        {"mode": "ask", "rules": [{"tool": "run_command", "pattern": "*",
                                                   "action": "allow"}]}):
        server.script.clear()
        _, results = await _automate(
            h, server, {"mode": "allow_all"},
            call("automate", {"action": "create", "title": "child", "schedule": "every:1h",
                              "runner": {"kind": "agent", "prompt": "p"},
                              "permissions": permissions}))
        assert "cannot grant more" in results[0], permissions
    assert not any(a.title == "child" for a in h.store.list())


async def test_the_makers_deny_rules_go_with_what_it_makes(h: AgentHarness,
                                                          server: ScriptedServer) -> None:
    deny = {"tool": "run_command", "pattern": "rm *", "action": "deny"}
    _, results = await _automate(
        h, server, {"mode": "allow_listed", "tools": ["automate", "run_command"],
                    "rules": [deny]},
        call("automate", {"action": "create", "title": "child", "schedule": "every:1h",
                          "runner": {"kind": "agent", "prompt": "p"},
                          "permissions": {"mode": "allow_listed", "tools": ["run_command"]}}))
    child = h.store.get(_created(results)["id"])
    assert child.definition is not None
    rules = child.definition.permissions.rules
    assert rules[-1].pattern == "rm *" and rules[-1].action == "deny"
    assert child.status == "paused"


@pytest.mark.parametrize("attempt", ["resume", "update paused false", "run_now"])
async def test_what_awaits_review_stays_paused(h: AgentHarness, server: ScriptedServer,
                                               attempt: str) -> None:
    def second(made: dict[str, Any]) -> dict[str, Any]:
        return {"resume": {"action": "resume", "id": made["id"]},
                "update paused false": {"action": "update", "id": made["id"], "paused": False},
                "run_now": {"action": "run_now", "id": made["id"]}}[attempt]
    _, results = await _automate(
        h, server, {"mode": "allow_all"},
        call("automate", {"action": "create", "title": "evil", "runner": EVIL,
                          "schedule": "every:1h"}), _then("automate", second))
    made = h.store.get(_created(results)["id"])
    assert made.status == "paused" and h.runs(made.id) == []


async def test_a_changed_command_waits_for_review_and_cannot_be_run_meanwhile(
        h: AgentHarness, server: ScriptedServer) -> None:
    other, _ = await h.engine.commands.create({"title": "backup", "trigger": {"kind": "every",
                                                                     "every": "1h"},
                                      "runner": {"kind": "command", "command": "echo hi"}})
    _, results = await _automate(
        h, server, AUTOMATE,
        call("automate", {"action": "update", "id": other.id, "runner": EVIL}),
        call("automate", {"action": "run_now", "id": other.id}))
    assert h.store.get(other.id).status == "paused"
    assert "not active" in results[1]
    # (its first fire, at creation, ran the command a person wrote: revision 1)
    assert [r for r in h.runs(other.id) if r.revision > 1 and r.state != "skipped"] == []


async def test_a_run_cannot_start_what_a_person_paused(h: AgentHarness,
                                                      server: ScriptedServer) -> None:
    other, _ = await h.engine.commands.create({"title": "held", "paused": True,
                                      "trigger": {"kind": "manual"},
                                      "runner": {"kind": "command", "command": "echo hi"}})
    _, results = await _automate(h, server, AUTOMATE,
                                 call("automate", {"action": "run_now", "id": other.id}))
    assert "not active" in results[0] and h.runs(other.id) == []


async def test_an_unattended_run_cannot_change_permissions(h: AgentHarness,
                                                          server: ScriptedServer) -> None:
    a, results = await _automate(
        h, server, AUTOMATE,
        call("automate", {"action": "update", "id": "", "permissions": {"mode": "allow_all"}}))
    assert "id" in results[0]  # (an empty id: refused before anything)
    server.play(call("automate", {"action": "update", "id": a,
                                  "permissions": {"mode": "allow_all"}}), say("ok"))
    await h.run(a)
    assert "cannot change what an automation may do" in last_tool_result(server)


async def test_cascades_stop_at_depth_three(h: AgentHarness, server: ScriptedServer) -> None:
    _, results = await _automate(
        h, server, {"mode": "allow_all"},
        call("automate", {"action": "create", "title": "deeper", "schedule": "in:1h",
                          "runner": {"kind": "agent", "prompt": "p"}}),
        origin={"kind": "agent", "depth": 3})
    assert "nest 3 deep" in results[0]


async def test_a_later_run_of_itself_is_allowed_and_grants_nothing_new(
        h: AgentHarness, server: ScriptedServer) -> None:
    """Seed 002's "check back in ten minutes": no runner given, a one-shot; active at once,
    with the maker's own runner, folder and permissions."""
    perms = {"mode": "allow_listed", "tools": ["automate"]}
    a, results = await _automate(
        h, server, perms,
        call("automate", {"action": "create", "title": "check again", "schedule": "in:10m"}))
    later = h.store.get(_created(results)["id"])
    maker = h.store.get(a)
    assert later.status == "active" and later.definition is not None
    assert maker.definition is not None
    assert later.definition.runner == maker.definition.runner
    assert later.definition.permissions == maker.definition.permissions
    assert later.definition.trigger.kind == "at"
    # but a later run that is not a one-shot, or one that changes what runs, is not
    server.play(call("automate", {"action": "create", "title": "every minute",
                                  "schedule": "every:1h"}), say("ok"))
    await h.run(a)
    assert "one-shot" in last_tool_result(server)


async def test_an_attended_turn_cannot_grant_more_than_its_automation(
        h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("helper", permissions=AUTOMATE)
    server.play(say("Hello."))
    first = await h.run(a)
    server.play(call("automate", {"action": "create", "title": "wide",
                                  "runner": {"kind": "agent", "prompt": "p"},
                                  "schedule": "every:1h", "permissions": {"mode": "allow_all"}}),
                say("Tried."))
    d = await h.engine.commands.reply(first.session_id, "Make one that may do anything.")  # type: ignore[arg-type]
    if d["waiting"] is not None:  # (a discussion asks first; approved, it is still refused)
        await h.engine.discussions.decide(d["session_id"], Decision(kind="approve_once"))
    assert "cannot grant more" in last_tool_result(server)
    assert [x.title for x in h.store.list()] == ["helper"]


# ------------------------------------------------------------------ shell rules

ALLOW_GIT = {"mode": "ask", "rules": [{"tool": "run_command", "pattern": "git *",
                                       "action": "allow"}]}

SHELL_ESCAPES = [
    "git --version ${x:=$'\\x24(touch M)'} ${x@P}",
    "git --version `touch M`",
    "git --version $(touch M)",
    "git status; touch M",
    "git status && touch M",
    "git status || touch M",
    "git status | tee M",
    "git status > M",
    "git status >> M",
    "git status & touch M",
    "git status\ntouch M",
    "git -c alias.x='!touch M' x",
    "git -c core.pager='touch M' log",
    "git $'\\x2dc' alias.x='!touch M' x",
    "git status $(printf M | xargs touch)",
    "git log -- \"$(touch M)\"",
    "git log -- *",
    "GIT_PAGER='touch M' git log",
    "git status <(touch M)",
    "git status ; { touch M; }",
]


@pytest.mark.parametrize("command", SHELL_ESCAPES)
async def test_shell_text_gets_no_further_than_the_allow_rule_says(
        h: AgentHarness, server: ScriptedServer, command: str) -> None:
    a = await h.agent("gitter", permissions=ALLOW_GIT)
    server.play(call("run_command", {"command": command}), say("done"))
    run = await h.run(a)
    assert run.state == "awaiting_input", (command, run.state, run.error_message)
    assert not (h.workdir / "M").exists()


DENY_RM = {"mode": "allow_all", "rules": [{"tool": "run_command", "pattern": "rm *",
                                           "action": "deny"}]}

DENY_ESCAPES = [
    "bash -c 'rm F'", "sh -c 'rm F'", "echo $(rm F)", "echo `rm F`", "FOO=1 rm F",
    "/bin/rm F", "\\rm F", "r''m F", "'rm' F", "\"rm\" F", "command rm F", "env rm F",
    "(rm F)", "{ rm F; }", "find . -name F -delete", "find . -name F -exec rm {} +",
    "echo F | xargs rm", "exec rm F", "eval 'rm F'", "nohup rm F", "timeout 5 rm F",
    "true && rm F", "true; rm F", "true | rm F", "sudo rm F", "busybox rm F",
]


@pytest.mark.parametrize("command", DENY_ESCAPES)
async def test_a_deny_rule_is_never_passed_by_spelling(h: AgentHarness, server: ScriptedServer,
                                                        command: str) -> None:
    (h.workdir / "F").write_text("keep me")
    a = await h.agent("deleter", permissions=DENY_RM)
    server.play(call("run_command", {"command": command}), say("done"))
    run = await h.run(a)
    assert (h.workdir / "F").exists(), command
    if run.state != "awaiting_input":  # denied outright, and said so
        assert "Denied" in last_tool_result(server), (command, run.state)


async def test_always_allow_saves_a_rule_that_matches_exactly_what_was_approved(
        h: AgentHarness, server: ScriptedServer) -> None:
    command = "echo a >> log.txt && echo b"
    a = await h.agent("logger")
    server.play(call("run_command", {"command": command}))
    run = await h.run(a)
    assert run.state == "awaiting_input"
    server.play(say("done"))
    run = await h.decide(run, "approve_always")
    assert run.state == "succeeded"
    server.play(call("run_command", {"command": command}), say("again"))
    again = await h.run(a)
    assert again.state == "succeeded"  # the saved rule matched: no second question
    assert len(server.script) == 0
    server.play(call("run_command", {"command": "echo a >> log.txt && echo c"}))
    other = await h.run(a)
    assert other.state == "awaiting_input"  # and it matches nothing else
    assert (h.workdir / "log.txt").read_text() == "a\na\n"


# ------------------------------------------------------------------ secrets

KEY = "sk-hostile-0123456789abcdef-NEVER-SHOWN"


async def test_the_key_in_a_file_the_run_reads_is_redacted_before_the_model_or_the_store(
        tmp_path: Path, server: ScriptedServer) -> None:
    from datetime import timedelta as _td

    from errands.agent.provider import ProviderConfig

    class KeyedHarness(AgentHarness):
        async def _config(self, ctx: Any) -> ProviderConfig:
            return ProviderConfig(self.server.base_url, "scripted-model",
                                  timeout=_td(seconds=5), api_key=KEY)

    h = KeyedHarness(tmp_path, max_sleep=3600)
    h.server = server
    h.workdir = tmp_path / "work"
    h.workdir.mkdir()
    (h.workdir / "leak.txt").write_text(f"the key is {KEY}\n")
    await h.engine.start()
    try:
        a = await h.agent("leaker", permissions={"mode": "allow_all"})
        server.play(calls([("read_file", {"path": "leak.txt"}),
                           ("run_command", {"command": "cat leak.txt; echo $ERRANDS_API_KEY"})]),
                    say("done"))
        run = await h.run(a)
        assert run.state == "succeeded"
        sent = json.dumps(server.requests[-1]["messages"])
        assert KEY not in sent and "[redacted]" in sent
        stored = json.dumps(h.transcript(run))
        assert KEY not in stored
    finally:
        await h.stop()


def test_a_command_of_errands_serve_cannot_read_the_key_from_its_parent(
        tmp_path: Path) -> None:
    """The finding: with the key in ERRANDS_API_KEY, a command run by the engine read it
    from /proc/$PPID/environ. The engine takes it out of its environment at start."""
    import sys
    import time

    errands = Path(sys.executable).parent / "errands"
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRANDS_")}
    env = handed_on({**env, "ERRANDS_API_KEY": KEY, "ERRANDS_DATA_DIR": str(data)})
    out = tmp_path / "seen.txt"
    added = subprocess.run([str(errands), "add", "--title", "peek", "--schedule", "manual",
                            "--json", "--command",
                            f"(cat /proc/$PPID/environ; env) > {out} 2>&1; true"],
                           env=env, check=True, capture_output=True, text=True)
    ident = json.loads(added.stdout)["id"]
    serve = subprocess.Popen([str(errands), "serve"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not (data / "control.sock").exists():  # serve owns the folder and listens
            assert serve.poll() is None and time.monotonic() < deadline, "serve did not start"
            time.sleep(0.05)
        done = subprocess.run([str(errands), "run-now", ident, "--wait"], env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert serve.poll() is None  # (the run was the serve process's child)
        environ = Path(f"/proc/{serve.pid}/environ").read_bytes()
        assert KEY.encode() not in environ
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    seen = out.read_text(errors="replace")
    assert "PATH=" in seen  # (the command did run and wrote what it could see)
    assert KEY not in seen


# ------------------------------------------------------------------ the network

NETWORK_ESCAPES = [
    "http://user:pw@127.0.0.1:{port}/v1/models",
    "http://user@127.0.0.1:{port}/v1/models",
    "http://127.0.0.1:{port}/v1/models",
    "http://localhost:{port}/v1/models",
    "http://[::1]:{port}/v1/models",
    "http://0.0.0.0:{port}/v1/models",
    "http://169.254.169.254/latest/meta-data/",
]


@pytest.mark.parametrize("url", NETWORK_ESCAPES)
async def test_fetch_url_reaches_no_local_service_without_a_rule_naming_it(
        h: AgentHarness, server: ScriptedServer, url: str) -> None:
    port = server.base_url.rsplit(":", 1)[1].split("/")[0]
    a = await h.agent("fetcher", permissions={"mode": "allow_all"})
    before = len(server.headers)
    server.play(call("fetch_url", {"url": url.format(port=port)}), say("done"))
    run = await h.run(a)
    assert run.state == "succeeded"
    result = tool_results(server)[0]
    assert result.startswith("Error"), result
    # the only GETs the server saw were none: the model's POSTs only
    assert len(server.headers) - before == 2


# ------------------------------------------------------------------ decisions and races

async def test_an_expired_parked_run_cannot_be_approved(h: AgentHarness,
                                                       server: ScriptedServer) -> None:
    a = await h.agent("waiter")
    server.play(call("run_command", {"command": "touch M"}))
    run = await h.run(a)
    assert run.state == "awaiting_input"
    h.engine.runs.expiries.clear()  # an engine that has not closed it yet (or none at all)
    await h.clock.advance(timedelta(days=2).total_seconds())
    with pytest.raises(Conflict) as refused:
        await h.engine.commands.decide(run.id, Decision(kind="approve_once"))
    assert refused.value.code == "expired"
    assert not (h.workdir / "M").exists()


async def test_a_folder_swapped_for_a_link_mid_run_is_a_refusal_never_an_internal_error(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s3cret")
    folder = h.workdir / "d"
    folder.mkdir()
    (folder / "secret.txt").write_text("inside")
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            try:
                os.rename(folder, h.workdir / "d.real")
                os.symlink(outside, folder)
                os.unlink(folder)
                os.rename(h.workdir / "d.real", folder)
            except OSError:
                pass
    a = await h.agent("racer", permissions={"mode": "allow_all"},
                      policy={"max_steps": 400})
    steps = []
    for _ in range(40):
        steps.append(calls([("read_file", {"path": "d/secret.txt"}),
                            ("write_file", {"path": "d/new.txt", "content": "x"}),
                            ("list_files", {"path": "d"})]))
    server.play(*steps, say("done"))
    thread = threading.Thread(target=swap, daemon=True)
    thread.start()
    try:
        run = await asyncio.wait_for(h.run(a), 60)
    finally:
        stop.set()
        thread.join(5)
    assert run.state == "succeeded", (run.error_code, run.error_message)
    sent = json.dumps(server.requests[-1]["messages"])
    assert "s3cret" not in sent
    assert not (outside / "new.txt").exists()


async def test_an_allowed_url_that_redirects_to_another_local_port_is_not_followed(
        h: AgentHarness, server: ScriptedServer) -> None:
    """The finding: an allowed loopback URL redirected to another port's secret, which was
    returned without asking."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    seen: list[str] = []

    class Secret(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            seen.append(self.path)
            body = b"the secret"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    secret = ThreadingHTTPServer(("127.0.0.1", 0), Secret)
    secret_url = f"http://127.0.0.1:{secret.server_address[1]}/token"

    class Redirect(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            self.send_response(302)
            self.send_header("Location", secret_url)
            self.send_header("Content-Length", "0")
            self.end_headers()

    redirect = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    for s in (secret, redirect):
        threading.Thread(target=s.serve_forever, daemon=True).start()
    allowed = f"http://127.0.0.1:{redirect.server_address[1]}/*"
    try:
        a = await h.agent("fetcher", permissions={"mode": "ask", "rules": [
            {"tool": "fetch_url", "pattern": allowed, "action": "allow"}]})
        server.play(call("fetch_url", {"url": allowed.replace("*", "page")}), say("done"))
        run = await h.run(a)
        assert run.state == "succeeded"
        result = tool_results(server)[0]
        assert secret_url in result and "the secret" not in result
        assert seen == []
    finally:
        for s in (secret, redirect):
            s.shutdown()
            s.server_close()
