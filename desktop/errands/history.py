"""How much run history each automation keeps (seed 001's run history limit, seed 002 §5).

Every ended run counts, skipped-fire records included: an automation keeps its newest
``policy.history_limit`` (else the ``run_history_limit`` setting) ended runs as they are.
Of the older ones, runs are deleted with their output logs, their blockers and the
transcripts (sessions and their messages) no kept run uses (an automation's continuing
session is kept: its next runs read it); skipped records are not dropped but merged into
one record that stands for all of them (``missed_count``, ``missed_first``,
``missed_last``; ``details.coalesced`` says how many records and which reasons). Runs not
ended (scheduled, running, parked) are never touched, whatever their age.

Separately, an automation's run output logs together may take ``output_log_limit`` bytes:
beyond it the oldest logs are deleted (the run records stay, with their last 64 KiB), never
the log of a run not ended nor the newest log.

Each function here is one short transaction (a batch of at most ``batch`` rows), so the
engine's writer thread interleaves them with the engine's own writes
(:mod:`errands.engine.retention` schedules them).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, select

from .db.schema import BlockerRow, MessageRow, RunRow, SessionRow
from .paths import run_log_path
from .records import ACTIVE_STATES
from .store import Store

BATCH = 200  # rows per transaction: a few milliseconds of the writer thread


def cutoff(store: Store, automation_id: str, keep: int) -> int | None:
    """The index of the oldest ended run to keep as it is, when something older is to be
    deleted or merged; None when nothing is."""
    with store.db.read() as s:
        oldest_kept = s.scalar(
            select(RunRow.index).where(RunRow.automation_id == automation_id,
                                       RunRow.state.not_in(ACTIVE_STATES))
            .order_by(RunRow.index.desc()).offset(keep - 1).limit(1))
        if oldest_kept is None:
            return None
        below = (RunRow.automation_id == automation_id, RunRow.index < oldest_kept)
        runs = s.scalar(select(RunRow.id).where(
            *below, RunRow.state.not_in((*ACTIVE_STATES, "skipped"))).limit(1))
        skipped = s.scalar(select(func.count()).select_from(
            select(RunRow.id).where(*below, RunRow.state == "skipped").limit(2).subquery()))
    return oldest_kept if runs is not None or (skipped or 0) > 1 else None


def prune_runs(store: Store, automation_id: str, before: int,
               batch: int = BATCH) -> tuple[list[str], bool]:
    """Delete the oldest ended runs (not skipped records) below index ``before``, at most
    ``batch``, with their blockers and the run transcripts only they used. Returns the
    deleted run ids (their logs are the caller's to delete) and whether more remain."""
    with store.transaction() as s:
        rows = list(s.execute(
            select(RunRow.id, RunRow.session_id)
            .where(RunRow.automation_id == automation_id, RunRow.index < before,
                   RunRow.state.not_in((*ACTIVE_STATES, "skipped")))
            .order_by(RunRow.index).limit(batch + 1)))
        more = len(rows) > batch
        rows = rows[:batch]
        ids = [run_id for run_id, _ in rows]
        if not ids:
            return [], False
        named = {sid for _, sid in rows if isinstance(sid, str)} | {f"r-{i}" for i in ids}
        used = set(s.scalars(select(RunRow.session_id).where(  # by a run that stays (a reply)
            RunRow.automation_id == automation_id, RunRow.session_id.in_(named),
            RunRow.id.not_in(ids))))
        gone = list(s.scalars(select(SessionRow.id).where(
            SessionRow.id.in_(named - used), SessionRow.kind == "run")))
        if gone:
            s.execute(delete(MessageRow).where(MessageRow.session_id.in_(gone)))
            s.execute(delete(SessionRow).where(SessionRow.id.in_(gone)))
        s.execute(delete(BlockerRow).where(BlockerRow.run_id.in_(ids)))
        s.execute(delete(RunRow).where(RunRow.id.in_(ids)))
    return ids, more


def coalesce_skipped(store: Store, automation_id: str, before: int,
                     batch: int = BATCH) -> tuple[int, bool]:
    """Merge skipped records below index ``before`` into the newest of them, at most
    ``batch`` at a time. Returns how many were merged and whether more remain."""
    with store.transaction() as s:
        rows = list(s.scalars(
            select(RunRow).where(RunRow.automation_id == automation_id, RunRow.index < before,
                                 RunRow.state == "skipped")
            .order_by(RunRow.index.desc()).limit(batch + 2)))
        if len(rows) < 2:
            return 0, False
        keeper, merged = rows[0], rows[1:batch + 1]
        more = len(rows) > batch + 1
        reasons, records = _coalesced(keeper)
        count = keeper.missed_count or 1
        instants = [_instant(keeper.missed_first), _instant(keeper.missed_last),
                    _instant(keeper.scheduled_for)]
        for row in merged:
            their_reasons, their_records = _coalesced(row)
            for reason, n in their_reasons.items():
                reasons[reason] = reasons.get(reason, 0) + n
            records += their_records
            count += row.missed_count or 1
            instants += [_instant(row.missed_first), _instant(row.missed_last),
                         _instant(row.scheduled_for)]
        known = [i for i in instants if i is not None]
        keeper.missed_count = count
        if known:
            keeper.missed_first, keeper.missed_last = min(known), max(known)
        own = keeper.skip_reason or "unknown"
        keeper.skip_reason = max(reasons, key=lambda r: (reasons[r], r == own))
        details = dict(keeper.details) if isinstance(keeper.details, dict) else {}
        details["coalesced"] = {"records": records, "reasons": reasons}
        keeper.details = details
        s.execute(delete(RunRow).where(RunRow.id.in_([row.id for row in merged])))
    return len(merged), more


def _coalesced(row: RunRow) -> tuple[dict[str, int], int]:
    """The reasons (reason -> missed fires) and record count a skipped record stands for."""
    found = row.details.get("coalesced") if isinstance(row.details, dict) else None
    if isinstance(found, dict) and isinstance(found.get("reasons"), dict) \
            and isinstance(found.get("records"), int):
        reasons = {str(k): v for k, v in found["reasons"].items() if isinstance(v, int)}
        if reasons:
            return reasons, found["records"]
    return {row.skip_reason or "unknown": row.missed_count or 1}, 1


def _instant(value: Any) -> datetime | None:
    return value if isinstance(value, datetime) else None  # (a damaged one is not compared)


def delete_logs(root: Path, automation_id: str, run_ids: Iterable[str]) -> None:
    """The output logs of deleted runs."""
    for run_id in run_ids:
        try:
            run_log_path(root, automation_id, run_id).unlink(missing_ok=True)
        except OSError:
            pass  # (one that cannot be deleted is left; the size rule tries it again)


def logs_size(root: Path, automation_id: str) -> list[tuple[int, str, int]]:
    """Each run log of the automation: (modified, run id, bytes), oldest first."""
    folder = run_log_path(root, automation_id, "-").parent
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not entry.name.endswith(".log"):
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if entry.is_file(follow_symlinks=False):
                    found.append((info.st_mtime_ns, entry.name[:-4], info.st_size))
    except OSError:  # no folder (no command run yet), or unreadable
        return []
    found.sort()
    return found


def trim_logs(store: Store, root: Path, automation_id: str, limit: int) -> list[str]:
    """Delete the oldest run logs of the automation until they take at most ``limit``
    bytes, never the log of a run not ended nor the newest log. Returns whose logs went."""
    logs = logs_size(root, automation_id)
    total = sum(size for _, _, size in logs)
    if total <= limit:
        return []
    with store.db.read() as s:
        active = set(s.scalars(select(RunRow.id).where(RunRow.automation_id == automation_id,
                                                       RunRow.state.in_(ACTIVE_STATES))))
    gone = []
    for _, run_id, size in logs[:-1]:  # (the newest is kept, however big)
        if total <= limit:
            break
        if run_id in active:
            continue
        try:
            run_log_path(root, automation_id, run_id).unlink(missing_ok=True)
        except OSError:
            continue
        total -= size
        gone.append(run_id)
    return gone
