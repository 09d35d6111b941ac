"""The agent runner: an automation's prompt worked through with a model and tools
(:mod:`errands.agent`), behind the contract every runner keeps (:mod:`.contract`).

It is the one place the agent package meets the engine's world: the engine knows runners,
never the agent; the agent knows the runner contract, never the engine."""

from __future__ import annotations

import asyncio
import os
import re
import threading
import time
from pathlib import Path
from typing import Any, Callable

from ..agent.config import load_provider_config
from ..agent.loop import SPECS, AgentLoop, close_worktree_of
from ..agent.mcp_tools import ServerFault, ServerTools, server_tool_pattern
from ..agent.provider import Provider, ProviderConfig, ProviderError, warm_up
from ..agent.tools.base import ToolEnv, ToolError
from ..agent.tools.registry import call_subject
from ..agent.worktree import WorktreeError, open_worktree
from ..definition import AgentTask, Rule
from ..records import Blocker, Decision
from ..timeutil import format_duration
from ..tool_servers import ToolServer, get_secret, merged
from .contract import Outcome, RunContext

NO_PROVIDER = ("no model provider is configured: set one with 'errands provider set "
               "--base-url URL --model NAME' (a local Ollama: --base-url "
               "http://127.0.0.1:11434/v1 --model llama3.1)")

ConfigSource = Callable[[RunContext], Any]  # async: ProviderConfig | None


def _start_worker_threads() -> None:
    """Start the threads of the loop's default executor (where tools resolve paths and read
    files) now rather than on first use: a thread started while fifty runs begin together
    holds the loop until it runs, tens of milliseconds when every thread wants the
    interpreter lock. Each job waits until all are submitted, so each gets a thread."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    gate = threading.Event()
    for _ in range(min(32, (os.cpu_count() or 1) + 4)):  # the executor's own maximum
        loop.run_in_executor(None, gate.wait, 5.0)
    gate.set()


class AgentRunner:
    kind = "agent"
    needs_network = True

    def __init__(self, config: ConfigSource | None = None) -> None:
        self._config = config
        self._providers: dict[ProviderConfig, Provider] = {}

    async def run(self, ctx: RunContext) -> Outcome:
        try:
            config = await self._find_config(ctx)
        except ProviderError as exc:  # a keyring that cannot be read, say
            return Outcome(state="failed", error_code=exc.code, error_message=exc.message)
        if config is None:
            return Outcome(state="failed", error_code="no_provider", stop_reason="no_provider",
                           error_message=NO_PROVIDER)
        task = ctx.definition.runner
        assert isinstance(task, AgentTask)
        provider = self._provider(config)
        servers = self._servers(ctx, task)
        began = time.monotonic()
        if not servers:
            return await self._run(ctx, AgentLoop(ctx, provider, task.model or config.model),
                                   began)
        data_dir = ctx.data_dir
        try:  # a stdio server starts in the run's folder (its own workspace: made now)
            await asyncio.to_thread(Path(ctx.workdir).mkdir, parents=True, exist_ok=True)
        except OSError:
            pass

        def header_value(server: ToolServer) -> str | None:
            return get_secret(data_dir, server.name, server.url or "") \
                if data_dir is not None else None

        seconds = ctx.timeout.total_seconds()
        try:  # starting them is part of the run's time
            async with ServerTools(servers, workdir=str(ctx.workdir), header_value=header_value,
                                   within=seconds) as tools:
                return await self._run(ctx, AgentLoop(ctx, provider,
                                                      task.model or config.model, tools), began)
        except ServerFault as exc:  # (one would not start)
            return Outcome(state="failed", error_code=exc.code, error_message=exc.message)

    @staticmethod
    def _servers(ctx: RunContext, task: AgentTask) -> tuple[ToolServer, ...]:
        """The setting's MCP servers and the automation's own (none in a discussion: their
        tools could change the automation's folder, mounted read-only there)."""
        if ctx.discussion is not None:
            return ()
        everywhere: tuple[ToolServer, ...] = ()
        if ctx.services is not None:
            try:
                everywhere = ctx.services.current_settings().get("mcp_servers") or ()
            except Exception:  # a bad stored value: settings say so; the run goes on without
                everywhere = ()
        return merged(everywhere, task.mcp_servers)

    async def _run(self, ctx: RunContext, loop: AgentLoop, began: float) -> Outcome:
        worktree = None
        if ctx.definition.worktree and ctx.definition.workdir:
            try:
                worktree = await open_worktree(Path(ctx.definition.workdir), ctx.automation_id,
                                               ctx.run_index, ctx.data_dir or ctx.workdir)
            except WorktreeError as exc:
                return loop.outcome("failed", error_code="worktree", error_message=exc.message)
            loop.env.workdir = worktree.workdir
        seconds = max(0.0, ctx.timeout.total_seconds() - (time.monotonic() - began))
        loop.deadline = began + ctx.timeout.total_seconds()
        try:
            async with asyncio.timeout(seconds):
                outcome = await loop.run()
        except TimeoutError:
            outcome = loop.outcome("failed", error_code="timeout", stop_reason="timeout",
                                   error_message=f"no result within "
                                   f"{format_duration(ctx.timeout)}")
        except (ProviderError, ServerFault) as exc:
            outcome = loop.outcome("failed", error_code=exc.code, error_message=exc.message)
        if worktree is not None and outcome.state != "awaiting_input":  # a parked run keeps it
            outcome = await close_worktree_of(worktree, outcome)
        return outcome

    async def _find_config(self, ctx: RunContext) -> ProviderConfig | None:
        if self._config is not None:
            return await self._config(ctx)
        if ctx.services is not None and ctx.data_dir is not None:
            # the key is read off the loop: a keyring may answer over D-Bus
            return await asyncio.to_thread(load_provider_config,
                                           ctx.services.current_settings(), ctx.data_dir)
        return None

    def warm_up(self) -> None:
        """Automations of this kind exist: load the provider's SDK before a run needs it,
        and start the threads its tools' file work runs on."""
        warm_up()
        _start_worker_threads()
        import tzlocal  # noqa: F401  (a run's first turn names the system's zone)

    async def aclose(self) -> None:
        providers, self._providers = list(self._providers.values()), {}
        for provider in providers:
            await provider.close()

    def _provider(self, config: ProviderConfig) -> Provider:
        """One client per configuration (its connection pool is reused across runs)."""
        found = self._providers.get(config)
        if found is None:
            if len(self._providers) >= 4:  # settings changed often: forget the oldest
                old = self._providers.pop(next(iter(self._providers)))
                asyncio.get_running_loop().create_task(old.close())
            found = self._providers[config] = Provider(config)
        return found

    def saved_rule(self, blocker: Blocker, decision: Decision,
                   workdir: Path | None = None) -> Rule | None:
        """The rule an "always allow" saves on the automation: the tool, and the call's
        subject (its command, path or URL) unless the person gave a pattern. A path is
        saved as the run judged it, relative to ``workdir`` (an absolute spelling would make
        a rule no later call matches)."""
        if (blocker.tool or "").startswith("mcp__"):
            return Rule(tool="mcp", pattern=decision.rule or server_tool_pattern(blocker.tool
                                                                                 or ""),
                        action="allow")
        spec = SPECS.get(blocker.tool or "")
        if spec is None:
            return None
        pattern = decision.rule
        if not pattern:
            subject = None
            if spec.subject == "path" and workdir is not None:
                try:
                    subject = call_subject(spec, blocker.arguments or {}, ToolEnv(workdir=workdir))
                except (ToolError, OSError):
                    subject = None
            if subject is None:
                subject = (blocker.arguments or {}).get(spec.subject) if spec.subject else None
            # the subject as written: its own * ? [ are characters, not wildcards
            pattern = (re.sub(r"([*?[])", r"[\1]", subject)
                       if isinstance(subject, str) and subject else "*")
        return Rule(tool=spec.name, pattern=pattern, action="allow")
