"""Reading one mailbox folder over IMAP (aioimaplib) without changing it: messages are
fetched with ``BODY.PEEK``, so Errands never marks mail read, and it never moves or
deletes any. UIDs with the folder's UIDVALIDITY say which messages were seen (RFC 3501 2.3.1.1)."""

from __future__ import annotations

import asyncio
import re
import ssl
from dataclasses import dataclass
from typing import Any

from .accounts import MailAccount
from .messages import read_message

FETCH_BYTES = 1024 * 1024    # of each message: enough for its text, never a huge attachment
TIMEOUT = 20.0


class MailError(Exception):
    """The server could not be reached or refused: said in words a person can act on."""


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass
class Mailbox:
    client: Any
    folder: str
    uidvalidity: int
    uidnext: int

    @classmethod
    async def open(cls, account: MailAccount, password: str, folder: str = "INBOX"
                   ) -> "Mailbox":
        import aioimaplib
        try:
            if account.imap_security == "tls":
                client = aioimaplib.IMAP4_SSL(host=account.imap_host, port=account.imap_port,
                                              timeout=TIMEOUT,
                                              ssl_context=ssl.create_default_context())
            else:
                client = aioimaplib.IMAP4(host=account.imap_host, port=account.imap_port,
                                          timeout=TIMEOUT)
            await client.wait_hello_from_server()
        except (OSError, TimeoutError, aioimaplib.Abort) as exc:
            raise MailError(f"cannot reach {account.imap_host}:{account.imap_port} "
                            f"({exc or type(exc).__name__})") from exc
        try:
            answer = await client.login(account.login, password)
            if answer.result != "OK":
                raise MailError(f"{account.imap_host} refused the login of {account.login}")
            answer = await client.select(folder)
            if answer.result != "OK":
                raise MailError(f"{account.imap_host} has no folder {folder!r}")
        except MailError:
            await _close(client)
            raise
        except Exception as exc:  # (aioimaplib's Abort, a timeout, a cut connection)
            await _close(client)
            raise MailError(f"{account.imap_host} broke off the login "
                            f"({exc or type(exc).__name__})") from exc
        except BaseException:
            await _close(client)
            raise
        text = b" ".join(line for line in answer.lines if isinstance(line, bytes)).decode(
            "ascii", "replace")
        validity = re.search(r"UIDVALIDITY (\d+)", text)
        nxt = re.search(r"UIDNEXT (\d+)", text)
        if validity is None:
            await _close(client)
            raise MailError(f"{account.imap_host} gave folder {folder!r} no UIDVALIDITY")
        return cls(client, folder, int(validity.group(1)), int(nxt.group(1)) if nxt else 1)

    async def uids_after(self, last: int, sender: str | None = None,
                         subject: str | None = None) -> list[int]:
        """The UIDs above ``last`` (matching the filters, when given), ascending."""
        criteria = [f"UID {last + 1}:*"]
        # (a filter that is not ASCII is left to the caller, who checks every message:
        # servers refuse such a quoted string without a literal)
        if sender and sender.isascii():
            criteria.append(f"FROM {_quoted(sender)}")
        if subject and subject.isascii():
            criteria.append(f"SUBJECT {_quoted(subject)}")
        answer = await self.client.uid_search(" ".join(criteria))
        if answer.result != "OK":
            raise MailError(f"the server refused a search of {self.folder!r}")
        found: set[int] = set()
        for line in answer.lines[:-1]:
            if isinstance(line, (bytes, bytearray)):
                found.update(int(t) for t in bytes(line).split() if t.isdigit())
        return sorted(u for u in found if u > last)  # ("n:*" also names the last message)

    async def fetch(self, uids: list[int]) -> list[dict[str, Any]]:
        """The messages, as a run is given them (``messages.read_message``)."""
        if not uids:
            return []
        answer = await self.client.uid("fetch", ",".join(map(str, uids)),
                                       f"(UID BODY.PEEK[]<0.{FETCH_BYTES}>)")
        if answer.result != "OK":
            raise MailError(f"the server refused to send messages of {self.folder!r}")
        raw: dict[int, bytes] = {}
        uid: int | None = None
        for line in answer.lines:
            if isinstance(line, bytes):
                found = re.search(rb"UID (\d+)", line)
                uid = int(found.group(1)) if found else uid
            elif isinstance(line, bytearray) and uid is not None:
                raw[uid] = bytes(line)
                uid = None
        # (parsing is the sender's to make slow: never on the loop)
        out = await asyncio.to_thread(lambda: {u: read_message(u, b) for u, b in raw.items()})
        return [out.get(u, {"uid": u, "error": "the server sent nothing for it"}) for u in uids]

    @property
    def can_idle(self) -> bool:
        return bool(self.client.has_capability("IDLE"))

    async def wait(self, timeout: float) -> None:
        """Until the server tells of a change (IDLE) or ``timeout`` seconds pass."""
        if not self.can_idle:
            await asyncio.sleep(timeout)
            await self.client.noop()
            return
        idle = await self.client.idle_start(timeout=timeout + 5)
        try:
            await self.client.wait_server_push(timeout=timeout)
        except TimeoutError:
            pass
        finally:
            if self.client.has_pending_idle():
                self.client.idle_done()
            await asyncio.wait_for(idle, TIMEOUT)

    async def close(self) -> None:
        await _close(self.client)


async def _close(client: Any) -> None:
    """Log out, then close the connection (the server may leave it open after LOGOUT)."""
    try:
        await client.logout()
    except Exception:
        pass
    transport = getattr(getattr(client, "protocol", None), "transport", None)
    if transport is not None and not transport.is_closing():
        transport.close()
        await asyncio.sleep(0)  # (the transport finishes closing on the next turn)


async def check(account: MailAccount, password: str, folder: str = "INBOX") -> str:
    """Log in and open the folder: what a Test button says on success."""
    box = await Mailbox.open(account, password, folder)
    try:
        count = len(await box.uids_after(0))
    finally:
        await box.close()
    return f"{account.login} on {account.imap_host}: {folder} has {count} messages"
