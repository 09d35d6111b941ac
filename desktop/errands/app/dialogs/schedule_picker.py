"""The schedule picker: friendly choices that map to a trigger document, a time zone, and
a live preview of the next fires.

Daily, weekdays, weekly and monthly are cron triggers in the chosen zone, written the way
the phrase parser writes them (``0 9 * * MON-FRI``, ``30 9 * * MON,WED``), so schedules made
on the command line load back as the same friendly choice. A cron expression of any other
shape loads as Advanced; a trigger no choice can show exactly (an ``every`` of 90 s, a grid
of local days) is kept as it is and offered as its own choice, so opening and saving an
automation never changes its schedule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, time, timedelta, tzinfo
from typing import Any

from PySide6.QtCore import QDate, QDateTime, Qt, QTime, QTimeZone, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QSpinBox,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from ...cron import CronExpression
from ...definition import CronTrigger, ParseContext, Trigger, parse_definition
from ...errors import InvalidInput
from ...schedule import iter_fires, wall_clock
from ...timeutil import (
    format_duration,
    format_instant,
    parse_duration,
    parse_instant,
    utcnow,
    zone,
)
from .. import words
from .fields import DurationEdit, ErrorLabel, ZoneBox

MODES = ("once", "every", "daily", "weekdays", "weekly", "monthly", "after", "manual",
         "advanced")
CRON_MODES = ("daily", "weekdays", "weekly", "monthly")
DAY_NAMES = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")   # Monday first, as cron text
_DAILY = re.compile(r"(\d{1,2}) (\d{1,2}) \* \* \*")
_WEEKDAYS = re.compile(r"(\d{1,2}) (\d{1,2}) \* \* MON-FRI")
_WEEKLY = re.compile(r"(\d{1,2}) (\d{1,2}) \* \* ((?:MON|TUE|WED|THU|FRI|SAT|SUN)"
                     r"(?:,(?:MON|TUE|WED|THU|FRI|SAT|SUN))*)")
_MONTHLY = re.compile(r"(\d{1,2}) (\d{1,2}) (\d{1,2}) \* \*")
_QT_UTC = QTimeZone(QTimeZone.Initialization.UTC)


def cron_text(mode: str, at: time, days: tuple[int, ...] = (), day: int = 1) -> str:
    """The expression a friendly choice stands for (days: 0 = Monday … 6 = Sunday)."""
    hm = f"{at.minute} {at.hour}"
    if mode == "daily":
        return f"{hm} * * *"
    if mode == "weekdays":
        return f"{hm} * * MON-FRI"
    if mode == "weekly":
        return f"{hm} * * " + ",".join(DAY_NAMES[d] for d in sorted(set(days)))
    if mode == "monthly":
        return f"{hm} {day} * *"
    raise ValueError(mode)


def friendly_cron(expression: str) -> dict[str, Any] | None:
    """The friendly choice an expression was written by, or None: only the exact text
    :func:`cron_text` writes (anything else is Advanced, kept word for word)."""
    text = " ".join(expression.split())
    for mode, pattern in (("daily", _DAILY), ("weekdays", _WEEKDAYS), ("weekly", _WEEKLY),
                          ("monthly", _MONTHLY)):
        m = pattern.fullmatch(text)
        if not m:
            continue
        minute, hour = int(m.group(1)), int(m.group(2))
        if not (0 <= minute <= 59 and 0 <= hour <= 23):
            return None
        values: dict[str, Any] = {"mode": mode, "time": time(hour, minute)}
        if mode == "weekly":
            values["days"] = tuple(sorted(DAY_NAMES.index(n) for n in m.group(3).split(",")))
        if mode == "monthly":
            values["day"] = int(m.group(3))
            if not 1 <= values["day"] <= 31:
                return None
        args = {k: v for k, v in values.items() if k in ("days", "day")}
        if cron_text(mode, values["time"], **args) != text:
            return None     # "0 09 * * *", "0 9 * * SUN,MON": Advanced, as written
        return values
    return None


def same_trigger(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two trigger documents mean the same schedule (text forms aside)."""
    def norm(doc: dict[str, Any]) -> tuple[Any, ...]:
        kind = doc.get("kind")
        if kind == "monthly":           # its "at" is a clock time; every defaults to 1
            return tuple(sorted({"every": 1, **doc}.items()))
        out: list[Any] = [kind]
        for key in ("at", "start_at"):
            out.append(parse_instant(doc[key]) if doc.get(key) else None)
        for key in ("every", "interval"):
            out.append(parse_duration(doc[key]) if doc.get(key) else None)
        out.append(" ".join(str(doc.get("expression") or "").split()))
        out.append(doc.get("timezone"))
        return tuple(out)
    try:
        return norm(a) == norm(b)
    except (InvalidInput, KeyError, TypeError):
        return False


def trigger_object(doc: dict[str, Any], now: datetime, zone_name: str) -> Trigger:
    """The parsed trigger of a trigger document, by the real parser (no interval floor:
    the setting is the engine's, and the engine refuses with its own words)."""
    shell = {"title": "preview", "runner": {"kind": "command", "command": "true"},
             "trigger": doc}
    ctx = ParseContext(now=now, min_interval=timedelta(0), default_timezone=zone_name)
    return parse_definition(shell, ctx).trigger


class SchedulePicker(QWidget):
    """When an automation fires. ``trigger()`` is the trigger document (raising
    ``InvalidInput`` naming ``trigger.…`` for what is locally wrong); ``load_trigger`` shows
    one; ``values()``/``set_values()`` are the picker's own state as plain values."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None, *, zone_default: str,
                 clock: Callable[[], datetime] = utcnow) -> None:
        super().__init__(parent)
        self.clock = clock
        self.local_tz: tzinfo = words.local_zone()
        self.limits: tuple[int | None, datetime | None] = (None, None)
        self._kept: dict[str, Any] | None = None          # a trigger no choice can show
        self._start_at: dict[str, tuple[timedelta, str]] = {}   # kind → (gap, start_at)
        self.errors: dict[str, ErrorLabel] = {}
        self._loading = False

        self.mode_box = QComboBox()
        self.mode_box.setAccessibleName(self.tr("How often"))
        for mode, text in (
                ("once", self.tr("Once, at a date and time")),
                ("every", self.tr("Every few minutes or hours")),
                ("daily", self.tr("Every day at…")),
                ("weekdays", self.tr("Every weekday (Monday to Friday) at…")),
                ("weekly", self.tr("On chosen days of the week at…")),
                ("monthly", self.tr("Once a month, on a day at…")),
                ("after", self.tr("Again after each run finishes, after a wait")),
                ("manual", self.tr("Only when I run it")),
                ("advanced", self.tr("Advanced: a cron expression"))):
            self.mode_box.addItem(text, mode)

        self.once_edit = QDateTimeEdit()
        self.once_edit.setTimeZone(_QT_UTC)     # a plain wall time; the zone box says where
        self.once_edit.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.once_edit.setCalendarPopup(True)
        self.once_edit.setMinimumDate(QDate(1970, 1, 2))
        self.once_edit.setMaximumDate(QDate(9999, 12, 30))
        self.once_edit.setAccessibleName(self.tr("Date and time"))

        self.every_edit = DurationEdit(("m", "h"), name=self.tr("Every"))
        self.every_edit.amount.setValue(15)
        self.after_edit = DurationEdit(("m", "h"), name=self.tr("Wait"))
        self.after_edit.amount.setValue(10)
        after_row = QWidget()
        after_layout = QHBoxLayout(after_row)
        after_layout.setContentsMargins(0, 0, 0, 0)
        after_layout.addWidget(self.after_edit)
        after_hint = QLabel(self.tr("after each run finishes"))
        after_layout.addWidget(after_hint, 1)
        after_row.setFocusProxy(self.after_edit)

        self.day_boxes: list[QCheckBox] = []
        days_row = QWidget()
        days_layout = QHBoxLayout(days_row)
        days_layout.setContentsMargins(0, 0, 0, 0)
        days_layout.setSpacing(6)
        for i, (short, full) in enumerate(zip(
                (self.tr("Mon"), self.tr("Tue"), self.tr("Wed"), self.tr("Thu"),
                 self.tr("Fri"), self.tr("Sat"), self.tr("Sun")),
                (self.tr("Monday"), self.tr("Tuesday"), self.tr("Wednesday"),
                 self.tr("Thursday"), self.tr("Friday"), self.tr("Saturday"),
                 self.tr("Sunday")))):
            box = QCheckBox(short)
            box.setAccessibleName(full)
            box.setChecked(i == 0)
            self.day_boxes.append(box)
            days_layout.addWidget(box)
        days_layout.addStretch(1)
        days_row.setFocusProxy(self.day_boxes[0])
        self.days_row = days_row

        self.day_spin = QSpinBox()
        self.day_spin.setRange(1, 31)
        self.day_spin.setAccessibleName(self.tr("Day of the month"))
        self.day_note = QLabel(self.tr("Months without this day are skipped."))
        day_row = QWidget()
        day_layout = QHBoxLayout(day_row)
        day_layout.setContentsMargins(0, 0, 0, 0)
        day_layout.addWidget(self.day_spin)
        day_layout.addWidget(self.day_note, 1)
        day_row.setFocusProxy(self.day_spin)

        self.time_edit = QTimeEdit(QTime(9, 0))
        self.time_edit.setDisplayFormat("HH:mm")
        self.time_edit.setAccessibleName(self.tr("Time of day"))

        self.cron_edit = QLineEdit()
        self.cron_edit.setPlaceholderText("30 9 * * MON-FRI")
        self.cron_edit.setAccessibleName(self.tr("Cron expression"))
        self.cron_edit.setToolTip(self.tr("Five fields: minute hour day-of-month month "
                                          "day-of-week"))
        self.cron_words = QLabel()
        self.cron_words.setWordWrap(True)
        self.cron_words.setTextFormat(Qt.TextFormat.PlainText)
        self.cron_words.setAccessibleName(self.tr("What the expression means"))

        self.kept_words = QLabel()
        self.kept_words.setWordWrap(True)
        self.kept_words.setTextFormat(Qt.TextFormat.PlainText)
        self.kept_words.setAccessibleName(self.tr("The schedule as it is"))

        self.zone_box = ZoneBox(zone_default)
        self.zone_box.setAccessibleName(self.tr("Time zone"))

        self.preview = QLabel()
        self.preview.setWordWrap(True)
        self.preview.setTextFormat(Qt.TextFormat.PlainText)
        self.preview.setAccessibleName(self.tr("Next runs"))
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        for widget in (self.once_edit, self.time_edit, self.day_spin):
            widget.setSizePolicy(QSizePolicy.Policy.Fixed, widget.sizePolicy().verticalPolicy())
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        self.rows: dict[str, QWidget] = {}
        for key, label, widget in (
                ("mode", self.tr("Runs"), self.mode_box),
                ("at", self.tr("On"), self.once_edit),
                ("every", self.tr("Every"), self.every_edit),
                ("interval", self.tr("Wait"), after_row),
                ("days", self.tr("Days"), days_row),
                ("day", self.tr("Day"), day_row),
                ("time", self.tr("At"), self.time_edit),
                ("expression", self.tr("Expression"), self.cron_edit),
                ("kept", self.tr("Schedule"), self.kept_words),
                ("timezone", self.tr("Time zone"), self.zone_box),
                ("preview", self.tr("Next runs"), self.preview)):
            self.rows[key] = self._row(key, label, widget)
        self.errors["expression"].setVisible(False)

        self.mode_box.currentIndexChanged.connect(self._mode_changed)
        for signal in (self.once_edit.dateTimeChanged, self.time_edit.timeChanged,
                       self.day_spin.valueChanged, self.cron_edit.textChanged,
                       self.every_edit.changed, self.after_edit.changed,
                       self.zone_box.zone_changed):
            signal.connect(self._edited)
        for box in self.day_boxes:
            box.toggled.connect(self._edited)

        start = (self.clock() + timedelta(hours=1)).astimezone(zone(self.zone_name()))
        self._set_once(start.replace(minute=0, second=0, microsecond=0, tzinfo=None))
        self.set_mode("daily")
        self._mode_changed()

    def _row(self, key: str, label: str, widget: QWidget) -> QWidget:
        holder = QWidget()
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(widget)
        error = ErrorLabel(widget)
        column.addWidget(error)
        if key == "expression":
            column.addWidget(self.cron_words)
        self.errors[key] = error
        holder.setFocusProxy(widget)
        self.form.addRow(label, holder)
        return holder

    # ------------------------------------------------------------------- state

    def mode(self) -> str:
        return str(self.mode_box.currentData())

    def set_mode(self, mode: str) -> None:
        index = self.mode_box.findData(mode)
        if index < 0:
            raise ValueError(mode)
        self.mode_box.setCurrentIndex(index)

    def zone_name(self) -> str:
        return self.zone_box.zone()

    def _set_once(self, wall: datetime) -> None:
        self.once_edit.setDateTime(QDateTime(QDate(wall.year, wall.month, wall.day),
                                             QTime(wall.hour, wall.minute), _QT_UTC))

    def _once_wall(self) -> datetime:
        d, t = self.once_edit.date(), self.once_edit.time()
        return datetime(d.year(), d.month(), d.day(), t.hour(), t.minute())

    def _time(self) -> time:
        t = self.time_edit.time()
        return time(t.hour(), t.minute())

    def _days(self) -> tuple[int, ...]:
        return tuple(i for i, box in enumerate(self.day_boxes) if box.isChecked())

    def values(self) -> dict[str, Any]:
        """The choice as plain values: ``mode``, ``zone`` and what that mode shows."""
        mode = self.mode()
        out: dict[str, Any] = {"mode": mode, "zone": self.zone_name()}
        if mode == "once":
            out["at"] = self._once_wall()
        elif mode == "every":
            out["every"] = self.every_edit.value()
        elif mode == "after":
            out["interval"] = self.after_edit.value()
        elif mode in CRON_MODES:
            out["time"] = self._time()
            if mode == "weekly":
                out["days"] = self._days()
            if mode == "monthly":
                out["day"] = self.day_spin.value()
        elif mode == "advanced":
            out["expression"] = " ".join(self.cron_edit.text().split())
        elif mode == "kept":
            out["trigger"] = dict(self._kept or {})
        return out

    def set_values(self, values: dict[str, Any]) -> None:
        self._loading = True
        try:
            if "zone" in values:
                self.zone_box.set_zone(values["zone"])
            if "at" in values:
                self._set_once(values["at"])
            if "every" in values:
                self.every_edit.set_value(values["every"])
            if "interval" in values:
                self.after_edit.set_value(values["interval"])
            if "time" in values:
                self.time_edit.setTime(QTime(values["time"].hour, values["time"].minute))
            if "days" in values:
                for i, box in enumerate(self.day_boxes):
                    box.setChecked(i in values["days"])
            if "day" in values:
                self.day_spin.setValue(values["day"])
            if "expression" in values:
                self.cron_edit.setText(values["expression"])
            if "mode" in values:
                self.set_mode(values["mode"])
        finally:
            self._loading = False
        self._mode_changed()

    # ------------------------------------------------------------- documents

    def trigger(self) -> dict[str, Any]:
        """The trigger document of the current choice."""
        mode = self.mode()
        if mode == "manual":
            return {"kind": "manual"}
        if mode == "kept":
            return dict(self._kept or {})
        if mode in ("every", "after"):
            key = "every" if mode == "every" else "interval"
            gap = (self.every_edit if mode == "every" else self.after_edit).value()
            doc: dict[str, Any] = {"kind": mode, key: format_duration(gap)}
            kept = self._start_at.get(mode)
            if kept and kept[0] == gap:     # the same rhythm keeps its grid
                doc["start_at"] = kept[1]
            return doc
        tz_name = self.zone_name()
        if not self.zone_box.valid():
            raise InvalidInput("trigger.timezone", self.tr("unknown time zone “%1”").replace(
                "%1", tz_name), self.tr("a time zone from the list"), "Europe/Berlin")
        if mode == "once":
            wall = self._once_wall()
            instant = wall_clock(wall.date(), wall.time(), tz_name)
            if instant.astimezone(zone(tz_name)).replace(tzinfo=None) != wall:
                raise InvalidInput("trigger.at", self.tr(
                    "%1 does not exist on that day in %2: the clocks change then").replace(
                    "%1", wall.strftime("%H:%M")).replace("%2", tz_name),
                    self.tr("a time that exists that day"), "")
            return {"kind": "at", "at": format_instant(instant)}
        if mode == "advanced":
            text = " ".join(self.cron_edit.text().split())
            try:
                CronExpression.parse(text)
            except InvalidInput as exc:
                raise exc.with_prefix("trigger") if exc.field == "expression" else exc
            return {"kind": "cron", "expression": text, "timezone": tz_name}
        if mode == "weekly" and not self._days():
            raise InvalidInput("trigger.days", self.tr("choose at least one day"),
                               self.tr("one or more days of the week"), "")
        expression = cron_text(mode, self._time(), self._days(), self.day_spin.value())
        return {"kind": "cron", "expression": expression, "timezone": tz_name}

    def load_trigger(self, doc: dict[str, Any]) -> str:
        """Show a stored trigger; returns the mode it is shown as."""
        self._loading = True
        try:
            self._set_kept(None)
            self._start_at = {}
            kind = doc.get("kind")
            mode = "kept"
            if kind == "manual":
                mode = "manual"
            elif kind == "at" and doc.get("at"):
                local = parse_instant(doc["at"]).astimezone(zone(self.zone_name()))
                self._set_once(local.replace(tzinfo=None))
                mode = "once"
            elif kind in ("every", "after") and not doc.get("timezone"):
                key = "every" if kind == "every" else "interval"
                gap = parse_duration(doc.get(key))
                if (self.every_edit if kind == "every" else self.after_edit).set_value(gap):
                    mode = kind
                    if doc.get("start_at"):
                        self._start_at[kind] = (gap, doc["start_at"])
            elif kind == "cron":
                expression = " ".join(str(doc.get("expression", "")).split())
                if doc.get("timezone"):
                    self.zone_box.set_zone(doc["timezone"])
                friendly = friendly_cron(expression)
                if friendly:
                    self.set_values(friendly)
                    self._loading = True
                    mode = friendly["mode"]
                else:
                    self.cron_edit.setText(expression)
                    mode = "advanced"
            if mode != "kept":
                self.set_mode(mode)
                try:
                    shown = self.trigger()
                except InvalidInput:
                    shown = {}
                if not same_trigger(shown, doc):
                    mode = "kept"
            if mode == "kept":
                self._set_kept(dict(doc))
                self.set_mode("kept")
        finally:
            self._loading = False
        self._mode_changed()
        return mode

    def _set_kept(self, doc: dict[str, Any] | None) -> None:
        self._kept = doc
        index = self.mode_box.findData("kept")
        if doc is None:
            if index >= 0:
                self.mode_box.removeItem(index)
            return
        try:
            text = words.trigger_sentence(trigger_object(doc, self.clock(), self.zone_name()),
                                          self.clock(), self.local_tz)
        except InvalidInput:
            text = str(doc)
        self.kept_words.setText(text)
        label = self.tr("As it is: %1").replace("%1", text)
        if index < 0:
            self.mode_box.insertItem(0, label, "kept")
        else:
            self.mode_box.setItemText(index, label)

    # --------------------------------------------------------------- preview

    def set_limits(self, max_runs: int | None, until: datetime | None) -> None:
        """The stop rule, so the preview ends where the automation will."""
        self.limits = (max_runs, until)
        self._refresh()

    def preview_fires(self, count: int = 5) -> list[datetime]:
        """The next ``count`` fires of the current choice (raising ``InvalidInput`` when
        it cannot be read); an ``after`` loop as if each run took no time."""
        now = self.clock()
        trig = trigger_object(self.trigger(), now, self.zone_name())
        max_runs, until = self.limits if trig.kind in ("every", "after", "cron") else (None, None)
        limit = count if max_runs is None else min(count, max_runs)
        out: list[datetime] = []
        for fire in iter_fires(trig, now - timedelta(microseconds=1)):
            if len(out) >= limit or (until is not None and fire >= until):
                break
            out.append(fire)
        return out

    def preview_lines(self) -> list[str]:
        mode = self.mode()
        if mode == "manual":
            return [self.tr("Runs only when you start it.")]
        try:
            fires = self.preview_fires()
        except InvalidInput as exc:
            return [self.tr("Cannot work out the runs: %1").replace("%1", exc.message)]
        if not fires:
            return [self.tr("No runs ahead.")]
        now = self.clock()
        own = self.zone_name() if self.zone_box.valid() else None
        lines = [words.fire_words(f, now, self.local_tz, own) for f in fires]
        if mode == "after" or (mode == "kept" and (self._kept or {}).get("kind") == "after"):
            lines.append(self.tr("(later runs shift by how long each run takes)"))
        return lines

    # ---------------------------------------------------------------- events

    def _mode_changed(self, _index: int = 0) -> None:
        mode = self.mode()
        show = {"at": mode == "once", "every": mode == "every", "interval": mode == "after",
                "days": mode == "weekly", "day": mode == "monthly",
                "time": mode in CRON_MODES, "expression": mode == "advanced",
                "kept": mode == "kept", "timezone": mode not in ("manual",),
                "preview": True, "mode": True}
        for key, holder in self.rows.items():
            self.form.setRowVisible(holder, show[key])
        self._edited()

    def _edited(self, *_args: object) -> None:
        if self._loading:
            return
        self._refresh()
        self.changed.emit()

    def _refresh(self) -> None:
        if self.mode() == "advanced":
            self._describe_cron()
        self.day_note.setVisible(self.day_spin.value() > 28)
        self.preview.setText("\n".join(self.preview_lines()))

    def _describe_cron(self) -> None:
        text = " ".join(self.cron_edit.text().split())
        error = self.errors["expression"]
        if not text:
            self.cron_words.setText(self.tr("Five fields: minute hour day-of-month month "
                                            "day-of-week, e.g. 30 9 * * MON-FRI"))
            error.clear_message()
            return
        try:
            expr = CronExpression.parse(text)
        except InvalidInput as exc:
            self.cron_words.setText("")
            error.show_message(str(exc.with_prefix("trigger")).split(": ", 1)[-1])
            return
        error.clear_message()
        self.cron_words.setText(words.trigger_sentence(
            CronTrigger(expr.text, self.zone_name()), self.clock(), self.local_tz))

    # ---------------------------------------------------------------- errors

    def _row_key(self, field: str) -> str:
        part = field.split(".", 1)[1] if "." in field else ""
        part = part.split("[", 1)[0].split(".", 1)[0]
        if part in ("at", "in"):
            return "at"
        if part in ("every", "interval", "days", "timezone"):
            return part
        if part == "expression":
            return "expression" if self.mode() == "advanced" else "time"
        return "mode"

    def error_key(self, field: str) -> str:
        """Which row a refusal of ``trigger.…`` belongs under (``mode`` when the row it
        names is not shown now)."""
        key = self._row_key(field)
        return key if not self.rows[key].isHidden() else "mode"

    def show_error(self, field: str, message: str) -> QWidget:
        key = self.error_key(field)
        self.errors[key].show_message(message)
        return self.rows[key]

    def clear_errors(self) -> None:
        for key, label in self.errors.items():
            if key != "expression":
                label.clear_message()
        if self.mode() == "advanced":
            self._describe_cron()
        else:
            self.errors["expression"].clear_message()

