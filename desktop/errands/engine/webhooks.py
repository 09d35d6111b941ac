"""The local webhook server: ``POST http://127.0.0.1:PORT/hooks/<automation>/<trigger>``.

It listens on loopback only, and only while some automation has a webhook trigger (port:
the ``webhook_port`` setting). A call needs the trigger's bearer token, which Errands keeps
as a SHA-256 only (``webhook_tokens``; :meth:`WebhookSource.issue` makes a new one and
shows it once). A call is answered ``202`` with the run's id only once its run (or its
recorded skip) is committed, so an acknowledged call is never lost to a crash; the same
``Idempotency-Key`` again is answered with the same run and starts nothing. Every refusal
is JSON: ``{"error": {"code", "message"}}`` with 400, 401, 404, 405, 409, 411, 413, 429 or
503. HTTP/1.1 is read by h11 (the parser httpx uses), with keep-alive."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import h11

from ..errors import Conflict, ErrandsError, InvalidInput, NotFound
from ..jsondoc import loads
from ..event_triggers import WebhookTrigger, ids_of_kind, members_of
from ..ledger import Offer
from ..records import Automation, Run
from ..timeutil import format_instant

if TYPE_CHECKING:
    from .core import Engine

log = logging.getLogger(__name__)
HOST = "127.0.0.1"
PATH = re.compile(r"/hooks/([A-Za-z0-9-]{1,64})/([a-z0-9][a-z0-9_-]{0,39})/?")
KEY = re.compile(r"[\x21-\x7e]{1,200}")      # an Idempotency-Key: visible ASCII
HEAD_LIMIT = 16 * 1024
READ_TIMEOUT = 10.0
MAX_CONNECTIONS = 64          # more at once are answered 503 and closed
SERVER = b"Errands"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> tuple[str, str]:
    """A bearer token and the hash Errands keeps of it."""
    token = secrets.token_urlsafe(32)
    return token, token_hash(token)


def address(port: int, automation_id: str, trigger_id: str) -> str:
    return f"http://{HOST}:{port}/hooks/{automation_id}/{trigger_id}"


def webhook_members(automation: Automation) -> list[str]:
    d = automation.definition
    return ids_of_kind(d.trigger, "webhook") if d is not None else []


class _Refusal(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class _Bucket:
    tokens: float
    at: float


class WebhookSource:
    kind = "webhook"

    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self.hashes: dict[tuple[str, str], str] = {}
        self.server: asyncio.base_events.Server | None = None
        self.port: int | None = None
        self.problem: str | None = None    # why it is not listening, when it should be
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        self._connections: set[asyncio.Task[None]] = set()
        self._changing: asyncio.Lock | None = None
        self._users: set[str] = set()      # automations with a webhook trigger
        self._following: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        self._changing = asyncio.Lock()
        self.hashes = await self.e.read(self.e.store.webhook_hashes)
        self._users = {slot.automation.id for slot in self.e.sources.eventful_slots()
                       if webhook_members(slot.automation)}
        await self.follow()

    async def stop(self) -> None:
        await asyncio.gather(*self._following, return_exceptions=True)
        await self._close()

    def wanted(self) -> bool:
        return self.e.automatic and any(a in self.e.slots for a in self._users)

    def changed(self, automation: Automation) -> None:
        """An automation was written (or deleted: ``automation.definition`` None)."""
        members = webhook_members(automation)
        if members:
            self._users.add(automation.id)
        else:
            self._users.discard(automation.id)
        for key in [k for k in self.hashes if k[0] == automation.id and k[1] not in members]:
            del self.hashes[key]  # (its row went with the revision that removed it)
        if self._changing is not None and (self.server is None) == self.wanted():
            self._later(self.follow())

    def configured(self) -> None:
        """The settings changed: the port may have."""
        if self._changing is not None and (self.server is not None or self.wanted()):
            self._later(self.follow())

    def _later(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._following.add(task)  # (awaited by ``stop``)
        task.add_done_callback(self._following.discard)

    async def follow(self) -> None:
        """Listen when some automation has a webhook trigger, on the port the settings
        name; stop when none has."""
        assert self._changing is not None
        async with self._changing:
            want = self.wanted() and not self.e.stopping
            port = int(self.e.settings.get("webhook_port"))
            if self.server is not None and (not want or (port and port != self.port)):
                await self._close()
            if want and self.server is None:
                try:
                    self.server = await asyncio.start_server(self._serve, HOST, port,
                                                             limit=HEAD_LIMIT)
                except OSError as exc:
                    self.problem = (f"cannot listen on {HOST}:{port} "
                                    f"({exc.strerror or exc}); choose another webhook_port")
                    log.warning("webhook triggers: %s", self.problem)
                    return
                self.port = self.server.sockets[0].getsockname()[1]
                self.problem = None

    async def _close(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None
            self.port = None
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)

    def url(self, automation_id: str, trigger_id: str) -> str:
        return address(self.port or int(self.e.settings.get("webhook_port")), automation_id,
                       trigger_id)

    async def issue(self, automation_id: str, trigger_id: str) -> str:
        """A new token for the trigger (the old one stops working at once): shown this
        once, kept as its hash."""
        automation = (await self.e.slot(automation_id)).automation
        if trigger_id not in webhook_members(automation):
            raise NotFound(f"{automation.title} has no webhook trigger {trigger_id!r}")
        token, digest = new_token()
        await self.e.write(lambda: self.e.store.set_webhook_hash(
            automation_id, trigger_id, digest, self.e.clock.now()))
        self.hashes[(automation_id, trigger_id)] = digest
        return token

    # ------------------------------------------------------------------ one connection

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=HEAD_LIMIT)
        if len(self._connections) >= MAX_CONNECTIONS:  # (descriptors are for everyone)
            writer.write(b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json"
                         b"\r\nconnection: close\r\ncontent-length: 64\r\n\r\n"
                         b'{"error": {"code": "busy", "message": "too many connections"}}  ')
            writer.close()
            return
        self._connections.add(task)
        try:
            while True:
                try:
                    async with asyncio.timeout(READ_TIMEOUT):
                        event = await self._next(conn, reader)
                    if isinstance(event, (h11.ConnectionClosed, type(None))):
                        break
                    if not isinstance(event, h11.Request):
                        break
                    status, body = await self._handle(conn, reader, event)
                except _Refusal as refusal:
                    status, body = refusal.status, {"error": {"code": refusal.code,
                                                              "message": refusal.message}}
                except (h11.RemoteProtocolError, TimeoutError):
                    if conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                        self._send(conn, writer, 400, {"error": {
                            "code": "bad_request", "message": "not a request Errands can read"}},
                            close=True)
                        await writer.drain()
                    break
                self._send(conn, writer, status, body)
                await writer.drain()
                if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                    break
                try:
                    conn.start_next_cycle()
                except h11.LocalProtocolError:  # the body was not read to its end
                    break
        except (ConnectionError, asyncio.CancelledError):
            pass
        except Exception:
            log.exception("webhook connection failed")
        finally:
            self._connections.discard(task)
            writer.close()

    @staticmethod
    async def _next(conn: h11.Connection, reader: asyncio.StreamReader) -> Any:
        while True:
            event = conn.next_event()
            if event is not h11.NEED_DATA:
                return event
            data = await reader.read(65536)
            conn.receive_data(data)
            if not data and conn.their_state is not h11.DONE:
                conn.next_event()  # raises RemoteProtocolError on a cut request
                return None

    @staticmethod
    def _send(conn: h11.Connection, writer: asyncio.StreamWriter, status: int,
              body: dict[str, Any], close: bool = False) -> None:
        data = json.dumps(body).encode()
        headers = [(b"content-type", b"application/json"),
                   (b"content-length", str(len(data)).encode()), (b"server", SERVER)]
        if close or conn.their_state is not h11.DONE:  # (a body left unread: no reuse)
            headers.append((b"connection", b"close"))
        reason = HTTPStatus(status).phrase.encode()
        writer.write(conn.send(h11.Response(status_code=status, headers=headers,
                                            reason=reason)))
        writer.write(conn.send(h11.Data(data=data)))
        writer.write(conn.send(h11.EndOfMessage()))

    async def _handle(self, conn: h11.Connection, reader: asyncio.StreamReader,
                      request: h11.Request) -> tuple[int, dict[str, Any]]:
        target = request.target.decode("ascii", "replace").split("?", 1)[0]
        match = PATH.fullmatch(target)
        if match is None:
            raise _Refusal(404, "not_found", "no such address; webhooks are at "
                           "/hooks/<automation>/<trigger>")
        if request.method != b"POST":
            raise _Refusal(405, "method_not_allowed", "send the event with POST")
        automation_id, trigger_id = match.groups()
        slot = self.e.slots.get(automation_id)
        trigger = None
        if slot is not None and slot.automation.definition is not None:
            trigger = next((m.trigger for m in members_of(slot.automation.definition.trigger)
                            if m.id == trigger_id and isinstance(m.trigger, WebhookTrigger)),
                           None)
        if trigger is None:
            raise _Refusal(404, "not_found", "no automation has this webhook trigger")
        headers = {k.lower(): v for k, v in request.headers}
        digest = self.hashes.get((automation_id, trigger_id))
        given = headers.get(b"authorization", b"")
        if not given.startswith(b"Bearer ") or digest is None or not hmac.compare_digest(
                token_hash(given[7:].strip().decode("latin-1")), digest):
            raise _Refusal(401, "unauthorized", "send the trigger's token as "
                           "'Authorization: Bearer <token>'")
        if not self._allowed((automation_id, trigger_id)):
            raise _Refusal(429, "rate_limited", "too many calls to this trigger; the limit "
                           f"is {self.e.settings.get('webhook_rate_limit')} a minute")
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > trigger.max_body:
            raise _Refusal(413, "too_large", f"the body is {int(length)} bytes; at most "
                           f"{trigger.max_body}")
        async with asyncio.timeout(READ_TIMEOUT):
            raw = await self._body(conn, reader, trigger.max_body)
        try:  # (the project's checked reader: depth, NaN, lone surrogates, duplicate keys)
            body = loads(raw, "body", max_bytes=trigger.max_body) if raw.strip() else None
        except InvalidInput as exc:
            raise _Refusal(400, "invalid_json", str(exc)) from None
        key = headers.get(b"idempotency-key")
        if key is not None and not KEY.fullmatch(key.decode("latin-1")):
            raise _Refusal(400, "invalid_idempotency_key", "an Idempotency-Key is 1 to 200 "
                           "visible ASCII characters")
        key_text = "k:" + key.decode("ascii") if key is not None else "r:" + secrets.token_hex(16)
        if len(key_text) > 66:  # the slot's key stays short whatever the client sends
            key_text = "h:" + hashlib.sha256(key_text.encode()).hexdigest()[:48]
        now = self.e.clock.now()
        payload = {"body": body, "received_at": format_instant(now),
                   "idempotency_key": key.decode("ascii") if key is not None else None}
        offer = Offer("webhook", f"{trigger_id}:{key_text}", now, payload,
                      trigger_id=trigger_id, kind="webhook")
        try:
            offer = await self.e.sources.stored(automation_id, offer)
            answer = await self.e.sources.offer(automation_id, offer)
        except NotFound:
            raise _Refusal(404, "not_found", "no automation has this webhook trigger") from None
        except Conflict as exc:
            raise _Refusal(503, exc.code, str(exc)) from None
        except ErrandsError as exc:
            raise _Refusal(503, "unavailable", str(exc)) from None
        return await self._answer(automation_id, offer, answer)

    async def _answer(self, automation_id: str, offer: Offer, answer: Run | str
                      ) -> tuple[int, dict[str, Any]]:
        if isinstance(answer, Run):
            return 202, {"run_id": answer.id, "state": answer.state}
        if answer in ("duplicate", "skipped"):
            run = await self.e.read(self.e.store.run_in_slot, automation_id, offer.slot)
            if run is None and answer == "duplicate":  # (its run was since let go of)
                return 202, {"run_id": None, "state": None, "duplicate": True}
            if run is not None:
                body = {"run_id": run.id, "state": run.state}
                if answer == "duplicate":
                    body["duplicate"] = True
                if run.skip_reason:
                    body["skip_reason"] = run.skip_reason
                return 202, body
        if answer == "no_trigger" or answer == "deleted":
            raise _Refusal(404, "not_found", "no automation has this webhook trigger")
        if isinstance(answer, str) and answer.startswith("automation_"):
            raise _Refusal(409, answer, f"the automation is {answer.removeprefix('automation_')}"
                           "; nothing was started")
        raise _Refusal(503, "not_admitted", f"the event was not admitted ({answer})")

    @staticmethod
    async def _body(conn: h11.Connection, reader: asyncio.StreamReader, limit: int) -> bytes:
        parts, size = [], 0
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await reader.read(65536)
                conn.receive_data(data)
                if not data:
                    raise _Refusal(400, "bad_request", "the body ended early")
                continue
            if isinstance(event, h11.Data):
                size += len(event.data)
                if size > limit:
                    raise _Refusal(413, "too_large", f"the body is over {limit} bytes")
                parts.append(bytes(event.data))
                continue
            if isinstance(event, h11.EndOfMessage):
                return b"".join(parts)
            raise _Refusal(400, "bad_request", "not a request Errands can read")

    def _allowed(self, key: tuple[str, str]) -> bool:
        rate = int(self.e.settings.get("webhook_rate_limit"))
        now = time.monotonic()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(float(rate), now)
        bucket.tokens = min(float(rate), bucket.tokens + (now - bucket.at) * rate / 60.0)
        bucket.at = now
        if bucket.tokens < 1.0:
            return False
        bucket.tokens -= 1.0
        return True


