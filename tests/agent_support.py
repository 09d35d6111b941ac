"""An engine with the real agent runner against a scripted OpenAI-compatible server (shared by
the agent-run tests and the hostile-agent suite)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from errands.runners.agent import AgentRunner
from errands.agent.provider import ProviderConfig
from errands.records import Decision, Run
from engine_support import Harness
from openai_server import ScriptedServer


class AgentHarness(Harness):
    server: ScriptedServer
    workdir: Path

    def _new_engine(self) -> Any:
        engine = super()._new_engine()
        engine.runners["agent"] = AgentRunner(config=self._config)
        return engine

    async def _config(self, ctx: Any) -> ProviderConfig:
        return ProviderConfig(self.server.base_url, "scripted-model",
                              timeout=timedelta(seconds=5))

    async def agent(self, title: str = "agent", prompt: str = "Do the thing.", *,
                    trigger: dict[str, Any] | None = None, **extra: Any) -> str:
        doc: dict[str, Any] = {"title": title, "runner": {"kind": "agent", "prompt": prompt},
                               "trigger": trigger or {"kind": "manual"},
                               "workdir": str(self.workdir),
                               "policy": {"retry": {"max_attempts": 1}}}
        for key, value in extra.items():
            doc[key] = {**doc.get(key, {}), **value} if isinstance(value, dict) else value
        automation, _ = await self.engine.commands.create(doc)
        return automation.id

    async def run(self, automation_id: str, **kw: Any) -> Run:
        run = await self.engine.commands.run_now(automation_id, **kw)
        return await self.engine.commands.wait_run(run.id)

    async def decide(self, run: Run, kind: str, text: str | None = None) -> Run:
        await self.engine.commands.decide(run.id, Decision(kind=kind, text=text))  # type: ignore[arg-type]
        return await self.engine.commands.wait_run(run.id)

    def transcript(self, run: Run) -> list[dict[str, Any]]:
        assert run.session_id
        return [{"role": m.role, **m.content} for m in self.store.messages(run.session_id)]


def last_tool_result(server: ScriptedServer, index: int = -1) -> str:
    return [m for m in server.requests[index]["messages"] if m["role"] == "tool"][-1]["content"]

@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.close()


@pytest.fixture
async def h(tmp_path: Path, server: ScriptedServer) -> AsyncIterator[AgentHarness]:
    harness = AgentHarness(tmp_path, max_sleep=3600)
    harness.server = server
    harness.workdir = tmp_path / "work"
    harness.workdir.mkdir()
    await harness.engine.start()
    yield harness
    await harness.stop()
