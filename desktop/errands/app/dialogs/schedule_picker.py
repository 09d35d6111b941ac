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
from datetime import date, datetime, time, timedelta, tzinfo
from typing import Any

from PySide6.QtCore import QDate, QDateTime, Qt, QTime, QTimeZone, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
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
from ...schedule import iter_fires, monthly_start, wall_clock
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
        if mode == "monthly":   # a day of every month: the plain choice of the monthly row
            values.update(day_kind="day", months=1)
        return values
    return None


def same_trigger(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two trigger documents mean the same schedule (text forms aside)."""
    def norm(doc: dict[str, Any], other: dict[str, Any]) -> tuple[Any, ...]:
        kind = doc.get("kind")
        if kind == "monthly":           # its "at" is a clock time; every defaults to 1; a
            # zone or a start one of them leaves to its defaults is not compared
            both = set(doc) & set(other)
            only_one = (set(doc) ^ set(other)) - {"timezone", "start", "every"}
            full = {"every": 1, **doc}
            return tuple(sorted((k, full.get(k)) for k in both | only_one | {"every"}))
        out: list[Any] = [kind]
        for key in ("at", "start_at"):
            out.append(parse_instant(doc[key]) if doc.get(key) else None)
        for key in ("every", "interval"):
            out.append(parse_duration(doc[key]) if doc.get(key) else None)
        out.append(" ".join(str(doc.get("expression") or "").split()))
        out.append(doc.get("timezone"))
        return tuple(out)
    try:
        return norm(a, b) == norm(b, a)
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
                ("monthly", self.tr("On a day of the month at…")),
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

        self.day_kind = QComboBox()
        self.day_kind.setAccessibleName(self.tr("Which day of the month"))
        for value, text in (("day", self.tr("Day")), ("last", self.tr("The last day")),
                            ("before_last", self.tr("Day counted from the end")),
                            ("weekday", self.tr("A weekday of the month"))):
            self.day_kind.addItem(text, value)
        self.day_spin = QSpinBox()
        self.day_spin.setRange(1, 31)
        self.day_spin.setAccessibleName(self.tr("Day of the month"))
        self.nth_box = QComboBox()
        self.nth_box.setAccessibleName(self.tr("Which one in the month"))
        for value, text in ((1, self.tr("first")), (2, self.tr("second")),
                            (3, self.tr("third")), (4, self.tr("fourth")),
                            (5, self.tr("fifth")), (-1, self.tr("last")),
                            (-2, self.tr("second to last")), (-3, self.tr("third to last")),
                            (-4, self.tr("fourth to last")), (-5, self.tr("fifth to last"))):
            self.nth_box.addItem(text, value)
        self.weekday_box = QComboBox()
        self.weekday_box.setAccessibleName(self.tr("Weekday"))
        for value, text in (("mon", self.tr("Monday")), ("tue", self.tr("Tuesday")),
                            ("wed", self.tr("Wednesday")), ("thu", self.tr("Thursday")),
                            ("fri", self.tr("Friday")), ("sat", self.tr("Saturday")),
                            ("sun", self.tr("Sunday")),
                            ("workday", self.tr("working day (Monday to Friday)"))):
            self.weekday_box.addItem(text, value)
        self.day_note = QLabel(self.tr("Months without this day are skipped."))
        self.day_note.setWordWrap(True)
        day_row = QWidget()
        day_column = QVBoxLayout(day_row)
        day_column.setContentsMargins(0, 0, 0, 0)
        day_layout = QHBoxLayout()
        day_layout.setContentsMargins(0, 0, 0, 0)
        day_layout.addWidget(self.day_kind)
        day_layout.addWidget(self.day_spin)
        day_layout.addStretch(1)
        weekday_layout = QHBoxLayout()        # its own line: it fits a narrow window
        weekday_layout.setContentsMargins(0, 0, 0, 0)
        weekday_layout.addWidget(self.nth_box)
        weekday_layout.addWidget(self.weekday_box)
        weekday_layout.addStretch(1)
        day_column.addLayout(day_layout)
        day_column.addLayout(weekday_layout)
        day_column.addWidget(self.day_note)
        day_row.setFocusProxy(self.day_kind)
        self.months_spin = QSpinBox()
        self.months_spin.setRange(1, 1200)
        self.months_spin.setAccessibleName(self.tr("Months apart"))
        self.months_spin.setToolTip(self.tr("1: every month; 3: every quarter; 12: every "
                                            "year; 24: every other year"))
        months_row = QWidget()
        months_layout = QHBoxLayout(months_row)
        months_layout.setContentsMargins(0, 0, 0, 0)
        months_layout.addWidget(self.months_spin)
        self.months_note = QLabel(self.tr("month(s) apart"))
        months_layout.addWidget(self.months_note)
        self.start_label = QLabel(self.tr("from"))
        self.start_edit = QDateEdit()
        self.start_edit.setDisplayFormat("MMMM yyyy")
        self.start_edit.setCalendarPopup(False)
        self.start_edit.setMinimumDate(QDate(1970, 1, 1))
        self.start_edit.setMaximumDate(QDate(9999, 12, 1))
        self.start_edit.setAccessibleName(self.tr("The first month counted"))
        self.start_edit.setToolTip(self.tr("Runs in this month and every so many months "
                                           "after it"))
        self.start_label.setBuddy(self.start_edit)
        months_layout.addWidget(self.start_label)
        months_layout.addWidget(self.start_edit)
        months_layout.addStretch(1)
        months_row.setFocusProxy(self.months_spin)
        self._monthly_start: tuple[int, str] | None = None    # (every, start) as loaded

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
                ("months", self.tr("Every"), months_row),
                ("time", self.tr("At"), self.time_edit),
                ("expression", self.tr("Expression"), self.cron_edit),
                ("kept", self.tr("Schedule"), self.kept_words),
                ("timezone", self.tr("Time zone"), self.zone_box),
                ("preview", self.tr("Next runs"), self.preview)):
            self.rows[key] = self._row(key, label, widget)
        self.errors["expression"].setVisible(False)

        self.mode_box.currentIndexChanged.connect(self._mode_changed)
        self.day_kind.currentIndexChanged.connect(self._day_kind_changed)
        self.months_spin.valueChanged.connect(self._months_changed)
        self.start_edit.dateChanged.connect(self._edited)
        for signal in (self.once_edit.dateTimeChanged, self.time_edit.timeChanged,
                       self.day_spin.valueChanged, self.cron_edit.textChanged,
                       self.nth_box.currentIndexChanged, self.weekday_box.currentIndexChanged,
                       self.months_spin.valueChanged,
                       self.every_edit.changed, self.after_edit.changed,
                       self.zone_box.zone_changed):
            signal.connect(self._edited)
        for box in self.day_boxes:
            box.toggled.connect(self._edited)

        start = (self.clock() + timedelta(hours=1)).astimezone(zone(self.zone_name()))
        self._set_once(start.replace(minute=0, second=0, microsecond=0, tzinfo=None))
        self.set_mode("daily")
        self._day_kind_changed()
        self._months_changed()
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
                kind = self.day_kind.currentData()
                out["day_kind"] = kind
                out["months"] = self.months_spin.value()
                if out["months"] > 1:
                    month = self.start_edit.date()
                    out["start"] = date(month.year(), month.month(), 1)
                if kind in ("day", "before_last"):
                    out["day"] = self.day_spin.value()
                elif kind == "weekday":
                    out["nth"] = self.nth_box.currentData()
                    out["weekday"] = self.weekday_box.currentData()
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
            for key, box in (("day_kind", self.day_kind), ("nth", self.nth_box),
                             ("weekday", self.weekday_box)):
                if key in values:
                    box.setCurrentIndex(max(0, box.findData(values[key])))
            self._day_kind_changed()
            if "day" in values:
                self.day_spin.setValue(values["day"])
            if "start" in values:
                self.start_edit.setDate(QDate(values["start"].year, values["start"].month, 1))
            if "months" in values:
                self.months_spin.setValue(values["months"])
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
        if mode == "monthly" and (self.day_kind.currentData() != "day"
                                  or self.months_spin.value() > 1):
            return self._monthly_trigger(tz_name)
        expression = cron_text(mode, self._time(), self._days(), self.day_spin.value())
        return {"kind": "cron", "expression": expression, "timezone": tz_name}

    def _month_fields(self) -> dict[str, Any]:
        kind = self.day_kind.currentData()
        if kind == "day":
            return {"day": self.day_spin.value()}
        if kind == "last":
            return {"day": -1}
        if kind == "before_last":
            return {"day": -self.day_spin.value()}
        return {"weekday": self.weekday_box.currentData(), "nth": self.nth_box.currentData()}

    def _monthly_trigger(self, tz_name: str) -> dict[str, Any]:
        """A day cron cannot say, or a day every N months: a ``monthly`` trigger; its grid
        keeps the start it was loaded with, else starts at the first month ahead."""
        fields, at, every = self._month_fields(), self._time(), self.months_spin.value()
        if every > 1:   # the month the person chose the grid to count from
            month = self.start_edit.date()
            start = f"{month.year():04d}-{month.month():02d}"
        else:
            kept = self._monthly_start
            start = kept[1] if kept and kept[0] == every else monthly_start(
                fields, at.hour, at.minute, tz_name, self.clock())
        return {"kind": "monthly", **fields, "every": every, "start": start,
                "at": f"{at.hour:02d}:{at.minute:02d}", "timezone": tz_name}

    def _months_changed(self, _value: int = 0) -> None:
        """Several months apart: say from which month, first the coming one with the day."""
        several = self.months_spin.value() > 1
        if several and not self._loading and not self.start_label.isVisibleTo(self):
            at = self._time()
            first = monthly_start(self._month_fields(), at.hour, at.minute,
                                  self.zone_name() if self.zone_box.valid() else "UTC",
                                  self.clock())
            self.start_edit.setDate(QDate(int(first[:4]), int(first[5:]), 1))
        self.start_label.setVisible(several)
        self.start_edit.setVisible(several)

    def _day_kind_changed(self, _index: int = 0) -> None:
        kind = self.day_kind.currentData()
        self.day_spin.setVisible(kind in ("day", "before_last"))
        self.day_spin.setRange(2 if kind == "before_last" else 1, 31)
        # 2 from the end is the day before the last
        self.day_spin.setSuffix(self.tr(" from the end") if kind == "before_last" else "")
        self.nth_box.setVisible(kind == "weekday")
        self.weekday_box.setVisible(kind == "weekday")
        self._edited()

    def load_trigger(self, doc: dict[str, Any]) -> str:
        """Show a stored trigger; returns the mode it is shown as."""
        self._loading = True
        try:
            self._set_kept(None)
            self._start_at = {}
            self._monthly_start = None
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
            elif kind == "monthly":
                self.set_values(self._monthly_values(doc))
                self._loading = True
                self._monthly_start = (int(doc.get("every") or 1), str(doc.get("start")))
                mode = "monthly"
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

    @staticmethod
    def _monthly_values(doc: dict[str, Any]) -> dict[str, Any]:
        """The picker's values for a ``monthly`` trigger document."""
        values: dict[str, Any] = {"mode": "monthly", "months": int(doc.get("every") or 1)}
        start = str(doc.get("start") or "")
        if values["months"] > 1 and re.fullmatch(r"\d{4}-\d\d", start):
            values["start"] = date(int(start[:4]), int(start[5:]), 1)
        if doc.get("timezone"):
            values["zone"] = doc["timezone"]
        clock = str(doc.get("at") or "09:00")
        values["time"] = time(int(clock[:2]), int(clock[3:5]))
        day = doc.get("day")
        if isinstance(day, int) and day > 0:
            values.update(day_kind="day", day=day)
        elif day == -1:
            values["day_kind"] = "last"
        elif isinstance(day, int) and day < -1:
            values.update(day_kind="before_last", day=-day)
        else:
            values.update(day_kind="weekday", nth=doc.get("nth"), weekday=doc.get("weekday"))
        return values

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
                "months": mode == "monthly",
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
        kind = self.day_kind.currentData()
        self.day_note.setVisible(kind == "weekday" and abs(self.nth_box.currentData()) == 5
                                 or kind in ("day", "before_last") and self.day_spin.value() > 28)
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
        if self.mode() == "monthly" and part in ("every", "start"):
            return "months"
        if self.mode() == "monthly" and part in ("day", "weekday", "nth"):
            return "day"
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

