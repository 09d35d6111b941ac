"""Confinement of the commands an agent starts (errands.confine), with real children: the
launcher, the tool ``run_command`` through its handler, and the command runner.

Nothing is mocked: each test starts real processes under a real Landlock ruleset and
looks at what they could and could not do. They skip only where the kernel lacks what they
need, saying what."""

from __future__ import annotations

import dataclasses
import os
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from errands import confine, doctor
from errands.agent.tools import commands
from errands.agent.tools.base import ToolEnv
from errands.definition import ParseContext, Permissions, Rule, parse_definition
from errands.engine.command_runner import (CommandRunner, child_environment, confined,
                                           network_allowed)
from errands.engine.runner import RunContext

AVAILABLE, SENTENCE = confine.status()
ABI = confine.abi_version()
SRC = Path(__file__).resolve().parent.parent / "desktop"

needs_landlock = pytest.mark.skipif(not AVAILABLE, reason=f"no Landlock: {SENTENCE}")
needs_network_rules = pytest.mark.skipif(
    ABI < 4, reason=f"Landlock ABI {ABI}: TCP rules need ABI 4 (Linux 6.7)")
needs_scopes = pytest.mark.skipif(
    ABI < 6, reason=f"Landlock ABI {ABI}: signal scoping needs ABI 6 (Linux 6.12)")
TIMEOUT = 60.0  # a child's start on a busy machine, with a Python launcher in front


def confined_run(argv: list[str], *, write: list[Path | str], network: bool = False,
                 cwd: Path | str | None = None, env: dict[str, str] | None = None
                 ) -> subprocess.CompletedProcess[str]:
    """``argv`` started confined, the way the engine starts it (a new session, no input)."""
    return subprocess.run(confine.wrap(argv, write=[str(p) for p in write], network=network),
                          cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=TIMEOUT, start_new_session=True)


def sh(script: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return confined_run(["/bin/sh", "-c", script], **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def places(tmp_path: Path) -> Iterator[tuple[Path, Path, Path]]:
    """(workdir, a sibling folder outside it, the command's private temporary folder)."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (outside / "existing.txt").write_text("keep me\n")
    (outside / "victim.txt").write_text("do not remove\n")
    (outside / "folder").mkdir()
    temp = Path(confine.make_private_temp())
    try:
        yield work, outside, temp
    finally:
        confine.remove_private_temp(str(temp))


@pytest.fixture
def tcp_server() -> Iterator[int]:
    """A listening TCP port on 127.0.0.1 (the kernel completes connections to it)."""
    server = socket.create_server(("127.0.0.1", 0), backlog=16)
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


def snapshot(folder: Path) -> dict[str, tuple[str, bytes | None]]:
    found = {}
    for path in sorted(folder.rglob("*")):
        kind = "link" if path.is_symlink() else "dir" if path.is_dir() else "file"
        found[str(path.relative_to(folder))] = (
            kind, path.read_bytes() if kind == "file" else None)
    return found


# --------------------------------------------------------------------------- status

def test_status_says_what_is_confined_here() -> None:
    if not sys.platform.startswith("linux"):
        assert SENTENCE == "not Linux: commands run unconfined" and not AVAILABLE
        return
    if AVAILABLE:
        assert SENTENCE.startswith(f"Landlock ABI {ABI}: commands an agent starts may write "
                                   "only in their folder and a private temporary folder")
        if ABI >= 4:
            assert SENTENCE.endswith("network off unless allowed")
    else:
        assert "commands run unconfined" in SENTENCE and "Landlock" in SENTENCE


def test_doctor_reports_confinement() -> None:
    check = doctor.check_confinement()
    assert check.name == "confinement" and check.detail == SENTENCE
    if AVAILABLE:
        assert check.status == doctor.OK and not check.advice
    else:
        assert check.status == doctor.WARN and check.advice
    names = [c.name for c in doctor.run_checks(None, tray=lambda: doctor.Check("tray", "ok",
                                                                                ""))]
    assert "confinement" in names


def test_rights_are_masked_to_what_the_abi_knows() -> None:
    fs1, net1, scoped1 = confine.handled_rights(1)
    assert fs1 & confine.FS_WRITE_FILE and not fs1 & (confine.FS_REFER | confine.FS_TRUNCATE)
    assert (net1, scoped1) == (0, 0)
    fs3, net3, _ = confine.handled_rights(3)
    assert fs3 & confine.FS_REFER and fs3 & confine.FS_TRUNCATE and net3 == 0
    _, net4, scoped4 = confine.handled_rights(4)
    assert net4 == confine.NET_BIND_TCP | confine.NET_CONNECT_TCP and scoped4 == 0
    fs7, _, scoped7 = confine.handled_rights(7)
    assert scoped7 == confine.SCOPE_SIGNAL | confine.SCOPE_ABSTRACT_UNIX_SOCKET
    assert fs7 == fs3  # reading and executing are never handled, at any ABI
    assert not fs7 & ((1 << 0) | (1 << 2) | (1 << 3))  # EXECUTE, READ_FILE, READ_DIR


def test_wrap_leaves_the_command_alone_without_landlock(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setattr(confine, "_status", (0, "this kernel has no Landlock (test)"))
    assert confine.wrap(["sh", "-c", "true"], write=["/tmp"], network=False) == \
        ["sh", "-c", "true"]


@needs_landlock
def test_wrap_puts_the_launcher_in_front(tmp_path: Path) -> None:
    wrapped = confine.wrap(["sh", "-c", "true"], write=[tmp_path, "rel"], network=True)
    assert wrapped[:4] == [sys.executable, "-I", "-S", confine.__file__]
    assert wrapped[4:] == ["--write", str(tmp_path), "--write", os.path.abspath("rel"),
                           "--network", "--", "sh", "-c", "true"]


def test_redact_replaces_secrets_of_eight_characters_or_more() -> None:
    text = "key=sk-0123456789 short=abc1234 again sk-0123456789abcdef"
    assert confine.redact(text, ("sk-0123456789", "abc1234", "", "sk-0123456789abcdef")) == \
        "key=[redacted] short=abc1234 again [redacted]"
    assert confine.redact(text, ()) == text


# --------------------------------------------------------------------- the launcher

@needs_landlock
def test_the_command_keeps_the_launchers_pid_and_exact_environment(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "ONLY_THIS": "1"}  # no locale: Python would add one
    done = confined_run(["env"], write=[tmp_path], env=env)
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.splitlines()) == sorted(f"{k}={v}" for k, v in env.items())
    started = subprocess.Popen(confine.wrap(["/bin/sh", "-c", "echo $$"], write=[tmp_path],
                                            network=False), stdout=subprocess.PIPE, text=True)
    out, _ = started.communicate(timeout=TIMEOUT)
    assert int(out) == started.pid  # exec, not a fork: the engine's pid is the command's


@needs_landlock
def test_the_command_gets_default_signal_dispositions(tmp_path: Path) -> None:
    """Python ignores SIGPIPE at its start; the command must not inherit that."""
    argv = ["/bin/sh", "-c", "grep -E '^Sig(Ign|Blk)' /proc/self/status; yes | head -1"]
    free = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT)
    done = confined_run(argv, write=[tmp_path])
    assert free.stderr == done.stderr == "" and done.stdout == free.stdout
    assert done.stdout.endswith("\ny\n")


@needs_landlock
def test_writes_only_in_the_workdir_and_the_private_temp(
        places: tuple[Path, Path, Path]) -> None:
    work, outside, temp = places
    before = snapshot(outside)
    script = textwrap.dedent("""\
        try() { if (eval "$1") 2>/dev/null; then echo "$2 allowed"; else echo "$2 refused"; fi; }
        try 'echo made > "$W/made.txt"' work-create
        try 'mkdir "$W/sub" && echo x > "$W/sub/f" && mv "$W/sub/f" "$W/g"' work-tree
        try 'echo t > "$TMPDIR/t" && mkdir "$TMPDIR/d" && mv "$TMPDIR/t" "$W/from-temp"' temp
        try 'echo x > /dev/null && : > /dev/null && head -c 1 /dev/zero > /dev/null' devnull
        try ': > /dev/full' devfull
        try 'echo x > "$SHM"' dev-shm
        try 'echo new > "$O/new.txt"' outside-create
        try ': > "$O/existing.txt"' outside-truncate
        try 'echo more >> "$O/existing.txt"' outside-append
        try 'rm -f "$O/victim.txt"' outside-remove
        try 'rmdir "$O/folder"' outside-rmdir
        try 'mkdir "$O/newdir"' outside-mkdir
        try 'ln -s /etc/passwd "$O/link"' outside-symlink
        try 'mkfifo "$O/fifo"' outside-fifo
        try 'echo m > "$W/m" && mv "$W/m" "$O/moved-in"' outside-rename-into
        try 'mv "$O/victim.txt" "$W/stolen"' outside-rename-out
        try 'ln "$W/made.txt" "$O/hardlink"' outside-hardlink
        try 'cat "$O/existing.txt" > "$W/copy.txt"' outside-read
        echo to-stderr > /dev/stderr
        """)
    shm = Path("/dev/shm") if Path("/dev/shm").is_dir() else outside  # somewhere in /dev
    shm_file = shm / f"errands-test-{os.getpid()}"
    shm_file.write_text("kept\n")
    env = {**child_environment({}), "W": str(work), "O": str(outside), "TMPDIR": str(temp),
           "SHM": str(shm_file)}
    try:
        done = sh(script, write=[work, temp], cwd=work, env=env)
        assert shm_file.read_text() == "kept\n"
    finally:
        shm_file.unlink()
    assert done.returncode == 0, done.stderr
    verdicts = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    allowed = {"work-create", "work-tree", "temp", "devnull", "devfull", "outside-read"}
    assert verdicts == {name: "allowed" if name in allowed else "refused"
                        for name in verdicts}, done.stdout
    assert len(verdicts) == 18
    assert snapshot(outside) == before  # nothing outside changed at all
    assert (work / "copy.txt").read_text() == "keep me\n"
    assert (work / "from-temp").read_text() == "t\n"
    assert done.stderr == "to-stderr\n"  # /dev/stderr: the pipe the engine reads


@needs_landlock
def test_the_workdirs_parent_is_outside(places: tuple[Path, Path, Path]) -> None:
    work, _, temp = places
    done = sh('echo x > ../beside.txt; echo "rc=$?"', write=[work, temp], cwd=work)
    assert "rc=0" not in done.stdout and not (work.parent / "beside.txt").exists()


@needs_landlock
@needs_network_rules
def test_tcp_is_refused_unless_the_network_is_allowed(tmp_path: Path, tcp_server: int) -> None:
    probe = textwrap.dedent(f"""\
        import socket
        for what in ("connect", "bind"):
            s = socket.socket()
            try:
                if what == "connect":
                    s.settimeout(10)
                    s.connect(("127.0.0.1", {tcp_server}))
                else:
                    s.bind(("127.0.0.1", 0))
                print(what, "allowed")
            except PermissionError:
                print(what, "refused")
            finally:
                s.close()
        """)
    argv = [sys.executable, "-I", "-S", "-c", probe]
    off = confined_run(argv, write=[tmp_path], network=False)
    assert off.stdout.split() == ["connect", "refused", "bind", "refused"], off.stderr
    on = confined_run(argv, write=[tmp_path], network=True)
    assert on.stdout.split() == ["connect", "allowed", "bind", "allowed"], on.stderr


@needs_landlock
def test_a_confined_command_cannot_reach_into_its_parent(tmp_path: Path) -> None:
    """Landlock's ptrace rule: the parent's memory, descriptors and folders stay closed,
    even to root (the launcher's parent here is this test process)."""
    script = textwrap.dedent("""\
        echo "parent=$PPID"
        if head -c 1 /proc/$PPID/mem >/dev/null 2>&1; then echo "mem=open"; else echo "mem=refused"; fi
        if readlink /proc/$PPID/fd/0 >/dev/null 2>&1; then echo "fd=open"; else echo "fd=refused"; fi
        if readlink /proc/$PPID/exe >/dev/null 2>&1; then echo "exe=open"; else echo "exe=refused"; fi
        if readlink /proc/$PPID/cwd >/dev/null 2>&1; then echo "cwd=open"; else echo "cwd=refused"; fi
        if kill -0 $PPID 2>/dev/null; then echo "signal=sent"; else echo "signal=refused"; fi
        """)
    done = sh(script, write=[tmp_path], cwd=tmp_path)
    lines = dict(line.split("=", 1) for line in done.stdout.splitlines())
    assert lines["parent"] == str(os.getpid())
    assert (lines["mem"], lines["fd"], lines["exe"], lines["cwd"]) == ("refused",) * 4
    if ABI >= 6:
        assert lines["signal"] == "refused"
    # the same script unconfined (the control): it is the confinement that refuses
    free = subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=TIMEOUT)
    control = dict(line.split("=", 1) for line in free.stdout.splitlines())
    assert (control["fd"], control["exe"], control["cwd"], control["signal"]) == \
        ("open", "open", "open", "sent")


@needs_landlock
@needs_scopes
def test_a_confined_command_cannot_signal_the_engine(tmp_path: Path) -> None:
    done = sh(f"kill -0 {os.getpid()} && echo sent; kill -TERM {os.getpid()} && echo sent",
              write=[tmp_path])
    assert "sent" not in done.stdout and done.returncode != 0


@needs_landlock
def test_the_engines_api_key_is_out_of_a_confined_commands_reach(tmp_path: Path) -> None:
    """An engine started with ERRANDS_API_KEY (the program's own start, errands.sealed),
    running run_command through the real handler: the command finds the key neither in its
    environment nor in the engine's /proc/<pid>/environ, nor can it read the engine's
    memory; and the engine still has its key."""
    work = tmp_path / "work"
    work.mkdir()
    key = "sk-confine-test-" + os.urandom(8).hex()
    engine = textwrap.dedent("""\
        import asyncio, sys
        from pathlib import Path
        from errands import sealed
        sealed.seal()  # what errands' main does first when the variable is set
        from errands.agent.tools import commands
        from errands.agent.tools.base import ToolEnv
        command = ("tr '\\\\0' '\\\\n' < /proc/$PPID/environ > environ.txt; "
                   "echo \\"own=${ERRANDS_API_KEY:-unset}\\" > own.txt; "
                   "if head -c 1 /proc/$PPID/mem >/dev/null 2>&1; then echo open; "
                   "else echo refused; fi > mem.txt")
        result = asyncio.run(commands.run_command(ToolEnv(workdir=Path(sys.argv[1])),
                                                  {"command": command}))
        print(result.text)
        print("engine-has-key", sealed.environment_key() == sys.argv[2])
        """)
    env = {**os.environ, "ERRANDS_API_KEY": key, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", engine, str(work), key], env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("exit code 0") and "engine-has-key True" in done.stdout
    assert (work / "own.txt").read_text() == "own=unset\n"
    assert (work / "mem.txt").read_text() == "refused\n"
    seen = (work / "environ.txt").read_bytes()
    assert key.encode() not in seen and key.encode()[:12] not in seen


# ---------------------------------------------------------------------- fail closed

@needs_landlock
@pytest.mark.parametrize("problem", ["missing", "a file", "bad argument", "no command"])
def test_the_launcher_fails_closed(tmp_path: Path, problem: str) -> None:
    """A ruleset that cannot be made (a folder that does not exist; a file, for which the
    kernel refuses folder rights) or a launcher given nonsense: exit 126, a line saying
    why, and the command never runs."""
    marker = tmp_path / "ran"
    command = ["/bin/sh", "-c", f"touch {marker}"]
    launcher = confine.launcher()
    blocker = tmp_path / "file"
    blocker.write_text("")
    argv = {"missing": [*launcher, "--write", str(tmp_path / "nope"), "--", *command],
            "a file": [*launcher, "--write", str(blocker), "--", *command],
            "bad argument": [*launcher, "--write-everywhere", "--", *command],
            "no command": [*launcher, "--write", str(tmp_path), "--"]}[problem]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == confine.EXIT_NOT_CONFINED == 126
    assert not marker.exists()
    assert done.stderr.startswith("errands: ") and done.stderr.count("\n") == 1
    if problem == "missing":
        assert "cannot confine the command, so it was not run" in done.stderr
        assert "No such file or directory" in done.stderr and str(tmp_path / "nope") in done.stderr
    if problem == "a file":
        assert "cannot confine the command, so it was not run" in done.stderr
        assert "Invalid argument" in done.stderr


@needs_landlock
def test_a_missing_program_is_127_not_126(tmp_path: Path) -> None:
    done = confined_run(["no-such-program-errands"], write=[tmp_path])
    assert done.returncode == 127 and "cannot start no-such-program-errands" in done.stderr


# ---------------------------------------------------------------- run_command (tool)

@needs_landlock
async def test_run_command_is_confined_and_redacts_secrets(
        places: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    work, outside, _ = places
    before = snapshot(outside)
    secret = "sk-live-" + os.urandom(12).hex()
    monkeypatch.setenv("ERRANDS_API_KEY", secret)  # as an engine started with it would have
    env = ToolEnv(workdir=work, secrets=(secret, "short"))
    command = (f'echo "the key is {secret}"; echo "{secret}" >&2; echo short; '
               f'echo x > "{outside}/new.txt" 2>/dev/null || echo outside-refused; '
               'echo t > "$TMPDIR/t" && echo temp-ok; echo made > made.txt; '
               'echo "tmp=$TMPDIR $TMP $TEMP"; stat -c "mode=%a" "$TMPDIR"; '
               'echo "own=${ERRANDS_API_KEY:-unset}"')
    result = await commands.run_command(env, {"command": command})
    assert secret not in result.text and secret[:16] not in result.text
    assert "the key is [redacted]" in result.text and "stderr:\n[redacted]" in result.text
    assert "\nshort\n" in result.text  # fewer than 8 characters: not a secret to hide
    assert "outside-refused" in result.text and "temp-ok" in result.text
    assert "own=unset" in result.text and "mode=700" in result.text
    assert (work / "made.txt").read_text() == "made\n"
    assert snapshot(outside) == before
    temp = result.text.split("tmp=", 1)[1].split()[0]
    assert result.text.split("tmp=", 1)[1].split()[:3] == [temp] * 3
    assert Path(temp).parent == Path(tempfile.gettempdir())
    assert Path(temp).name.startswith("errands-command-")
    assert not Path(temp).exists()  # removed after the call


@needs_landlock
@needs_network_rules
async def test_run_command_uses_the_network_only_when_allowed(tmp_path: Path,
                                                              tcp_server: int) -> None:
    probe = (f"{sys.executable} -I -S -c \"import socket; "
             f"socket.create_connection(('127.0.0.1', {tcp_server}), 10); print('connected')\"")
    off = await commands.run_command(ToolEnv(workdir=tmp_path), {"command": probe})
    assert "PermissionError" in off.text and "connected" not in off.text
    on = await commands.run_command(ToolEnv(workdir=tmp_path, command_network=True),
                                    {"command": probe})
    assert on.text.startswith("exit code 0") and "connected" in on.text


# -------------------------------------------------------------------- command runner

def make_ctx(tmp_path: Path, command: str, *, origin: str, workdir: Path | None,
             permissions: Permissions | None = None) -> RunContext:
    doc: dict[str, object] = {"title": "t", "runner": {"kind": "command", "command": command},
                              "trigger": {"kind": "manual"}, "origin": {"kind": origin}}
    if workdir is not None:
        doc["workdir"] = str(workdir)
    definition = parse_definition(doc, ParseContext(now=datetime.now(timezone.utc)))
    if permissions is not None:  # (the parser takes none for a command runner)
        definition = dataclasses.replace(definition, permissions=permissions)
    return RunContext(automation_id="a-1", run_id="r-1", run_index=1, attempt=1,
                      scheduled_for=None, definition=definition,
                      workdir=workdir or tmp_path / "workspace",
                      log_path=tmp_path / "logs" / "r-1.log", timeout=timedelta(seconds=60))


RUNNER_SCRIPT = ('echo x > "{outside}/new.txt" 2>/dev/null && echo outside-written '
                 '|| echo outside-refused; echo w > made.txt 2>/dev/null && echo work-written '
                 '|| echo work-refused; echo t > "$TMPDIR/t" && echo "temp-ok $TMPDIR"; '
                 'kill -0 $PPID 2>/dev/null && echo signal-sent || echo signal-refused; '
                 'echo "own=${{ERRANDS_API_KEY:-unset}}"')


@needs_landlock
async def test_an_agents_command_automation_runs_confined(
        places: tuple[Path, Path, Path], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    work, outside, _ = places
    monkeypatch.setenv("ERRANDS_API_KEY", "sk-never-in-a-child-0123")
    before = snapshot(outside)
    ctx = make_ctx(tmp_path, RUNNER_SCRIPT.format(outside=outside), origin="agent",
                   workdir=work)
    assert confined(ctx.definition) and not network_allowed(ctx.definition.permissions)
    outcome = await CommandRunner().run(ctx)
    assert outcome.state == "succeeded", outcome.error_message
    out = outcome.output_tail or ""
    assert "outside-refused" in out and "work-written" in out and "own=unset" in out
    if ABI >= 6:
        assert "signal-refused" in out
    temp = out.split("temp-ok ", 1)[1].split()[0]
    assert temp != os.environ.get("TMPDIR") and not Path(temp).exists()
    assert snapshot(outside) == before and (work / "made.txt").exists()


@needs_landlock
async def test_an_agents_command_automation_without_a_workdir_writes_only_its_temp(
        tmp_path: Path, places: tuple[Path, Path, Path]) -> None:
    _, outside, _ = places
    ctx = make_ctx(tmp_path, RUNNER_SCRIPT.format(outside=outside), origin="agent",
                   workdir=None)
    outcome = await CommandRunner().run(ctx)
    out = outcome.output_tail or ""
    assert "outside-refused" in out and "work-refused" in out and "temp-ok" in out
    assert not (ctx.workdir / "made.txt").exists()


@needs_landlock
@needs_network_rules
@pytest.mark.parametrize("permissions, allowed", [
    (Permissions(), False),
    (Permissions(mode="allow_listed", tools=("read_file",)), False),
    (Permissions(mode="ask", tools=("fetch_url",)), False),  # tools count when allow_listed
    (Permissions(rules=(Rule("fetch_url", "*", "deny"),)), False),
    (Permissions(mode="allow_all"), True),
    (Permissions(mode="allow_listed", tools=("fetch_url",)), True),
    (Permissions(rules=(Rule("fetch_url", "https://example.org/*", "allow"),)), True),
])
async def test_an_agents_command_automation_uses_the_network_as_its_permissions_say(
        tmp_path: Path, tcp_server: int, permissions: Permissions, allowed: bool) -> None:
    work = tmp_path / "work"
    work.mkdir()
    probe = (f"{sys.executable} -I -S -c \"import socket; "
             f"socket.create_connection(('127.0.0.1', {tcp_server}), 10); print('connected')\"")
    ctx = make_ctx(tmp_path, probe, origin="agent", workdir=work, permissions=permissions)
    assert network_allowed(permissions) is allowed
    outcome = await CommandRunner().run(ctx)
    assert (outcome.state == "succeeded") is allowed, outcome.output_tail
    assert ("connected" in (outcome.output_tail or "")) is allowed


@needs_landlock
@pytest.mark.parametrize("origin", ["user", "template", "cli", "import"])
async def test_a_persons_command_automation_is_not_confined(
        places: tuple[Path, Path, Path], tmp_path: Path, origin: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    work, outside, _ = places
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("ERRANDS_API_KEY", "sk-never-in-a-child-0123")
    ctx = make_ctx(tmp_path, RUNNER_SCRIPT.format(outside=outside), origin=origin,
                   workdir=work)
    assert not confined(ctx.definition)
    outcome = await CommandRunner().run(ctx)
    out = outcome.output_tail or ""
    assert "outside-written" in out and (outside / "new.txt").exists()
    assert f"temp-ok {tmp_path}\n" in out  # its own TMPDIR, untouched
    assert "signal-sent" in out and "own=unset" in out


def test_the_child_environment_never_carries_the_api_key(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setenv("ERRANDS_API_KEY", "sk-never-in-a-child-0123")
    monkeypatch.setenv("ERRANDS_OTHER", "kept")
    env = child_environment({"ERRANDS_RUN_ID": "r-1"})
    assert "ERRANDS_API_KEY" not in env and env["ERRANDS_OTHER"] == "kept"
    assert env["ERRANDS_RUN_ID"] == "r-1"
    done = subprocess.run(["/bin/sh", "-c", "env"], env=env, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert "sk-never-in-a-child-0123" not in done.stdout


def test_private_temp_is_0700_and_removed_whatever_is_in_it() -> None:
    temp = Path(confine.make_private_temp())
    assert stat.S_IMODE(temp.stat().st_mode) == 0o700
    locked = temp / "a" / "b"
    locked.mkdir(parents=True)
    (locked / "f").write_text("x")
    (temp / "link").symlink_to("/etc")  # followed never: /etc stays
    locked.chmod(0o000)
    (temp / "a").chmod(0o500)
    confine.remove_private_temp(str(temp))
    assert not temp.exists() and Path("/etc").is_dir()
