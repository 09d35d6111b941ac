"""Script runs (seed 003): the script proposes in a sandbox worker, Errands disposes.

One attempt: the job (source, limits, event, state, earlier runs, the folder and rules) goes
to a worker (:mod:`errands.scripts.pool`); what comes back is a status and the proposed
actions. Unless the script failed, each action is checked (paths against the folder and
the rules, automations that must exist, a mail account that must be set up), and the
survivors are applied together: file changes staged and then moved into place, state
changes and notices with the run's close (``Outcome.script_state``, ``Outcome.notify``),
then the automations it asked for and the mail to the user. A run whose every proposal was
refused has failed; one whose actions already held has done its job.

``rehearse`` is the dry run: the same script and checks, nothing applied, nothing recorded.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import datetime, timezone
from typing import Any

from ..definition import Definition, ScriptTask
from ..scripts import effects
from ..scripts.events import event_of
from ..scripts.pool import Pool
from ..scripts.scope import Scope
from .contract import Outcome, RunContext

RECENT_RUNS = 20        # earlier runs a script may read (runs.recent)
MAX_STATE_KEYS = 1000   # a script's state: at most this many keys …
MAX_STATE_BYTES = 256 * 1024   # … and this much as JSON
# A script's run is repeatable (no clock, no randomness): what failed once would fail again
# the same way, so it is not retried (a failure to apply its changes, such as a full disk, is)
SAME_AGAIN = "failed"
SUMMARY_KEYS = ("path", "from", "to", "key", "automation", "subject", "title")


def summary(action: dict[str, Any]) -> dict[str, Any]:
    """What a run's record keeps of an action: its kind and target, not its text."""
    doc = {"type": action["type"]}
    for key in SUMMARY_KEYS:
        if action.get(key) is not None:
            doc[key] = action[key]
    if action["type"] == "notify":
        doc["message"] = str(action.get("message"))[:200]
    return doc


class ScriptRunner:
    kind = "script"
    needs_network = False

    def __init__(self) -> None:
        self.pool = Pool()
        # checks and changes of one script at a time: two runs filing to one name, or
        # appending to one file, see each other (scripts hold no folder while they run)
        self._applying = asyncio.Lock()

    def warm_up(self) -> None:
        self.pool.warm_up()

    async def aclose(self) -> None:
        await self.pool.aclose()

    async def check(self, source: str, limits: dict[str, Any]) -> dict[str, Any]:
        """Whether ``source`` compiles and its top level runs (``{"ok"}`` or the error and
        its line)."""
        return await self.pool.call({"op": "check", "source": source, "limits": limits},
                                    limits["time_ms"] / 1000)

    async def _execute(self, d: Definition, services: Any, automation_id: str, run_id: str,
                       event: dict[str, Any], folder: str | None) -> dict[str, Any]:
        task = d.runner
        assert isinstance(task, ScriptTask)
        state, runs = await services.script_inputs(automation_id, run_id, RECENT_RUNS)
        limits = {name: getattr(task.limits, name)
                  for name in ("time_ms", "heap_mb", "actions", "reads", "rows")}
        scope = Scope.of(folder, d.permissions.rules, services.permission_rules())
        job = {"op": "run", "source": task.source, "limits": limits, "event": event,
               "state": state, "runs": runs, "scope": scope.to_dict()}
        answer = await self.pool.call(job, task.limits.time_ms / 1000)
        answer.setdefault("actions", [])
        answer["_state"], answer["_scope"] = state, scope
        return answer

    async def _verdicts(self, answer: dict[str, Any], services: Any, mail: Any,
                        automation_id: str) -> tuple[list[effects.Verdict], effects.Plan]:
        proposals = [a for a in answer["actions"] if isinstance(a, dict) and "type" in a]
        verdicts, plan = await asyncio.to_thread(effects.check_files, answer["_scope"],
                                                 proposals)
        state = dict(answer["_state"])
        sizes = {k: len(k) + len(json.dumps(v)) for k, v in state.items()}
        total = sum(sizes.values())
        for v in verdicts:
            kind = v.action["type"]
            if kind == "setState":
                key, value = v.action["key"], v.action["value"]
                if state.get(key) == value:
                    v.holds, v.reason = True, "already holds: the state has this value"
                    continue
                size = 0 if value is None else len(key) + len(json.dumps(value))
                grown = total - sizes.get(key, 0) + size
                keys = len(state) + (key not in state and value is not None) - (
                    key in state and value is None)
                if keys > MAX_STATE_KEYS or grown > MAX_STATE_BYTES:
                    v.ok, v.reason = False, (f"the state would hold more than "
                                             f"{MAX_STATE_KEYS} keys or "
                                             f"{MAX_STATE_BYTES // 1024} KB; remove keys "
                                             "with setState(key, null)")
                    continue
                total = grown
                if value is None:
                    state.pop(key, None)
                    sizes.pop(key, None)
                else:
                    state[key], sizes[key] = value, size
            elif kind == "runAutomation":
                found, why = await services.script_target(v.action["automation"])
                if found is None:
                    v.ok, v.reason = False, why
                else:
                    v.action = {**v.action, "automation_id": found}
            elif kind == "mailMe":
                if mail is None or getattr(mail, "account", None) is None:
                    v.ok, v.reason = False, (getattr(mail, "missing", None)
                                             or "no mail account is set up (errands mail add)")
        return verdicts, plan

    async def rehearse(self, d: Definition, services: Any, automation_id: str,
                       event: dict[str, Any], mail: Any, folder: str | None) -> dict[str, Any]:
        """A dry run: the script runs and every proposal is checked; nothing is applied."""
        answer = await self._execute(d, services, automation_id, f"try-{uuid.uuid4()}", event,
                                     folder)
        actions = []
        if answer.get("status") == "ok":
            async with self._applying:
                verdicts, _ = await self._verdicts(answer, services, mail, automation_id)
            for v in verdicts:
                actions.append({**summary(v.action), "would_apply": v.ok and not v.holds,
                                "reason": v.reason})
        else:
            for a in answer["actions"]:
                actions.append({**summary(a), "would_apply": False,
                                "reason": f"the run {answer.get('status')}: nothing is applied"})
        return {**_record(answer), "actions": actions}

    async def run(self, ctx: RunContext) -> Outcome:
        task = ctx.definition.runner
        if not isinstance(task, ScriptTask):
            raise TypeError(f"not a script: runner kind {task.kind!r}")
        services = ctx.services
        at = ctx.scheduled_for or datetime.now(timezone.utc)
        event = event_of(ctx.run_id, at, ctx.trigger, ctx.event)
        folder = str(ctx.workdir)
        if ctx.dry_run:
            doc = await self.rehearse(ctx.definition, services, ctx.automation_id, event,
                                      ctx.mail, folder)
            return Outcome(state="succeeded" if doc["status"] == "ok" else "failed",
                           result=_dry_result(doc), details={"script": doc},
                           error_code=None if doc["status"] == "ok" else f"script_{doc['status']}",
                           error_message=doc.get("error"))
        answer = await self._execute(ctx.definition, services, ctx.automation_id, ctx.run_id,
                                     event, folder)
        record = _record(answer)
        status = record["status"]
        if status != "ok":
            record["actions"] = [{**summary(a), "applied": False,
                                  "reason": f"the run {status}: nothing is applied"}
                                 for a in answer["actions"]]
            where = f" (line {record['line']})" if record.get("line") else ""
            return Outcome(state="failed", error_code=f"script_{status}",
                           error_message=f"{record.get('error') or status}{where}",
                           details={"script": record}, stop_reason=SAME_AGAIN)
        async with self._applying:
            verdicts, plan = await self._verdicts(answer, services, ctx.mail,
                                                  ctx.automation_id)
            failed = None if plan.empty else await asyncio.to_thread(_apply, plan,
                                                                     ctx.run_id[:8])
        if failed is not None:
            what = f"{failed.cause.strerror or failed.cause}" if isinstance(
                failed.cause, OSError) else str(failed.cause)
            if getattr(failed.cause, "filename", None):
                what += f": {failed.cause.filename}"
            word = "undone" if failed.undone else "perhaps partly made"
            record["actions"] = [{**summary(v.action), "applied": False,
                                  "reason": v.reason if not v.ok else
                                  f"{word}: the file changes failed ({what})"}
                                 for v in verdicts]
            return Outcome(state="failed", error_code="script_apply_failed",
                           error_message=f"the file changes could not be made ({word}): "
                                         f"{what}", details={"script": record})
        notify: list[str] = []
        changes: dict[str, Any] = {}
        rows = []
        for v in verdicts:
            kind = v.action["type"]
            if v.ok and not v.holds:
                if kind == "notify":
                    title = v.action.get("title")
                    notify.append(f"{title}: {v.action['message']}" if title
                                  else v.action["message"])
                elif kind == "setState":
                    changes[v.action["key"]] = v.action["value"]
                elif kind == "runAutomation":
                    why = await services.start_for_script(ctx, v.action["automation_id"],
                                                          v.action.get("input"))
                    if why is not None:
                        v.ok, v.reason = False, why
                elif kind == "mailMe":
                    why = await services.mail_for_script(ctx, v.action["subject"],
                                                         v.action["body"])
                    if why is not None:
                        v.ok, v.reason = False, why
            rows.append({**summary(v.action), "applied": v.ok and not v.holds,
                         "reason": v.reason})
        record["actions"] = rows
        proposed = len(rows)
        refused = [r for r in rows if not r["applied"] and not (r["reason"] or "").startswith(
            "already holds")]
        result = record.get("result") or _summary_text(rows)
        if proposed and len(refused) == proposed:
            return Outcome(state="failed", error_code="script_refused",
                           error_message=f"every action was refused: {refused[0]['reason']}",
                           details={"script": record}, notify=[], result=result,
                           stop_reason=SAME_AGAIN)
        return Outcome(state="succeeded", result=result, notify=notify,
                       details={"script": record}, script_state=changes or None)


def _apply(plan: effects.Plan, tag: str) -> effects.ApplyError | None:
    try:
        effects.apply(plan, tag)
    except effects.ApplyError as exc:
        return exc
    return None


def _record(answer: dict[str, Any]) -> dict[str, Any]:
    return {"status": answer.get("status", "failed"), "limit_hit": answer.get("limit_hit"),
            "duration_ms": answer.get("duration_ms"), "memory_peak": answer.get("memory_peak"),
            "reads": answer.get("reads", 0), "truncated": bool(answer.get("truncated")),
            "log": answer.get("log", []), "error": answer.get("error"),
            "line": answer.get("line"), "result": answer.get("result")}


def _summary_text(rows: list[dict[str, Any]]) -> str:
    applied = sum(1 for r in rows if r["applied"])
    if not rows:
        return "proposed nothing"
    return f"{applied} of {len(rows)} actions applied"


def _dry_result(doc: dict[str, Any]) -> str:
    rows = doc["actions"]
    would = sum(1 for r in rows if r["would_apply"])
    return f"would apply {would} of {len(rows)} actions" if rows else "would propose nothing"
