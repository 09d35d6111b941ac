"""The folder trigger with real inotify through watchfiles: a burst is one run listing its
changes, globs filter before anything runs, a move is a move, changes made while Errands was
closed are found at start, and a run rewriting its own folder stops at the cascade bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from event_support import Real, real, until  # noqa: F401 (fixtures)
from errands import folder_changes
from errands.event_triggers import FolderTrigger
from errands.errors import InvalidInput


def folder_trigger(path: Path, **extra: object) -> list[dict]:
    return [{"id": "inbox", "kind": "folder", "path": str(path), "debounce": "1s", **extra}]


def source(real: Real):
    return real.engine.sources.kinds["folder"]


async def watching(real: Real, a: str) -> None:
    await until(lambda: any(k[0] == a and w.task is not None
                            for k, w in source(real).watches.items()), "the folder watched")


async def test_a_burst_of_changes_is_one_run_that_lists_them(real: Real, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "old.pdf").write_text("x")
    a = await real.add("pdfs", "true", folder_trigger(inbox, include=["*.pdf"]))
    await watching(real, a)
    for i in range(50):
        (inbox / f"new-{i}.pdf").write_text(str(i))
    (inbox / "notes.txt").write_text("not watched")
    (inbox / "old.pdf").unlink()
    await until(lambda: real.ended(a), "a run")
    [run] = real.ended(a)
    assert run.state == "succeeded" and run.fired_by()["id"] == "inbox"
    payload = run.payload
    assert payload["count"] == 51 and payload["folder"] == str(inbox)
    changes = {(c["change"], c["path"]) for c in payload["changes"]}
    assert ("deleted", "old.pdf") in changes and ("created", "new-7.pdf") in changes
    assert not any(p.endswith(".txt") for _, p in changes)


async def test_unmatched_changes_cost_nothing_and_a_move_is_a_move(real: Real,
                                                                   tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    (inbox / "sub").mkdir(parents=True)
    (inbox / "report.csv").write_text("a,b")
    a = await real.add("csv", "true", folder_trigger(inbox, include=["*.csv"]))
    await watching(real, a)
    (inbox / "ignored.log").write_text("x")
    (inbox / "report.csv").rename(inbox / "sub" / "report.csv")
    await until(lambda: real.ended(a), "a run")
    [run] = real.ended(a)
    assert run.payload["changes"] == [{"change": "moved", "path": "report.csv -> sub/report.csv"}]


async def test_changes_while_closed_are_found_at_start(real: Real, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    run_once = await real.add("catch up", "true", folder_trigger(inbox), misfire="run_once")
    skip = await real.add("skip", "true", folder_trigger(inbox))
    await watching(real, run_once)
    await watching(real, skip)
    await real.engine.stop()
    (inbox / "while-closed.txt").write_text("x")
    await real.restart()
    await until(lambda: real.ended(run_once) and real.ended(skip), "the start's records")
    [caught] = real.ended(run_once)
    assert caught.state == "succeeded" and caught.payload["while_closed"]
    assert caught.payload["changes"] == [{"change": "created", "path": "while-closed.txt"}]
    [skipped] = real.ended(skip)
    assert (skipped.state, skipped.skip_reason) == ("skipped", "app_not_running")
    # taken in once: another restart finds nothing new
    await real.restart()
    await watching(real, run_once)
    assert len(real.runs(run_once)) == 1 and len(real.runs(skip)) == 1


async def test_a_run_rewriting_its_own_folder_stops_at_the_cascade_bound(
        real: Real, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    a = await real.add("rewrites", f"date +%N >> {inbox}/log.txt", folder_trigger(inbox),
                       workdir=str(tmp_path))
    await watching(real, a)
    (inbox / "log.txt").write_text("start\n")
    await until(lambda: any(r.state == "skipped" for r in real.runs(a)), "the cascade bound",
                within=40)
    states = [r.state for r in real.runs(a)]
    assert states == ["succeeded"] * 4 + ["skipped"], states
    skipped = real.runs(a)[-1]
    assert skipped.skip_reason == "cascade_limit" and skipped.fired_by()["depth"] == 4


async def test_a_folder_that_is_not_there_is_refused_beside_its_field(real: Real,
                                                                       tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as caught:
        await real.add("nowhere", "true", folder_trigger(tmp_path / "missing"))
    assert caught.value.field == "triggers[0].path" and "not a folder" in str(caught.value)


@pytest.mark.logs("is gone")
async def test_a_folder_that_goes_away_is_said_in_the_inbox(real: Real, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    a = await real.add("fragile", "true", folder_trigger(inbox))
    await watching(real, a)
    inbox.rmdir()
    def said() -> bool:
        return any(i.kind == "trigger_problem" and "cannot be watched" in i.title
                   for i in real.store.attention())
    await until(said, "the problem in the inbox")
    assert "is gone" in source(real).problems[(a, "inbox")]


# ------------------------------------------------------------------ the pure part

@pytest.mark.catalogue_free
def test_globs_match_names_or_relative_paths(tmp_path: Path) -> None:
    t = FolderTrigger(str(tmp_path), include=("*.pdf", "reports/*.csv"), exclude=("draft-*",))
    assert folder_changes.matches("a.pdf", t) and folder_changes.matches("x/y/a.pdf", t)
    assert folder_changes.matches("reports/q1.csv", t)
    assert not folder_changes.matches("other/q1.csv", t)
    assert not folder_changes.matches("draft-1.pdf", t)


@pytest.mark.catalogue_free
def test_a_file_made_and_removed_within_a_burst_is_no_change(tmp_path: Path) -> None:
    t = FolderTrigger(str(tmp_path))
    raw = [(folder_changes.CREATED, str(tmp_path / "tmp.txt")),
           (folder_changes.DELETED, str(tmp_path / "tmp.txt"))]
    changes, after = folder_changes.apply({}, raw, t)
    assert changes == [] and after == {}


async def test_a_folder_moved_in_brings_its_files_and_a_bad_name_is_no_obstacle(
        real: Real, tmp_path: Path) -> None:
    inbox, elsewhere = tmp_path / "inbox", tmp_path / "elsewhere"
    inbox.mkdir()
    (elsewhere / "batch").mkdir(parents=True)
    for i in range(3):
        (elsewhere / "batch" / f"{i}.pdf").write_text("x")
    a = await real.add("pdfs", "true", folder_trigger(inbox, include=["*.pdf"]))
    await watching(real, a)
    (elsewhere / "batch").rename(inbox / "batch")
    await until(lambda: real.ended(a), "a run")
    [run] = real.ended(a)
    assert sorted(c["path"] for c in run.payload["changes"]) == [
        "batch/0.pdf", "batch/1.pdf", "batch/2.pdf"]
    # a name that is not UTF-8: the watcher cannot say it, the folder is compared instead
    import os
    fd = os.open(os.fsencode(inbox) + b"/inv\xffoice.pdf", os.O_CREAT | os.O_WRONLY)
    os.close(fd)
    await until(lambda: len(real.ended(a)) == 2, "a run for the odd name")
    second = real.ended(a)[-1]
    assert second.state == "succeeded", second.error_message
    assert [c["change"] for c in second.payload["changes"]] == ["created"]


async def test_two_automations_writing_into_each_others_folders_stop_at_the_bound(
        real: Real, tmp_path: Path) -> None:
    x, y = tmp_path / "x", tmp_path / "y"
    x.mkdir()
    y.mkdir()
    a = await real.add("a", f"date +%N >> {y}/from-a", folder_trigger(x))
    b = await real.add("b", f"date +%N >> {x}/from-b", folder_trigger(y))
    await watching(real, a)
    await watching(real, b)
    (x / "start").write_text("go")

    def stopped() -> bool:
        return any(r.skip_reason == "cascade_limit" for r in real.runs(a) + real.runs(b))
    await until(stopped, "the cascade bound", within=40)
    ran = [r for r in real.runs(a) + real.runs(b) if r.state == "succeeded"]
    assert len(ran) <= 4


async def test_an_automation_edited_to_a_clock_alone_stops_watching(real: Real,
                                                                    tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    a = await real.add("was watching", "true", folder_trigger(inbox))
    await real.restart()           # (held from the start, not from a write)
    await watching(real, a)
    doc = real.store.get(a).definition.to_dict()
    doc.pop("triggers")
    doc["trigger"] = {"kind": "manual"}
    await real.engine.commands.revise(a, doc)
    await until(lambda: not any(k[0] == a for k in source(real).watches), "watching stops")
