"""Sending mail over SMTP (aiosmtplib): TLS from the first byte on port 465 (``tls``), or
plain to a server on this machine (``none``)."""

from __future__ import annotations

from email.message import EmailMessage

from .accounts import MailAccount

MAX_BODY = 100_000
TIMEOUT = 30.0


class SendError(Exception):
    """The message was not sent: said so a person can act on it."""


async def send(account: MailAccount, password: str, to: list[str], subject: str,
               body: str) -> str:
    """Send a plain-text message from the account's address; its Message-ID."""
    import aiosmtplib
    from email.utils import make_msgid

    if not account.smtp_host:
        raise SendError(f"mail account {account.name!r} has no SMTP server to send from "
                        f"(errands mail add {account.name} … --smtp-host HOST)")
    message = EmailMessage()
    message["From"] = account.address
    message["To"] = ", ".join(to)
    message["Subject"] = subject.replace("\r", " ").replace("\n", " ")[:300]
    message["Message-ID"] = make_msgid(domain=account.address.rsplit("@", 1)[-1])
    message["X-Mailer"] = "Errands"
    message.set_content(body[:MAX_BODY])
    try:
        await aiosmtplib.send(message, hostname=account.smtp_host, port=account.smtp_port,
                              username=account.login, password=password,
                              use_tls=account.smtp_security == "tls", start_tls=False,
                              timeout=TIMEOUT)
    except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
        raise SendError(f"{account.smtp_host}:{account.smtp_port} did not take the message "
                        f"({exc or type(exc).__name__})") from exc
    return str(message["Message-ID"])
