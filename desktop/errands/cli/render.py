"""Human-readable output. ``--json`` output bypasses this module entirely."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Sequence

from ..errors import ErrandsError
from ..records import Automation, Run
from ..schedule import describe
from ..timeutil import format_instant, parse_instant


def local(value: datetime | None) -> str:
    """An instant in this machine's zone, to the second, with its offset."""
    if value is None:
        return "—"
    return value.astimezone().strftime("%Y-%m-%d %H:%M:%S %z")


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    rows = [list(map(str, r)) for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def automation_list(items: list[Automation], *, archived: bool = False,
                    others: int = 0) -> str:
    """``archived``: the list of archived ones; ``others``: how many the list leaves out
    (archived ones in the plain list, the rest in the archived one)."""
    return _automation_table([(a.id, a.status, a.next_fire_at, a.title,
                               describe(a.definition.trigger) if a.definition
                               else f"cannot be loaded: {a.problem}",
                               a.definition.runs_on if a.definition else "any")
                              for a in items], archived, others)


def automation_docs(docs: list[dict[str, Any]], *, archived: bool = False,
                    others: int = 0) -> str:
    """``automation_list`` from the engine's answer (``to_dict`` of each automation)."""
    from ..definition import trigger_of
    from ..records import load_trigger

    def schedule(doc: dict[str, Any]) -> str:
        if "problem" in doc:  # (a broken automation's document: no definition in it)
            return f"cannot be loaded: {doc['problem']}"
        try:
            return describe(load_trigger(trigger_of(doc)))
        except ErrandsError as exc:
            return f"cannot be loaded: {exc}"

    return _automation_table([(d["id"], d.get("status", "broken"),
                               parse_instant(d["next_fire_at"]) if d.get("next_fire_at")
                               else None, d.get("title", ""), schedule(d),
                               str(d.get("runs_on") or "any")) for d in docs],
                             archived, others)


def _automation_table(rows: list[tuple[str, str, datetime | None, str, str, str]],
                      archived: bool, others: int) -> str:
    """The list; with a RUNS ON column when some automation is bound to a machine (a
    shared catalogue's)."""
    if not rows and archived:
        return "No archived automations."
    if not rows and others:
        return f"No automations but {others} archived (errands list --archived)."
    if not rows:
        return "No automations yet. Create one with: errands add --title T --command C --schedule SPEC"
    if all(runs_on == "any" for *_, runs_on in rows):
        return table(("ID", "STATUS", "NEXT FIRE", "TITLE", "SCHEDULE"),
                     [(ident[:8], status, local(next_fire), title, schedule)
                      for ident, status, next_fire, title, schedule, _ in rows])
    return table(("ID", "STATUS", "NEXT FIRE", "RUNS ON", "TITLE", "SCHEDULE"),
                 [(ident[:8], status, local(next_fire), runs_on, title, schedule)
                  for ident, status, next_fire, title, schedule, runs_on in rows])


def archived(a: Automation, archiving: bool, changed: bool) -> str:
    """What ``archive`` / ``unarchive`` did."""
    short = a.id[:8]
    if archiving:
        if not changed:
            return f"{a.title} was already archived; nothing changed"
        return (f"Archived {a.title}: it will not fire or run again; its runs, transcripts, "
                f"revisions and output logs are kept (errands runs {short}). "
                f"Bring it back with: errands unarchive {short}")
    if not changed:
        return f"{a.title} is not archived; nothing changed"
    if a.status == "completed":
        return f"Unarchived {a.title}: it has completed, as before it was archived"
    return (f"Unarchived {a.title}: it is paused; resume it to fire again: "
            f"errands resume {short}")


def deleted(title: str, ident: str, destroyed: dict[str, int], logs: int,
            folder: object) -> str:
    """What ``delete`` destroyed and what it kept."""
    def count(n: int, one: str, many: str) -> str:
        return f"{n} {one if n == 1 else many}"
    lines = [f"Deleted {title} ({ident})"]
    if destroyed:
        lines.append("  destroyed    " + ", ".join([
            count(destroyed.get("runs", 0), "run", "runs"),
            count(destroyed.get("transcripts", 0), "transcript", "transcripts"),
            count(destroyed.get("revisions", 0), "revision", "revisions")]))
    kept = f"{count(logs, 'output log', 'output logs')} in {folder}, " if logs else ""
    lines.append(f"  kept         {kept}the audit trail (errands history {ident})")
    return "\n".join(lines)


def broken_detail(a: Automation) -> str:
    """What is wrong with a broken automation and the ways to repair it."""
    short = a.id[:8]
    return "\n".join([
        f"{a.title}",
        f"  id           {a.id}",
        "  status       broken: its stored definition cannot be loaded, so it never runs",
        f"  problem      {a.problem}",
        f"  revision     {a.revision}   updated {local(a.updated_at)}",
        f"  repair       errands export {short} --definition > fixed.json   (as stored)",
        "               correct fixed.json, then",
        f"               errands edit {short} --from-json fixed.json",
        f"  or           errands delete {short}",
    ])


def automation_detail(a: Automation) -> str:
    d = a.definition
    if d is None:
        return broken_detail(a)
    what = (f"agent: {d.runner.prompt}" if d.runner.kind == "agent"  # type: ignore[union-attr]
            else f"notify: {d.runner.message}" if d.runner.kind == "notify"  # type: ignore[union-attr]
            else f"script: {len(d.runner.source.splitlines())} lines of JavaScript "  # type: ignore[union-attr]
                 "('errands show ID --json' has it)" if d.runner.kind == "script"
            else f"command: {d.runner.command}")  # type: ignore[union-attr]
    lines = [
        f"{a.title}",
        f"  id           {a.id}",
        f"  status       {a.status}" + (
            f" (it never fires; 'errands unarchive {a.id[:8]}' brings it back)"
            if a.status == "archived" else f" ({a.paused_reason})" if a.paused_reason else ""),
        f"  runs         {what}",
        f"  schedule     {describe(d.trigger)}",
        f"  next fire    {local(a.next_fire_at)}",
        f"  revision     {a.revision}   failure streak {a.failure_streak}",
        f"  misfire      {d.misfire} (catch-up max age {d.to_dict()['catch_up_max_age']})"
        f"   overlap {d.overlap}",
    ]
    if d.policy.history_limit is not None:  # (otherwise the run_history_limit setting)
        lines.append(f"  history      keeps its newest {d.policy.history_limit} ended runs")
    if d.runs_on != "any":
        lines.append(f"  runs on      {d.runs_on} (on a shared catalogue, only that machine's "
                     "engine runs it)")
    if d.worktree:
        lines.append(f"  worktree     each run in its own git worktree of {d.workdir}")
    stop = d.to_dict()["stop"]
    if any(stop.values()):
        parts = []
        if stop["max_runs"]:
            parts.append(f"after {stop['max_runs']} runs")
        if stop["until"]:
            parts.append(f"at {stop['until']}")
        if stop["when_condition_met"]:
            parts.append("when a run reports its condition met")
        lines.append("  stops        " + ", ".join(parts))
    lines.append(f"  created      {local(a.created_at)}   updated {local(a.updated_at)}")
    return "\n".join(lines)


def run_summary(r: Run) -> str:
    from ..engine.folders import waiting_for

    missed = ""
    if r.missed_count and r.missed_count > 1:
        missed = f"fires {local(r.missed_first)} … {local(r.missed_last)}"
    if r.state == "skipped":
        merged = (r.details or {}).get("coalesced") if isinstance(r.details, dict) else None
        if isinstance(merged, dict) and isinstance(merged.get("records"), int):
            missed += f"{'; ' if missed else ''}{merged['records']} records merged"
        return (r.skip_reason or "") + (f" ({missed})" if missed else "")
    waiting = waiting_for(r.details) if r.state == "scheduled" else None
    if waiting is not None:
        who = waiting.get("title") or "another automation"
        return f"waiting for the folder {waiting.get('folder')} (in use by {who})"
    if r.error_code:
        text = f"{r.error_code}: {r.error_message or ''}"
    else:
        text = (r.result or "").replace("\n", " ")[:80]
    if r.trigger == "catch_up" and missed:
        text = f"caught up {missed}" + (f"; {text}" if text else "")
    return text


def _action_target(a: dict[str, Any]) -> str:
    for key in ("path", "key", "automation", "subject", "message"):
        if a.get(key) is not None:
            target = str(a[key])
            if a.get("to") is not None:
                target += f" -> {a['to']}"
            return target
    if a.get("from") is not None:
        return f"{a['from']} -> {a.get('to')}"
    return ""


def script_record(doc: dict[str, Any], verdict_key: str) -> list[str]:
    """A script run's (or dry run's) actions and log as lines."""
    lines = []
    for a in doc.get("actions") or []:
        ok = a.get(verdict_key)
        mark = "ok " if ok else ("=  " if (a.get("reason") or "").startswith("already holds")
                                 else "no ")
        reason = f"  ({a['reason']})" if a.get("reason") else ""
        lines.append(f"  {mark}{a.get('type')} {_action_target(a)}{reason}")
    for line in doc.get("log") or []:
        lines.append(f"  log: {line}")
    return lines


def script_trial(doc: dict[str, Any]) -> str:
    head = f"Dry run: {doc.get('status')}"
    if doc.get("limit_hit"):
        head += f" (limit {doc['limit_hit']})"
    if doc.get("error"):
        head += f": {doc['error']}" + (f" (line {doc['line']})" if doc.get("line") else "")
    head += f" in {doc.get('duration_ms')} ms, {doc.get('reads')} reads"
    rows = script_record(doc, "would_apply")
    if not doc.get("actions"):
        rows.insert(0, "  it proposes nothing")
    return "\n".join([head, *rows, "Nothing was applied or recorded."])


def over_existing(doc: dict[str, Any]) -> str:
    lines = [f"{doc['total']} files in scope; these {len(doc['results'])} from {doc['offset']}:"]
    for r in doc["results"]:
        if "actions" in r:
            would = sum(1 for a in r["actions"] if a.get("would_apply"))
            lines.append(f"  {r['path']}: {r['status']}, would apply {would} of "
                         f"{len(r['actions'])}")
        else:
            lines.append(f"  {r['path']}: " + (f"run #{r['index']} {r['state']}"
                                               if r.get("run") else str(r.get("state"))))
    if doc.get("more"):
        lines.append(f"More: --offset {doc['next_offset']}")
    return "\n".join(lines)


def run_list(runs: list[Run], next_cursor: str | None) -> str:
    if not runs:
        return "No runs yet."
    out = table(("#", "STATE", "TRIGGER", "SCHEDULED", "STARTED", "FINISHED", "ATTEMPT", "MISSED",
                 "DETAIL"),
                [(r.index, r.state + (" (dry run)" if r.dry_run else ""), r.trigger,
                  local(r.scheduled_for), local(r.started_at), local(r.finished_at),
                  r.attempt, "" if r.missed_count is None else r.missed_count, run_summary(r))
                 for r in runs])
    if next_cursor:
        out += f"\nMore: --cursor {next_cursor}"
    return out


def marked(item: int | None, count: int) -> str:
    """What ``attention read`` did, naming the item (a bare count read like an item id)."""
    if item is not None:
        return (f"Marked item {item} as read." if count else
                f"Item {item} was already read; nothing changed.")
    if not count:
        return "Nothing to mark: no unread items."
    return f"Marked {count} item{'s' if count != 1 else ''} as read."


def fires(items: list[datetime], description: str) -> str:
    lines = [description]
    lines += [f"  {format_instant(f)}   {local(f)}" for f in items]
    return "\n".join(lines)



def webhook_tokens(hooks: list[dict[str, str]]) -> str:
    """New webhook tokens, said once: they are not kept and cannot be shown again."""
    if not hooks:
        return ""
    lines = ["", "Webhook (the token is shown only now; 'errands webhook ID --rotate TRIGGER' "
             "makes a new one):"]
    for hook in hooks:
        lines += [f"  {hook['trigger']}: POST {hook['url']}",
                  f"  Authorization: Bearer {hook['token']}"]
    return "\n".join(lines)
