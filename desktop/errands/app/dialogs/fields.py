"""Small pieces the form and the schedule picker share: an error line under a field, a
duration as number + unit, and a searchable time-zone box."""

from __future__ import annotations

from datetime import timedelta
from functools import lru_cache
from zoneinfo import available_timezones

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QWidget,
)

from .. import theme, words

UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_SECONDS = 366 * 86400


def unit_words(unit: str, amount: int = 2) -> str:
    if amount == 1:
        return {"s": words.tr("second"), "m": words.tr("minute"), "h": words.tr("hour"),
                "d": words.tr("day")}[unit]
    return {"s": words.tr("seconds"), "m": words.tr("minutes"), "h": words.tr("hours"),
            "d": words.tr("days")}[unit]


_CHANGE_SIGNALS = ("changed", "textChanged", "valueChanged", "currentIndexChanged",
                   "toggled", "dateTimeChanged")


def _change_signal(widget: QWidget) -> Any:
    """The signal ``widget`` sends when a person changes its value, if it has one."""
    for name in _CHANGE_SIGNALS:
        signal = getattr(widget, name, None)
        if signal is not None and hasattr(signal, "connect"):
            return signal
    return None


def change_signals(widget: QWidget) -> list[Any]:
    """What tells that ``widget`` changed: its own signal, or, for a row of several
    (a date and a check box), each of its fields' signals."""
    own = _change_signal(widget)
    if own is not None:
        return [own]
    return [signal for child in widget.findChildren(QWidget)
            if (signal := _change_signal(child)) is not None]


class ErrorLabel(QLabel):
    """A refusal shown under the field it names: red text (colour helps, the words carry the
    meaning), and the same words as the field's accessible description."""

    def __init__(self, field: QWidget | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.field = field
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setAccessibleName(words.tr("Error"))
        self.setVisible(False)
        self._description = field.accessibleDescription() if field is not None else ""
        # a refusal is about what was there: a change makes it stale
        for changed in change_signals(field) if field is not None else ():
            changed.connect(self._field_changed)

    def _field_changed(self, *_args: object) -> None:
        if self.showing:
            self.clear_message()

    def show_message(self, text: str) -> None:
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.WindowText, theme.state_colors()["error"])
        self.setPalette(palette)
        self.setText(text)
        self.setVisible(True)
        if self.field is not None:
            self.field.setAccessibleDescription(text)

    def clear_message(self) -> None:
        self.setText("")
        self.setVisible(False)
        if self.field is not None:
            self.field.setAccessibleDescription(self._description)

    @property
    def showing(self) -> bool:
        return not self.isHidden() and bool(self.text())


class DurationEdit(QWidget):
    """A whole number and a unit; ``value()`` is a timedelta, ``set_value`` picks the
    largest unit that shows it exactly (False when none of the offered units can)."""

    changed = Signal()

    def __init__(self, units: tuple[str, ...] = ("m", "h", "d"), parent: QWidget | None = None,
                 *, name: str = "") -> None:
        super().__init__(parent)
        self.units = units
        self.amount = QSpinBox()
        self.amount.setRange(1, MAX_SECONDS // UNIT_SECONDS[units[0]])
        self.amount.setAccessibleName(name or words.tr("Amount"))
        self.unit = QComboBox()
        for u in units:
            self.unit.addItem(unit_words(u), u)
        self.unit.setAccessibleName((name + " " if name else "") + words.tr("unit"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.amount)
        layout.addWidget(self.unit)
        layout.addStretch(1)
        self.setFocusProxy(self.amount)
        self.amount.valueChanged.connect(self._amount_changed)
        self.unit.currentIndexChanged.connect(self._unit_changed)

    def _amount_changed(self, amount: int) -> None:
        for i, u in enumerate(self.units):
            self.unit.setItemText(i, unit_words(u, amount))
        self.changed.emit()

    def _unit_changed(self, _index: int) -> None:
        self.amount.setMaximum(max(1, MAX_SECONDS // UNIT_SECONDS[self.unit_code()]))
        self.changed.emit()

    def unit_code(self) -> str:
        return str(self.unit.currentData())

    def value(self) -> timedelta:
        return timedelta(seconds=self.amount.value() * UNIT_SECONDS[self.unit_code()])

    def set_value(self, value: timedelta) -> bool:
        seconds = int(value.total_seconds())
        for u in reversed(self.units):
            if u == "d" and seconds < 2 * UNIT_SECONDS["d"] and "h" in self.units:
                continue    # "24 hours" reads better than "1 day", as in format_duration
            if seconds > 0 and seconds % UNIT_SECONDS[u] == 0:
                self.unit.setCurrentIndex(self.units.index(u))
                self.amount.setValue(seconds // UNIT_SECONDS[u])
                return True
        return False


@lru_cache(maxsize=1)
def zone_names() -> tuple[str, ...]:
    return tuple(sorted(n for n in available_timezones() if "/" in n or n == "UTC"))


class ZoneBox(QComboBox):
    """An editable box over every IANA zone; typing any part of a name ("york") finds it."""

    zone_changed = Signal(str)

    def __init__(self, current: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMaxVisibleItems(15)
        self.addItems(list(zone_names()))
        completer = QCompleter(list(zone_names()), self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.setCompleter(completer)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(18)
        self.set_zone(current)
        self.currentTextChanged.connect(lambda text: self.zone_changed.emit(text.strip()))

    def zone(self) -> str:
        return self.currentText().strip()

    def set_zone(self, name: str) -> None:
        index = self.findText(name)
        if index >= 0:
            self.setCurrentIndex(index)
        else:                       # a zone this machine's list lacks is still shown
            self.setEditText(name)

    def valid(self) -> bool:
        return self.zone() in zone_names() or self.zone() in available_timezones()

