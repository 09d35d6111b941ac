"""Discussions: a conversation forked from an agent automation's finished run N (seed 000
"Discussions", "Read-only mounts").

A discussion is a session of its own (kind ``discussion``, id ``d-…``), never one of the
automation's runs: nothing of it is written into the automation's history, it has no run
number, and it counts toward nothing (streaks, limits, stop conditions, retention). It is
seeded once with the automation's conversation through run N (each run's question and its
answer, a failed run's answer saying so), which the history window replays like any earlier
turn (oldest dropped first, whole turns only). Each question is a *turn*: the automation's
agent, with the automation's folder mounted read-only and a writable folder of its own
(``discussions/<id>`` in the data folder), and without the automation's tool grant: every
tool that asks in a plain chat asks here. A turn that needs approval waits in the
discussion (the call stays unanswered in its transcript) until the person decides; the
decision is the discussion's alone, never saved as a rule on the automation.

Everything a discussion is, is in its transcript: its first message names the run it was
forked from, its state is read from its end (a call without a result waits), so it can be
continued any time later, after a restart too.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..catalog import refuse_archived
from ..definition import AgentTask, Context, Permissions
from ..errors import Conflict, InvalidInput, NotFound
from ..ledger.transcripts import RunTranscript
from ..paths import workspace_path
from ..records import Blocker, Decision
from ..runners.contract import Resume, RunContext

if TYPE_CHECKING:
    from ..records import Automation
    from ..store import Store
    from .core import Engine

log = logging.getLogger(__name__)

KIND = "discussion"
SEED_RUNS = 200          # at most this many runs seed a discussion (the window keeps fewer)
ENDED = ("succeeded", "failed", "cancelled", "expired", "interrupted")


def discussions_path(data_dir: Path, session_id: str) -> Path:
    return data_dir / "discussions" / session_id


def seed_of(store: Store, automation: Automation, through: int) -> list[dict[str, Any]]:
    """The automation's conversation through run ``through``: each run's question and its
    answer (or what became of it), oldest first, as transcript messages (reader thread)."""
    runs, _ = store.runs_page(automation.id, limit=SEED_RUNS, cursor=f"r{through + 1}")
    out: list[dict[str, Any]] = []
    for run in sorted(runs, key=lambda r: r.index):
        if run.index > through or run.dry_run or run.state not in ENDED or not run.session_id:
            continue
        mine = [m for m in store.messages(run.session_id)
                if isinstance(m.content, dict) and m.content.get("run_id") == run.id]
        asked = next((m for m in mine if m.content.get("turn") in ("prompt", "reply")), None)
        if asked is None:
            continue
        answer = next((m for m in reversed(mine) if m.content.get("turn") == "final"), None)
        said = (answer.content.get("content") if answer is not None else
                f"(run #{run.index} {run.state}"
                + (f": {run.error_message}" if run.error_message else "") + ")")
        seed_id = f"seed-{run.id}"
        flags = {k: True for k in ("untrusted", "from_mail")
                 if any(m.content.get(k) for m in mine)}
        out.append({"role": "user", "content": {"content": asked.content.get("content"),
                                                "turn": "prompt", "run_id": seed_id,
                                                "run_index": run.index, **flags}})
        out.append({"role": "assistant", "content": {"content": said, "turn": "final",
                                                     "run_id": seed_id}})
    return out


def state_of(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """What a discussion's transcript says of it: its head, its turns, and whether a call
    waits for the person (the last assistant step's first call without a result)."""
    head = next((m for m in messages if m.get("turn") == "discussion"), {})
    waiting = None
    last_step = None
    answered: set[str] = set()
    for m in messages:
        if m.get("role") == "assistant" and m.get("tool_calls"):
            last_step = m
            answered = set()
        elif m.get("role") == "tool":
            answered.add(str(m.get("tool_call_id")))
        elif m.get("role") == "assistant":
            last_step = None
    if last_step is not None:
        for call in last_step.get("tool_calls") or ():
            fn = call.get("function") or {}
            if str(call.get("id")) not in answered:
                try:
                    arguments = json.loads(fn.get("arguments") or "{}")
                except ValueError:
                    arguments = {"raw": fn.get("arguments")}
                waiting = {"kind": "question" if fn.get("name") == "ask_user" else "permission",
                           "tool": fn.get("name"), "arguments": arguments,
                           "turn": last_step.get("run_id")}
                break
    finals = [m for m in messages if m.get("turn") == "final"
              and not str(m.get("run_id", "")).startswith("seed-")]
    questions = [m for m in messages if m.get("turn") == "reply"]
    last = finals[-1] if finals else {}
    return {"automation_id": head.get("automation_id"), "run_id": head.get("forked_from"),
            "run_index": head.get("run_index"), "mount": head.get("mount"),
            "workspace": head.get("workspace"), "turns": len(questions),
            "answer": last.get("content"), "error": last.get("error"), "waiting": waiting}


class Discussions:
    """Starts, continues and decides discussions on the engine's loop."""

    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self._turns: dict[str, asyncio.Task[dict[str, Any]]] = {}
        self._whose: dict[str, str] = {}   # session id -> automation id, while a turn runs
        self._claimed: set[str] = set()    # discussions a command acts on now (one at a time)
        self._starting: dict[str, asyncio.Future[None]] = {}  # starts by request id, writing

    # ------------------------------------------------------------------ commands

    async def start(self, automation_id: str, run_index: int, text: str, *,
                    request_id: str | None = None) -> dict[str, Any]:
        """A new discussion of run ``run_index``, and its first turn (the answer, or what
        it waits for). Repeating ``request_id`` gives the same discussion, also while the
        first is being written."""
        if not 1 <= run_index <= 2 ** 62:
            raise InvalidInput("run", f"no run #{run_index}", "a run's number, from 1", "3")
        automation = await self.e.read(self.e.store.get, automation_id)
        self.e.fleet.refuse_elsewhere(automation)  # (its agent works in that machine's folder)
        session_id = "d-" + str(uuid.uuid5(uuid.UUID(automation.id), f"discuss:{request_id}")
                                if request_id else uuid.uuid4())
        if not request_id:
            return await self._start(automation, run_index, text, session_id)
        pending = self._starting.get(session_id)
        if pending is not None:  # the same request, being written: its discussion
            await asyncio.gather(asyncio.shield(pending), return_exceptions=True)
            return await self.get(session_id)
        writing = self._starting[session_id] = asyncio.get_running_loop().create_future()
        try:
            if await self._exists(session_id):
                return await self.get(session_id)
            return await self._start(automation, run_index, text, session_id)
        finally:
            del self._starting[session_id]
            writing.set_result(None)

    async def _start(self, automation: Automation, run_index: int, text: str,
                     session_id: str) -> dict[str, Any]:
        refuse_archived(automation.id, automation.title, automation.status)
        d = automation.definition
        if d is None or not isinstance(d.runner, AgentTask):
            raise InvalidInput("id", "only an agent automation's runs can be discussed",
                               "the id of an agent automation", "errands discuss 3f2a --run 2 "
                               "'why did it skip the tests?'")
        run = await self.e.read(self.e.store.run_by_index, automation.id, run_index)
        if run.state not in ENDED:
            raise Conflict("not_finished", f"run #{run.index} of {automation.title} is "
                           f"{run.state}; a run can be discussed once it has ended")
        self._claim(session_id)
        try:
            seed = await self.e.read(seed_of, self.e.store, automation, run.index)
            mount = (Path(d.workdir) if d.workdir
                     else workspace_path(self.e.data_dir, automation.id))
            workspace = discussions_path(self.e.data_dir, session_id)
            await asyncio.to_thread(workspace.mkdir, parents=True, exist_ok=True)
            transcript = self._transcript(automation, session_id, "head", None)
            transcript.append("system", {
                "turn": "discussion", "content": None, "run_id": "head",
                "automation_id": automation.id, "forked_from": run.id,
                "run_index": run.index, "mount": str(mount), "workspace": str(workspace),
                "title": automation.title})
            for message in seed:
                transcript.append(message["role"], message["content"])
        finally:
            self._claimed.discard(session_id)
        shown = sum(1 for m in seed if m["role"] == "user")
        intro = (f"[Automation \"{automation.title}\": {shown} run(s) through run "
                 f"#{run.index} above (the oldest may be left out). The automation's files "
                 f"are mounted READ-ONLY at {mount}; your own workspace {workspace} is "
                 "writable. This is a discussion with the user about the automation, not "
                 "one of its runs.]\n\n")
        return await self.say(session_id, text, preamble=intro)

    async def say(self, session_id: str, text: str, *, preamble: str = "") -> dict[str, Any]:
        """A question in a discussion: its turn runs to its answer or to what it waits
        for. Refused while a turn is under way or a call waits for a decision."""
        self._claim(session_id)
        try:
            messages = await self._messages(session_id)
            state = state_of(messages)
            if state["waiting"] is not None:
                raise Conflict("waiting", "the discussion waits for your decision on "
                               f"{state['waiting']['tool']}; approve or deny it first")
            automation = await self._automation(state)
        except BaseException:
            self._claimed.discard(session_id)
            raise
        turn_id = str(uuid.uuid4())
        question: dict[str, Any] = {"content": preamble + text, "turn": "reply",
                                    "attempt": 1, "run_id": turn_id}
        if preamble:  # (what the model is told first; the person sees what they typed)
            question["shown"] = text
        self._transcript(automation, session_id, turn_id, state.get("run_id")).append(
            "user", question)
        return await self._run_turn(automation, session_id, turn_id, state, None)

    async def decide(self, session_id: str, decision: Decision) -> dict[str, Any]:
        """The person's decision on what the discussion waits for; its turn goes on (once:
        a second decision sent meanwhile is refused)."""
        self._claim(session_id)
        try:
            messages = await self._messages(session_id)
            state = state_of(messages)
            waiting = state["waiting"]
            if waiting is None:
                raise Conflict("not_parked", "the discussion waits for nothing")
            if waiting["kind"] == "question" and decision.kind not in ("answer", "deny"):
                raise InvalidInput("decision", "the discussion asks a question", "answer "
                                   "TEXT or deny", "answer")
            if waiting["kind"] == "permission" and decision.kind == "answer":
                raise InvalidInput("decision", "the discussion waits for an approval",
                                   "approve or deny", "approve_once")
            if decision.kind == "approve_always":  # a discussion saves no rule
                decision = replace(decision, kind="approve_once", rule=None)
            automation = await self._automation(state)
        except BaseException:
            self._claimed.discard(session_id)
            raise
        blocker = Blocker(kind=waiting["kind"], tool=waiting["tool"],
                          arguments=waiting["arguments"])
        return await self._run_turn(automation, session_id, str(waiting["turn"]), state,
                                    Resume(blocker, decision))

    async def get(self, session_id: str, *, transcript: bool = False) -> dict[str, Any]:
        """Where the discussion stands (``transcript``: with its messages as stored)."""
        messages = await self._messages(session_id)
        state = state_of(messages)
        doc = {"session_id": session_id, **state, "working": session_id in self._turns}
        if transcript:
            found = await self.e.read(self.e.store.messages, session_id)
            doc["transcript"] = [m.to_dict() for m in found]
        return doc

    async def of_automation(self, automation_id: str, run_index: int | None = None
                            ) -> list[dict[str, Any]]:
        """The automation's discussions (of one run), newest first."""
        found = await self.e.read(self.e.store.sessions_of, automation_id, KIND)
        out = []
        for info in found:
            doc = await self.get(info.id)
            if run_index is None or doc["run_index"] == run_index:
                out.append({**doc, "title": info.title,
                            "updated_at": info.to_dict().get("updated_at")})
        return out

    def _claim(self, session_id: str) -> None:
        """One command at a time acts on a discussion (checked and taken in one step)."""
        if session_id in self._claimed:
            raise Conflict("busy", "the discussion is still answering (or being decided); "
                           "wait for it")
        self._claimed.add(session_id)

    async def forget(self, automation_id: str) -> list[Path]:
        """Before an automation is deleted: its turns under way are cancelled; the folders
        of its discussions, for the caller to remove once it is gone."""
        turns = [t for sid, t in self._turns.items() if self._whose.get(sid) == automation_id]
        for task in turns:
            task.cancel()
        await asyncio.gather(*turns, return_exceptions=True)
        found = await self.e.read(self.e.store.sessions_of, automation_id, KIND)
        return [discussions_path(self.e.data_dir, info.id) for info in found]

    async def stop(self, grace: float) -> None:
        """Turns under way get ``grace`` seconds, then are cancelled: a call it was making
        is left without a result, so the discussion waits for the person's decision on it
        at the next start (nothing of it is lost)."""
        turns = list(self._turns.values())
        if not turns:
            return
        _done, pending = await asyncio.wait(turns, timeout=grace)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    # ------------------------------------------------------------------ a turn

    async def _run_turn(self, automation: Automation, session_id: str, turn_id: str,
                        state: dict[str, Any], resume: Resume | None) -> dict[str, Any]:
        task = asyncio.get_running_loop().create_task(
            self._turn(automation, session_id, turn_id, state, resume))
        self._turns[session_id] = task
        self._whose[session_id] = automation.id

        def ended(_task: object = None) -> None:
            self._turns.pop(session_id, None)
            self._whose.pop(session_id, None)
            self._claimed.discard(session_id)
        try:
            return await asyncio.shield(task)
        finally:
            if task.done():
                ended()
            else:
                task.add_done_callback(ended)

    async def _turn(self, automation: Automation, session_id: str, turn_id: str,
                    state: dict[str, Any], resume: Resume | None) -> dict[str, Any]:
        d = automation.definition
        assert d is not None
        runner = self.e.runners.get("agent")
        if runner is None:
            raise Conflict("no_runner", "agent runs are not available here")
        workspace = Path(state["workspace"])
        await asyncio.to_thread(workspace.mkdir, parents=True, exist_ok=True)
        task = d.runner
        assert isinstance(task, AgentTask)
        # no grant, and no MCP servers: their tools could change what is mounted read-only
        plain = replace(d, runner=replace(task, mcp_servers=()), permissions=Permissions(),
                        workdir=str(workspace), worktree=False,
                        context=Context(mode="continue",
                                        max_history_tokens=d.context.max_history_tokens))
        ctx = RunContext(
            automation_id=automation.id, run_id=turn_id, run_index=int(state["run_index"]),
            attempt=1, scheduled_for=None, definition=plain, workdir=workspace,
            log_path=workspace / ".turn.log", timeout=d.policy.timeout,
            session=self._transcript(automation, session_id, turn_id, state.get("run_id")),
            resume=resume,
            services=self.e.services,  # type: ignore[arg-type]
            data_dir=self.e.data_dir, mounts=(Path(state["mount"]),) if state["mount"] else (),
            discussion=session_id)
        error: dict[str, Any] | None
        try:
            outcome = await runner.run(ctx)
        except Exception as exc:  # a runner bug fails the turn, never the engine
            log.exception("discussion %s: a turn crashed", session_id)
            error = {"code": "internal", "message": f"{type(exc).__name__}: {exc}"}
        else:
            error = ({"code": outcome.error_code, "message": outcome.error_message}
                     if outcome.state == "failed" else None)
        if error is not None:  # said in the discussion itself: whoever opens it reads it
            ctx.session.append("assistant", {  # type: ignore[union-attr]
                "content": f"(This turn ended without an answer: {error['message']})",
                "turn": "final", "error": error, "run_id": turn_id, "attempt": 1})
        await self.e.ledger.group.settled()
        self.e.events.publish("run_changed", automation_id=automation.id,
                              run_id=state.get("run_id"),
                              data={"discussion": session_id, "transcript": True})
        doc = await self.get(session_id)
        doc["working"] = False
        return doc

    # ------------------------------------------------------------------ helpers

    def _transcript(self, automation: Automation, session_id: str, turn_id: str,
                    forked: str | None) -> RunTranscript:
        """Its transcript; each message is announced (a window open on the discussion, or
        on the run it was forked from, shows it as it comes)."""
        d = automation.definition
        title = f"Discussion of {d.title if d else automation.title}"

        def grew() -> None:
            self.e.events.publish("run_changed", automation_id=automation.id, run_id=forked,
                                  data={"discussion": session_id, "transcript": True})
        return RunTranscript(self.e.ledger, self.e.clock.now, session_id=session_id,
                             kind=KIND, automation_id=automation.id, run_id=turn_id,
                             title=title, on_append=grew if forked else None)

    async def _messages(self, session_id: str) -> list[dict[str, Any]]:
        if not session_id.startswith("d-"):
            raise InvalidInput("session", f"{session_id!r} is not a discussion",
                               "a discussion's session id (d-…)", "d-3f2a91c0-…")
        await self.e.ledger.group.settled()
        info = await self.e.read(self.e.store.session, session_id)  # NotFound names it
        if info.kind != KIND:
            raise InvalidInput("session", f"{session_id!r} is not a discussion",
                               "a discussion's session id (d-…)", "d-3f2a91c0-…")
        found = await self.e.read(self.e.store.messages, session_id)
        return [{"role": m.role, **m.content} for m in found if isinstance(m.content, dict)]

    async def _exists(self, session_id: str) -> bool:
        try:
            await self.e.read(self.e.store.session, session_id)
        except NotFound:
            return False
        return True

    async def _automation(self, state: dict[str, Any]) -> Automation:
        automation_id = state.get("automation_id")
        if not automation_id:
            raise NotFound("this discussion's automation is gone")
        automation = await self.e.read(self.e.store.get, automation_id)
        if automation.definition is None or not isinstance(automation.definition.runner,
                                                           AgentTask):
            raise Conflict("not_agent", f"{automation.title} is no longer an agent "
                           "automation; its discussions can be read, not continued")
        return automation

