"""Real run documents for the session view and real attention items for the inbox: a real
engine on its own thread (as the app hosts it), the real agent runner against the scripted
OpenAI-compatible server on 127.0.0.1, real shell commands, all read back through the
facade (``api.run``, ``api.attention``) exactly as the window will read them."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from errands.db.location import ServerDatabase
from errands.engine.api import Api
from errands.engine.service import EngineThread
from errands.errors import ErrandsError
from errands.records import AttentionItem, Decision
from openai_server import ScriptedServer, call, say
from pg_support import location_for

ANSWER = """## Disk report

The repository is **clean**:

- nothing to commit
- branch `main`

| volume | free |
|---|---|
| / | 41% |
"""


@dataclass
class Docs:
    """What ``api.run`` answered for each run, by name, and the inbox as it stood."""

    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    automations: dict[str, str] = field(default_factory=dict)   # title → id
    titles: dict[str, str] = field(default_factory=dict)        # id → title
    attention: list[AttentionItem] = field(default_factory=list)
    data_dir: Path | None = None
    catalogue: Path | ServerDatabase | None = None                # the engine's
    refusal: str = ""                                             # a reply the engine refused


def agent_doc(title: str, prompt: str, workdir: Path, **extra: Any) -> dict[str, Any]:
    doc = {"title": title, "runner": {"kind": "agent", "prompt": prompt},
           "trigger": {"kind": "manual"}, "workdir": str(workdir),
           "policy": {"retry": {"max_attempts": 1}}}
    doc.update(extra)
    return doc


def command_doc(title: str, command: str, workdir: Path) -> dict[str, Any]:
    return {"title": title, "runner": {"kind": "command", "command": command},
            "trigger": {"kind": "manual"}, "workdir": str(workdir),
            "policy": {"retry": {"max_attempts": 1}}}


async def _run(api: Api, docs: Docs, name: str, automation_id: str) -> dict[str, Any]:
    run = (await api.run_now(automation_id, wait=True)).value
    doc = (await api.run(run.id)).value
    docs.runs[name] = doc
    return doc


async def _build(tmp_path: Path) -> Docs:
    docs = Docs(data_dir=tmp_path / "data")
    docs.catalogue = location_for(docs.data_dir)   # (the engine's choice names it too)
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("the answer is 42\n")
    server = ScriptedServer().start()
    host = EngineThread(docs.data_dir, listen=False, role="app")
    api = await host.start()
    try:
        await api.set_setting("provider_base_url", server.base_url)
        await api.set_setting("provider_model", "scripted-model")

        async def add(doc: dict[str, Any]) -> str:
            automation = (await api.create(doc)).value[0]
            docs.automations[automation.title] = automation.id
            docs.titles[automation.id] = automation.title
            return automation.id

        # an agent that runs an allowed command, reads a file, then answers in markdown
        tool_user = await add(agent_doc(
            "Repo check", "Is the repository clean?", work,
            permissions={"mode": "allow_listed", "tools": ["run_command"]}))
        server.play(call("run_command", {"command": "echo clean; exit 0"}),
                    call("read_file", {"path": "notes.txt"}),
                    say(ANSWER, prompt_tokens=120, completion_tokens=40))
        await _run(api, docs, "agent", tool_user)

        # a follow-up in that run's session: a discussion of the run, not a second run
        from errands.app.detail.session import discussion_page
        first = docs.runs["agent"]
        server.play(say("Done: *nothing else* to do.", prompt_tokens=200, completion_tokens=7))
        follow = (await api.reply(first["session_id"], "Anything else?")).value
        docs.runs["follow_up"] = discussion_page(
            (await api.discussion(follow["session_id"])).value)

        # an agent whose command needs approval: parked on a permission, then approved
        asker = await add(agent_doc("Builder", "Build the site.", work))
        server.play(call("run_command", {"command": "echo built > site.txt"}),
                    say("Built the site."))
        parked = await _run(api, docs, "permission", asker)
        try:  # a follow-up while it waits is refused: the engine's words, for reply_failed
            await api.reply(parked["session_id"], "go on")
        except ErrandsError as exc:
            docs.refusal = str(exc)
        await api.decide(parked["id"], Decision(kind="approve_once"))
        for _ in range(500):
            doc = (await api.run(parked["id"])).value
            if doc["state"] not in ("scheduled", "running", "awaiting_input"):
                break
            await asyncio.sleep(0.01)
        docs.runs["approved"] = doc

        # an agent asking a question: parked on it
        questioner = await add(agent_doc("Branch picker", "Deploy the right branch.", work))
        server.play(call("ask_user", {"question": "Which branch?", "choices": ["main", "dev"]}))
        await _run(api, docs, "question", questioner)

        # real commands: one that succeeds, one that fails (a failure in the inbox)
        ok = await add(command_doc("Say hello", "echo hello; echo warning >&2", work))
        await _run(api, docs, "command", ok)
        broken = await add(command_doc("Nightly backup", "echo copying; echo 'disk full' >&2; "
                                       "exit 3", work))
        await _run(api, docs, "failed_command", broken)

        docs.attention = (await api.attention()).value
    finally:
        await host.close()
        server.close()
    return docs


def build(tmp_path: Path) -> Docs:
    return asyncio.run(_build(tmp_path))
