"""The local webhook trigger over real HTTP on loopback: a call is acknowledged only after
its run is committed, once per Idempotency-Key, and every bad call is a clear JSON
refusal."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from event_support import Real, real, until  # noqa: F401 (fixtures)
from pg_support import catalogue_sql, catalogue_text

HOOK = [{"id": "deploy", "kind": "webhook", "max_body": 1000}]


@pytest.fixture(autouse=True)
def any_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRANDS_WEBHOOK_PORT", "0")


def source(real: Real):
    return real.engine.sources.kinds["webhook"]


async def hooked(real: Real, command: str = "true", triggers: list = HOOK
                 ) -> tuple[str, str, str]:
    a = await real.add("hooked", command, triggers)
    await until(lambda: source(real).server is not None, "the server listening")
    token = await source(real).issue(a, "deploy")
    return a, source(real).url(a, "deploy"), token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_call_is_acknowledged_after_its_run_is_committed(real: Real) -> None:
    a, url, token = await hooked(real)
    async with httpx.AsyncClient() as client:
        answer = await client.post(url, json={"ref": "main"}, headers=bearer(token))
    assert answer.status_code == 202, answer.text
    run_id = answer.json()["run_id"]
    stored = real.store.get_run(run_id)  # committed before the answer
    assert stored.fired_by() == {"id": "deploy", "kind": "webhook", "cause": "event",
                                 "source": "webhook"}
    assert stored.payload["body"] == {"ref": "main"}
    await until(lambda: real.ended(a), "the run's end")
    assert real.ended(a)[0].state == "succeeded"


async def test_an_idempotency_key_repeated_starts_nothing_new(real: Real) -> None:
    a, url, token = await hooked(real)
    headers = {**bearer(token), "Idempotency-Key": "build-41"}
    async with httpx.AsyncClient() as client:
        first = await client.post(url, json={"n": 1}, headers=headers)
        await until(lambda: real.ended(a), "the first run's end")
        again = await client.post(url, json={"n": 2}, headers=headers)
        other = await client.post(url, json={"n": 3},
                                  headers={**bearer(token), "Idempotency-Key": "build-42"})
    assert first.status_code == again.status_code == other.status_code == 202
    assert again.json()["run_id"] == first.json()["run_id"] and again.json()["duplicate"]
    assert other.json()["run_id"] != first.json()["run_id"]
    await until(lambda: len(real.ended(a)) == 2, "two runs")
    assert [r.payload["body"]["n"] for r in real.runs(a)] == [1, 3]


async def chunks():
    yield b"[" + b"1," * 300
    yield b"1," * 300 + b"1]"


async def test_bad_calls_are_refused_with_a_json_error(real: Real, monkeypatch) -> None:
    a, url, token = await hooked(real)
    base = url.rsplit("/hooks/", 1)[0]
    async with httpx.AsyncClient() as client:
        cases = {
            "no token": await client.post(url, json={}),
            "wrong token": await client.post(url, json={}, headers=bearer(token + "x")),
            "unknown trigger": await client.post(url[:-len("deploy")] + "other", json={},
                                                 headers=bearer(token)),
            "unknown automation": await client.post(f"{base}/hooks/nope/deploy", json={},
                                                    headers=bearer(token)),
            "elsewhere": await client.post(f"{base}/", headers=bearer(token)),
            "GET": await client.get(url, headers=bearer(token)),
            "too large": await client.post(url, content=b"[" + b"1," * 600 + b"1]",
                                           headers=bearer(token)),
            "too large, chunked": await client.post(url, content=chunks(), headers=bearer(token)),
            "not JSON": await client.post(url, content=b"{oops", headers=bearer(token)),
            "bad key": await client.post(url, json={}, headers={
                **bearer(token), "Idempotency-Key": "x" * 201}),
        }
    expected = {"no token": (401, "unauthorized"), "wrong token": (401, "unauthorized"),
                "unknown trigger": (404, "not_found"), "unknown automation": (404, "not_found"),
                "elsewhere": (404, "not_found"), "GET": (405, "method_not_allowed"),
                "too large": (413, "too_large"), "too large, chunked": (413, "too_large"),
                "not JSON": (400, "invalid_json"), "bad key": (400, "invalid_idempotency_key")}
    seen = {name: (r.status_code, r.json()["error"]["code"]) for name, r in cases.items()}
    assert seen == expected
    assert all(r.json()["error"]["message"] for r in cases.values())
    assert real.runs(a) == []  # none of them started anything


async def test_a_flood_is_answered_429_and_overlapping_calls_are_recorded_skips(
        real: Real, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRANDS_WEBHOOK_RATE_LIMIT", "3")
    a, url, token = await hooked(real, "sleep 2")
    async with httpx.AsyncClient() as client:
        answers = [await client.post(url, json={"i": i}, headers=bearer(token))
                   for i in range(5)]
        assert [r.status_code for r in answers] == [202, 202, 202, 429, 429]
        # the second and third came while the first ran: recorded as skipped (overlap)
        assert [r.json().get("skip_reason") for r in answers[1:3]] == [
            "previous_run_active"] * 2
    assert [r.state for r in real.runs(a)][1:] == ["skipped", "skipped"]


async def test_a_call_to_a_paused_automation_starts_nothing(real: Real) -> None:
    a, url, token = await hooked(real)
    await real.engine.commands.set_paused(a, True)
    async with httpx.AsyncClient() as client:
        paused = await client.post(url, json={}, headers=bearer(token))
    assert paused.status_code == 409 and paused.json()["error"]["code"] == "automation_paused"
    assert real.runs(a) == []


async def test_a_new_token_replaces_the_old_one(real: Real) -> None:
    a, url, token = await hooked(real)
    newer = await source(real).issue(a, "deploy")
    async with httpx.AsyncClient() as client:
        old = await client.post(url, json={}, headers=bearer(token))
        new = await client.post(url, json={}, headers=bearer(newer))
    assert (old.status_code, new.status_code) == (401, 202)
    assert real.store.webhook_hashes()[(a, "deploy")] != token  # only its hash is kept
    stored = catalogue_text(real.location)
    assert a in stored and token not in stored


async def test_the_server_listens_only_while_an_automation_has_a_webhook(real: Real) -> None:
    assert source(real).server is None
    a, url, token = await hooked(real)
    await real.engine.commands.delete(a)
    await until(lambda: source(real).server is None, "the server closed")
    with pytest.raises(httpx.ConnectError):
        async with httpx.AsyncClient() as client:
            await client.post(url, json={}, headers=bearer(token))


async def test_a_half_sent_request_is_dropped_without_harm(real: Real) -> None:
    a, url, token = await hooked(real)
    port = int(url.split(":")[2].split("/")[0])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST " + url.split(str(port))[1].encode() + b" HTTP/1.1\r\nHost: x\r\n"
                 b"Authorization: Bearer " + token.encode() + b"\r\nContent-Length: 50\r\n\r\n{")
    await writer.drain()
    writer.close()
    async with httpx.AsyncClient() as client:  # the server goes on
        answer = await client.post(url, json={}, headers=bearer(token))
    assert answer.status_code == 202


# ------------------------------------------------------- the command line and a real serve

def test_add_prints_each_new_webhook_token_once_and_a_kill_9_loses_no_acknowledged_call(
        tmp_path) -> None:
    """``errands add --on-webhook --json`` answers with the webhook's address and token; a
    call acknowledged by ``errands serve`` has its run in the database even when the engine
    is killed right after, and the same Idempotency-Key after the restart starts nothing."""
    from test_serve import Serve
    serve = Serve(tmp_path / "data", ERRANDS_WEBHOOK_PORT="0").start()
    try:
        made = serve.cli("add", "--title", "Deploy", "--command", "sleep 30",
                         "--on-webhook", "--schedule", "every day at 6am",
                         "--max-attempts", "1")  # (a crash ends it: not retried)
        [hook] = made["webhooks"]
        assert [t["kind"] for t in made["triggers"]] == ["cron", "webhook"]
        listed = serve.cli("webhook", made["id"])
        assert listed["webhooks"] == [{"trigger": "webhook", "url": hook["url"],
                                    "has_token": True, "problem": None}]
        answer = httpx.post(hook["url"], json={"sha": "abc"}, timeout=10, headers={
            **bearer(hook["token"]), "Idempotency-Key": "deploy-7"})
        assert answer.status_code == 202, answer.text
        serve.kill9()
        [(run_id,)] = catalogue_sql(serve.data, "SELECT id FROM runs WHERE automation_id = :a",
                                    a=made["id"])
        assert run_id == answer.json()["run_id"]
        serve.start()
        url = serve.cli("webhook", made["id"])["webhooks"][0]["url"]  # (a new port)
        again = httpx.post(url, json={"sha": "abc"}, timeout=10, headers={
            **bearer(hook["token"]), "Idempotency-Key": "deploy-7"})
        assert again.status_code == 202 and again.json()["run_id"] == run_id
        rotated = serve.cli("webhook", made["id"], "--rotate", "webhook")
        assert rotated["token"] != hook["token"]
        old = httpx.post(url, json={}, timeout=10, headers=bearer(hook["token"]))
        assert old.status_code == 401
        [run] = serve.runs(made["id"])
        assert run["trigger"]["id"] == "webhook" and run["payload"]["body"] == {"sha": "abc"}
        assert run["state"] == "interrupted"
    finally:
        serve.stop()


async def test_hostile_bodies_and_keys_are_refused_or_kept_apart(real: Real) -> None:
    a, url, token = await hooked(real, triggers=[{"id": "deploy", "kind": "webhook"}])
    async with httpx.AsyncClient() as client:
        deep = await client.post(url, content=b"[" * 2000 + b"]" * 2000, headers=bearer(token))
        near = await client.post(url, content=b"[" * 940 + b"]" * 940, headers=bearer(token))
        lone = await client.post(url, content=b'{"x": "\\ud800"}', headers=bearer(token))
        nan = await client.post(url, content=b'{"x": NaN}', headers=bearer(token))
        hashed_like = "sha256:" + "0" * 48
        first = await client.post(url, json={"n": 1}, headers={
            **bearer(token), "Idempotency-Key": hashed_like})
        other = await client.post(url, json={"n": 2}, headers={
            **bearer(token), "Idempotency-Key": "x" * 120})
    assert [r.status_code for r in (deep, near, lone, nan)] == [400] * 4
    assert all(r.json()["error"]["code"] == "invalid_json" for r in (deep, near, lone, nan))
    assert first.status_code == other.status_code == 202
    assert first.json()["run_id"] != other.json()["run_id"]


async def test_a_removed_web_address_takes_its_token_with_it(real: Real) -> None:
    a, url, token = await hooked(real)
    doc = real.store.get(a).definition.to_dict()
    doc.pop("triggers")
    doc["trigger"] = {"kind": "manual"}
    await real.engine.commands.revise(a, doc)
    doc = real.store.get(a).definition.to_dict()
    doc.pop("trigger")
    doc["triggers"] = HOOK
    await real.engine.commands.revise(a, doc)
    assert (a, "deploy") not in real.store.webhook_hashes()
    await until(lambda: source(real).server is not None, "the server listening")
    async with httpx.AsyncClient() as client:
        old = await client.post(source(real).url(a, "deploy"), json={}, headers=bearer(token))
    assert old.status_code == 401


async def test_too_many_connections_are_turned_away(real: Real) -> None:
    from errands.engine.webhooks import MAX_CONNECTIONS
    a, url, token = await hooked(real)
    port = int(url.split(":")[2].split("/")[0])
    idle = [await asyncio.open_connection("127.0.0.1", port) for _ in range(MAX_CONNECTIONS)]
    await until(lambda: len(source(real)._connections) >= MAX_CONNECTIONS, "all held")
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    answer = await reader.read()
    assert answer.startswith(b"HTTP/1.1 503") and b'"busy"' in answer
    writer.close()
    for _, w in idle:
        w.close()
    await until(lambda: not source(real)._connections, "the idle ones let go")
    async with httpx.AsyncClient() as client:
        fine = await client.post(url, json={}, headers=bearer(token))
    assert fine.status_code == 202


async def test_a_large_body_is_kept_as_a_file_and_the_run_gets_all_of_it(
        real: Real, tmp_path) -> None:
    out = tmp_path / "seen.json"
    a, url, token = await hooked(real, f'cp "$ERRANDS_EVENT_FILE" {out}',
                                 [{"id": "deploy", "kind": "webhook"}])
    body = {"rows": ["x" * 100 for _ in range(1500)]}   # about 160 KB
    async with httpx.AsyncClient() as client:
        answer = await client.post(url, json=body, headers=bearer(token))
    assert answer.status_code == 202
    await until(lambda: real.ended(a), "the run")
    [run] = real.ended(a)
    assert run.state == "succeeded" and set(run.payload) == {"artifact", "digest", "size"}
    assert (real.data / run.payload["artifact"]).stat().st_mode & 0o777 == 0o600
    import json
    assert json.loads(out.read_text())["body"] == body
    await real.engine.commands.delete(a)
    await until(lambda: not (real.data / "events" / a).exists(), "the files gone")
