"""A mail message as a run is given it: headers and plain text, bounded, parsed without
trusting anything in it. A message that cannot be read is an entry that says so."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from typing import Any

TEXT_LIMIT = 16_000          # characters of body text a run gets per message
HEADER_LIMIT = 500
HEADER_BYTES = 32 * 1024     # of the raw header block: decoding is superlinear in it


def _cut_headers(raw: bytes) -> bytes:
    """The message with its header block cut to ``HEADER_BYTES`` (at a line end) before it
    is parsed: a header of thousands of encoded words would take minutes to decode."""
    end = raw.find(b"\r\n\r\n")
    end = raw.find(b"\n\n") if end < 0 else end
    if end < 0 or end <= HEADER_BYTES:
        return raw
    cut = raw.rfind(b"\n", 0, HEADER_BYTES)
    return raw[:max(cut, 0)] + b"\r\n" + raw[end:]


def _header(message: EmailMessage, name: str) -> str:
    try:
        value = message.get(name)
    except Exception:  # a header the policy cannot decode
        return ""
    return str(value or "")[:HEADER_LIMIT]


def _text(message: EmailMessage) -> str:
    try:
        part = message.get_body(preferencelist=("plain", "html"))
        text = part.get_content() if part is not None else ""
    except Exception:
        payload = message.get_payload(decode=True)
        text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    if not isinstance(text, str):
        text = ""
    if len(text) > TEXT_LIMIT:
        text = text[:TEXT_LIMIT] + "\n… [cut]"
    return text


def read_message(uid: int, raw: bytes) -> dict[str, Any]:
    """``{"uid", "from", "to", "subject", "date", "message_id", "text", "attachments"}``,
    or ``{"uid", "error"}`` for bytes that are not a message."""
    try:
        message = email.message_from_bytes(_cut_headers(raw), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        if not message.keys():
            raise ValueError("no headers")
        attachments = []
        for part in message.iter_attachments():
            name = part.get_filename()
            attachments.append(str(name)[:200] if name else "(unnamed)")
        return {"uid": uid, "from": _header(message, "From"), "to": _header(message, "To"),
                "subject": _header(message, "Subject"), "date": _header(message, "Date"),
                "message_id": _header(message, "Message-ID"), "text": _text(message),
                "attachments": attachments[:50]}
    except Exception as exc:
        return {"uid": uid, "error": f"this message could not be read ({type(exc).__name__})",
                "size": len(raw)}


def matches(message: dict[str, Any], sender: str | None, subject: str | None) -> bool:
    """The trigger's filters (case-insensitive substrings), checked again here: the
    server's SEARCH narrowed what was fetched."""
    if sender and sender.lower() not in str(message.get("from", "")).lower():
        return False
    return not subject or subject.lower() in str(message.get("subject", "")).lower()
