"""Mail accounts: where the mailbox is, who the user is, where mail is sent from.

Stored in the database (``mail_accounts``) without the password, which lives in the OS
keyring (service ``errands-mail``, user name ``<data folder>#<account>``). A connection
without TLS is allowed only to this machine (``127.0.0.1``, ``localhost``, ``::1``): a
password must not cross a network in the clear."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..definition import EMAIL
from ..errors import ErrandsError, InvalidInput
from ..event_triggers import TRIGGER_ID, TRIGGER_ID_TEXT

SERVICE = "errands-mail"
NAME = TRIGGER_ID          # (an account is named as a trigger is)
NAME_TEXT = TRIGGER_ID_TEXT
SECURITY = ("tls", "none")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
ADDRESS = EMAIL
HOST = re.compile(r"[A-Za-z0-9.:-]{1,253}")


@dataclass(frozen=True)
class MailAccount:
    name: str
    address: str                 # the user's own address: "email me" goes there
    imap_host: str
    imap_port: int = 993
    imap_security: str = "tls"
    username: str = ""           # empty: the address
    smtp_host: str | None = None
    smtp_port: int = 465
    smtp_security: str = "tls"

    @property
    def login(self) -> str:
        return self.username or self.address

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_account(doc: Any) -> MailAccount:
    """An account from its document, each bad field refused by name."""
    if not isinstance(doc, dict):
        raise InvalidInput("account", "expected an object", "a mail account", '{"name": "work"}')
    known = set(MailAccount.__dataclass_fields__)
    unknown = sorted(set(doc) - known)
    if unknown:
        raise InvalidInput(f"account.{unknown[0]}", f"unknown field {unknown[0]!r}",
                           "one of " + ", ".join(sorted(known)), "imap_host")

    def text(key: str, pattern: re.Pattern[str], expected: str, example: str,
             required: bool = True) -> str | None:
        value = doc.get(key)
        if value in (None, "") and not required:
            return None
        if not isinstance(value, str) or not pattern.fullmatch(value.strip()):
            raise InvalidInput(key, f"not {expected}: {value!r}" if value else "is required",
                               expected, example, reason="required" if not value else None)
        return value.strip()

    def port(key: str, default: int) -> int:
        value = doc.get(key, default)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
            raise InvalidInput(key, f"not a port: {value!r}", "a whole number from 1 to 65535",
                               str(default), reason="range", values={"low": 1, "high": 65535})
        return value

    def security(key: str, host: str | None) -> str:
        value = doc.get(key) or "tls"
        if value not in SECURITY:
            raise InvalidInput(key, f"unsupported value {value!r}", "tls or none", "tls",
                               reason="choice", values={"options": "tls, none"})
        if value == "none" and host is not None and host not in LOOPBACK:
            raise InvalidInput(key, f"a password must not travel in the clear to {host}",
                               "tls, or none only for a server on this machine", "tls")
        return value

    name = text("name", NAME, NAME_TEXT, "work")
    address = text("address", ADDRESS, "an email address", "me@example.com")
    imap_host = text("imap_host", HOST, "a host name", "imap.example.com")
    smtp_host = text("smtp_host", HOST, "a host name", "smtp.example.com", required=False)
    username = doc.get("username") or ""
    if not isinstance(username, str) or len(username) > 200 or any(c in username for c in "\r\n\0"):
        raise InvalidInput("username", "not a user name", "one line of at most 200 characters",
                           "me@example.com")
    assert name and address and imap_host
    return MailAccount(
        name=name, address=address, imap_host=imap_host,
        imap_port=port("imap_port", 993), imap_security=security("imap_security", imap_host),
        username=username.strip(), smtp_host=smtp_host, smtp_port=port("smtp_port", 465),
        smtp_security=security("smtp_security", smtp_host))


class PasswordUnavailable(ErrandsError):
    code = "no_password"


def _user(data_dir: Path, name: str) -> str:
    return f"{Path(data_dir).resolve()}#{name}"


def get_password(data_dir: Path, name: str) -> str:
    """The account's password from the keyring (blocking: call it off the loop)."""
    import keyring
    import keyring.errors
    try:
        password = keyring.get_password(SERVICE, _user(data_dir, name))
    except keyring.errors.KeyringError as exc:
        raise PasswordUnavailable(f"cannot read the password of mail account {name!r} from "
                                  f"the keyring: {exc}") from exc
    if not password:
        raise PasswordUnavailable(f"mail account {name!r} has no password in the keyring; "
                                  f"set one with: errands mail add {name} … --password-stdin")
    return password


def set_password(data_dir: Path, name: str, password: str) -> None:
    import keyring
    import keyring.errors
    if not password or "\n" in password or len(password) > 1024:
        raise InvalidInput("--password-stdin", "not a password", "one line of 1 to 1024 "
                           "characters", "(typed on standard input)")
    try:
        keyring.set_password(SERVICE, _user(data_dir, name), password)
    except keyring.errors.KeyringError as exc:
        raise PasswordUnavailable(f"cannot keep the password in the keyring: {exc}") from exc


def delete_password(data_dir: Path, name: str) -> None:
    import keyring
    import keyring.errors
    try:
        keyring.delete_password(SERVICE, _user(data_dir, name))
    except keyring.errors.KeyringError:
        pass
