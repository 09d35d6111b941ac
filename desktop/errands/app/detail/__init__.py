"""The detail pane: header and actions, run strip, run history."""

from .history import RunHistoryModel
from .pane import DetailPane, delete_confirmation, upcoming_fires
from .strip import Mark, RunStrip

__all__ = ["DetailPane", "Mark", "RunHistoryModel", "RunStrip", "delete_confirmation",
           "upcoming_fires"]
