"""The command runner: one attempt of a shell command, streamed, bounded and never orphaned.

How a command runs
------------------

The command runs through your shell, ``$SHELL -c '<command>'`` (``/bin/sh -c`` when
``SHELL`` is unset or does not name an executable file), in the automation's working folder
(created if missing), with no input (stdin is ``/dev/null``) and its standard output and
standard error merged. It gets Errands' own environment plus:

=========================  ============================================================
``ERRANDS_AUTOMATION_ID``  the automation's id
``ERRANDS_RUN_ID``         this run's id
``ERRANDS_RUN_INDEX``      the run's number within its automation (1, 2, …)
``ERRANDS_ATTEMPT``        the attempt number, 1 unless the run is being retried
``ERRANDS_SCHEDULED_FOR``  the instant the run was due, RFC 3339 UTC such as
                           ``2026-03-29T07:00:00Z``; empty for a run started by hand
``ERRANDS_TRIGGER_ID``     the id of the trigger that fired it (``cron-2``, ``inbox``);
                           not set for a run started by hand
``ERRANDS_TRIGGER_KIND``   that trigger's kind (``cron``, ``folder``, ``webhook`` …)
``ERRANDS_EVENT_FILE``     for a run an event started (a changed folder, a webhook call,
                           mail, another automation's end): a private JSON file holding
                           the event's payload, removed when the attempt ends. It is
                           untrusted input: read it as data, never run it
=========================  ============================================================

Exit status 0 is success; any other status fails the run, and the error names the status
and the last line the command printed. The whole output is appended to the run's log (one
``--- attempt N at <instant> ---`` line before each attempt); the run keeps its last 64 KiB
and a result summary of at most 2,000 characters: the end of the output, unless the
command sets one (below).

The command and everything it starts form one process group. On timeout or cancel the
whole group gets SIGTERM and, if anything is still running a few seconds later, SIGKILL.
Background processes still running when the command itself exits are ended the same way:
nothing a command starts outlives its run (short of leaving the group with ``setsid``).

Talking to Errands
------------------

A command talks to Errands by printing lines of this form. Each must start at the very
beginning of a line, spelled exactly as shown (trailing spaces and a carriage return are
ignored):

``errands: done``
    The automation's condition is met. An automation with ``stop.when_condition_met``
    ends after this run.

``errands: notify <text>``
    Ask for your attention with ``<text>``: it becomes an attention item. At most 20 per
    run are kept, each cut to 500 characters.

``errands: result <text>``
    Use ``<text>`` as the run's result summary instead of the end of the output. When
    several are printed, the last one wins; ``errands: result`` with no text leaves the run
    without a summary.

These lines are honoured whatever the exit status. They stay in the log and in the kept
output, but are left out of the result summary. Any other line, including one that merely
contains these words further along, is ordinary output.

Example::

    n=$(ls ~/inbox | wc -l)
    echo "errands: result $n files waiting"
    [ "$n" -gt 100 ] && echo "errands: notify the inbox has $n files"
    [ "$n" -eq 0 ] && echo "errands: done"

Command automations an agent created
------------------------------------

A command automation an agent created (its ``origin.kind`` is ``agent``) runs confined on
Linux with Landlock, as the agent's own ``run_command`` does (:mod:`errands.confine`): it may
write only in its workdir (none when the definition names no workdir) and in a private
temporary folder made for the attempt (``TMPDIR``, ``TMP`` and ``TEMP`` name it; removed
afterwards), and uses TCP only when its permissions allow ``fetch_url``. Command automations
a person made run as described above, unconfined.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shlex
import signal
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from .. import confine
from ..definition import Definition
from ..paths import PRIVATE_FILE, private_dir
from ..records import RESULT_LIMIT, bounded

REDACTED = b"[redacted]"
from ..timeutil import format_duration, format_instant, utcnow
from .children import start_child
from .processes import EXIT_WAIT, stop_group, terminate_group_async, wait_event
from .contract import Outcome, RunContext

log = logging.getLogger(__name__)

TAIL_BYTES = 64 * 1024          # output kept with the run
EARLY_LIMIT = 1024 * 1024       # output held in memory until the log is open
NOTIFY_CHARS = 500
NOTIFY_MAX = 20
ERROR_LINE_CHARS = 200
DIRECTIVE_PREFIX = "errands: "
_PREFIX = DIRECTIVE_PREFIX.encode()
_CLEAN_BYTES = 16 * 1024        # directive-free output kept for the summary (≥ 4 × 2,000)
_LINE_BYTES = 8 * 1024          # of a directive line, enough for any text it may carry
_DRAIN_SECONDS = 2.0            # to read what is left in the pipe once the group is gone
_FALLBACK_SHELL = "/bin/sh"
_UNUSABLE_SHELLS = ("nologin", "false")


# ------------------------------------------------------------------------- helpers

def keep_tail(text: str, limit: int = RESULT_LIMIT, *, cut: bool = False) -> str:
    """The end of ``text`` within ``limit`` characters, marked ``[…] `` where it was cut.

    ``cut`` says the text is already missing its beginning, so it is marked either way."""
    marker = "[…] "
    if len(text) <= limit and not cut:
        return text
    if len(text) + len(marker) <= limit:
        return marker + text
    return marker + text[len(text) - (limit - len(marker)):]


def user_shell() -> str:
    """``$SHELL`` when it names an executable file, else ``/bin/sh``."""
    shell = os.environ.get("SHELL", "")
    if (shell and os.path.isabs(shell) and os.path.isfile(shell) and os.access(shell, os.X_OK)
            and os.path.basename(shell) not in _UNUSABLE_SHELLS):
        return shell
    return _FALLBACK_SHELL


HIDDEN_VARIABLES = ("ERRANDS_API_KEY",)


_base_env: tuple[dict[Any, Any] | None, dict[str, str]] = (None, {})  # (os.environ's, ours)


def child_environment(variables: dict[str, str]) -> dict[str, str]:
    """Errands' environment for a command it starts, plus ``variables``, without Errands'
    own secrets (the provider's API key): a command, or an agent's tool call, must not be
    able to print or send it.

    The copy of ``os.environ`` is made again only when the environment changed: decoding
    every variable for every child cost a burst of a thousand runs tens of milliseconds."""
    global _base_env
    raw = getattr(os.environ, "_data", None)  # the encoded variables; compared in a microsecond
    seen, base = _base_env
    if raw is None or raw != seen:
        base = {k: v for k, v in os.environ.items() if k not in HIDDEN_VARIABLES}
        _base_env = (dict(raw) if raw is not None else None, base)
    return {**base, **variables}


_encoded_env: tuple[dict[Any, Any] | None, dict[bytes, bytes]] = (None, {})


def encoded_environment(variables: dict[str, str]) -> dict[bytes, bytes]:
    """``child_environment(variables)`` as the bytes ``exec`` takes: the inherited part is
    ``os.environ``'s own encoded form, kept until the environment changes, so a burst's
    thousand children are not each encoding some eighty variables again."""
    global _encoded_env
    raw = getattr(os.environ, "_data", None)
    seen, base = _encoded_env
    if raw is None or raw != seen or not base:
        hidden = {os.fsencode(name) for name in HIDDEN_VARIABLES}
        source = raw if raw is not None else {os.fsencode(k): os.fsencode(v)
                                              for k, v in os.environ.items()}
        base = {k: v for k, v in source.items() if k not in hidden}
        _encoded_env = (dict(raw) if raw is not None else None, base)
    return {**base, **{os.fsencode(k): os.fsencode(v) for k, v in variables.items()}}


def run_variables(ctx: RunContext) -> dict[str, str]:
    """The ``ERRANDS_*`` variables a command sees."""
    fired = ctx.trigger or {}
    trigger = ({"ERRANDS_TRIGGER_ID": str(fired["id"]),
                "ERRANDS_TRIGGER_KIND": str(fired.get("kind") or "")} if fired.get("id") else {})
    return {
        "ERRANDS_AUTOMATION_ID": ctx.automation_id,
        "ERRANDS_RUN_ID": ctx.run_id,
        "ERRANDS_RUN_INDEX": str(ctx.run_index),
        "ERRANDS_SCHEDULED_FOR": format_instant(ctx.scheduled_for) or "",
        "ERRANDS_ATTEMPT": str(ctx.attempt),
        **trigger,
    }


def write_event_file(payload: Any) -> tuple[str, str]:
    """The event's payload in a private file: (its folder, its path)."""
    folder = confine.make_private_temp()
    path = os.path.join(folder, "event.json")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(payload, out, ensure_ascii=True, indent=1)  # (any text, even a bad name)
        out.write("\n")
    return folder, path


def _quote_always(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def describe(argv: list[str], workdir: Path, variables: dict[str, str]) -> str:
    """What a dry run reports: the exact argv, the folder and the added variables."""
    shell, flag, command = argv
    return (f"would run: {shlex.quote(shell)} {flag} {_quote_always(command)}\n"
            f"in: {workdir}\n"
            "with: " + " ".join(f"{k}={shlex.quote(v)}" for k, v in variables.items()))


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _one_line(text: str, limit: int = ERROR_LINE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def confined(definition: Definition) -> bool:
    """Whether a command automation runs confined: an agent created it."""
    return definition.origin.kind == "agent"


# ------------------------------------------------------------------ output handling

class BoundedBytes:
    """The last ``limit`` bytes written; remembers whether anything was dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.cut = False

    def add(self, chunk: bytes | bytearray) -> None:
        if len(chunk) >= self.limit:
            self.cut = self.cut or len(chunk) > self.limit or bool(self.data)
            self.data = bytearray(chunk[len(chunk) - self.limit:])
            return
        self.data += chunk
        excess = len(self.data) - self.limit
        if excess > 0:
            del self.data[:excess]
            self.cut = True

    def text(self) -> str:
        data = bytes(self.data)
        if self.cut:  # do not start in the middle of a UTF-8 sequence
            skip = 0
            while skip < min(3, len(data)) and data[skip] & 0xC0 == 0x80:
                skip += 1
            data = data[skip:]
        return data.decode("utf-8", errors="replace")


class _CleanTail:
    """The end of the directive-free output, for the summary. Trailing whitespace is held
    apart so a flood of blank lines cannot push the last real output out."""

    def __init__(self, limit: int) -> None:
        self.body = BoundedBytes(limit)
        self.pending = b""
        self.limit = limit

    def add(self, chunk: bytes | bytearray) -> None:
        if not chunk:
            return
        combined = self.pending + bytes(chunk)
        end = len(combined.rstrip())
        if end:
            self.body.add(combined[:end])
        self.pending = combined[end:][-self.limit:]

    def text(self) -> str:
        return self.body.text()


_UNDECIDED, _PLAIN, _DIRECTIVE = range(3)


class DirectiveScanner:
    """Reads ``errands: …`` lines out of a byte stream as it arrives, without keeping it.

    Ordinary output is passed on to ``clean``; directive lines are acted on and dropped."""

    def __init__(self, clean: Callable[[bytes | bytearray], None]) -> None:
        self._clean = clean
        self._mode = _UNDECIDED
        self._head = bytearray()
        self.condition_met = False
        self.notify: list[str] = []
        self.result: str | None = None
        self.result_set = False

    def feed(self, data: bytes) -> None:
        first = data.find(b"\n")
        if first < 0:
            self._part(data)
            return
        self._part(data[:first])   # the line under way ends here
        self._end_line(newline=True)
        last = data.rfind(b"\n")
        block = data[first + 1:last + 1]
        if block and _PREFIX not in block:
            # whole lines and none of them a directive: passed on in one piece (a command
            # printing megabytes a second is not read a line at a time)
            self._clean(block)
        else:
            self._lines(block)
        self._part(data[last + 1:])

    def _lines(self, data: bytes) -> None:
        """Whole lines, each classified (some may be directives)."""
        start = 0
        while True:
            newline = data.find(b"\n", start)
            if newline < 0:
                self._part(data[start:])
                return
            self._part(data[start:newline])
            self._end_line(newline=True)
            start = newline + 1

    def close(self) -> None:
        """The stream ended; an unterminated last line counts as a line."""
        if self._mode != _UNDECIDED or self._head:
            self._end_line(newline=False)

    def _part(self, piece: bytes) -> None:
        if not piece:
            return
        if self._mode == _PLAIN:
            self._clean(piece)
        elif self._mode == _DIRECTIVE:
            room = _LINE_BYTES - len(self._head)
            if room > 0:
                self._head += piece[:room]
        else:
            self._head += piece
            self._mode = self._classify(self._head)
            if self._mode == _PLAIN:
                self._clean(self._head)
                self._head = bytearray()
            elif len(self._head) > _LINE_BYTES:
                del self._head[_LINE_BYTES:]  # only "done" + whitespace stays undecided

    @staticmethod
    def _classify(head: bytearray) -> int:
        if len(head) < len(_PREFIX):
            return _UNDECIDED if _PREFIX.startswith(head) else _PLAIN
        if not head.startswith(_PREFIX):
            return _PLAIN
        rest = head[len(_PREFIX):]
        for word in (b"notify", b"result"):
            if rest.startswith(word):
                if len(rest) == len(word):
                    return _UNDECIDED
                return _DIRECTIVE if rest[len(word)] in b" \t\r" else _PLAIN
        if rest.startswith(b"done"):
            return _UNDECIDED if not rest[4:].strip() else _PLAIN
        if any(word.startswith(rest) for word in (b"notify", b"result", b"done")):
            return _UNDECIDED
        return _PLAIN

    def _end_line(self, *, newline: bool) -> None:
        mode, head = self._mode, self._head
        self._mode, self._head = _UNDECIDED, bytearray()
        if mode == _PLAIN:
            if newline:
                self._clean(b"\n")
            return
        if mode == _UNDECIDED:
            line = bytes(head).rstrip()
            if line == _PREFIX + b"done":
                self.condition_met = True
            elif line in (_PREFIX + b"notify", _PREFIX + b"result"):
                self._apply(line)
            else:
                self._clean(head + b"\n" if newline else head)
            return
        self._apply(bytes(head))

    def _apply(self, line: bytes) -> None:
        text = line.decode("utf-8", errors="replace")[len(DIRECTIVE_PREFIX):]
        word, value = text[:6], text[6:].strip()
        if word == "notify":
            if value and len(self.notify) < NOTIFY_MAX:
                self.notify.append(_one_line(value, NOTIFY_CHARS))
        elif word == "result":
            self.result_set = True
            self.result = bounded(value) if value else None


class _Output:
    """Where the child's output goes: the log, the kept tail and the directive scanner."""

    def __init__(self, observer: Callable[[bytes], None] | None = None) -> None:
        self.observer = observer
        self.log_file: BinaryIO | None = None
        self.log_error: str | None = None
        self.early: list[bytes] | None = []  # output before the log is open
        self.early_size = 0
        # the log to open at the first output: its path, the attempt, when that began
        self.pending: tuple[Path, int, datetime] | None = None
        self.tail = BoundedBytes(TAIL_BYTES)
        self.clean = _CleanTail(_CLEAN_BYTES)
        self.scanner = DirectiveScanner(self.clean.add)
        # secrets Errands knows (the API key) never reach the log, the tail or the result:
        # the last bytes of each chunk wait for the next, so a key split across two
        # chunks is caught too
        from ..logs import known_secrets
        self.secrets = [s.encode() for s in known_secrets()]
        self.carry = b""

    def attach(self, path: Path, attempt: int) -> None:
        """From now on output goes to the run's log, opened when the first output comes
        (a command that prints nothing leaves no log: in a burst of a thousand quiet
        commands no file is made at all); what came before is written first."""
        early, self.early = self.early or [], None
        self.pending = (path, attempt, utcnow())
        for data in early:
            self._to_log(data)

    def _open_pending(self) -> None:
        """A log that cannot be written costs the log, never the run (as with a disk that
        fills up during it)."""
        path, attempt, began = self.pending  # type: ignore[misc]
        self.pending = None
        try:
            self.log_file = _open_log(path, attempt, began)
        except OSError as exc:
            self.log_error = f"cannot write the run log {path}: {exc.strerror or exc}"
            log.warning("%s", self.log_error)

    def detach(self) -> None:
        if self.carry:  # (ended without close: what was held back still goes to the log)
            self._to_log(self._redacted(b"", final=True))
        if self.log_file is not None:
            self.log_file.close()
            self.log_file = None
        self.early = None

    def write(self, data: bytes) -> None:
        if self.secrets:
            data = self._redacted(data)
            if not data:
                return
        self._write(data)

    def _redacted(self, data: bytes, final: bool = False) -> bytes:
        data = self.carry + data
        for secret in self.secrets:
            data = data.replace(secret, REDACTED)
        keep = 0 if final else min(len(data), max(len(s) for s in self.secrets) - 1)
        cut = len(data) - keep
        self.carry = data[cut:]
        return data[:cut]

    def _write(self, data: bytes) -> None:
        if self.early is not None:
            if self.early_size < EARLY_LIMIT:
                self.early.append(data[:EARLY_LIMIT - self.early_size])
                self.early_size += len(data)
        else:
            self._to_log(data)
        self.tail.add(data)
        self.scanner.feed(data)
        if self.observer is not None:
            self.observer(data)

    def _to_log(self, data: bytes) -> None:
        if self.pending is not None and data:
            self._open_pending()
        if self.log_file is not None:
            try:
                self.log_file.write(data)
                self.log_file.flush()
            except (OSError, ValueError) as exc:  # a full disk must not stop the command
                self.log_error = str(exc)
                self.log_file = None

    def close(self) -> None:
        if self.carry:
            self._write(self._redacted(b"", final=True))
        self.scanner.close()

    def summary(self) -> str | None:
        if self.scanner.result_set:
            return self.scanner.result
        text = self.clean.text().strip()
        return keep_tail(text, RESULT_LIMIT, cut=self.clean.body.cut) if text else None

    def last_line(self) -> str | None:
        text = self.clean.text().rstrip()
        for line in reversed(text.splitlines()):
            if line.strip():
                return _one_line(line.strip())
        return None


# -------------------------------------------------------------------------- runner

class CommandRunner:
    """Runs ``definition.runner.command`` through the user's shell (see the module text)."""

    kind = "command"
    needs_network = False

    def __init__(self, kill_grace: float = 5.0) -> None:
        self.kill_grace = kill_grace

    async def run(self, ctx: RunContext) -> Outcome:
        command = getattr(ctx.definition.runner, "command", None)
        if not isinstance(command, str):
            raise TypeError(f"not a command automation: runner kind "
                            f"{ctx.definition.runner.kind!r}")
        argv = [user_shell(), "-c", command]
        variables = run_variables(ctx)
        if ctx.dry_run:
            if ctx.event is not None:
                variables["ERRANDS_EVENT_FILE"] = "(the event, written when it runs)"
            return Outcome(state="succeeded", result=bounded(describe(argv, ctx.workdir, variables)))
        if ctx.event is None:
            return await self._prepared(ctx, argv, variables)
        try:
            folder, variables["ERRANDS_EVENT_FILE"] = await asyncio.to_thread(
                write_event_file, ctx.event)
        except OSError as exc:
            return Outcome(state="failed", error_code="spawn",
                           error_message=f"cannot write the event for the command: "
                                         f"{exc.strerror or exc}")
        try:
            return await self._prepared(ctx, argv, variables)
        finally:
            await asyncio.to_thread(confine.remove_private_temp, folder)

    async def _prepared(self, ctx: RunContext, argv: list[str],
                        variables: dict[str, str]) -> Outcome:
        try:
            private_dir(ctx.workdir)  # what Errands creates is 0700; existing folders stay
        except OSError as exc:
            return Outcome(state="failed", error_code="workdir",
                           error_message=f"cannot create the working folder {ctx.workdir}: "
                                         f"{exc.strerror or exc}")
        output = _Output(ctx.on_output)
        if not confined(ctx.definition):
            try:
                return await self._run(ctx, argv, encoded_environment(variables), output)
            finally:
                output.detach()
        try:
            temp = confine.make_private_temp()
        except OSError as exc:
            return Outcome(state="failed", error_code="spawn",
                           error_message=f"cannot make a temporary folder: "
                                         f"{exc.strerror or exc}")
        try:
            variables.update(TMPDIR=temp, TMP=temp, TEMP=temp)
            write = [str(ctx.workdir)] if ctx.definition.workdir else []
            launch = confine.wrap(argv, write=[*write, temp],
                                  network=ctx.definition.permissions.allow_network())
            outcome = await self._run(ctx, argv, encoded_environment(variables), output,
                                      launch)
        except BaseException:
            output.detach()
            confine.remove_private_temp(temp)
            raise
        output.detach()
        # what the command left there may be large: removed away from the loop
        await asyncio.to_thread(confine.remove_private_temp, temp)
        return outcome

    async def _run(self, ctx: RunContext, argv: list[str], env: Mapping[bytes, bytes],
                   output: "_Output", launch: list[str] | None = None) -> Outcome:
        """``launch``: the command line actually started (``argv`` confined), if not argv."""
        try:
            child = start_child(launch or argv, cwd=str(ctx.workdir), env=env,
                                on_output=lambda _stream, data: output.write(data))
        except OSError as exc:
            return Outcome(state="failed", error_code="spawn",
                           error_message=f"cannot start {argv[0]}: {exc.strerror or exc}")
        ending = False  # the group is being ended: a cancellation now kills at once
        try:
            try:
                if ctx.on_started is not None:
                    ctx.on_started(child.pid)
                # The log is opened a loop turn later: in a burst every child starts before
                # any log is opened. Output meanwhile waits in memory.
                await asyncio.sleep(0)
                output.attach(ctx.log_path, ctx.attempt)
                timed_out = not await wait_event(child.exited, max(ctx.timeout.total_seconds(),
                                                                    0.0))
                ending = True
                # the shell has exited or timed out: end what is left of its group, then
                # read the rest
                await terminate_group_async(child.pid, self.kill_grace)
                if timed_out:
                    await wait_event(child.exited, EXIT_WAIT)
                await wait_event(child.drained, _DRAIN_SECONDS)
            except BaseException:  # cancelled (or on_started failed): leave nothing behind
                await stop_group(child.pid, child.exited, self.kill_grace, at_once=ending)
                raise
            output.close()
            return self._outcome(ctx, output, child.returncode, timed_out)
        finally:
            child.close()

    @staticmethod
    def _outcome(ctx: RunContext, output: _Output, returncode: int | None,
                 timed_out: bool) -> Outcome:
        scanner = output.scanner
        fields = dict(result=output.summary(), notify=list(scanner.notify),
                      condition_met=scanner.condition_met, output_tail=output.tail.text())
        last = output.last_line()
        if timed_out:
            return Outcome(state="failed", error_code="timeout",
                           error_message=f"timed out after {format_duration(ctx.timeout)}",
                           **fields)
        if returncode == 0:
            return Outcome(state="succeeded", **fields)
        if returncode is None:
            return Outcome(state="failed", error_code="exit_status",
                           error_message="exited with an unknown status", **fields)
        if returncode < 0:
            message = f"killed by signal {_signal_name(-returncode)}"
            return Outcome(state="failed", error_code="signal",
                           error_message=f"{message}: {last}" if last else message, **fields)
        message = f"exited with status {returncode}"
        return Outcome(state="failed", error_code="exit_status",
                       error_message=f"{message}: {last}" if last else message, **fields)


def _open_log(path: Path, attempt: int, began: datetime) -> BinaryIO:
    """The run log, opened for append, with this attempt's header written."""
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0),
                 PRIVATE_FILE)
    try:
        if os.name == "posix":
            os.fchmod(fd, PRIVATE_FILE)  # whatever the umask, or an older, wider log
    except BaseException:
        os.close(fd)
        raise
    log_file = os.fdopen(fd, "ab")
    try:
        separator = b""
        if log_file.tell() > 0:
            with open(path, "rb") as existing:
                existing.seek(-1, os.SEEK_END)
                if existing.read(1) != b"\n":
                    separator = b"\n"
        header = f"--- attempt {attempt} at {format_instant(began)} ---\n"
        log_file.write(separator + header.encode())
        log_file.flush()
    except BaseException:
        log_file.close()
        raise
    return log_file
