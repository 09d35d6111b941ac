"""Confinement of the commands an agent starts (Linux, Landlock). Standard library only.

What it does
------------

A confined command may write only beneath the folders it is given (its workdir and a
private temporary folder) and into a few harmless devices (``/dev/null``, ``/dev/zero``,
``/dev/full``, ``/dev/random``, ``/dev/urandom``, ``/dev/tty`` and terminals under
``/dev/pts``), not into the rest of ``/dev`` (a disk, ``/dev/mem``, ``/dev/shm``); it may read and execute anything it could before. Unless the network is allowed, it can
neither connect to nor bind a TCP port (Landlock ABI 4; UDP is not covered). It can neither
signal nor connect to an abstract UNIX socket of a process outside its confinement (ABI 6).
Landlock does not control connecting to a path-named UNIX socket (Errands' own control
socket, the D-Bus session bus, docker, ssh-agent, X11), so a seccomp filter refuses UNIX
sockets altogether: ``socket(AF_UNIX, …)`` fails with EACCES, as does a datagram
``socketpair`` (it could be pointed at a path-named socket); a stream ``socketpair``, which
reaches nothing outside, still works. The filter also refuses io_uring (ENOSYS), whose
socket operations it could not see, and kills a process that makes a system call through
another architecture's entry point (i386, x32, arm32), where its numbers would not apply.
Landlock's ptrace rule keeps it out of the engine too, even as root: it cannot open the
engine's ``/proc/<pid>/mem`` nor follow its ``cwd``, ``root``, ``exe`` or ``fd/*`` links.
That rule does not close ``/proc/<pid>/environ`` on every kernel (Linux 6.18 lets a confined
process read another's ``environ``, ``maps`` and ``auxv``): the API key is kept out of the
engine's environment block at start (:mod:`errands.sealed`), not by this module. It runs
with ``no_new_privs``: set-user-id programs (``sudo``) gain nothing.

How
---

The engine has several threads, so nothing runs between ``fork`` and ``exec`` in Python
(no ``preexec_fn``). The command is started through a launcher instead::

    python -I -S <this file> --write DIR [--write DIR …] [--network] -- ARGV…

(in a PyInstaller bundle, ``errands __confine__ …``: ``packaging/entry.py`` hands the
hidden first argument here before anything else is imported). The launcher, a fresh
single-threaded process with the pid, process group and pipes the engine gave it, applies
the ruleset and then the seccomp filter to itself and replaces itself with ``ARGV`` (same
pid), with exactly the environment it was started with (read back from
``/proc/self/environ``: Python adds ``LC_CTYPE`` to its own when the locale is C). If the
ruleset or the filter cannot be applied it prints why and exits 126: it never runs the
command unconfined. :func:`wrap` adds the launcher in front of a command line where
Landlock is available and leaves it unchanged elsewhere.

Cost: the launcher adds about 12 ms to a command's start (median of 20 runs of ``true``
through ``subprocess.run`` in a new session: 13.0 ms wrapped against 0.82 ms unwrapped;
11.6-12.8 ms more over six rounds; Python 3.11 in a virtualenv, x86_64, Linux 6.18, 2 cores
shared with another test run). Most of it is the interpreter's own start (about 7 ms with
``-I -S``), ``ctypes`` (about 3 ms) and compiling this file (about 2 ms: a script's
bytecode is not cached). The seccomp filter added about 1 ms (11.5 ms before it, measured
alongside): its installation takes about 0.1 ms, the rest is the longer file to compile.
In the bundle the program's own start is paid instead.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: importing typing would slow the launcher down
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

CONFINE_ARG = "__confine__"        # the bundle's hidden first argument (packaging/entry.py)
EXIT_NOT_CONFINED = 126            # the launcher's exit status when it could not confine
REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8               # shorter values are not redacted (they match everywhere)

# System call numbers: the same on x86_64 and on aarch64 (asm-generic).
_SYSCALLS = {"x86_64": (444, 445, 446), "amd64": (444, 445, 446),
             "aarch64": (444, 445, 446), "arm64": (444, 445, 446)}
_PR_SET_NO_NEW_PRIVS = 38
_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1

# Filesystem rights (uapi/linux/landlock.h). Reading and executing are never handled, so
# they stay allowed everywhere.
FS_WRITE_FILE = 1 << 1
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13        # ABI 2
FS_TRUNCATE = 1 << 14     # ABI 3
NET_BIND_TCP = 1 << 0     # ABI 4
NET_CONNECT_TCP = 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1                # ABI 6

# The seccomp filter (uapi/linux/seccomp.h, filter.h, audit.h): per machine, the
# architecture its system calls must come in by and the numbers of socket and socketpair.
# io_uring_setup, _enter and _register are 425-427 on both.
AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7
_SECCOMP_ARCH = {"x86_64": (AUDIT_ARCH_X86_64, 41, 53), "amd64": (AUDIT_ARCH_X86_64, 41, 53),
                 "aarch64": (AUDIT_ARCH_AARCH64, 198, 199),
                 "arm64": (AUDIT_ARCH_AARCH64, 198, 199)}
_IO_URING = (425, 427)          # io_uring_setup … io_uring_register: its socket and connect
                                # operations would not pass through the filter
_X32_BIT = 0x40000000           # x86_64: the x32 entry point's numbers
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000
_AF_UNIX = 1
_SOCK_TYPE_MASK = 0xF
_SOCK_STREAM, _SOCK_SEQPACKET = 1, 5
_EACCES, _ENOSYS = 13, 38       # (asm-generic: the same on both)
# Classic BPF: load a word at an absolute offset of seccomp_data, jumps, AND, return.
_LD_ABS, _JEQ, _JGE, _JGT, _AND, _RET = 0x20, 0x15, 0x35, 0x25, 0x54, 0x06
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24  # offsets; an argument's low half (little-endian)

_FS_WRITE_ABI1 = (FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR
                  | FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM)
# Devices a command may open for writing (``> /dev/null``, a terminal): writing and
# truncating only. Not all of /dev: as root that would open disks and /dev/mem.
_DEVICE_WRITES = FS_WRITE_FILE | FS_TRUNCATE
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
           "/dev/pts")


def handled_rights(abi: int) -> tuple[int, int, int]:
    """What a ruleset handles at this ABI: (filesystem writes, TCP, scopes). Rights the
    kernel does not know are left out (it refuses a ruleset naming them)."""
    fs = _FS_WRITE_ABI1
    if abi >= 2:
        fs |= FS_REFER
    if abi >= 3:
        fs |= FS_TRUNCATE
    net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    return fs, net, scoped


class ConfineError(Exception):
    """The ruleset or the seccomp filter could not be applied (the launcher then exits
    126)."""


def seccomp_program(machine: str) -> list[tuple[int, int, int, int]]:
    """The seccomp filter the launcher installs, as classic BPF ``(code, jt, jf, k)``:

    * a system call made through another architecture's entry point (i386's ``int 0x80``,
      arm32) kills the process, and on x86_64 an x32 number (bit 30) fails with ENOSYS;
    * ``socket(AF_UNIX, …)`` fails with EACCES: Landlock does not control connecting to a
      path-named UNIX socket (Errands' own control socket, the D-Bus session bus, docker,
      ssh-agent, X11);
    * ``socketpair(AF_UNIX, …)`` is allowed for streams and sequenced packets (the pair is
      connected to itself and nothing else), refused (EACCES) for datagrams: a datagram
      socket can be pointed at a path-named one with ``connect`` or ``sendto``;
    * ``io_uring_setup``, ``_enter`` and ``_register`` fail with ENOSYS (an io_uring socket
      operation does not pass through this filter);
    * everything else is allowed.

    Raises :class:`ConfineError` on a machine it does not know."""
    known = _SECCOMP_ARCH.get(machine)
    if known is None:
        raise ConfineError(f"Errands does not know its system calls on {machine}")
    arch, socket_nr, socketpair_nr = known
    # (code, jump if true, jump if false, k); jumps name a label further on
    code: list[tuple[int, int | str, int | str, int] | str] = [
        (_LD_ABS, 0, 0, _ARCH),
        (_JEQ, 1, 0, arch),
        (_RET, 0, 0, SECCOMP_RET_KILL_PROCESS),
        (_LD_ABS, 0, 0, _NR),
    ]
    if arch == AUDIT_ARCH_X86_64:
        code.append((_JGE, "enosys", 0, _X32_BIT))
    code += [
        (_JEQ, "socket", 0, socket_nr),
        (_JEQ, "socketpair", 0, socketpair_nr),
        (_JGE, 0, "allow", _IO_URING[0]),
        (_JGT, "allow", "enosys", _IO_URING[1]),
        "socket",
        (_LD_ABS, 0, 0, _ARG0),
        (_JEQ, "eacces", "allow", _AF_UNIX),
        "socketpair",
        (_LD_ABS, 0, 0, _ARG0),
        (_JEQ, 0, "allow", _AF_UNIX),
        (_LD_ABS, 0, 0, _ARG1),
        (_AND, 0, 0, _SOCK_TYPE_MASK),
        (_JEQ, "allow", 0, _SOCK_STREAM),
        (_JEQ, "allow", "eacces", _SOCK_SEQPACKET),
        "allow",
        (_RET, 0, 0, SECCOMP_RET_ALLOW),
        "enosys",
        (_RET, 0, 0, SECCOMP_RET_ERRNO | _ENOSYS),
        "eacces",
        (_RET, 0, 0, SECCOMP_RET_ERRNO | _EACCES),
    ]
    labels: dict[str, int] = {}
    count = 0
    for item in code:
        if isinstance(item, str):
            labels[item] = count  # the index of the instruction that follows it
        else:
            count += 1
    program: list[tuple[int, int, int, int]] = []
    for item in code:
        if isinstance(item, str):
            continue
        op, jt, jf, k = item
        here = len(program) + 1  # jumps count from the next instruction
        program.append((op, labels[jt] - here if isinstance(jt, str) else jt,
                        labels[jf] - here if isinstance(jf, str) else jf, k))
    return program


# ------------------------------------------------------------------- system calls

class _Landlock:
    """The three system calls and ``prctl``, through ctypes (imported only when needed)."""

    def __init__(self) -> None:
        import ctypes

        machine = os.uname().machine
        numbers = _SYSCALLS.get(machine)
        if numbers is None:
            raise ConfineError(f"Errands does not know its system calls on {machine}")
        self.ctypes = ctypes
        self.create_nr, self.add_nr, self.restrict_nr = numbers
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long
        self.libc.prctl.restype = ctypes.c_int

        class RulesetAttr(ctypes.Structure):
            _fields_ = [("handled_access_fs", ctypes.c_uint64),
                        ("handled_access_net", ctypes.c_uint64),
                        ("scoped", ctypes.c_uint64)]

        class PathBeneathAttr(ctypes.Structure):
            _pack_ = 1
            _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

        self.RulesetAttr = RulesetAttr
        self.PathBeneathAttr = PathBeneathAttr

    def _call(self, *args: object) -> int:
        c = self.ctypes
        result = self.libc.syscall(*(c.c_long(a) if isinstance(a, int) else a for a in args))
        if result < 0:
            err = c.get_errno()
            raise OSError(err, os.strerror(err))
        return int(result)

    def abi(self) -> int:
        return self._call(self.create_nr, None, 0, _CREATE_RULESET_VERSION)

    def create_ruleset(self, fs: int, net: int, scoped: int, abi: int) -> int:
        attr = self.RulesetAttr(fs, net, scoped)
        size = 24 if abi >= 6 else 16 if abi >= 4 else 8  # the struct as this ABI knows it
        return self._call(self.create_nr, self.ctypes.byref(attr), size, 0)

    def add_path(self, ruleset: int, path: str, rights: int) -> None:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        try:
            attr = self.PathBeneathAttr(rights, fd)
            self._call(self.add_nr, ruleset, _RULE_PATH_BENEATH, self.ctypes.byref(attr), 0)
        finally:
            os.close(fd)

    def no_new_privs(self) -> None:
        c = self.ctypes
        if self.libc.prctl(c.c_int(_PR_SET_NO_NEW_PRIVS), c.c_ulong(1), c.c_ulong(0),
                           c.c_ulong(0), c.c_ulong(0)) != 0:
            err = c.get_errno()
            raise OSError(err, os.strerror(err))

    def restrict_self(self, ruleset: int) -> None:
        self._call(self.restrict_nr, ruleset, 0)

    def seccomp(self, program: list[tuple[int, int, int, int]]) -> None:
        """Install ``program`` as this thread's seccomp filter (set ``no_new_privs``
        first)."""
        c = self.ctypes

        class SockFilter(c.Structure):
            _fields_ = [("code", c.c_uint16), ("jt", c.c_uint8), ("jf", c.c_uint8),
                        ("k", c.c_uint32)]

        class SockFprog(c.Structure):
            _fields_ = [("len", c.c_ushort), ("filter", c.POINTER(SockFilter))]

        filters = (SockFilter * len(program))(*(SockFilter(*op) for op in program))
        prog = SockFprog(len(program), filters)
        if self.libc.prctl(c.c_int(_PR_SET_SECCOMP), c.c_ulong(_SECCOMP_MODE_FILTER),
                           c.byref(prog), c.c_ulong(0), c.c_ulong(0)) != 0:
            err = c.get_errno()
            raise OSError(err, os.strerror(err))


# ------------------------------------------------------------------------ status

_status: tuple[int, str] | None = None


def _probe() -> tuple[int, str]:
    """(the Landlock ABI, 0 when there is none; why not, for people)."""
    if not sys.platform.startswith("linux"):
        return 0, "not Linux: commands run unconfined"
    kernel = f"Linux {os.uname().release}"
    try:
        abi = _Landlock().abi()
    except ConfineError as exc:
        return 0, f"this kernel has no Landlock ({exc}): commands run unconfined"
    except (OSError, ImportError) as exc:
        import errno

        code = getattr(exc, "errno", None)
        why = {errno.ENOSYS: f"{kernel} does not implement it; 5.13 or newer has it",
               errno.EOPNOTSUPP: f"{kernel} has it built in but not enabled: landlock is "
                                 "missing from the lsm= boot parameter",
               errno.EPERM: f"{kernel}: the system call is refused, perhaps by a "
                            "container's seccomp filter"}.get(code or 0, f"{kernel}: {exc}")
        return 0, f"this kernel has no Landlock ({why}): commands run unconfined"
    if abi < 1:
        return 0, f"this kernel has no Landlock ({kernel} reports ABI {abi}): commands run " \
                  "unconfined"
    sentence = (f"Landlock ABI {abi}: commands an agent starts may write only in their "
                "folder and a private temporary folder")
    sentence += ("; network off unless allowed" if abi >= 4 else
                 "; the network is not confined (it needs Landlock ABI 4, Linux 6.7)")
    sentence += "; UNIX sockets refused"
    if os.path.isdir("/proc/sys/kernel") and \
            not os.path.exists("/proc/sys/kernel/seccomp/actions_avail"):
        sentence += (", but this kernel seems to have no seccomp filters to refuse them with: "
                     "such commands would not run at all (exit 126)")
    if abi < 6:
        sentence += ("; they may still signal other processes (scoping needs Landlock ABI 6, "
                     "Linux 6.12)")
    return abi, sentence


def status() -> tuple[bool, str]:
    """Whether commands an agent starts are confined here, and a sentence for people."""
    global _status
    if _status is None:
        _status = _probe()
    abi, sentence = _status
    return abi > 0, sentence


def abi_version() -> int:
    """The Landlock ABI this kernel offers, 0 when none (or not Linux)."""
    status()
    assert _status is not None
    return _status[0]


def launcher() -> list[str]:
    """The command line that starts the launcher (arguments follow)."""
    if not sys.executable:
        raise OSError(2, "no program to start the confinement launcher with "
                         "(sys.executable is empty)")
    if getattr(sys, "frozen", False):  # the bundle's program: packaging/entry.py
        return [sys.executable, CONFINE_ARG]
    return [sys.executable, "-I", "-S", os.path.abspath(__file__)]


def wrap(argv: list[str], *, write: Sequence[str | os.PathLike[str]],
         network: bool) -> list[str]:
    """``argv`` started through the launcher, confined to writing beneath ``write`` and to
    TCP only when ``network``; ``argv`` unchanged where Landlock is not available."""
    available, _ = status()
    if not available:
        return list(argv)
    wrapped = launcher()
    for path in write:  # absolute: the launcher starts in the command's folder
        wrapped += ["--write", os.path.abspath(os.fspath(path))]
    if network:
        wrapped.append("--network")
    return wrapped + ["--", *argv]


# ------------------------------------------------------------------- the ruleset

def apply(write: Sequence[str], network: bool) -> int:
    """Confine the calling thread (and what it executes) for good; returns the ABI used.
    Raises :class:`ConfineError` saying why when it cannot."""
    try:
        landlock = _Landlock()
        abi = landlock.abi()
    except (OSError, ImportError) as exc:
        raise ConfineError(f"this kernel offers no Landlock ({exc})") from None
    if abi < 1:
        raise ConfineError(f"this kernel reports Landlock ABI {abi}")
    fs, net, scoped = handled_rights(abi)
    if network:
        net = 0  # handled rights with no rule deny; unhandled ones are allowed
    try:
        ruleset = landlock.create_ruleset(fs, net, scoped, abi)
    except OSError as exc:
        raise ConfineError(f"the kernel refused the ruleset: {exc.strerror}") from None
    try:
        for path in write:
            try:
                landlock.add_path(ruleset, path, fs)
            except OSError as exc:
                raise ConfineError(f"the folder it may write in, {path}, cannot be allowed: "
                                   f"{exc.strerror}") from None
        for device in DEVICES:
            try:
                landlock.add_path(ruleset, device, _DEVICE_WRITES & fs)
            except OSError:
                pass  # not here: nothing more is allowed, which only confines more
        try:
            landlock.no_new_privs()
            landlock.restrict_self(ruleset)
        except OSError as exc:
            raise ConfineError(f"the ruleset cannot be enforced: {exc.strerror}") from None
    finally:
        os.close(ruleset)
    refuse_unix_sockets(landlock)
    return abi


def refuse_unix_sockets(landlock: _Landlock | None = None) -> None:
    """Install :func:`seccomp_program` on the calling thread (``no_new_privs`` is set first,
    as the kernel requires of an unprivileged caller). Raises :class:`ConfineError`."""
    if sys.byteorder != "little":  # the filter reads arguments' low halves at offset 0
        raise ConfineError("the seccomp filter is written for little-endian machines")
    program = seccomp_program(os.uname().machine)
    try:
        landlock = landlock or _Landlock()
        landlock.no_new_privs()
        landlock.seccomp(program)
    except (OSError, ImportError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise ConfineError(f"the kernel refused the seccomp filter that keeps UNIX sockets "
                           f"closed: {why}") from None


def _environment() -> dict[bytes, bytes] | None:
    """The environment this process was started with, as given (None: unknown)."""
    try:
        with open("/proc/self/environ", "rb") as fh:
            block = fh.read()
    except OSError:
        return None
    env: dict[bytes, bytes] = {}
    for item in block.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep and key:
            env[key] = value
    return env


def _fail(message: str, code: int = EXIT_NOT_CONFINED) -> int:
    try:
        sys.stderr.write(f"errands: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    return code


def _default_signals() -> None:
    """Undo what Python's start did to signals that an exec keeps: it ignores SIGPIPE and
    SIGXFSZ, which the command would inherit (``yes | head -1`` would complain of a broken
    pipe). The engine starts children with them at their default (``restore_signals``)."""
    import _signal  # (the signal module would import enum: milliseconds more)

    for name in ("SIGPIPE", "SIGXFSZ", "SIGXFZ"):
        number = getattr(_signal, name, None)
        if number is not None:
            _signal.signal(number, _signal.SIG_DFL)


def main(args: list[str]) -> int:
    """The launcher: ``--write DIR … [--network] -- ARGV…``. Only returns on failure: 126
    when it could not confine (the command is not run), 127 when ARGV cannot be started."""
    write: list[str] = []
    network = False
    i = 0
    while i < len(args) and args[i] != "--":
        if args[i] == "--write" and i + 1 < len(args):
            write.append(args[i + 1])
            i += 2
        elif args[i] == "--network":
            network = True
            i += 1
        else:
            return _fail(f"the confinement launcher was given {args[i]!r}; the command was "
                         "not run")
    argv = args[i + 1:]
    if not argv:
        return _fail("the confinement launcher was given no command; nothing was run")
    env = _environment()
    try:
        apply(write, network)
    except ConfineError as exc:
        return _fail(f"cannot confine the command, so it was not run: {exc}")
    _default_signals()
    try:
        if env is None:
            os.execvp(argv[0], argv)
        os.execvpe(argv[0], argv, env)  # type: ignore[arg-type]
    except OSError as exc:
        return _fail(f"cannot start {argv[0]}: {exc.strerror or exc}", 127)
    return 127  # (execvpe does not return)


# -------------------------------------------------------------------- the rest

def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (of at least 8 characters) replaced by ``[redacted]``.
    Longer secrets first, so one holding another is replaced whole."""
    for secret in sorted({s for s in secrets if len(s) >= MIN_SECRET_CHARS}, key=len,
                         reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def make_private_temp() -> str:
    """A new temporary folder only this user may enter (0700), for one command."""
    import tempfile

    return tempfile.mkdtemp(prefix="errands-command-")


def remove_private_temp(path: str) -> None:
    """Remove a folder :func:`make_private_temp` made, whatever the command left in it
    (folders it made unreadable or unwritable too). Links are removed, never followed."""
    import shutil

    for folder, subfolders, _files in os.walk(path):
        for name in subfolders:
            sub = os.path.join(folder, name)
            try:
                if not os.path.islink(sub):
                    os.chmod(sub, 0o700)
            except OSError:
                pass
    shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
