"""Human-readable output. ``--json`` output bypasses this module entirely."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Sequence

from ..records import Automation, Run
from ..schedule import describe
from ..timeutil import format_instant


def local(value: datetime | None) -> str:
    """An instant in this machine's zone, minute precision, with its offset."""
    if value is None:
        return "—"
    return value.astimezone().strftime("%Y-%m-%d %H:%M %z")


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    rows = [list(map(str, r)) for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def automation_list(items: list[Automation]) -> str:
    if not items:
        return "No automations yet. Create one with: errands add --title T --command C --schedule SPEC"
    return table(("ID", "STATUS", "NEXT FIRE", "TITLE", "SCHEDULE"),
                 [(a.id[:8], a.status, local(a.next_fire_at), a.title,
                   describe(a.definition.trigger)) for a in items])


def automation_detail(a: Automation) -> str:
    d = a.definition
    what = (f"agent: {d.runner.prompt}" if d.runner.kind == "agent"  # type: ignore[union-attr]
            else f"command: {d.runner.command}")  # type: ignore[union-attr]
    lines = [
        f"{a.title}",
        f"  id           {a.id}",
        f"  status       {a.status}" + (f" ({a.paused_reason})" if a.paused_reason else ""),
        f"  runs         {what}",
        f"  schedule     {describe(d.trigger)}",
        f"  next fire    {local(a.next_fire_at)}",
        f"  revision     {a.revision}   failure streak {a.failure_streak}",
        f"  misfire      {d.misfire} (catch-up max age {d.to_dict()['catch_up_max_age']})"
        f"   overlap {d.overlap}",
    ]
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
    if r.state == "skipped":
        text = r.skip_reason or ""
        if r.missed_count and r.missed_count > 1:
            text += f" ({r.missed_count} fires {local(r.missed_first)} … {local(r.missed_last)})"
        return text
    if r.error_code:
        return f"{r.error_code}: {r.error_message or ''}"
    return (r.result or "").replace("\n", " ")[:80]


def run_list(runs: list[Run], next_cursor: str | None) -> str:
    if not runs:
        return "No runs yet."
    out = table(("#", "STATE", "TRIGGER", "SCHEDULED", "STARTED", "FINISHED", "ATTEMPT", "DETAIL"),
                [(r.index, r.state + (" (dry run)" if r.dry_run else ""), r.trigger,
                  local(r.scheduled_for), local(r.started_at), local(r.finished_at),
                  r.attempt, run_summary(r)) for r in runs])
    if next_cursor:
        out += f"\nMore: --cursor {next_cursor}"
    return out


def fires(items: list[datetime], description: str) -> str:
    lines = [description]
    lines += [f"  {format_instant(f)}   {local(f)}" for f in items]
    return "\n".join(lines)

