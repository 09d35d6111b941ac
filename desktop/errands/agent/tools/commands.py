"""The command tool: one shell command in the run's workdir, its exit code and output.

It runs the way the command runner runs an automation's command (see
:mod:`errands.runners.command`): through the user's shell, with no input, as the
leader of its own process group, its pid reported at once for crash safety. When the shell
exits, whatever it left running in its group is ended too; on timeout or cancellation the
whole group gets SIGTERM and, after a grace, SIGKILL. Nothing it starts outlives the call
(short of leaving the group with ``setsid``).

Unlike the runner, standard output and standard error are kept apart (the model reads
them differently) and ``errands: …`` lines mean nothing here: an agent has tools for that.

On Linux with Landlock every command is confined (:mod:`errands.confine`): it may write only
in the workdir and in a private temporary folder made for the call (``TMPDIR``, ``TMP`` and
``TEMP`` name it; it is removed afterwards), and uses the network only when the run's
permissions let it (``ToolEnv.command_network``). Any secret of the run (``ToolEnv.secrets``,
the API key) that the command prints is shown as ``[redacted]``.
"""

from __future__ import annotations

import asyncio
import math
import signal
from typing import Any

from ... import confine
from ...definition import ANY_TEXT
from ...runners.command import BoundedBytes, child_environment, keep_tail, user_shell
from ...runners.children import STDERR, STDOUT, start_child
from ...runners.processes import EXIT_WAIT, stop_group, terminate_group_async, wait_event
from .base import Handler, ToolEnv, ToolError, ToolResult, ToolSpec, bounded

KILL_GRACE = 5.0            # between SIGTERM and SIGKILL
DRAIN_SECONDS = 2.0         # to read what is left in the pipes once the group is gone
KEEP_BYTES = 64 * 1024      # of each stream, its end
STDOUT_CHARS = 10_000       # shown of standard output (its end)
STDERR_CHARS = 4_000        # shown of standard error (its end)


class _Pipes:
    """The child's two output streams, each keeping its end."""

    def __init__(self) -> None:
        self.streams = {STDOUT: BoundedBytes(KEEP_BYTES), STDERR: BoundedBytes(KEEP_BYTES)}

    def add(self, stream: int, data: bytes) -> None:
        self.streams[stream].add(data)


def _timeout(value: Any, limit: float) -> tuple[float, str]:
    """The timeout to use (seconds) and a note when the one asked for was cut to the limit."""
    if value is None:
        return limit, ""
    if isinstance(value, float) and not math.isfinite(value) or value <= 0:
        raise ToolError("run_command: timeout_s must be a number of seconds above 0")
    if value > limit:
        return limit, f"timeout_s is above the limit of {limit:g} s; {limit:g} s used"
    return float(value), ""


def _status(returncode: int | None, timed_out: bool, timeout: float) -> str:
    if timed_out:
        return (f"timed out after {timeout:g} s: the command and everything it started "
                "were stopped")
    if returncode is None:
        return "exit code unknown"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"killed by {name}"
    return f"exit code {returncode}"


def _stream(name: str, buffer: BoundedBytes, limit: int,
            secrets: tuple[str, ...] = ()) -> str:
    # Redacted before it is cut to ``limit``, so that cut cannot leave part of a secret
    # behind. The kept bytes may start inside one, but only when they were cut themselves,
    # and then they hold at least 16,000 characters, far more than any limit shows.
    text = confine.redact(buffer.text(), secrets)
    if not text:
        return f"{name}: (empty)"
    shown = keep_tail(text, limit, cut=buffer.cut).rstrip("\n")
    if shown.startswith("[…] "):  # start at a line, and say the start is missing
        body = shown[len("[…] "):]
        newline = body.find("\n", 0, 200)
        shown = "[… earlier output cut]\n" + (body[newline + 1:] if newline >= 0 else body)
    return f"{name}:\n{shown}"


RUN_COMMAND = ToolSpec(
    name="run_command", effect="exec", subject="command",
    description="Run a shell command in the workdir and get its exit code, standard output "
                "and standard error (their ends, when long). There is no input: commands "
                "that wait for a person fail. It is stopped, with everything it started, at "
                "the timeout.",
    parameters={"type": "object", "properties": {
        "command": {"type": "string", "description": "the shell command line"},
        "timeout_s": {"type": "number",
                      "description": "seconds before it is stopped (default: the limit)"}},
        "required": ["command"], "additionalProperties": False,
        "examples": [{"command": "git status --short"}]})


async def run_command(env: ToolEnv, args: dict[str, Any]) -> ToolResult:
    command = args["command"]
    if not command.strip():
        raise ToolError("run_command: the command is empty")
    if ANY_TEXT.search(command):
        raise ToolError("run_command: the command holds a NUL character or a lone "
                        "surrogate, which no command line can carry")
    timeout, note = _timeout(args.get("timeout_s"), env.max_command_seconds)
    if env.dry_run:
        proposed = f"would run: {command}"
        return ToolResult(text=f"dry run: {proposed} (in {env.workdir}); nothing was run",
                          proposed=proposed)
    if not env.workdir.is_dir():
        raise ToolError(f"the workdir {env.workdir} does not exist")
    variables = {k: v for k, v in (("ERRANDS_RUN_ID", env.run_id),
                                   ("ERRANDS_AUTOMATION_ID", env.automation_id)) if v}
    try:
        temp = confine.make_private_temp()
    except OSError as exc:
        raise ToolError(f"run_command: cannot make a temporary folder: "
                        f"{exc.strerror or exc}") from None
    try:
        variables.update(TMPDIR=temp, TMP=temp, TEMP=temp)
        argv = [user_shell(), "-c", command]
        launch = confine.wrap(argv, write=[str(env.workdir), temp],
                              network=env.command_network)
        pipes, returncode, timed_out = await _run(env, argv, child_environment(variables),
                                                  timeout, launch)
    except BaseException:
        confine.remove_private_temp(temp)
        raise
    # what the command left there may be large: removed away from the loop
    await asyncio.to_thread(confine.remove_private_temp, temp)
    secrets = tuple(env.secrets)
    parts = [_status(returncode, timed_out, timeout),
             _stream("stdout", pipes.streams[STDOUT], STDOUT_CHARS, secrets),
             _stream("stderr", pipes.streams[STDERR], STDERR_CHARS, secrets)]
    if note:
        parts.insert(1, f"[{note}]")
    return ToolResult(text=bounded("\n".join(parts)))


async def _run(env: ToolEnv, argv: list[str], variables: dict[str, str],
               timeout: float, launch: list[str] | None = None
               ) -> tuple[_Pipes, int | None, bool]:
    """Start, supervise and end the child (the command runner's way, in short). ``launch``:
    the command line actually started (``argv`` through the confinement launcher)."""
    pipes = _Pipes()
    try:
        child = start_child(launch or argv, cwd=str(env.workdir), env=variables,
                            on_output=pipes.add, stderr_apart=True)
    except OSError as exc:
        raise ToolError(f"run_command: cannot start {argv[0]}: {exc.strerror or exc}") from None
    ending = False
    try:
        try:
            if env.on_started is not None:
                env.on_started(child.pid)
            timed_out = not await wait_event(child.exited, timeout)
            ending = True
            # the shell exited (or timed out): end what is left of its group, read the rest
            await terminate_group_async(child.pid, KILL_GRACE)
            if timed_out:
                await wait_event(child.exited, EXIT_WAIT)
            await wait_event(child.drained, DRAIN_SECONDS)
        except BaseException:  # cancelled (or on_started failed): leave nothing behind
            await stop_group(child.pid, child.exited, KILL_GRACE, at_once=ending)
            raise
        return pipes, child.returncode, timed_out
    finally:
        child.close()


TOOLS: tuple[tuple[ToolSpec, Handler], ...] = ((RUN_COMMAND, run_command),)
