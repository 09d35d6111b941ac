"""The tools of the MCP servers an agent run uses, over the official SDK's client.

Each attempt connects afresh (a run parked for approval holds no process while it waits,
and reconnects when it resumes), lists each server's tools and offers them to the model as
``mcp__<server>__<tool>``, effect ``mcp``: the permission model judges them like any tool
(asked by default, parked for approval). A server that cannot be started, will not
initialise, lists tools it cannot describe or drops the connection mid-call is a fault
of the run (:class:`ServerFault`, code ``mcp_server``), never an internal error; a tool
that answers with an error is the model's to read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import tempfile
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

from ..tool_servers import MAX_SERVERS, ToolServer
from .tools.base import ToolResult, ToolSpec, bounded

log = logging.getLogger(__name__)

START_SECONDS = 30.0      # to start, initialise and list tools
MAX_TOOLS = 100           # offered per server
MAX_DESCRIPTION = 2000
MAX_SCHEMA_CHARS = 64_000  # a tool's input schema, as JSON
FUNCTION_NAME = re.compile(r"[^A-Za-z0-9_-]")
CODE = "mcp_server"
_SPAWNING: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock]" = \
    weakref.WeakKeyDictionary()   # one server starts at a time, per loop


def _spawning() -> asyncio.Lock:
    loop = asyncio.get_running_loop()
    lock = _SPAWNING.get(loop)
    if lock is None:
        lock = _SPAWNING[loop] = asyncio.Lock()
    return lock


class ServerFault(Exception):
    """A server failed the run: not started, not initialised, or a broken answer."""

    code = CODE

    def __init__(self, server: str, message: str) -> None:
        super().__init__(f"MCP server {server!r}: {message}")
        self.server = server
        self.message = f"MCP server {server!r}: {message}"


@dataclass(frozen=True)
class _Tool:
    server: str
    name: str             # as the server calls it
    read_only: bool       # its annotations say it changes nothing (a dry run may call it)
    trusted: bool         # its server's results are not text from outside


def function_name(server: str, tool: str) -> str:
    """What the model calls it: ``mcp__<server>__<tool>``, within the 64 characters and the
    alphabet of a Chat Completions function name."""
    return ("mcp__" + server + "__" + FUNCTION_NAME.sub("_", tool))[:64]


def _groups_led() -> set[int]:
    """The process groups led by this process's children (a stdio server starts in a
    session of its own: its pid is its group). Linux's /proc; elsewhere none are known,
    and the SDK's own shutdown is all there is."""
    me, found = os.getpid(), set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 3 and int(fields[1]) == me and int(fields[2]) == int(entry):
            found.add(int(entry))
    return found


def _runs(pid: int, command: tuple[str, ...]) -> bool:
    """Whether process ``pid`` runs ``command`` (its program by name, then its arguments):
    a command run started meanwhile is never taken for the server."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = [a.decode(errors="replace") for a in f.read().split(b"\0")[:-1]]
    except OSError:
        return False
    return (bool(argv) and os.path.basename(argv[0]) == os.path.basename(command[0])
            and argv[1:] == list(command[1:]))


def clean_schema(shape: Any, depth: int = 0) -> dict[str, Any]:
    """A server's JSON schema in the shapes the argument check reads: each ``properties``
    entry and ``items`` an object (``true`` or junk becomes "anything"), ``required`` a list
    of names, ``examples`` a list of objects; anything else as it came (it is JSON)."""
    if not isinstance(shape, dict) or depth > 32:
        return {}
    out: dict[str, Any] = {}
    for key, value in shape.items():
        if key == "properties":
            out[key] = ({str(k): clean_schema(v, depth + 1) for k, v in value.items()}
                        if isinstance(value, dict) else {})
        elif key == "items":
            if isinstance(value, dict):
                out[key] = clean_schema(value, depth + 1)
        elif key == "required":
            out[key] = [v for v in value if isinstance(v, str)] if isinstance(value, list) \
                else []
        elif key == "examples":
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                out[key] = value
        elif key == "type":
            if isinstance(value, str) or (isinstance(value, list)
                                          and all(isinstance(v, str) for v in value)):
                out[key] = value
        else:
            out[str(key)] = value
    return out


def subject_of(function: str) -> str:
    """What rules and grants name a server's tool by: ``server.tool``, the tool as offered
    (its name in the function's alphabet, as the person sees it), exactly one tool."""
    server, _, tool = function.removeprefix("mcp__").partition("__")
    return f"{server}.{tool}"


def server_tool_pattern(function: str) -> str:
    """The rule pattern an "always allow" of ``function`` saves: its subject, literally
    (its own ``* ? [`` are characters, not wildcards)."""
    return re.sub(r"([*?[])", r"[\1]", subject_of(function))


def _one_line(error: BaseException) -> str:
    """An exception (a group's first leaf) as one short line."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text[:300]


class ServerTools:
    """The connected servers of one attempt: ``async with ServerTools(servers, …) as t``."""

    def __init__(self, servers: tuple[ToolServer, ...], *, workdir: str,
                 header_value: Callable[[ToolServer], str | None] | None = None,
                 within: float = START_SECONDS * MAX_SERVERS) -> None:
        self.servers = servers
        self.within = within   # all of them start within this (the run's time)
        self.workdir = workdir
        self.header_value = header_value   # blocking (the keyring): called off the loop
        self.specs: dict[str, ToolSpec] = {}
        self._tools: dict[str, _Tool] = {}
        self._sessions: dict[str, Any] = {}
        self._stack = contextlib.AsyncExitStack()
        self._logs: dict[str, IO[str]] = {}
        self._groups: list[int] = []   # process groups of the stdio servers started
        self._deadline = 0.0

    async def __aenter__(self) -> "ServerTools":
        self._deadline = time.monotonic() + self.within
        try:
            for server in self.servers:
                await self._connect(server)
        except BaseException:
            await self._close()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._close()

    async def _close(self) -> None:
        """The sessions end and the servers stop (the SDK's shutdown); then whatever a
        server left running in its process group is ended too."""
        with contextlib.suppress(Exception):
            await self._stack.aclose()
        for group in self._groups:
            with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
                os.killpg(group, signal.SIGKILL)
        self._groups = []

    async def _connect(self, server: ToolServer) -> None:
        from mcp import ClientSession
        budget = max(0.0, min(START_SECONDS, self._deadline - time.monotonic()))
        try:
            async with asyncio.timeout(budget):
                if server.command:  # the server leads a process group of its own: noted
                    async with _spawning():  # (one server starts between the two looks)
                        before = await asyncio.to_thread(_groups_led)
                        read, write = await self._stack.enter_async_context(
                            self._transport(server))
                        after = await asyncio.to_thread(_groups_led)
                    self._groups += [g for g in sorted(after - before)
                                     if _runs(g, server.command)]
                else:
                    read, write = await self._stack.enter_async_context(
                        self._transport(server))
                session = await self._stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                listed = await self._list(session)
        except TimeoutError:
            raise ServerFault(server.name, f"did not start and list its tools within "
                              f"{budget:.0f} s{self._stderr(server)}") from None
        except ServerFault:
            raise
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # (the SDK's task groups raise exception groups)
            if not isinstance(exc, Exception | BaseExceptionGroup):
                raise
            raise ServerFault(server.name, f"could not be started: {_one_line(exc)}"
                              f"{self._stderr(server)}") from None
        self._sessions[server.name] = session
        for tool in listed:
            self._offer(server, tool)

    def _transport(self, server: ToolServer) -> Any:
        if server.command:
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client
            errlog = self._logs[server.name] = tempfile.TemporaryFile("w+", encoding="utf-8",
                                                                      errors="replace")
            self._stack.callback(errlog.close)
            params = StdioServerParameters(command=server.command[0], args=list(server.command[1:]),
                                           env=dict(server.env), cwd=self.workdir)
            return stdio_client(params, errlog=errlog)
        return self._http(server)

    @contextlib.asynccontextmanager
    async def _http(self, server: ToolServer) -> Any:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client
        headers = {}
        if server.header and self.header_value is not None:
            value = await asyncio.to_thread(self.header_value, server)
            if value:
                headers[server.header] = value
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0)) as client:
            async with streamable_http_client(server.url or "", http_client=client) as streams:
                yield streams[0], streams[1]

    async def _list(self, session: Any) -> list[Any]:
        tools: list[Any] = []
        cursor = None
        for _ in range(10):  # pages
            from mcp_types import PaginatedRequestParams
            page = await session.list_tools(
                params=PaginatedRequestParams(cursor=cursor) if cursor else None)
            tools += page.tools
            cursor = page.next_cursor
            if not cursor or len(tools) >= MAX_TOOLS:
                break
        return tools[:MAX_TOOLS]

    def _offer(self, server: ToolServer, tool: Any) -> None:
        schema = clean_schema(tool.input_schema) if isinstance(tool.input_schema, dict) \
            else None
        if schema is None or schema.get("type", "object") != "object" \
                or len(json.dumps(schema)) > MAX_SCHEMA_CHARS:
            log.warning("MCP server %s: tool %r has no object schema; not offered",
                        server.name, tool.name)
            return
        name = function_name(server.name, tool.name)
        if name in self.specs:
            log.warning("MCP server %s: tool %r has the name of another; not offered",
                        server.name, tool.name)
            return
        parameters = {"type": "object", "properties": {}, **schema}
        parameters.setdefault("additionalProperties", True)  # (JSON Schema's own default)
        annotations = tool.annotations
        read_only = bool(annotations is not None and annotations.read_only_hint)
        description = (tool.description or tool.title or tool.name)[:MAX_DESCRIPTION]
        self.specs[name] = ToolSpec(
            name=name, effect="mcp", parameters=parameters,
            description=f"[MCP server {server.name}] {description}",
            fixed_subject=subject_of(name))
        self._tools[name] = _Tool(server.name, tool.name, read_only, server.trusted)

    def read_only(self, name: str) -> bool:
        return self._tools[name].read_only

    async def call(self, name: str, arguments: dict[str, Any], seconds: float) -> ToolResult:
        """One call; its error answer is the model's to read, a broken server a fault."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
        tool = self._tools[name]
        session = self._sessions[tool.server]
        try:
            result = await session.call_tool(tool.name, arguments,
                                             read_timeout_seconds=max(1.0, seconds))
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                raise ServerFault(tool.server, f"closed the connection during {tool.name}"
                                  f"{self._stderr_of(tool.server)}") from None
            if exc.code == REQUEST_TIMEOUT:
                raise ServerFault(tool.server, f"did not answer {tool.name} within "
                                  f"{seconds:.0f} s") from None
            return ToolResult(bounded(f"Error from {tool.server}.{tool.name}: {exc}"),
                              untrusted=not tool.trusted)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            if not isinstance(exc, Exception | BaseExceptionGroup):
                raise
            raise ServerFault(tool.server, f"failed during {tool.name}: {_one_line(exc)}"
                              f"{self._stderr_of(tool.server)}") from None
        text = render(result)
        if getattr(result, "is_error", False):
            text = f"Error from {tool.server}.{tool.name}: {text}"
        return ToolResult(bounded(text), untrusted=not tool.trusted)

    def _stderr(self, server: ToolServer) -> str:
        return self._stderr_of(server.name)

    def _stderr_of(self, name: str) -> str:
        """The end of what a stdio server said on its standard error, for a fault."""
        errlog = self._logs.get(name)
        if errlog is None or errlog.closed:
            return ""
        try:
            errlog.flush()
            errlog.seek(0)
            lines = [line for line in errlog.read()[-4000:].splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return f" (it said: {' / '.join(lines[-3:])[:500]})" if lines else ""


def render(result: Any) -> str:
    """A call's content as text the model reads: text parts as they are, other parts named,
    structured content as JSON when there is no text."""
    parts: list[str] = []
    for block in getattr(result, "content", None) or ():
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(block.text))
        elif kind in ("image", "audio"):
            parts.append(f"[{kind}: {getattr(block, 'mime_type', '') or 'data'}, not shown]")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            parts.append(str(text) if text is not None else f"[resource {resource.uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource {getattr(block, 'uri', '')}]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    return "\n".join(parts) or "(no content)"
