"""Worktrees for fresh agent runs, against real git repositories in ``tmp_path``.

git runs with an empty global configuration, no system configuration and a fixed
identity, so commits work on a clean machine and a person's own settings change nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errands.agent.git import (WorktreeEntry, parse_names_z, parse_status_z,
                               parse_worktree_list)
from errands.agent.worktree import (KeptWorktree, Worktree, WorktreeError, close_worktree,
                                    keep_reason, list_worktrees, open_worktree,
                                    prune_worktrees)
from errands.catalog import Catalog
from errands.cli import main
from errands.errors import InvalidInput
from errands.store import Store
from pg_support import location_for

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=timezone.utc)
AID = "0f6c2a10-aaaa-4bbb-8ccc-123456789abc"


@pytest.fixture(autouse=True)
def _plain_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Errands Test")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "test@errands.invalid")


def sh(where: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True,
                          check=True)
    return done.stdout


def make_repo(path: Path, *, commit: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    sh(path, "-c", "init.defaultBranch=main", "init", "-q")
    if commit:
        (path / "README.md").write_text("hello\n")
        (path / "gone.txt").write_text("to be deleted\n")
        (path / "sub").mkdir()
        (path / "sub" / "code.py").write_text("x = 1\n")
        (path / ".gitignore").write_text("build/\n")
        sh(path, "add", "-A")
        sh(path, "commit", "-q", "-m", "first")
    return path.resolve()


def branches(repo: Path) -> list[str]:
    return sh(repo, "branch", "--format=%(refname:short)").split()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    return folder.resolve()


# ------------------------------------------------------------------ open and close

@pytest.mark.catalogue_free
async def test_a_clean_worktree_is_removed_with_its_branch(repo: Path, data: Path) -> None:
    wt = await open_worktree(repo, AID, 7, data)
    assert wt.path == data / "worktrees" / AID / "7"
    assert wt.branch == f"errands/{AID}/7" and wt.branch in branches(repo)
    assert wt.base == sh(repo, "rev-parse", "HEAD").strip()
    assert (wt.path / "README.md").read_text() == "hello\n" and wt.workdir == wt.path
    (wt.path / "build").mkdir()
    (wt.path / "build" / "out.o").write_text("ignored files are no change")
    assert await close_worktree(wt) == []
    assert not wt.path.exists() and not (data / "worktrees" / AID).exists()
    assert branches(repo) == ["main"]
    assert sh(repo, "worktree", "list", "--porcelain").count("worktree ") == 1


@pytest.mark.catalogue_free
async def test_a_changed_worktree_is_kept_and_its_changes_listed(repo: Path,
                                                                 data: Path) -> None:
    wt = await open_worktree(repo, AID, 1, data)
    (wt.path / "README.md").write_text("changed\n")
    (wt.path / "gone.txt").unlink()
    (wt.path / "new file ü \"q\".txt").write_text("new\n")
    (wt.path / "sub" / "deep").mkdir()
    (wt.path / "sub" / "deep" / "more.py").write_text("y = 2\n")
    assert await close_worktree(wt) == sorted(["README.md", "gone.txt", "new file ü \"q\".txt",
                                               "sub/deep/more.py"])
    assert wt.path.is_dir() and wt.branch in branches(repo)
    assert (repo / "README.md").read_text() == "hello\n"  # the person's checkout: untouched
    assert (repo / "gone.txt").exists()


@pytest.mark.catalogue_free
async def test_what_the_run_committed_counts_as_changed(repo: Path, data: Path) -> None:
    wt = await open_worktree(repo, AID, 2, data)
    (wt.path / "sub" / "code.py").write_text("x = 2\n")
    sh(wt.path, "commit", "-q", "-am", "agent's fix")
    assert sh(wt.path, "status", "--porcelain") == ""
    assert await close_worktree(wt) == ["sub/code.py"]
    assert wt.path.is_dir() and wt.branch in branches(repo)


@pytest.mark.catalogue_free
async def test_a_workdir_below_the_top_works_in_the_same_place(repo: Path, data: Path) -> None:
    wt = await open_worktree(repo / "sub", AID, 3, data)
    assert wt.repo == repo and wt.workdir == wt.path / "sub"
    assert (wt.workdir / "code.py").exists()
    assert await close_worktree(wt) == []


@pytest.mark.catalogue_free
async def test_a_detached_head_is_a_fine_start(repo: Path, data: Path) -> None:
    sh(repo, "checkout", "-q", "--detach")
    wt = await open_worktree(repo, AID, 1, data)
    assert wt.base == sh(repo, "rev-parse", "HEAD").strip()
    assert await close_worktree(wt) == []


@pytest.mark.catalogue_free
async def test_refusals_are_errors_with_a_message(tmp_path: Path, data: Path) -> None:
    empty = make_repo(tmp_path / "empty", commit=False)
    with pytest.raises(WorktreeError, match="no commits yet"):
        await open_worktree(empty, AID, 1, data)
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(WorktreeError, match="not inside a git repository"):
        await open_worktree(plain, AID, 1, data)
    with pytest.raises(WorktreeError, match="not inside a git repository"):
        await open_worktree(tmp_path / "missing", AID, 1, data)
    with pytest.raises(WorktreeError, match="cannot name"):
        await open_worktree(plain, "../escape", 1, data)


@pytest.mark.catalogue_free
async def test_a_retry_reuses_its_worktree_and_a_taken_name_gets_a_suffix(
        repo: Path, data: Path) -> None:
    first = await open_worktree(repo, AID, 4, data)
    (first.workdir / "half.txt").write_text("written by attempt 1\n")
    assert await close_worktree(first) == ["half.txt"]
    again = await open_worktree(repo, AID, 4, data)  # attempt 2, or a resumed parked run
    assert again.reused and again.path == first.path and again.base == first.base
    assert (again.workdir / "half.txt").exists()
    # the folder is removed by hand, the branch (with its work) stays: never overwritten
    sh(repo, "worktree", "remove", "--force", str(first.path))
    third = await open_worktree(repo, AID, 4, data)
    assert not third.reused and third.branch == f"errands/{AID}/4-2"
    assert third.path == data / "worktrees" / AID / "4-2"
    stray = data / "worktrees" / AID / "5"
    stray.mkdir()
    fourth = await open_worktree(repo, AID, 5, data)
    assert fourth.path.name == "5-2"
    assert await close_worktree(third) == [] and await close_worktree(fourth) == []
    assert f"errands/{AID}/4" in branches(repo) and stray.is_dir()


@pytest.mark.catalogue_free
async def test_closing_a_worktree_whose_folder_was_deleted(repo: Path, data: Path) -> None:
    wt = await open_worktree(repo, AID, 1, data)
    shutil.rmtree(wt.path)
    assert await close_worktree(wt) == []
    assert branches(repo) == ["main"]
    committed = await open_worktree(repo, AID, 2, data)
    (committed.path / "README.md").write_text("done\n")
    sh(committed.path, "commit", "-q", "-am", "work")
    shutil.rmtree(committed.path)
    assert await close_worktree(committed) == ["README.md"]
    assert committed.branch in branches(repo)  # the commits are the work: kept


# ------------------------------------------------------------------- validation

def _catalog(tmp_path: Path) -> Catalog:
    return Catalog(Store(location_for(tmp_path)), clock=lambda: NOW)


def agent_doc(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"title": "Fix tests", "trigger": {"kind": "manual"},
                           "runner": {"kind": "agent", "prompt": "Fix the failing test"},
                           "worktree": True}
    doc.update(changes)
    return doc


def refused(catalog: Catalog, doc: dict[str, Any]) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        catalog.create(doc)
    err = info.value
    assert err.field == "worktree" and err.expected and err.example, str(err)
    return err


def test_validation_refuses_what_a_worktree_cannot_be_made_from(tmp_path: Path,
                                                               repo: Path) -> None:
    catalog = _catalog(tmp_path)
    plain = tmp_path / "plain"
    plain.mkdir()
    assert "not inside a git repository" in refused(catalog, agent_doc(workdir=str(plain))).message
    assert "not inside a git repository" in refused(
        catalog, agent_doc(workdir=str(tmp_path / "missing"))).message
    assert "needs a workdir" in refused(catalog, agent_doc()).message
    command = agent_doc(workdir=str(repo), runner={"kind": "command", "command": "make"})
    assert "only agent runs" in refused(catalog, command).message
    cont = refused(catalog, agent_doc(workdir=str(repo), context={"mode": "continue"}))
    assert "shares one history" in cont.message
    loop = agent_doc(workdir=str(repo), trigger={"kind": "after", "interval": "1h"})
    assert "context.mode fresh" in refused(catalog, loop).message  # a loop continues by default
    sh(tmp_path, "init", "-q", "--bare", "bare.git")
    assert "work tree" in refused(catalog, agent_doc(workdir=str(tmp_path / "bare.git"))).message
    assert "is_inside" not in str(cont)
    assert catalog.store.list() == []


def test_a_git_workdir_is_accepted_and_only_a_new_one_is_checked(tmp_path: Path,
                                                                 repo: Path) -> None:
    catalog = _catalog(tmp_path)
    automation, _ = catalog.create(agent_doc(workdir=str(repo / "sub")))
    assert automation.definition is not None and automation.definition.worktree
    shutil.rmtree(repo / ".git")  # the repository goes away after creation
    doc = automation.definition.to_dict()
    revised, changed = catalog.revise(automation.id, {**doc, "title": "Renamed"})
    assert changed and revised.title == "Renamed"  # an unrelated edit is not refused
    with pytest.raises(InvalidInput, match="not inside a git repository"):
        catalog.revise(automation.id, {**doc, "workdir": str(repo)})


# --------------------------------------------------------------------------- CLI

def cli(capsys: pytest.CaptureFixture[str], data: Path, *argv: str) -> tuple[int, Any, str]:
    code = main([*argv, "--data-dir", str(data), "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else None), err


async def _runs(repo: Path, data: Path, automation_id: str) -> dict[str, Worktree]:
    """Worktrees as runs would leave them: one untouched (a crash before closing), one
    with an uncommitted change, one committed and merged, one committed and not merged."""
    made = {name: await open_worktree(repo, automation_id, i, data)
            for i, name in enumerate(("clean", "dirty", "merged", "unmerged"), start=1)}
    (made["dirty"].path / "README.md").write_text("dirty\n")
    for name in ("merged", "unmerged"):
        (made[name].path / f"{name}.txt").write_text(name)
        sh(made[name].path, "add", "-A")
        sh(made[name].path, "commit", "-q", "-m", name)
    sh(repo, "merge", "-q", "--ff-only", made["merged"].branch)
    return made


def test_cli_lists_prunes_and_removes(tmp_path: Path, repo: Path, data: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    code, created, _ = cli(capsys, data, "add", "--title", "Fix", "--prompt", "Fix it",
                           "--schedule", "manual", "--workdir", str(repo), "--worktree")
    assert code == 0 and created["worktree"] is True, created
    aid = created["id"]
    made = asyncio.run(_runs(repo, data, aid))

    code, listed, err = cli(capsys, data, "worktrees")
    assert code == 0 and err == "" and listed["notes"] == []
    rows = {w["run_index"]: w for w in listed["worktrees"]}
    assert sorted(rows) == [1, 2, 3, 4]
    assert {i: (w["state"], w["changed_files"]) for i, w in rows.items()} == {
        1: ("no changes", 0), 2: ("uncommitted", 1), 3: ("merged", 1), 4: ("not merged", 1)}
    assert rows[2]["path"] == str(made["dirty"].path) and rows[2]["title"] == "Fix"
    assert rows[2]["branch"] == made["dirty"].branch and rows[2]["automation_id"] == aid

    code, pruned, _ = cli(capsys, data, "worktrees", "--prune")
    assert code == 0
    assert sorted(w["run_index"] for w in pruned["removed"]) == [1, 3]
    assert {w["run_index"]: w["reason"] for w in pruned["kept"]} == {
        2: "1 changed file, not all committed", 4: "1 changed file on a branch not merged into HEAD"}
    assert not made["clean"].path.exists() and not made["merged"].path.exists()
    assert sorted(branches(repo)) == sorted(["main", made["dirty"].branch,
                                             made["unmerged"].branch])

    code, _, err = cli(capsys, data, "worktrees", "remove", str(made["dirty"].path))
    assert code == 4 and json.loads(err)["error"]["code"] == "has_changes"
    assert made["dirty"].path.is_dir()
    code, removed, _ = cli(capsys, data, "worktrees", "remove", str(made["dirty"].path),
                           "--force")
    assert code == 0 and removed["removed"]["run_index"] == 2
    assert not made["dirty"].path.exists() and made["dirty"].branch not in branches(repo)
    code, _, err = cli(capsys, data, "worktrees", "remove", str(tmp_path / "elsewhere"))
    assert code == 3 and json.loads(err)["error"]["code"] == "not_found"

    # the human table, and the worktree of an automation deleted since is still found
    assert main(["delete", aid, "--data-dir", str(data)]) == 0
    capsys.readouterr()
    assert main(["worktrees", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "(deleted)" in out and "not merged" in out and str(made["unmerged"].path) in out


def test_cli_never_prunes_a_worktree_an_unfinished_run_uses(
        tmp_path: Path, repo: Path, data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    catalog = Catalog(Store(location_for(data)), clock=lambda: NOW)
    automation, _ = catalog.create(agent_doc(workdir=str(repo)))
    with catalog.store.transaction() as s:
        row = catalog.store.get_in(s, automation.id)
        catalog.store.insert_run_in(s, row, slot="manual:1", trigger="manual", state="running",
                                    now=NOW, scheduled_for=NOW)
    wt = asyncio.run(open_worktree(repo, automation.id, 1, data))
    code, pruned, _ = cli(capsys, data, "worktrees", "--prune")
    assert code == 0 and pruned["removed"] == []
    assert pruned["kept"][0]["reason"] == "its run has not finished"
    assert pruned["kept"][0]["in_use"] is True and wt.path.is_dir()
    code, _, err = cli(capsys, data, "worktrees", "remove", str(wt.path), "--force")
    assert code == 4 and json.loads(err)["error"]["code"] == "busy"


def test_cli_notes_a_workdir_that_is_no_repository_any_more(
        tmp_path: Path, repo: Path, data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = cli(capsys, data, "add", "--title", "Fix", "--prompt", "Fix it",
                     "--schedule", "manual", "--workdir", str(repo), "--worktree")
    assert code == 0
    shutil.rmtree(repo)
    code, listed, err = cli(capsys, data, "worktrees")
    assert code == 0 and listed["worktrees"] == []
    assert len(listed["notes"]) == 1 and str(repo) in listed["notes"][0]
    assert err.startswith("note: ")


def test_cli_worktree_flags(tmp_path: Path, repo: Path, data: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, data, "add", "--title", "T", "--command", "make",
                       "--schedule", "manual", "--workdir", str(repo), "--worktree")
    assert code == 2 and json.loads(err)["error"]["field"] == "worktree"
    code, created, _ = cli(capsys, data, "add", "--title", "T", "--prompt", "Fix",
                           "--schedule", "manual", "--workdir", str(repo), "--worktree")
    aid = created["id"]
    code, _, err = cli(capsys, data, "edit", aid, "--context", "continue")
    assert code == 2 and "shares one history" in json.loads(err)["error"]["message"]
    code, edited, _ = cli(capsys, data, "edit", aid, "--no-worktree", "--context", "continue")
    assert code == 0 and edited["worktree"] is False
    code, edited, _ = cli(capsys, data, "edit", aid, "--worktree", "--context", "fresh")
    assert code == 0 and edited["worktree"] is True
    code, edited, err = cli(capsys, data, "edit", aid, "--command", "make")
    assert code == 0 and edited["worktree"] is False
    assert "worktree was turned off" in err
    code, _, err = cli(capsys, data, "worktrees", "--prune", "remove", "x")
    assert code == 2 and json.loads(err)["error"]["field"] == "--prune"


# ----------------------------------------------------------------------- parsing

odd_names = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
                    min_size=1, max_size=30)
status_codes = st.sampled_from(["M ", " M", "A ", " D", "D ", "??", "MM", "AM", "UU", "T "])


@pytest.mark.catalogue_free
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(status_codes, odd_names), max_size=8),
       st.lists(st.tuples(odd_names, odd_names), max_size=3))
def test_status_parsing_reads_back_any_path(plain: list[tuple[str, str]],
                                            renamed: list[tuple[str, str]]) -> None:
    out = b"".join(f"{xy} {p}".encode() + b"\0" for xy, p in plain)
    out += b"".join(f"R  {new}".encode() + b"\0" + old.encode() + b"\0" for new, old in renamed)
    expected = [p for _, p in plain] + [name for new, old in renamed for name in (new, old)]
    assert parse_status_z(out) == expected


@pytest.mark.catalogue_free
@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_parsers_never_raise_on_any_bytes(data: bytes) -> None:
    parse_status_z(data)
    parse_names_z(data)
    parse_worktree_list(data)
    parse_worktree_list(data, b"\n")


@pytest.mark.catalogue_free
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(odd_names, st.booleans(), st.booleans()), min_size=1, max_size=5))
def test_worktree_list_parsing_reads_back_any_path(items: list[tuple[str, bool, bool]]) -> None:
    out = b""
    expected = []
    for i, (path, detached, prunable) in enumerate(items):
        head = f"{i:040x}"
        lines = [f"worktree {path}", f"HEAD {head}"]
        lines.append("detached" if detached else f"branch refs/heads/errands/a/{i}")
        if prunable:
            lines.append("prunable gitdir file points to non-existent location")
        out += b"".join(line.encode() + b"\0" for line in lines) + b"\0"
        expected.append(WorktreeEntry(path=path, head=head, detached=detached,
                                      branch=None if detached else f"refs/heads/errands/a/{i}",
                                      prunable=prunable))
    assert parse_worktree_list(out) == expected


@pytest.mark.catalogue_free
async def test_odd_file_names_from_real_git(repo: Path, data: Path) -> None:
    wt = await open_worktree(repo, AID, 1, data)
    names = ["with space.txt", "ünïcödé.md", 'quo"te.txt', "back\\slash", "tab\there",
             "new\nline", "-dash"]
    for name in names:
        (wt.path / name).write_text("x")
    assert await close_worktree(wt) == sorted(names)


@pytest.mark.catalogue_free
async def test_prune_keeps_what_would_be_lost(repo: Path, data: Path) -> None:
    made = await _runs(repo, data, AID)
    listing = await list_worktrees([repo])
    assert len(listing.worktrees) == 4
    by_index = {w.run_index: w for w in listing.worktrees}
    assert keep_reason(by_index[1], {(AID, 1)}) == "its run has not finished"
    removed, kept = await prune_worktrees(listing.worktrees, {(AID, 1)})
    assert [w.run_index for w in removed] == [3]
    assert sorted(w.run_index for w, _ in kept) == [1, 2, 4]
    assert made["clean"].path.is_dir() and not made["merged"].path.exists()
    assert isinstance(kept[0][0], KeptWorktree) and os.path.isdir(kept[0][0].path)
