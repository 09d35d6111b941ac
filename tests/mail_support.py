"""Real mail servers on loopback for the tests: Dovecot (IMAP, from Debian's package
dovecot-imapd, which ``dev.py`` installs) in a throwaway folder, and aiosmtpd (SMTP)."""

from __future__ import annotations

import imaplib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

USER, PASSWORD = "me@example.com", "secret-pw"
DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Dovecot:
    """An IMAP server with one user and an empty INBOX, stopped (and its folder removed)
    after the test. Never skipped: a machine without Dovecot fails here, saying why."""

    def __init__(self) -> None:
        assert os.path.exists(DOVECOT), ("Dovecot is not installed: 'python3 dev.py test' "
                                         "installs it (apt-get install dovecot-imapd)")
        self.root = Path(tempfile.mkdtemp(prefix="errands-dovecot-"))
        self.root.chmod(0o755)  # (its mail user must reach its own folder)
        self.port = free_port()
        mail_user = pwd.getpwnam("dovecot")
        home = self.root / "home"
        home.mkdir()
        if os.geteuid() == 0:
            os.chown(home, mail_user.pw_uid, mail_user.pw_gid)
        (self.root / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
        (self.root / "dovecot.conf").write_text(f"""
base_dir = {self.root}/run
state_dir = {self.root}/state
log_path = {self.root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
mail_location = maildir:{home}/%u/Maildir
default_internal_user = dovecot
default_internal_group = dovecot
default_login_user = dovenull
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {self.root}/passwd
}}
userdb {{
  driver = static
  args = uid={mail_user.pw_uid} gid={mail_user.pw_gid} home={home}/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
  inet_listener imaps {{
    port = 0
  }}
  chroot =
}}
service anvil {{
  chroot =
}}
""")
        self.proc = subprocess.Popen([DOVECOT, "-F", "-c", str(self.root / "dovecot.conf")],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            try:
                with self.session():
                    break
            except (OSError, imaplib.IMAP4.error):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    log = (self.root / "dovecot.log")
                    raise AssertionError("Dovecot did not start: " + (
                        log.read_text() if log.exists() else "") + (
                        self.proc.stdout.read().decode() if self.proc.stdout else ""))
                time.sleep(0.1)

    def session(self) -> imaplib.IMAP4:
        box = imaplib.IMAP4("127.0.0.1", self.port, timeout=10)
        box.login(USER, PASSWORD)
        return box

    def deliver(self, *, sender: str = "alice@example.com", subject: str = "Hello",
                text: str = "Hi there", raw: bytes | None = None, folder: str = "INBOX") -> None:
        if raw is None:
            message = EmailMessage()
            message["From"], message["To"], message["Subject"] = sender, USER, subject
            message.set_content(text)
            raw = bytes(message)
        with self.session() as box:
            status, _ = box.append(folder, None, None, raw)
            assert status == "OK"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def dovecot() -> Iterator[Dovecot]:
    server = Dovecot()
    try:
        yield server
    finally:
        server.stop()


class Smtp:
    """aiosmtpd on loopback, with a login, keeping every message it is given."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import AuthResult, LoginPassword

        self.messages: list[tuple[str, list[str], bytes]] = []
        outer = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):  # noqa: N802
                outer.messages.append((envelope.mail_from, list(envelope.rcpt_tos),
                                       envelope.content))
                return "250 OK"

        def authenticate(server, session, envelope, mechanism, auth_data):  # type: ignore[no-untyped-def]
            ok = (isinstance(auth_data, LoginPassword) and auth_data.login.decode() == USER
                  and auth_data.password.decode() == PASSWORD)
            return AuthResult(success=ok)

        self.port = free_port()
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port,
                                     authenticator=authenticate, auth_require_tls=False)
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()


@pytest.fixture
def smtp() -> Iterator[Smtp]:
    server = Smtp()
    try:
        yield server
    finally:
        server.stop()
