"""The run ledger: every transaction of a run's life (see ``book``), and the only code of
the engine's side that touches the database schema."""

from .admission import FOLDER_BUSY, Admission, Due, Offer, Rules
from .book import Ledger
from .closing import WAITING, Closed, slot_key

__all__ = ["FOLDER_BUSY", "WAITING", "Admission", "Closed", "Due", "Ledger", "Offer", "Rules",
           "slot_key"]
