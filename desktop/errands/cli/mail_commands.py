"""``errands mail``: the mail accounts (add or change, list, test, remove)."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from ..errors import Conflict, InvalidInput
from .commands import _dir, emit, open_store, read_secret
from .routing import perform, secrets_stay_here

_FLAGS = {"imap_host": "--imap-host", "imap_port": "--imap-port",
          "imap_security": "--imap-security", "smtp_host": "--smtp-host",
          "smtp_port": "--smtp-port", "smtp_security": "--smtp-security",
          "username": "--user", "address": "--address", "name": "name"}


def add(args: argparse.Namespace) -> int:
    from ..mail.accounts import parse_account, set_password
    doc = {"name": args.name, "address": args.address, "imap_host": args.imap_host,
           "imap_port": args.imap_port, "imap_security": args.imap_security,
           "username": args.user or "", "smtp_host": args.smtp_host,
           "smtp_port": args.smtp_port, "smtp_security": args.smtp_security}
    doc = {k: v for k, v in doc.items() if v is not None}
    try:
        account = parse_account(doc)
    except InvalidInput as exc:
        exc.field = _FLAGS.get(exc.field, exc.field)
        raise
    secrets_stay_here(_dir(args), "a mail account's password")
    password = _password(args)
    store = open_store(args)

    def local() -> dict[str, Any]:
        store.save_mail_account(account, store_now())
        return account.to_dict()

    set_password(_dir(args), account.name, password)
    reply = perform(_dir(args), "mail_account_save", {"account": account.to_dict()}, local)
    shown = {k: v for k, v in reply.items() if k != "stamp"}
    emit(args, shown, f"Saved mail account {account.name} ({account.address}); its password "
         "is in the keyring. Check it with: errands mail test " + account.name)
    return 0


def store_now() -> Any:
    from ..timeutil import utcnow
    return utcnow()


def _password(args: argparse.Namespace) -> str:
    return read_secret(args.password_stdin, "--password-stdin", f"Password for {args.name}: ",
                       "errands mail add work … --password-stdin < password.txt")


def list_accounts(args: argparse.Namespace) -> int:
    accounts = open_store(args).mail_accounts()
    docs = [a.to_dict() for a in accounts]
    lines = [f"{a.name}: {a.address}  imap {a.imap_host}:{a.imap_port} ({a.imap_security})"
             + (f"  smtp {a.smtp_host}:{a.smtp_port} ({a.smtp_security})" if a.smtp_host
                else "") for a in accounts]
    emit(args, {"accounts": docs}, "\n".join(lines) or "No mail accounts. Add one with: "
         "errands mail add NAME --address ME --imap-host HOST")
    return 0


def test(args: argparse.Namespace) -> int:
    from ..mail.accounts import get_password
    from ..mail.imap import MailError, check
    account = open_store(args).mail_account(args.name)
    password = get_password(_dir(args), account.name)
    try:
        said = asyncio.run(check(account, password))
    except MailError as exc:
        raise Conflict("mail_unreachable", str(exc)) from exc
    emit(args, {"ok": True, "message": said}, said)
    return 0


def remove(args: argparse.Namespace) -> int:
    from ..mail.accounts import delete_password
    store = open_store(args)
    store.mail_account(args.name)  # (NotFound when there is none)

    def local() -> dict[str, Any]:
        from ..event_triggers import MailTrigger, members_of
        users = [a.title for a in store.list() if a.definition is not None and any(
            isinstance(m.trigger, MailTrigger) and m.trigger.account == args.name
            for m in members_of(a.definition.trigger))]
        if users:
            raise Conflict("in_use", f"mail account {args.name!r} is used by "
                           + ", ".join(sorted(users)[:5]) + "; change those first")
        return {"deleted": store.delete_mail_account(args.name)}

    perform(_dir(args), "mail_account_delete", {"name": args.name}, local)
    delete_password(_dir(args), args.name)
    emit(args, {"deleted": True}, f"Removed mail account {args.name} and its password.")
    return 0
