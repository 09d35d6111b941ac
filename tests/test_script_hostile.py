"""Hostile scripts, each a test (issue 30): every one ends with its documented status and
limit, nothing it proposed is applied, the engine goes on running scripts, and its loop
never stalls more than 20 ms meanwhile. Refusals at save name the line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from errands.errors import InvalidInput
from script_support import HELD, LoopWatch, Scripts, scripts  # noqa: F401 (fixture)

# Every case first proposes a change that must not happen.
MARK = 'actions.writeFile("marker.txt", "escaped"); actions.setState("escaped", true);\n'

# name: (body of the default export, status, limit hit, words in the error)
CASES = {
    "infinite loop": ("while (true) {}", "timeout", "execution_time", "time"),
    "loop inside try/catch": ("for (;;) { try { while (true) {} } catch (e) {} }", "timeout",
                              "execution_time", "time"),
    "heap bomb": ("const a = []; while (true) a.push(new Array(1e5).fill(1.5));", "failed",
                  "memory", "memory"),
    "deep recursion": ("const f = (n) => f(n + 1) + 1; f(0);", "failed", "stack", "deep"),
    "51 actions": ("for (let i = 0; i < 51; i++) { try { actions.notify('n' + i) } catch (e) {} }",
                   "rejected", "actions", "50 actions"),
    "reads past the budget": ("for (let i = 0; i < 25; i++) { try { files.stat('x') } catch (e) {} }",
                              "rejected", "reads", "20 reads"),
    "Date.now": ("actions.notify(String(Date.now()));", "failed", None, "clock"),
    "new Date()": ("actions.notify(String(new Date()));", "failed", None, "clock"),
    "Math.random": ("actions.notify(String(Math.random()));", "failed", None, "repeatable"),
    "require": ("const fs = require('fs'); fs.writeFileSync('/tmp/x', 'y');", "failed", None,
                "require is not defined"),
    "fetch": ("fetch('http://127.0.0.1:9/');", "failed", None, "fetch is not defined"),
    "a thrown error": ("throw new Error('on purpose');", "failed", None, "on purpose"),
    "a promise": ("return Promise.resolve(1);", "failed", None, "synchronously"),
    "the clock through a replaced Reflect.construct": (
        "const c = Reflect.construct; let R;\n"
        "Reflect.construct = (t, a, n) => { R = t; return c(t, a, n) };\n"
        "new Date(0); Reflect.construct = c;\n"
        "actions.notify(String(R.now()));", "failed", None, "undefined"),
    "a value nested a thousand deep": (
        "let v = 1; for (let i = 0; i < 1000; i++) v = [v];\n"
        "actions.setState('k', v);", "failed", None, "nests more than"),
    "a path with a control character": ("actions.writeFile('a\\u202Etxt.exe', 'x');",
                                        "failed", None, "not a path"),
}


@pytest.mark.parametrize("name", sorted(CASES))
async def test_a_hostile_script_ends_with_its_status_and_applies_nothing(
        scripts: Scripts, name: str) -> None:
    body, status, limit, words = CASES[name]
    source = ("export default function ({ event, files, state, actions }) {\n" + MARK
              + body + "\n}\n")
    a = await scripts.add(name, source)
    with LoopWatch() as watch:
        run = await scripts.run(a)
    assert run.state == "failed", run.to_dict()
    record = run.details["script"]
    assert record["status"] == status and record["limit_hit"] == limit
    assert words in (record["error"] or ""), record["error"]
    assert not (scripts.work / "marker.txt").exists()
    assert scripts.store.script_state(a) == {}
    assert all(not row["applied"] for row in record["actions"])
    assert run.error_code == f"script_{status}"
    assert watch.worst < HELD, f"the loop stalled {watch.worst * 1000:.1f} ms"
    fine = await scripts.add("after " + name, "export default function ({ actions }) {\n"
                             "  actions.writeFile('fine.txt', 'yes');\n}\n")
    after = await scripts.run(fine)   # the engine and its workers go on
    assert after.state == "succeeded" and (scripts.work / "fine.txt").read_text() == "yes"


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/errands-escape", "link/escape.txt"])
async def test_path_escapes_are_refused_and_nothing_is_applied(scripts: Scripts, tmp_path: Path,
                                                               path: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    os.symlink(outside, scripts.work / "link")
    a = await scripts.add("escape", "export default function ({ actions }) {\n"
                          f"  actions.writeFile({path!r}, 'x');\n"
                          f"  actions.moveFile('nothing-here.txt', {path!r});\n"
                          "  actions.deleteFile('link/keep.txt');\n}\n")
    run = await scripts.run(a)
    assert run.state == "failed" and run.error_code == "script_refused"
    rows = run.details["script"]["actions"]
    assert [r["applied"] for r in rows] == [False, False, False]
    assert all("outside the automation's folder" in r["reason"] for r in rows), rows
    assert not (tmp_path / "outside.txt").exists()
    assert [p.name for p in outside.iterdir()] == ["keep.txt"]
    assert not Path("/etc/errands-escape").exists() and scripts.work.exists()


async def test_reads_are_confined_too(scripts: Scripts, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret")
    os.symlink(secret, scripts.work / "innocent.txt")
    a = await scripts.add("peek", "export default function ({ files, actions }) {\n"
                          "  let got = [];\n"
                          "  for (const p of ['innocent.txt', '../secret.txt', "
                          f"{str(secret)!r}]) {{\n"
                          "    try { got.push(files.read(p)) } catch (e) { got.push(e.name) }\n"
                          "  }\n  return got.join(',');\n}\n")
    run = await scripts.run(a)
    assert run.state == "succeeded" and run.result == "RangeError,RangeError,RangeError"
    assert "s3cret" not in str(run.to_dict())


async def test_a_ten_megabyte_script_is_refused_when_saved(scripts: Scripts) -> None:
    source = "export default function () {}\n// " + "x" * (10 * 1024 * 1024)
    with pytest.raises(InvalidInput) as caught:
        await scripts.add("huge", source)
    assert caught.value.field == "runner.source" and "64 KB" in str(caught.value)
    assert scripts.store.list() == []


@pytest.mark.parametrize("source, line, words", [
    ("export default function () {\n  const x = ;\n}\n", 2, "SyntaxError"),
    ("export default async function () {\n}\n", None, "async"),
    ("export default function* () {}\n", None, "generator"),
    ("export const value = 1;\n", None, "no default export"),
    ("const setup = 1;\nthrow new Error('top level fails');\nexport default function () {}\n",
     2, "top level fails"),
    ("while (true) {}\nexport default function () {}\n", None, "time"),
    ("import fs from 'fs';\nexport default function () {}\n", None, "cannot import"),
])
async def test_a_script_that_cannot_run_is_refused_when_saved_naming_its_line(
        scripts: Scripts, source: str, line: int | None, words: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        await scripts.add("bad", source)
    error = caught.value
    assert error.field == "runner.source" and words in str(error), str(error)
    if line is not None:
        assert str(error).startswith(f"runner.source: line {line}:") or \
            f"line {line}:" in str(error)
    assert scripts.store.list() == []


async def test_a_worker_that_does_not_answer_is_killed_and_replaced(
        scripts: Scripts, monkeypatch: pytest.MonkeyPatch) -> None:
    """A native call the interrupt cannot stop: the worker is killed at the deadline."""
    from errands.scripts import pool
    runner = scripts.engine.runners["script"]
    a = await scripts.add("stuck", "export default function () {}\n")
    monkeypatch.setattr(pool, "GRACE", 0.5)
    monkeypatch.setattr(pool, "worker_command", lambda: [
        os.sys.executable, "-c", "import time, sys; print('{\"ready\":true}', flush=True); "
        "sys.stdin.readline(); time.sleep(60)"])
    await runner.pool.aclose()
    runner.pool = pool.Pool()
    with LoopWatch() as watch:
        run = await scripts.run(a)
    assert run.state == "failed" and run.details["script"]["status"] == "timeout"
    assert "killed" in run.details["script"]["error"]
    assert watch.worst < HELD
    monkeypatch.undo()
    runner.pool = pool.Pool()
    assert (await scripts.run(a)).state == "succeeded"


async def test_a_worker_that_dies_costs_its_run_only(scripts: Scripts,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An interpreter crash: the run fails saying so; the engine and the next run go on."""
    from errands.scripts import pool
    runner = scripts.engine.runners["script"]
    a = await scripts.add("dies", "export default function () {}\n")
    monkeypatch.setattr(pool, "worker_command", lambda: [
        os.sys.executable, "-c", "import os, sys; print('{\"ready\":true}', flush=True); "
        "sys.stdin.readline(); os._exit(139)"])
    await runner.pool.aclose()
    runner.pool = pool.Pool()
    run = await scripts.run(a)
    assert run.state == "failed" and "crashed" in run.details["script"]["error"]
    monkeypatch.undo()
    runner.pool = pool.Pool()
    assert (await scripts.run(a)).state == "succeeded"
