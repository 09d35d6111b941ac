"""Confinement of the commands an agent starts (errands.confine), with real children: the
launcher, the tool ``run_command`` through its handler, and the command runner.

Nothing is mocked: each test starts real processes under a real Landlock ruleset and
looks at what they could and could not do. They skip only where the kernel lacks what they
need, saying what."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from errands import confine, doctor
from errands.agent.tools import commands
from errands.agent.tools.base import ToolEnv
from errands.definition import ParseContext, Permissions, Rule, parse_definition
from errands.runners.command import (CommandRunner, child_environment, confined,
                                     encoded_environment)
from errands.runners.contract import RunContext

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

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
            assert "; network off unless allowed; UNIX sockets refused" in SENTENCE
        assert "; UNIX sockets refused" in SENTENCE
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


# -------------------------------------------------------- UNIX sockets (seccomp)

ERRANDS = Path(sys.executable).with_name("errands")  # the virtualenv's program


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a path short enough for a UNIX socket (pytest's are often not)."""
    path = Path(tempfile.mkdtemp(prefix="errands-s-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def unix_listener(short_dir: Path) -> Iterator[tuple[Path, list[bytes]]]:
    """A path-named stream socket this test process listens on, in a thread: (its path,
    what each connection it accepted sent)."""
    path = short_dir / "listen.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(16)
    server.settimeout(0.05)
    accepted: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                try:
                    accepted.append(conn.recv(100))
                except OSError:
                    accepted.append(b"")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield path, accepted
    finally:
        stop.set()
        thread.join(5)
        server.close()


def settled(accepted: list[bytes], count: int) -> list[bytes]:
    """``accepted`` once it holds the ``count`` connections expected (waiting up to 10 s),
    and half a second more: a connection the child (now gone) made would be there too."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(accepted) < count:
        time.sleep(0.02)
    time.sleep(0.5)
    return list(accepted)


def python_probe(script: str) -> list[str]:
    return [sys.executable, "-I", "-S", "-c", textwrap.dedent(script)]


@needs_landlock
def test_a_confined_command_cannot_connect_to_a_path_named_unix_socket(
        tmp_path: Path, unix_listener: tuple[Path, list[bytes]]) -> None:
    """Landlock does not control connecting to a path-named socket; the seccomp filter does
    (refusing the socket itself). The listener sees the test's own connection and the
    unconfined control's, never the confined command's."""
    path, accepted = unix_listener
    mine = socket.socket(socket.AF_UNIX)
    mine.connect(str(path))
    mine.sendall(b"from the test")
    mine.close()
    assert settled(accepted, 1) == [b"from the test"]
    probe = python_probe("""\
        import socket, sys
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            s.sendall(b"from the child")
            print("connected")
        except PermissionError as exc:
            print("refused", exc.errno)
        """) + [str(path)]
    done = confined_run(probe, write=[tmp_path])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["refused", "13"]  # EACCES
    assert settled(accepted, 1) == [b"from the test"]  # nothing reached the listener
    free = subprocess.run(probe, capture_output=True, text=True, timeout=TIMEOUT)
    assert free.stdout.split() == ["connected"], free.stderr  # the control
    assert settled(accepted, 2) == [b"from the test", b"from the child"]


@needs_landlock
def test_a_confined_command_cannot_make_a_unix_socket_at_all(tmp_path: Path) -> None:
    probe = python_probe("""\
        import socket
        for name in ("SOCK_STREAM", "SOCK_DGRAM", "SOCK_SEQPACKET", "SOCK_RAW"):
            for flags in (0, socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK):
                try:
                    socket.socket(socket.AF_UNIX, getattr(socket, name) | flags).close()
                    print(name, "made")
                except PermissionError as exc:
                    print(name, "refused", exc.errno)
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()  # TCP: Landlock's business
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
        print("inet made")
        """)
    done = confined_run(probe, write=[tmp_path])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:-1] == [f"{name} refused 13" for name in ("SOCK_STREAM", "SOCK_DGRAM",
                                                             "SOCK_SEQPACKET", "SOCK_RAW")
                          for _ in range(2)]
    assert lines[-1] == "inet made"


@needs_landlock
def test_a_stream_socketpair_still_works_a_datagram_one_does_not(short_dir: Path,
                                                                  tmp_path: Path) -> None:
    """A stream (or sequenced-packet) pair is connected to itself and reaches nothing else,
    so programs that use one (asyncio's event loop) keep working. A datagram socket could
    be pointed at any path-named one, so a datagram pair is refused."""
    target = short_dir / "dgram.sock"
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(str(target))
    receiver.settimeout(0.5)
    probe = python_probe("""\
        import asyncio, socket, sys
        a, b = socket.socketpair()
        a.sendall(b"ping")
        print("stream", b.recv(10).decode())
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        a.send(b"ping")
        print("seqpacket", b.recv(10).decode())
        print("asyncio", asyncio.run(asyncio.sleep(0, "ran")))
        try:
            a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            a.sendto(b"from the child", sys.argv[1])
            print("dgram sent")
        except PermissionError as exc:
            print("dgram refused", exc.errno)
        """) + [str(target)]
    try:
        done = confined_run(probe, write=[tmp_path])
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == ["stream ping", "seqpacket ping", "asyncio ran",
                                            "dgram refused 13"]
        with pytest.raises(TimeoutError):
            receiver.recv(100)
        free = subprocess.run(probe, capture_output=True, text=True, timeout=TIMEOUT)
        assert free.stdout.splitlines()[-1] == "dgram sent", free.stderr  # the control
        assert receiver.recv(100) == b"from the child"
    finally:
        receiver.close()


IO_URING_PROBE = """\
    import ctypes, errno, os
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
    for nr, args in ((425, (4, params)), (426, (-1, 1, 0, 0, None, 0)),
                     (427, (-1, 0, None, 0))):
        result = libc.syscall(ctypes.c_long(nr),
                              *(ctypes.c_long(a) if isinstance(a, int) else a for a in args))
        if result >= 0:
            os.close(result)
            print(nr, "ok")
        else:
            print(nr, errno.errorcode.get(ctypes.get_errno(), "?"))
    """


@needs_landlock
def test_a_confined_command_cannot_use_io_uring(tmp_path: Path) -> None:
    """io_uring's socket and connect operations would not pass through the filter."""
    probe = python_probe(IO_URING_PROBE)
    done = confined_run(probe, write=[tmp_path])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["425", "ENOSYS", "426", "ENOSYS", "427", "ENOSYS"]
    free = subprocess.run(probe, capture_output=True, text=True, timeout=TIMEOUT)
    setup = free.stdout.split()[:2]
    try:
        disabled = Path("/proc/sys/kernel/io_uring_disabled").read_text().strip()
    except OSError:
        disabled = "?"
    if disabled == "0":  # the control: here io_uring works for a process unconfined
        assert setup == ["425", "ok"], free.stdout + free.stderr
        assert "ENOSYS" not in free.stdout  # (426 and 427 refuse a bad descriptor)


@needs_landlock
@pytest.mark.skipif(os.uname().machine not in ("x86_64", "amd64"), reason="x86_64 only")
def test_other_entry_points_cannot_bypass_the_filter(tmp_path: Path) -> None:
    """A 64-bit process making an i386 system call (int 0x80) is killed (SIGSYS): those
    numbers differ (i386 has socketcall). An x32 number fails with ENOSYS."""
    int80 = python_probe("""\
        import ctypes, mmap, os
        code = mmap.mmap(-1, mmap.PAGESIZE,
                         prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        code.write(b"\\xb8\\x14\\x00\\x00\\x00\\xcd\\x80\\xc3")  # eax=20 (getpid); int 0x80; ret
        function = ctypes.CFUNCTYPE(ctypes.c_int)(
            ctypes.addressof(ctypes.c_char.from_buffer(code)))
        print("i386", function() == os.getpid(), flush=True)
        """)
    free = subprocess.run(int80, capture_output=True, text=True, timeout=TIMEOUT)
    if free.stdout != "i386 True\n":
        pytest.skip(f"this kernel runs no i386 system calls ({free.returncode})")
    done = confined_run(int80, write=[tmp_path])
    assert done.returncode == -signal.SIGSYS and done.stdout == ""
    x32 = python_probe("""\
        import ctypes, errno
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        for nr in (41, 39):  # socket, getpid
            result = libc.syscall(ctypes.c_long(0x40000000 | nr), 1, 1, 0)
            print(nr, result, errno.errorcode.get(ctypes.get_errno(), "?"))
        """)
    done = confined_run(x32, write=[tmp_path])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["41", "-1", "ENOSYS", "39", "-1", "ENOSYS"]


def run_bpf(program: list[tuple[int, int, int, int]], nr: int, arch: int,
            args: tuple[int, ...] = ()) -> int:
    """What the kernel's classic BPF would return for ``program`` on this system call
    (the subset of instructions the filter uses)."""
    data = struct.pack("<iI8x6Q", nr, arch, *(list(args) + [0] * (6 - len(args))))
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = program[pc]
        pc += 1
        if code == 0x20:
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == 0x54:
            acc &= k
        elif code == 0x06:
            return k
        else:
            taken = {0x15: acc == k, 0x35: acc >= k, 0x25: acc > k}[code]
            pc += jt if taken else jf


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_filter_decides_as_intended_on_each_machine(machine: str) -> None:
    program = confine.seccomp_program(machine)
    assert len(program) < 256 and program[0] == (0x20, 0, 0, 4)  # the architecture first
    arch, socket_nr, pair_nr = {"x86_64": (0xC000003E, 41, 53),
                                "aarch64": (0xC00000B7, 198, 199)}[machine]
    allow, kill = confine.SECCOMP_RET_ALLOW, confine.SECCOMP_RET_KILL_PROCESS
    eacces, enosys = confine.SECCOMP_RET_ERRNO | 13, confine.SECCOMP_RET_ERRNO | 38
    for other in (0x40000003, 0x40000028, 0xC000003E ^ arch ^ 0xC00000B7, 0):
        assert run_bpf(program, socket_nr, other, (2,)) == kill  # i386, arm32, the other
    stream_cloexec = 1 | 0o2000000
    assert run_bpf(program, socket_nr, arch, (1, 1)) == eacces
    assert run_bpf(program, socket_nr, arch, (1, 2 | 0o4000)) == eacces
    assert run_bpf(program, socket_nr, arch, (1 | 1 << 32, 1)) == eacces  # (an int: low half)
    for domain in (2, 10, 16, 17):  # inet, inet6, netlink, packet: not this filter's business
        assert run_bpf(program, socket_nr, arch, (domain, 1)) == allow
    assert run_bpf(program, pair_nr, arch, (1, stream_cloexec)) == allow
    assert run_bpf(program, pair_nr, arch, (1, 5)) == allow
    for kind in (2, 3, 2 | 0o4000):  # datagram; raw, which AF_UNIX makes a datagram
        assert run_bpf(program, pair_nr, arch, (1, kind)) == eacces
    for nr in (425, 426, 427):
        assert run_bpf(program, nr, arch) == enosys
    for nr in (0, 1, 39, 42, 56, 59, 63, 64, 221, 424, 428, 435, 444, 445, 446):
        if nr not in (socket_nr, pair_nr):
            assert run_bpf(program, nr, arch, (1, 1)) == allow
    x32 = run_bpf(program, 0x40000000 | socket_nr, arch, (1, 1))
    assert x32 == (enosys if machine == "x86_64" else allow)  # (aarch64 has no such bit)
    with pytest.raises(confine.ConfineError, match="does not know its system calls"):
        confine.seccomp_program("riscv64")


@needs_landlock
def _owner_address(data: Path) -> str | None:
    try:
        return json.loads((data / "errands.owner.json").read_text()).get("address")
    except (OSError, ValueError):
        return None


def test_a_confined_command_cannot_drive_the_engine(tmp_path: Path, short_dir: Path) -> None:
    """End to end: a real ``errands serve``, and a confined Python child that asks it over
    its control socket to create an (unconfined) command automation. It must fail, and
    the engine must have no new automation; the same child unconfined (the control)
    succeeds."""
    data = short_dir / "data"
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("ERRANDS_DATA_DIR", None)
    serve = subprocess.Popen([str(ERRANDS), "serve", "--data-dir", str(data)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, env=env)
    try:
        deadline = time.monotonic() + TIMEOUT
        while not _owner_address(data):  # (the socket is bound a moment before it is told)
            assert serve.poll() is None and time.monotonic() < deadline, serve.stdout
            time.sleep(0.05)
        attack = textwrap.dedent("""\
            import json, sys
            from pathlib import Path
            from errands import channel
            data = Path(sys.argv[1])
            address = json.loads((data / "errands.owner.json").read_text())["address"]
            doc = {"title": sys.argv[2], "trigger": {"kind": "manual"},
                   "runner": {"kind": "command", "command": "touch " + sys.argv[3]}}
            try:
                channel.request_sync(address, "create", {"doc": doc}, timeout=20)
                print("created")
            except Exception as exc:
                print("failed", type(exc).__name__, exc)
            """)
        owner = json.loads((data / "errands.owner.json").read_text())
        assert owner["address"] == f"unix:{data / 'control.sock'}"
        marker = tmp_path / "escaped"
        argv = [sys.executable, "-c", attack, str(data)]
        done = subprocess.run(confine.wrap([*argv, "confined", str(marker)], write=[work],
                                           network=False),
                              cwd=work, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=TIMEOUT,
                              start_new_session=True)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("failed EngineUnreachable"), done.stdout + done.stderr
        assert "Permission denied" in done.stdout

        def titles() -> list[str]:
            listed = subprocess.run([str(ERRANDS), "list", "--data-dir", str(data), "--json"],
                                    env=env, capture_output=True, text=True, timeout=TIMEOUT)
            assert listed.returncode == 0, listed.stderr
            return [a["title"] for a in json.loads(listed.stdout)["automations"]]

        assert titles() == []
        free = subprocess.run([*argv, "unconfined", str(marker)], env=env, cwd=work,
                              capture_output=True, text=True, timeout=TIMEOUT)
        assert free.stdout == "created\n", free.stdout + free.stderr  # the control
        assert titles() == ["unconfined"]
        assert not marker.exists()  # (a manual trigger: nothing ran)
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            out, _ = serve.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            serve.kill()
            out, _ = serve.communicate()
    assert serve.returncode == 0, out


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
def test_the_launcher_fails_closed_when_the_kernel_refuses_the_filter(tmp_path: Path) -> None:
    """A process whose own seccomp filter refuses ``prctl(PR_SET_SECCOMP)`` (as a container's
    might) starts the launcher: it must not run the command without the filter."""
    marker = tmp_path / "ran"
    prctl = {"x86_64": 157, "amd64": 157, "aarch64": 167, "arm64": 167}[os.uname().machine]
    refuse = [(0x20, 0, 0, 0),      # load the system call's number
              (0x15, 0, 3, prctl),  # prctl?
              (0x20, 0, 0, 16),     # load its first argument
              (0x15, 0, 1, 22),     # PR_SET_SECCOMP: EINVAL
              (0x06, 0, 0, confine.SECCOMP_RET_ERRNO | 22),
              (0x06, 0, 0, confine.SECCOMP_RET_ALLOW)]
    parent = textwrap.dedent(f"""\
        import os, sys
        from errands import confine
        landlock = confine._Landlock()
        landlock.no_new_privs()
        landlock.seccomp({refuse!r})
        os.execv(sys.argv[1], sys.argv[1:])
        """)
    argv = [sys.executable, "-c", parent,
            *confine.wrap(["/bin/sh", "-c", f"touch {marker}"], write=[tmp_path],
                          network=False)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, "PYTHONPATH": str(SRC)})
    assert done.returncode == confine.EXIT_NOT_CONFINED and not marker.exists()
    assert done.stderr == ("errands: cannot confine the command, so it was not run: the "
                           "kernel refused the seccomp filter that keeps UNIX sockets closed: "
                           "Invalid argument\n")


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
    assert confined(ctx.definition) and not ctx.definition.permissions.allow_network()
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
    assert permissions.allow_network() is allowed
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


def test_the_encoded_environment_is_the_same_and_follows_changes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What a command's child gets (encoded once for a burst) is ``child_environment``'s,
    the key left out, and a change of the environment is seen by the next child."""
    monkeypatch.setenv("ERRANDS_API_KEY", "sk-never-in-a-child-0123")
    monkeypatch.setenv("ERRANDS_OTHER", "kept")
    expected = {k.encode(): v.encode() for k, v in child_environment(
        {"ERRANDS_RUN_ID": "r-1", "ERRANDS_OTHER": "run's own"}).items()}
    assert encoded_environment({"ERRANDS_RUN_ID": "r-1", "ERRANDS_OTHER": "run's own"}) == expected
    monkeypatch.setenv("ERRANDS_LATER", "later")
    monkeypatch.delenv("ERRANDS_OTHER")
    env = encoded_environment({})
    assert env[b"ERRANDS_LATER"] == b"later" and b"ERRANDS_OTHER" not in env
    done = subprocess.run(["/bin/sh", "-c", "env"], env=env, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert "ERRANDS_LATER=later" in done.stdout and "sk-never" not in done.stdout


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
