"""The agent's tools with real files, real processes and a real local HTTP server.

Confinement is checked the hostile way: a workdir full of links that lead out, random
path strings, and a snapshot of everything outside that must not change."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import stat
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errands.agent.tools import commands, files, registry, web
from errands.agent.tools.base import (MAX_RESULT_CHARS, ToolEnv, ToolError, ToolResult,
                                      UrlJudgement, parse_arguments)

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

SECRET = "TOP-SECRET"
LINUX = sys.platform.startswith("linux") and Path("/proc/self/stat").exists()
linux_only = pytest.mark.skipif(not LINUX, reason="process groups and /proc are Linux-first")
LOAD_MARGIN = 5.0  # what a busy machine may add to any wait (see test_command_runner)


def run(handler: Any, env: ToolEnv, **args: Any) -> ToolResult:
    return asyncio.run(handler(env, args))


def refused(handler: Any, env: ToolEnv, **args: Any) -> str:
    with pytest.raises(ToolError) as caught:
        run(handler, env, **args)
    return str(caught.value)


# --------------------------------------------------------------------------- the tree

def make_tree(base: Path) -> tuple[Path, Path]:
    """A workdir with every kind of link out of it, and the outside it must not reach."""
    outside, work = base / "outside", base / "work"
    (outside / "deep").mkdir(parents=True)
    (outside / "secret.txt").write_text(SECRET + "\n")
    (outside / "deep" / "secret.txt").write_text(SECRET + " deep\n")
    (work / "sub" / "inner").mkdir(parents=True)
    (work / "notes.txt").write_text("alpha\nbeta TODO\ngamma\n")
    (work / "sub" / "code.py").write_text("def f():\n    return 1  # TODO\n")
    (work / "sub" / "inner" / "deep.py").write_text("x = 'TODO'\n")
    links = {"esc": "../outside", "esc_file": "../outside/secret.txt",
             "abs": str(outside), "abs_file": str(outside / "secret.txt"),
             "dangling": "../outside/new.txt", "in": "sub", "in_file": "notes.txt",
             "loop": "loop", "sub/deeper": "../../outside", "sub/inner/up": "../../.."}
    for name, target in links.items():
        os.symlink(target, work / name)
    return work, outside


def snapshot(root: Path) -> dict[str, Any]:
    """Every entry below ``root`` with its kind, bytes and permissions (links not followed)."""
    seen: dict[str, Any] = {}
    for folder, dirs, names in os.walk(root):
        for name in dirs + names:
            path = Path(folder, name)
            info = path.lstat()
            content = path.read_bytes() if stat.S_ISREG(info.st_mode) else os.readlink(path) \
                if stat.S_ISLNK(info.st_mode) else None
            seen[str(path.relative_to(root))] = (stat.S_IFMT(info.st_mode),
                                                 stat.S_IMODE(info.st_mode), content)
    return seen


@pytest.fixture
def tree(tmp_path: Path) -> tuple[ToolEnv, Path]:
    work, outside = make_tree(tmp_path)
    return ToolEnv(workdir=work), outside


# --------------------------------------------------------------------------- reading

def test_read_file_reads_text_and_pages_long_files(tree: tuple[ToolEnv, Path]) -> None:
    env, _ = tree
    assert run(files.read_file, env, path="notes.txt").text == "alpha\nbeta TODO\ngamma"
    assert run(files.read_file, env, path=str(env.workdir / "notes.txt")).text.startswith("alpha")
    assert run(files.read_file, env, path="./sub//code.py").text.startswith("def f")
    piece = run(files.read_file, env, path="notes.txt", offset=2, limit=1).text
    assert piece.startswith("beta TODO\n") and "lines 2–2 of 3 shown; read on with offset=3" in piece
    (env.workdir / "long.txt").write_text("".join(f"line {i} " + "x" * 80 + "\n"
                                                  for i in range(1, 2001)))
    first = run(files.read_file, env, path="long.txt").text
    assert len(first) <= MAX_RESULT_CHARS and first.startswith("line 1 ")
    next_line = int(first.rsplit("offset=", 1)[1].rstrip("]"))
    second = run(files.read_file, env, path="long.txt", offset=next_line).text
    assert second.startswith(f"line {next_line} ")
    assert "past its end" in refused(files.read_file, env, path="notes.txt", offset=9)


def test_read_file_describes_what_it_cannot_show(tree: tuple[ToolEnv, Path]) -> None:
    env, _ = tree
    (env.workdir / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)))
    assert "binary file" in run(files.read_file, env, path="image.png").text
    (env.workdir / "latin.txt").write_bytes("café crème\n".encode("latin-1"))
    latin = run(files.read_file, env, path="latin.txt").text
    assert "caf\ufffd" in latin and "not valid UTF-8" in latin
    (env.workdir / "empty.txt").write_text("")
    assert run(files.read_file, env, path="empty.txt").text == "empty.txt is empty"
    assert "is a folder" in refused(files.read_file, env, path="sub")
    assert "workdir itself, a folder" in refused(files.read_file, env, path=".")
    assert "no such file" in refused(files.read_file, env, path="missing.txt")
    assert "is empty" in refused(files.read_file, env, path="")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tree: tuple[ToolEnv, Path]) -> None:
    env, _ = tree
    os.mkfifo(env.workdir / "pipe")
    assert "not a regular file" in refused(files.read_file, env, path="pipe")
    assert "not a regular file" in refused(files.write_file, env, path="pipe", content="x")
    assert "no matches" in run(files.search_files, env, pattern="x", path="pipe").text


# ----------------------------------------------------------------------- confinement

@pytest.mark.parametrize("path", [
    "../outside/secret.txt", "sub/../../outside/secret.txt", "..", "sub/..",
    "esc/secret.txt", "esc_file", "abs/secret.txt", "abs_file", "sub/deeper/secret.txt",
    "in/deeper/deep/secret.txt", "sub/inner/up/outside/secret.txt", "esc", "dangling"])
def test_paths_that_leave_the_workdir_are_refused(tree: tuple[ToolEnv, Path],
                                                  path: str) -> None:
    env, outside = tree
    before = snapshot(outside.parent)
    for handler, args in ((files.read_file, {}), (files.write_file, {"content": "pwned"}),
                          (files.edit_file, {"old": "TOP", "new": "pwned"}),
                          (files.list_files, {}), (files.search_files, {"pattern": "TOP"})):
        message = refused(handler, env, path=path, **args)
        assert "outside the workdir" in message or "'..' is not allowed" in message
        assert SECRET not in message
    assert snapshot(outside.parent) == before


def test_absolute_paths_outside_are_refused_inside_accepted(tree: tuple[ToolEnv, Path]) -> None:
    env, outside = tree
    assert "outside the workdir" in refused(files.read_file, env,
                                            path=str(outside / "secret.txt"))
    assert "outside the workdir" in refused(files.read_file, env, path="/etc/passwd")
    result = run(files.write_file, env, path=str(env.workdir / "abs.txt"), content="ok")
    assert result.changed == ["abs.txt"]


def test_links_inside_the_workdir_are_followed_and_named_by_target(
        tree: tuple[ToolEnv, Path]) -> None:
    env, _ = tree
    assert run(files.read_file, env, path="in/code.py").text.startswith("def f")
    assert run(files.read_file, env, path="in_file").text.startswith("alpha")
    written = run(files.write_file, env, path="in/new/made.txt", content="made\n")
    assert written.changed == ["sub/new/made.txt"]
    assert (env.workdir / "sub" / "new" / "made.txt").read_text() == "made\n"
    edited = run(files.edit_file, env, path="in_file", old="gamma", new="delta")
    assert edited.changed == ["notes.txt"] and os.path.islink(env.workdir / "in_file")
    assert "loop" in refused(files.read_file, env, path="loop")


def test_a_link_swapped_in_after_the_check_cannot_lead_out(tree: tuple[ToolEnv, Path]) -> None:
    """The race the component-wise O_NOFOLLOW walk closes: the path was checked, then a
    folder on it became a link to the outside."""
    if not files._DIR_FD:
        pytest.skip("no dir_fd support here")
    env, outside = tree
    (env.workdir / "swap").mkdir()
    (env.workdir / "swap" / "secret.txt").write_text("harmless\n")
    read_loc = files.locate(env.workdir, "swap/secret.txt")
    write_loc = files.locate(env.workdir, "swap/deep/secret.txt")
    (env.workdir / "swap").rename(env.workdir / "swapped")
    os.symlink(outside, env.workdir / "swap")
    before = snapshot(outside)
    with pytest.raises(OSError):
        files._read_regular(read_loc, 1000)
    with pytest.raises(OSError):
        files._write_bytes(write_loc, b"pwned")
    assert snapshot(outside) == before


_SEGMENTS = st.sampled_from(["..", ".", "", "esc", "esc_file", "abs", "abs_file", "dangling",
                             "in", "in_file", "loop", "sub", "deeper", "inner", "up",
                             "outside", "secret.txt", "notes.txt", "new.txt", "deep",
                             "\0", "\ud800", "é", "~", "*", "a\\b", "\n"])
_PATHS = st.builds(
    lambda prefix, parts: prefix + "/".join(parts),
    st.sampled_from(["", "/", "./", "//", "{work}/", "{outside}/", "{base}/"]),
    st.lists(st.one_of(_SEGMENTS, st.text(max_size=6)), max_size=6))
_OPERATIONS = st.sampled_from(["read_file", "write_file", "edit_file", "list_files",
                               "search_files"])


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operation=_OPERATIONS, raw_path=_PATHS, text=st.text(max_size=20),
       dry_run=st.booleans())
def test_no_path_string_reaches_outside_the_workdir(tmp_path: Path, operation: str,
                                                    raw_path: str, text: str,
                                                    dry_run: bool) -> None:
    base = tmp_path / "p"
    if not base.exists():
        base.mkdir()
        make_tree(base)
    work, outside = base / "work", base / "outside"
    before = snapshot(outside)
    path = (raw_path.replace("{work}", str(work)).replace("{outside}", str(outside))
            .replace("{base}", str(base)))
    args = {"read_file": {"path": path}, "write_file": {"path": path, "content": text},
            "edit_file": {"path": path, "old": "alpha", "new": text or "x"},
            "list_files": {"path": path, "pattern": text or None},
            "search_files": {"path": path, "pattern": text or "TOP"}}[operation]
    args = {k: v for k, v in args.items() if v is not None}
    spec, handler = registry.SPECS[operation], registry.HANDLERS[operation]
    env = ToolEnv(workdir=work, dry_run=dry_run)
    try:
        checked = parse_arguments(spec, json.dumps(args))
        result = asyncio.run(handler(env, checked))
    except ToolError as exc:
        assert SECRET not in str(exc)
    else:
        assert isinstance(result, ToolResult)
        assert SECRET not in result.text
        assert all(not c.startswith(("/", "..")) for c in result.changed)
    assert snapshot(outside) == before
    assert sorted(os.listdir(base)) == ["outside", "work"]


# --------------------------------------------------------------------------- writing

def test_write_file_creates_replaces_and_keeps_permissions(tree: tuple[ToolEnv, Path]) -> None:
    env, _ = tree
    created = run(files.write_file, env, path="a/b/c.txt", content="héllo\n")
    assert created.changed == ["a/b/c.txt"] and "created a/b/c.txt (7 bytes)" in created.text
    script = env.workdir / "run.sh"
    script.write_text("old\n")
    script.chmod(0o750)
    replaced = run(files.write_file, env, path="run.sh", content="#!/bin/sh\necho new\n")
    assert "(it had 4)" in replaced.text and replaced.changed == ["run.sh"]
    assert script.read_text() == "#!/bin/sh\necho new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert "is a folder" in refused(files.write_file, env, path="sub", content="x")
    assert "workdir itself" in refused(files.write_file, env, path=".", content="x")
    assert "not a folder" in refused(files.write_file, env, path="notes.txt/x", content="x")
    leftovers = [p for p in env.workdir.rglob("*") if p.name.startswith(".errands-")]
    assert leftovers == []


def test_edit_file_replaces_exactly_one_occurrence(tree: tuple[ToolEnv, Path]) -> None:
    env, _ = tree
    result = run(files.edit_file, env, path="notes.txt", old="beta TODO", new="beta done")
    assert result.changed == ["notes.txt"] and "line 2" in result.text
    assert (env.workdir / "notes.txt").read_text() == "alpha\nbeta done\ngamma\n"
    (env.workdir / "many.txt").write_text("x = 1\ny = 1\nz = 1\n")
    message = refused(files.edit_file, env, path="many.txt", old="= 1", new="= 2")
    assert "occurs 3 times" in message and "lines 1, 2, 3" in message
    assert "not found" in refused(files.edit_file, env, path="many.txt", old="w = 1", new="")
    assert "same" in refused(files.edit_file, env, path="many.txt", old="x", new="x")
    assert "empty" in refused(files.edit_file, env, path="many.txt", old="", new="x")
    (env.workdir / "dos.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    run(files.edit_file, env, path="dos.txt", old="one\ntwo", new="1\n2")
    assert (env.workdir / "dos.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"
    (env.workdir / "latin.txt").write_bytes("café\n".encode("latin-1"))
    assert "not UTF-8" in refused(files.edit_file, env, path="latin.txt", old="caf", new="x")


def test_dry_run_writes_nothing_and_proposes(tree: tuple[ToolEnv, Path]) -> None:
    env, _ = tree
    dry = ToolEnv(workdir=env.workdir, dry_run=True)
    before = snapshot(env.workdir)
    written = run(files.write_file, dry, path="new.txt", content="12345")
    assert written.proposed == "would write 5 bytes to new.txt" and written.changed == []
    edited = run(files.edit_file, dry, path="notes.txt", old="beta", new="BETA")
    assert edited.proposed == ("would replace 4 characters at line 2 of notes.txt with 4 "
                               "characters")
    assert "occurs" in refused(files.edit_file, dry, path="notes.txt", old="a", new="b")
    assert "outside" in refused(files.write_file, dry, path="esc/x", content="x")
    assert snapshot(env.workdir) == before


# ------------------------------------------------------------------ listing, searching

def test_list_files_lists_a_folder_or_matches_a_pattern(tree: tuple[ToolEnv, Path]) -> None:
    env, _ = tree
    (env.workdir / ".git").mkdir()
    (env.workdir / ".git" / "hidden.py").write_text("")
    top = run(files.list_files, env).text.splitlines()
    assert "notes.txt (22 bytes)" in top and "sub/" in top and "esc@ (link)" in top
    assert ".git/" in top
    assert run(files.list_files, env, path="sub").text.splitlines() == [
        "sub/code.py (30 bytes)", "sub/deeper@ (link)", "sub/inner/"]
    found = run(files.list_files, env, pattern="*.py").text.splitlines()
    assert found[:2] == ["sub/code.py (30 bytes)", "sub/inner/deep.py (11 bytes)"]
    assert "folders not entered: .git" in found[-1]
    assert run(files.list_files, env, path="sub", pattern="inner/*").text.splitlines() == [
        "sub/inner/deep.py (11 bytes)", "sub/inner/up@ (link)"]
    assert "sub/code.py" in run(files.list_files, env, pattern="**/code.py").text
    assert "nothing matches" in run(files.list_files, env, pattern="*.rs").text
    assert "use read_file" in refused(files.list_files, env, path="notes.txt")
    for i in range(files.MAX_LIST_ENTRIES + 5):
        (env.workdir / "sub" / "inner" / f"f{i:04}.txt").write_text("")
    many = run(files.list_files, env, path="sub/inner").text
    assert "7 more not shown" in many and len(many) <= MAX_RESULT_CHARS


def test_search_files_finds_lines_and_stays_bounded(tree: tuple[ToolEnv, Path]) -> None:
    env, _ = tree
    found = run(files.search_files, env, pattern=r"TODO").text.splitlines()
    assert found == ["notes.txt:2: beta TODO", "sub/code.py:2: return 1  # TODO",
                     "sub/inner/deep.py:1: x = 'TODO'", "[3 matches in 3 files]"]
    assert run(files.search_files, env, pattern=r"^al.ha$").text.startswith("notes.txt:1: alpha")
    plain = run(files.search_files, env, pattern="f(").text
    assert plain.startswith("sub/code.py:1: def f():") and "searched as plain text" in plain
    one = run(files.search_files, env, pattern="TODO", path="sub/code.py").text
    assert one.splitlines()[0] == "sub/code.py:2: return 1  # TODO"
    assert "no matches" in run(files.search_files, env, pattern=SECRET).text
    (env.workdir / "blob.bin").write_bytes(b"TODO\0\0\0")
    assert "1 binary file skipped" in run(files.search_files, env, pattern="TODO").text
    (env.workdir / "big.txt").write_text("TODO " + "y" * 5000 + "\n" * 2 + "TODO\n" * 500)
    many = run(files.search_files, env, pattern="TODO", path="big.txt").text
    assert f"first {files.MAX_MATCHES} matches shown" in many
    assert len(many) <= MAX_RESULT_CHARS and "big.txt:1: TODO yyy" in many
    assert "empty" in refused(files.search_files, env, pattern="")


# ---------------------------------------------------------------------- run_command

def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (ProcessLookupError, OSError):
        return False
    return state not in ("Z", "X")


def gone_soon(pid: int) -> bool:
    deadline = time.monotonic() + LOAD_MARGIN
    while time.monotonic() < deadline and alive(pid):
        time.sleep(0.02)
    return not alive(pid)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


@linux_only
async def test_run_command_reports_exit_code_and_both_streams(workdir: Path) -> None:
    started: list[int] = []
    env = ToolEnv(workdir=workdir, on_started=started.append, run_id="r-7")
    result = await commands.run_command(env, {"command": "echo out; echo err >&2; pwd; "
                                                         "echo $ERRANDS_RUN_ID; exit 3"})
    assert result.text == (f"exit code 3\nstdout:\nout\n{workdir}\nr-7\nstderr:\nerr")
    assert len(started) == 1 and not result.untrusted
    quiet = await commands.run_command(env, {"command": "true"})
    assert quiet.text == "exit code 0\nstdout: (empty)\nstderr: (empty)"
    killed = await commands.run_command(env, {"command": "kill -9 $$"})
    assert killed.text.startswith("killed by SIGKILL")


@linux_only
async def test_run_command_timeout_ends_the_whole_group(workdir: Path) -> None:
    started: list[int] = []
    env = ToolEnv(workdir=workdir, on_started=started.append, max_command_seconds=30)
    began = time.monotonic()
    result = await commands.run_command(env, {"command": "sleep 300 & echo $! > child.pid; "
                                                         "echo waiting; wait",
                                              "timeout_s": 0.5})
    assert time.monotonic() - began < 0.5 + LOAD_MARGIN
    assert result.text.startswith("timed out after 0.5 s") and "waiting" in result.text
    child = int((workdir / "child.pid").read_text())
    assert gone_soon(child) and gone_soon(started[0])


@linux_only
async def test_run_command_ends_what_the_shell_left_running(workdir: Path) -> None:
    env = ToolEnv(workdir=workdir)
    result = await commands.run_command(env, {"command": "sleep 300 & echo $! > child.pid"})
    assert result.text.startswith("exit code 0")
    assert gone_soon(int((workdir / "child.pid").read_text()))


@linux_only
async def test_run_command_cancelled_ends_the_group(workdir: Path) -> None:
    env = ToolEnv(workdir=workdir)
    call = asyncio.ensure_future(commands.run_command(
        env, {"command": "sleep 300 & echo $! > child.pid; sleep 300"}))
    deadline = time.monotonic() + 30
    while not (workdir / "child.pid").exists() or not (workdir / "child.pid").read_text():
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert gone_soon(int((workdir / "child.pid").read_text()))


@linux_only
async def test_run_command_kills_what_ignores_sigterm(workdir: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commands, "KILL_GRACE", 0.3)
    env = ToolEnv(workdir=workdir, max_command_seconds=0.3)
    result = await commands.run_command(env, {"command": "trap '' TERM; sleep 300 & "
                                                         "echo $! > child.pid; wait",
                                              "timeout_s": 100})
    assert "timeout_s is above the limit of 0.3 s" in result.text
    assert result.text.startswith("timed out after 0.3 s")
    assert gone_soon(int((workdir / "child.pid").read_text()))


@linux_only
async def test_run_command_output_is_bounded_to_its_end(workdir: Path) -> None:
    result = await commands.run_command(ToolEnv(workdir=workdir),
                                        {"command": "seq 1 200000; seq 1 5000 >&2"})
    assert len(result.text) <= MAX_RESULT_CHARS
    out, err = result.text.split("\nstderr:\n")
    assert "[… earlier output cut]\n" in out and out.endswith("\n200000")
    assert "[… earlier output cut]\n" in err and err.endswith("\n5000")


async def test_run_command_refusals_and_dry_run(workdir: Path) -> None:
    env = ToolEnv(workdir=workdir, dry_run=True)
    result = await commands.run_command(env, {"command": "touch made"})
    assert result.proposed == "would run: touch made" and not (workdir / "made").exists()
    for args in ({"command": "  "}, {"command": "true", "timeout_s": 0},
                 {"command": "true", "timeout_s": -1}, {"command": "echo \0"}):
        with pytest.raises(ToolError):
            await commands.run_command(env, args)
    with pytest.raises(ToolError, match="does not exist"):
        await commands.run_command(ToolEnv(workdir=workdir / "missing"), {"command": "true"})


# -------------------------------------------------------------------------- fetch_url

PAGE = b"""<!doctype html><html><head><title>The &amp; Title</title>
<style>body { color: red }</style><script>alert("stolen")</script></head>
<body><nav><ul><li>Home<li>About</ul></nav><h1>Heading</h1>
<p>First   paragraph with <b>bold</b> &lt;text&gt;.</p><noscript>enable js</noscript>
<pre>keep  this
  indented</pre><svg><text>drawing</text></svg><p>Last</body></html>"""


class _Site(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        if self.path == "/endless":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b"z" * 65536)
            except OSError:
                return
        if self.path == "/slow":
            time.sleep(3)
        routes = {
            "/page": (200, "text/html; charset=utf-8", PAGE),
            "/json": (200, "application/json", b'{"answer": 42}'),
            "/binary": (200, "application/octet-stream", bytes(range(256))),
            "/gone": (404, "text/plain", b"not here"),
            "/latin": (200, "text/html", b'<meta charset="latin-1"><p>caf\xe9</p>'),
            "/gzip": (200, "text/plain", gzip.compress(b"packed text")),
            "/slow": (200, "text/plain", b"late"),
        }
        if self.path.startswith("/to/"):
            self.send_response(302)
            self.send_header("Location", self.path[len("/to/"):])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        status, kind, body = routes.get(self.path, (404, "text/plain", b"?"))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        if self.path == "/gzip":
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:  # the client hung up on /endless, as it should
            pass


def _names_loopback(url: str) -> UrlJudgement:
    """These tests' rules: an allow rule naming 127.0.0.1 (any port), which fetch_url needs
    to reach the loopback test server."""
    return UrlJudgement("allow", "test rule", names_host=url.startswith("http://127.0.0.1:"))


def _web_env(workdir: Path, dry_run: bool = False) -> ToolEnv:
    return ToolEnv(workdir=workdir, dry_run=dry_run, judge_url=_names_loopback)


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for key in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                "all_proxy"):
        monkeypatch.delenv(key, raising=False)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Site.hits = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def test_fetch_url_reduces_html_to_untrusted_text(site: str, workdir: Path) -> None:
    result = await web.fetch_url(_web_env(workdir), {"url": site + "/page"})
    assert result.untrusted
    assert result.text == (
        f"URL: {site}/page\nStatus: 200 OK\nContent-Type: text/html\nTitle: The & Title\n\n"
        "- Home\n- About\n\n# Heading\n\nFirst paragraph with bold <text>.\n\n"
        "keep  this\n  indented\n\nLast")
    for hidden in ("stolen", "color: red", "enable js", "drawing"):
        assert hidden not in result.text


async def test_fetch_url_passes_text_and_describes_binary(site: str, workdir: Path) -> None:
    env = _web_env(workdir)
    assert (await web.fetch_url(env, {"url": site + "/json"})).text.endswith(
        "application/json\n\n{\"answer\": 42}")
    binary = await web.fetch_url(env, {"url": site + "/binary"})
    assert "[binary content (application/octet-stream, 256 bytes read); not shown]" in binary.text
    gone = await web.fetch_url(env, {"url": site + "/gone"})
    assert "Status: 404 Not Found" in gone.text and gone.text.endswith("not here")
    assert (await web.fetch_url(env, {"url": site + "/latin"})).text.endswith("café")
    assert (await web.fetch_url(env, {"url": site + "/gzip"})).text.endswith("packed text")
    moved = await web.fetch_url(env, {"url": site + "/to//json"})
    assert moved.text.startswith(f"URL: {site}/json\n")


async def test_fetch_url_reads_at_most_the_cap(site: str, workdir: Path) -> None:
    began = time.monotonic()
    result = await web.fetch_url(_web_env(workdir), {"url": site + "/endless"})
    assert time.monotonic() - began < 10 + LOAD_MARGIN
    assert "only its first 2 MiB were read" in result.text
    assert len(result.text) <= MAX_RESULT_CHARS and result.untrusted


async def test_fetch_url_gives_up_at_its_deadline(site: str, workdir: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web, "FETCH_SECONDS", 0.5)
    with pytest.raises(ToolError, match="took longer than 0.5 s"):
        await web.fetch_url(_web_env(workdir), {"url": site + "/slow"})


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "example.com",
                                 "javascript:alert(1)", "data:text/plain,hi", "http://",
                                 "http://exa mple.com/", "http://example.com/\n",
                                 "http://[::1", "gopher://x"])
async def test_fetch_url_refuses_what_is_not_http(url: str, workdir: Path) -> None:
    with pytest.raises(ToolError, match="fetch_url"):
        await web.fetch_url(_web_env(workdir), {"url": url})


async def test_fetch_url_redirect_to_another_scheme_and_dry_run(site: str,
                                                                workdir: Path) -> None:
    # a refused redirect target is an error result; it quotes the server's URL: untrusted
    other = await web.fetch_url(_web_env(workdir), {"url": site + "/to/file:///etc/passwd"})
    assert other.text.startswith("Error: ") and "only http and https URLs" in other.text
    assert other.untrusted
    dry = await web.fetch_url(_web_env(workdir, dry_run=True), {"url": site + "/page"})
    assert dry.proposed == f"would fetch {site}/page" and not dry.untrusted
    assert _Site.hits == ["/to/file:///etc/passwd"]
    with pytest.raises(ToolError, match="could not fetch"):
        await web.fetch_url(_web_env(workdir), {"url": "http://127.0.0.1:1/"})


def test_html_to_text_survives_broken_markup() -> None:
    assert web.html_to_text("<p>a<script>never closed")[0] == "a"
    assert web.html_to_text("<head><title>t</title><p>body without closing head")[0] == \
        "body without closing head"
    text, title = web.html_to_text("<svg><title>not the page's</title></svg>x")
    assert (text, title) == ("x", "")


# ---------------------------------------------------------------------- the registry

def test_registry_lists_the_families_and_their_examples_parse() -> None:
    assert set(registry.SPECS) == {"read_file", "list_files", "search_files", "write_file",
                                   "edit_file", "run_command", "fetch_url", "list_mail",
                                   "read_mail", "send_mail"}
    assert set(registry.HANDLERS) == set(registry.SPECS)
    for name, spec in registry.SPECS.items():
        assert spec.name == name and spec.schema()["function"]["name"] == name
        assert set(spec.parameters["required"]) <= set(spec.parameters["properties"])
        assert spec.subject is None or spec.subject in spec.parameters["properties"]
        example = spec.parameters["examples"][0]
        assert parse_arguments(spec, json.dumps(example)) == example


def test_register_refuses_unknown_and_duplicate_names() -> None:
    spec = registry.SPECS["read_file"]
    with pytest.raises(ValueError, match="twice"):
        registry.register(spec, registry.HANDLERS["read_file"])
    from dataclasses import replace
    with pytest.raises(ValueError, match="TOOL_NAMES"):
        registry.register(replace(spec, name="rm_rf"), registry.HANDLERS["read_file"])


def test_call_subject_is_the_resolved_workdir_path(tree: tuple[ToolEnv, Path]) -> None:
    env, _ = tree
    read = registry.SPECS["read_file"]
    assert registry.call_subject(read, {"path": "in/code.py"}, env) == "sub/code.py"
    assert registry.call_subject(read, {"path": str(env.workdir / "notes.txt")}, env) \
        == "notes.txt"
    assert registry.call_subject(registry.SPECS["list_files"], {}, env) == "."
    assert registry.call_subject(registry.SPECS["search_files"], {"path": "in"}, env) == "sub"
    with pytest.raises(ToolError, match="outside"):
        registry.call_subject(read, {"path": "esc/secret.txt"}, env)
    assert registry.call_subject(registry.SPECS["run_command"], {"command": "ls"}, env) == "ls"


# ----------------------------------------------------------------- parse_arguments

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
_ARGUMENT_TEXT = st.one_of(
    st.text(max_size=200),
    _JSON.map(lambda v: json.dumps(v, allow_nan=True)),
    st.dictionaries(st.sampled_from(["path", "content", "old", "new", "pattern", "command",
                                     "timeout_s", "url", "offset", "limit", "extra"]),
                    _JSON, max_size=5).map(lambda v: json.dumps(v, allow_nan=True)),
    st.sampled_from(["1" * 5000, '{"timeout_s": 1e999}', '{"path": "\\ud800"}',
                     "[" * 50_000, '{"offset": NaN}', '{"path": 1' + "0" * 4400 + "}"]))


@settings(max_examples=500, deadline=None, database=None)
@given(name=st.sampled_from(sorted(registry.SPECS)), text=_ARGUMENT_TEXT)
def test_parse_arguments_raises_nothing_but_tool_error(name: str, text: str) -> None:
    spec = registry.SPECS[name]
    try:
        args = parse_arguments(spec, text)
    except ToolError as exc:
        assert str(exc)
    else:
        assert isinstance(args, dict)
        assert set(spec.parameters["required"]) <= set(args) <= set(
            spec.parameters["properties"])
