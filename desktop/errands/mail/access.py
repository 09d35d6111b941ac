"""Which mail account a run's mail tools use, and who it may write to unasked."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class MailAccess:
    """The account a run's mail tools use, or why there is none."""

    account: Any                      # mail.accounts.MailAccount, or None
    data_dir: Path
    allowed: tuple[str, ...] = ()     # recipients send_mail may write to unasked
    from_mail: bool = False           # the run was started by mail
    missing: str = ""

    def recipients_allowed(self, to: list[str]) -> bool:
        own = {self.account.address.lower()} if self.account is not None else set()
        return bool(to) and all(t.lower() in own | set(self.allowed) for t in to)
