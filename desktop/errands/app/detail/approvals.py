"""An automation's saved approvals, for its detail pane: each rule in words ("May run
`git pull` in ~/projects/site without asking"), when and from which run it was added, and
Revoke.

The rules are the definition's ``permissions.rules`` (what ``errands rules ID`` lists, in
that order; rule ``n`` there is index ``n - 1`` here). Where a rule came from is read from
the automation's history: the revision that first had it, and the audit entry just before
that revision's, which for an "Always allow" is the decision of the run that asked.

Revoking is an edit like ``errands rules remove ID N``: the definition without that rule,
saved with ``expected_revision`` so a rule list changed meanwhile (another window, the CLI,
a new "Always allow") is refused instead of losing a rule. It makes a new revision.

:class:`SavedApprovalsView` is passive: ``set_automation`` (and ``set_origins``) feed it,
Revoke only emits :attr:`SavedApprovalsView.revoke_requested`; :func:`revoke_rule` does it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ...definition import Rule
from ...errors import InvalidInput
from ...records import AuditEntry, Automation
from ...timeutil import utcnow
from .. import words
from ..dialogs.approval import rule_sentence, workdir_of


@dataclass(frozen=True)
class RuleOrigin:
    """Where a saved rule came from: the revision that added it and when; the run whose
    "Always allow" added it (its id and number), when that is what happened."""

    revision: int
    at: datetime
    actor: str
    run_id: str | None = None
    run_index: int | None = None


def _rule_doc(rule: Rule) -> dict[str, str]:
    return {"tool": rule.tool, "pattern": rule.pattern, "action": rule.action}


def rule_origins(rules: tuple[Rule, ...], revisions: list[Any], audit: list[AuditEntry]
                 ) -> dict[int, RuleOrigin]:
    """For each rule (by index), the revision that added it (the newest that had it when
    the one before did not) and, when an "Always allow" added it, the deciding run's id."""
    docs = [(r.revision, r.created_at,
             [dict(x) for x in ((r.definition.get("permissions") or {}).get("rules") or ())])
            for r in revisions]
    by_revision = {e.revision: n for n, e in enumerate(audit) if e.action == "revised"}
    found: dict[int, RuleOrigin] = {}
    for index, rule in enumerate(rules):
        want = _rule_doc(rule)
        added = None
        for n in range(len(docs) - 1, -1, -1):
            if want not in docs[n][2]:
                break
            added = n
        if added is None:
            continue
        revision, at, _ = docs[added]
        n = by_revision.get(revision)
        entry = audit[n] if n is not None else None
        before = audit[n - 1] if n is not None and n > 0 else None
        run_id = None
        if before is not None and before.action == "decided" \
                and (before.detail or {}).get("decision") == "approve_always":
            run_id = (before.detail or {}).get("run_id")
        found[index] = RuleOrigin(revision, entry.at if entry else at,
                                  entry.actor if entry else "user", run_id)
    return found


async def load_rule_origins(api: Any, automation: Automation) -> dict[int, RuleOrigin]:
    """:func:`rule_origins` from ``api.history``, with the deciding runs' numbers."""
    d = automation.definition
    if d is None or not d.permissions.rules:
        return {}
    revisions, audit = (await api.history(automation.id)).value
    found = rule_origins(d.permissions.rules, revisions, audit)
    for index, origin in list(found.items()):
        if origin.run_id:
            try:
                doc = (await api.run(origin.run_id)).value
            except Exception:  # noqa: BLE001 (a run deleted with its history: no number)
                continue
            found[index] = RuleOrigin(origin.revision, origin.at, origin.actor, origin.run_id,
                                      doc.get("index"))
    return found


def origin_words(origin: RuleOrigin | None, now: datetime, tz: tzinfo) -> str:
    if origin is None:
        return words.tr("Part of the automation as written")
    when = words.day_and_time(origin.at, now, tz)
    if origin.run_id:
        number = f"#{origin.run_index}" if origin.run_index is not None else origin.run_id[:8]
        return words.tr("Added %1 when you chose “Always allow” for run %2").replace(
            "%1", when).replace("%2", number)
    return words.tr("Added %1 in an edit (revision %2)").replace("%1", when).replace(
        "%2", str(origin.revision))


async def revoke_rule(api: Any, automation_id: str, index: int, *,
                      expected_revision: int) -> Automation:
    """Remove rule ``index`` (0-based; ``errands rules remove ID N`` with N = index + 1) as
    an edit with a new revision. Refused (:class:`~errands.errors.Conflict`
    ``stale_revision``) when the automation changed since ``expected_revision``; an index
    out of range is :class:`~errands.errors.InvalidInput` as in the CLI."""
    automation = (await api.automation(automation_id)).value
    d = automation.definition
    count = len(d.permissions.rules) if d is not None else 0
    if not 0 <= index < count:
        raise InvalidInput("N", f"{automation.title} has {count} saved rule(s)",
                           f"a number from 1 to {count}" if count else "no rule to remove",
                           f"errands rules remove {automation_id[:8]} 1")
    assert d is not None
    doc = d.to_dict()
    doc["permissions"]["rules"].pop(index)
    revised, _changed = (await api.edit(automation_id, doc,
                                        expected_revision=expected_revision)).value
    return revised


class SavedApprovalsView(QWidget):
    """The rules an automation keeps, one row each, with Revoke."""

    revoke_requested = Signal(str, int)   # automation id, rule index (0-based)

    def __init__(self, parent: QWidget | None = None, *, data_dir: Path | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("savedApprovals")
        self.setAccessibleName(self.tr("Saved approvals"))
        self.data_dir = data_dir
        self.tz: tzinfo = words.local_zone()
        self.now: datetime = utcnow()
        self.automation: Automation | None = None
        self.origins: dict[int, RuleOrigin] = {}
        self.rows: list[tuple[QLabel, QLabel, QPushButton]] = []
        self.blocks: list[QWidget] = []

        self.heading = QLabel(self.tr("Saved approvals"))
        font = QFont(self.heading.font())
        font.setWeight(QFont.Weight.DemiBold)
        self.heading.setFont(font)
        self.empty = QLabel(self.tr("None yet. When you choose “Always allow” for a run, the "
                                    "rule it adds is listed here, and can be revoked."))
        self.empty.setWordWrap(True)
        self.empty.setForegroundRole(self.empty.foregroundRole())
        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setColumnStretch(0, 1)
        self.grid.setHorizontalSpacing(12)
        self.grid.setVerticalSpacing(10)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.heading)
        layout.addWidget(self.empty)
        layout.addWidget(self.grid_host)

    def set_automation(self, automation: Automation | None,
                       origins: dict[int, RuleOrigin] | None = None) -> None:
        changed = (automation is None or self.automation is None
                   or automation.id != self.automation.id
                   or automation.revision != self.automation.revision)
        self.automation = automation
        if origins is not None:
            self.origins = origins
        elif changed:
            self.origins = {}
        self._rebuild()

    def set_origins(self, origins: dict[int, RuleOrigin]) -> None:
        self.origins = origins
        self._rebuild()

    def rules(self) -> tuple[Rule, ...]:
        d = self.automation.definition if self.automation is not None else None
        return d.permissions.rules if d is not None else ()

    def sentences(self) -> list[str]:
        """What each row says (tests, screen readers)."""
        return [sentence.text() for sentence, _, _ in self.rows]

    def _rebuild(self) -> None:
        for w in (*self.blocks, *(button for _, _, button in self.rows)):
            self.grid.removeWidget(w)
            w.deleteLater()
        self.rows, self.blocks = [], []
        rules = self.rules()
        workdir = workdir_of(self.automation, self.data_dir)
        self.empty.setVisible(not rules)
        self.grid_host.setVisible(bool(rules))
        for index, rule in enumerate(rules):
            text = rule_sentence(rule.tool, rule.pattern, workdir, rule.action)
            sentence = QLabel(text)
            sentence.setWordWrap(True)
            sentence.setTextFormat(Qt.TextFormat.PlainText)
            sentence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            origin = QLabel(origin_words(self.origins.get(index), self.now, self.tz))
            origin.setWordWrap(True)
            small = QFont(origin.font())
            small.setPointSizeF(small.pointSizeF() * 0.9)
            origin.setFont(small)
            origin.setEnabled(False)  # muted: the palette's disabled text colour
            button = QPushButton(self.tr("Revoke"))
            button.setAutoDefault(False)
            button.setAccessibleName(self.tr("Revoke: %1").replace("%1", text))
            button.setToolTip(self.tr("Remove this rule (an edit, with a new revision); "
                                      "the next such call asks again"))
            button.clicked.connect(lambda _=False, i=index: self._revoke(i))
            block = QWidget()
            lines = QVBoxLayout(block)
            lines.setContentsMargins(0, 0, 0, 0)
            lines.setSpacing(1)
            lines.addWidget(sentence)
            lines.addWidget(origin)
            self.grid.addWidget(block, index, 0)
            self.grid.addWidget(button, index, 1, Qt.AlignmentFlag.AlignVCenter)
            self.blocks.append(block)
            self.rows.append((sentence, origin, button))

    def _revoke(self, index: int) -> None:
        if self.automation is not None:
            self.revoke_requested.emit(self.automation.id, index)
