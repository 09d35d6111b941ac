"""The mail trigger against a real IMAP server (Dovecot on loopback): new mail fires one
run per batch holding each message once, across restarts too; filters are applied before
any run; a message that cannot be read, a wrong password and a server that is down end as
records and inbox items, never as an internal error."""

from __future__ import annotations

from datetime import timedelta

import pytest

from event_support import Real, real, until  # noqa: F401 (fixtures)
from mail_support import PASSWORD, USER, Dovecot, dovecot  # noqa: F401 (fixtures)
from pg_support import catalogue_text
from errands.mail.accounts import parse_account, set_password


def account(real: Real, server: Dovecot, password: str = PASSWORD, name: str = "work") -> None:
    real.store.save_mail_account(parse_account({
        "name": name, "address": USER, "imap_host": "127.0.0.1", "imap_port": server.port,
        "imap_security": "none"}), real.engine.clock.now())
    set_password(real.data, name, password)


def source(real: Real):
    return real.engine.sources.kinds["mail"]


async def connected(real: Real, a: str) -> None:
    """Until the trigger holds its watermark (mail from now on fires it)."""
    await until(lambda: real.store.trigger_state(a, "mail") is not None, "the mailbox opened")


MAIL = [{"id": "mail", "kind": "mail", "account": "work", "batch": "10s"}]


async def test_new_mail_fires_a_run_that_holds_each_message(real: Real, dovecot: Dovecot
                                                           ) -> None:
    dovecot.deliver(subject="old news")          # before the trigger: never fires it
    account(real, dovecot)
    a = await real.add("on mail", "true", MAIL)
    await connected(real, a)
    dovecot.deliver(sender="bob@example.com", subject="Invoice 7", text="Pay 30 EUR")
    await until(lambda: real.ended(a), "a run")
    [run] = real.ended(a)
    assert run.fired_by()["kind"] == "mail" and run.state == "succeeded"
    [message] = run.payload["messages"]
    assert (message["from"], message["subject"]) == ("bob@example.com", "Invoice 7")
    assert message["text"].strip() == "Pay 30 EUR"
    state = real.store.trigger_state(a, "mail")
    assert state["uid"] == 2 and state["batch_at"]


async def test_mail_is_batched_and_never_taken_twice_across_a_restart(
        real: Real, dovecot: Dovecot) -> None:
    account(real, dovecot)
    a = await real.add("batched", "true", MAIL)
    await connected(real, a)
    dovecot.deliver(subject="one")
    await until(lambda: real.ended(a), "the first batch")
    for i in range(3):       # inside the 10 s window: one batch, after it
        dovecot.deliver(subject=f"more {i}")
    await real.restart()     # (a restart keeps the window and the watermark)
    await until(lambda: len(real.ended(a)) == 2, "the second batch", within=30)
    first, second = real.ended(a)
    assert [m["subject"] for m in first.payload["messages"]] == ["one"]
    assert [m["subject"] for m in second.payload["messages"]] == ["more 0", "more 1", "more 2"]
    assert second.created_at - first.created_at >= timedelta(seconds=9)
    await real.restart()
    await connected(real, a)
    assert len(real.runs(a)) == 2


async def test_filters_run_on_the_server_and_malformed_mail_is_a_record(
        real: Real, dovecot: Dovecot) -> None:
    account(real, dovecot)
    a = await real.add("invoices", "true", [{"id": "mail", "kind": "mail", "account": "work",
                                             "sender": "billing@", "batch": "10s"}])
    await connected(real, a)
    dovecot.deliver(sender="friend@example.com", subject="lunch?")
    dovecot.deliver(raw=b"From: billing@example.com\r\nSubject: =?bogus?Q?x?=\r\n"
                        b"Content-Type: multipart/mixed; boundary=\"nope\"\r\n\r\n--nope\r\n")
    await until(lambda: real.ended(a), "a run")
    [run] = real.ended(a)
    [message] = run.payload["messages"]
    assert "billing@example.com" in message.get("from", "") or "error" in message


@pytest.mark.logs("cannot be read", "refused the login")
async def test_a_wrong_password_is_said_in_the_inbox(real: Real, dovecot: Dovecot) -> None:
    account(real, dovecot, password="wrong")
    a = await real.add("locked out", "true", MAIL)

    def said() -> bool:
        return any(i.kind == "trigger_problem" and i.automation_id == a
                   for i in real.store.attention())
    await until(said, "the problem in the inbox")
    assert "refused the login" in source(real).problems[(a, "mail")]
    assert real.runs(a) == []


@pytest.mark.logs("cannot reach")
async def test_a_server_that_is_down_is_said_and_tried_again(real: Real, tmp_path) -> None:
    from mail_support import free_port
    real.store.save_mail_account(parse_account({
        "name": "work", "address": USER, "imap_host": "127.0.0.1", "imap_port": free_port(),
        "imap_security": "none"}), real.engine.clock.now())
    set_password(real.data, "work", PASSWORD)
    a = await real.add("nobody home", "true", MAIL)
    await until(lambda: (a, "mail") in source(real).problems, "the problem noticed")
    assert "cannot reach" in source(real).problems[(a, "mail")]


@pytest.mark.catalogue_free
def test_a_password_never_travels_in_the_clear_to_another_machine() -> None:
    from errands.errors import InvalidInput
    with pytest.raises(InvalidInput) as caught:
        parse_account({"name": "work", "address": USER, "imap_host": "imap.example.com",
                       "imap_security": "none"})
    assert caught.value.field == "imap_security"


# ------------------------------------------------------------------ errands mail

def test_the_mail_commands_add_test_list_and_remove_an_account(
        dovecot: Dovecot, tmp_path, capsys, monkeypatch) -> None:
    import io
    import json

    from errands.cli import main

    data = str(tmp_path / "data")

    def cli(*argv: str, stdin: str = "", expect: int = 0) -> dict:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        capsys.readouterr()
        code = main([*argv, "--data-dir", data, "--json"])
        out, err = capsys.readouterr()
        assert code == expect, (out, err)
        return json.loads(out or err)

    saved = cli("mail", "add", "work", "--address", USER, "--imap-host", "127.0.0.1",
                "--imap-port", str(dovecot.port), "--imap-security", "none",
                "--password-stdin", stdin=PASSWORD + "\n")
    assert saved["name"] == "work" and "password" not in json.dumps(saved)
    stored = catalogue_text(tmp_path / "data")
    assert USER in stored and PASSWORD not in stored  # (the account is there, its password not)
    assert cli("mail", "list")["accounts"][0]["imap_port"] == dovecot.port
    dovecot.deliver(subject="x")
    assert "INBOX has 1 messages" in cli("mail", "test", "work")["message"]
    cli("add", "--title", "Inbox", "--command", "true", "--on-mail", "work")
    refused = cli("mail", "remove", "work", expect=4)  # (a conflict)
    assert refused["error"]["code"] == "in_use" and "Inbox" in refused["error"]["message"]
    wrong = cli("mail", "add", "home", "--address", "not an address", "--imap-host", "h",
                "--password-stdin", stdin="pw\n", expect=2)
    assert wrong["error"]["field"] == "--address"
