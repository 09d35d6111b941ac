"""The provider: every fault code through the real HTTP client against a scripted server, the
key's keeping (keyring, environment, never on disk or in output), the provider settings,
and ``errands provider set | show | test`` end to end as subprocesses."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import keyring
import keyring.backends.fail
import pytest
from hypothesis import example, given, settings as hsettings, strategies as st

from errands.agent import secrets
from errands.agent.check import check_provider
from errands.agent.config import load_provider_config
from errands.agent.provider import (BAD_REPLY, CONTEXT_TOO_LONG, KEY_REJECTED, MODEL_NOT_FOUND,
                                    NO_KEY, RATE_LIMITED, SERVER_ERROR, TIMEOUT, UNREACHABLE,
                                    Provider, ProviderConfig, ProviderError)
from errands.errors import InvalidInput
from errands.settings import Settings, normalize
from cli_support import Result, errands
from keyring_backend import MemoryKeyring
from openai_server import ScriptedServer, call, fail, octets, raw, say, stall
from pg_support import catalogue_text, handed_on, on_postgresql

KEY = "sk-test-9f2c4e1a7b3d-NEVER-SHOWN"
TESTS = Path(__file__).parent
ERRANDS = Path(sys.executable).parent / "errands"


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.close()


class Sleeps:
    """Records the waits a provider asks for, and waits them."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(seconds)


def _config(base_url: str, timeout: float = 10.0, key: str | None = KEY) -> ProviderConfig:
    return ProviderConfig(base_url=base_url, model="scripted-model",
                          timeout=timedelta(seconds=timeout), api_key=key)


async def _complete(config: ProviderConfig, model: str | None = None,
                    sleep: Any = None) -> Any:
    provider = Provider(config, sleep=sleep or Sleeps())
    try:
        return await provider.complete([{"role": "user", "content": "hi"}], [], model)
    finally:
        await provider.close()


async def _fault(config: ProviderConfig, **kw: Any) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        await _complete(config, **kw)
    error = caught.value
    assert KEY not in str(error) and KEY not in error.message and KEY not in repr(config)
    return error


def _authorization(server: ScriptedServer) -> str | None:
    """The Authorization header of the last request (header names in any case)."""
    return {k.lower(): v for k, v in server.headers[-1].items()}.get("authorization")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------ faults of complete()

@pytest.mark.catalogue_free
async def test_a_reply_and_the_key_sent_as_bearer(server: ScriptedServer,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # the SDK's and httpx's own debug logs too
    server.play(call("ping", {}), say("done"))
    reply = await _complete(_config(server.base_url))
    assert [c.name for c in reply.tool_calls] == ["ping"]
    assert (await _complete(_config(server.base_url))).content == "done"
    assert _authorization(server) == f"Bearer {KEY}"
    assert KEY not in caplog.text


@pytest.mark.catalogue_free
async def test_unreachable_on_a_closed_port() -> None:
    error = await _fault(_config(f"http://127.0.0.1:{_closed_port()}/v1"))
    assert error.code == UNREACHABLE
    assert "cannot reach" in error.message


@pytest.mark.catalogue_free
async def test_timeout_when_the_provider_stalls(server: ScriptedServer) -> None:
    server.play(stall(5))
    started = time.monotonic()
    error = await _fault(_config(server.base_url, timeout=1))
    assert error.code == TIMEOUT
    assert "1 s" in error.message
    assert time.monotonic() - started < 4


@pytest.mark.catalogue_free
@pytest.mark.parametrize("status, message, code", [
    (401, "Incorrect API key provided", KEY_REJECTED),
    (403, "not allowed", KEY_REJECTED),
    (500, "the model crashed", SERVER_ERROR),
    (503, "overloaded", SERVER_ERROR),
    (400, "This model's maximum context length is 8192 tokens", CONTEXT_TOO_LONG),
    (400, "messages: field required", BAD_REPLY),
])
async def test_http_faults(server: ScriptedServer, status: int, message: str,
                           code: str) -> None:
    server.play(fail(status, message))
    error = await _fault(_config(server.base_url))
    assert error.code == code
    if code != KEY_REJECTED:
        assert message in error.message


@pytest.mark.catalogue_free
async def test_model_not_found(server: ScriptedServer) -> None:
    server.play(say("never said"))
    error = await _fault(_config(server.base_url), model="no-such-model")
    assert error.code == MODEL_NOT_FOUND
    assert "no-such-model" in error.message


@pytest.mark.catalogue_free
async def test_rate_limit_waits_out_retry_after_then_succeeds(server: ScriptedServer) -> None:
    server.play(fail(429, "slow down", headers={"Retry-After": "0.3"}), say("after the wait"))
    sleeps = Sleeps()
    reply = await _complete(_config(server.base_url), sleep=sleeps)
    assert reply.content == "after the wait"
    assert sleeps.waits == [0.3]
    assert len(server.requests) == 2


@pytest.mark.catalogue_free
async def test_rate_limit_with_too_long_a_retry_after_fails_at_once(
        server: ScriptedServer) -> None:
    server.play(fail(429, "come back in two minutes", headers={"Retry-After": "120"}),
                say("never asked"))
    sleeps = Sleeps()
    error = await _fault(_config(server.base_url), sleep=sleeps)
    assert (error.code, error.retry_after) == (RATE_LIMITED, 120.0)
    assert sleeps.waits == [] and len(server.requests) == 1


@pytest.mark.catalogue_free
@pytest.mark.parametrize("body", [
    {"id": "x", "object": "chat.completion", "created": 0, "model": "scripted-model",
     "choices": []},
    {"id": "x", "object": "chat.completion", "created": 0, "model": "scripted-model"},
])
async def test_a_reply_without_choices_is_a_bad_reply(server: ScriptedServer,
                                                      body: dict[str, Any]) -> None:
    server.play(raw(body))
    assert (await _fault(_config(server.base_url))).code == BAD_REPLY


@pytest.mark.catalogue_free
async def test_a_redirect_is_not_followed_and_the_key_stays_home(server: ScriptedServer) -> None:
    elsewhere = ScriptedServer().start()
    try:
        elsewhere.play(say("the key came here"))
        server.play(octets(b"", status=307,
                           headers={"Location": elsewhere.base_url + "/chat/completions"}))
        error = await _fault(_config(server.base_url))
        assert error.code == BAD_REPLY and "redirects to" in error.message
        assert elsewhere.requests == [] and elsewhere.headers == []
    finally:
        elsewhere.close()


@pytest.mark.catalogue_free
@pytest.mark.parametrize("data, words", [
    (b"<html>502 Bad Gateway</html>", "not JSON"),
    (b'{"choices": "many"}', "no choices"),
    (b'[1, 2]', "not an object"),
    (b'{"choices": [{"message": {"content": "x", "tool_calls": {"a": 1}}}]}', "not a list"),
])
async def test_a_reply_that_is_not_a_chat_completion_is_a_bad_reply(
        server: ScriptedServer, data: bytes, words: str) -> None:
    server.play(octets(data, headers={"Content-Type": "application/json"}))
    error = await _fault(_config(server.base_url))
    assert error.code == BAD_REPLY and words in error.message


@pytest.mark.catalogue_free
async def test_an_oversized_reply_is_refused_without_reading_it_all(
        server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from errands.agent import provider
    monkeypatch.setattr(provider, "MAX_REPLY_BYTES", 1000)
    server.play(octets(b'{"pad": "' + b"x" * 5000 + b'"}'))
    error = await _fault(_config(server.base_url))
    assert error.code == BAD_REPLY and "bytes" in error.message


@pytest.mark.catalogue_free
async def test_no_key_sends_no_authorization_and_the_base_query_is_kept(
        server: ScriptedServer) -> None:
    server.play(say("hello"))
    reply = await _complete(_config(server.base_url + "?api-version=1", key=None))
    assert reply.content == "hello"
    assert _authorization(server) is None
    assert server.paths == ["/v1/chat/completions?api-version=1"]


@pytest.mark.catalogue_free
async def test_retry_after_ms_and_object_arguments_are_understood(server: ScriptedServer) -> None:
    server.play(fail(429, "slow", headers={"retry-after-ms": "250"}),
                raw({"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function",
                     "function": {"name": "ping", "arguments": {"a": 1}}}]},
                    "finish_reason": "tool_calls"}]}))
    sleeps = Sleeps()
    reply = await _complete(_config(server.base_url), sleep=sleeps)
    assert sleeps.waits == [0.25]
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [("ping", {"a": 1})]


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                     | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.sampled_from(["choices", "message", "content",
                                                        "tool_calls", "function", "name",
                                                        "arguments", "id", "usage",
                                                        "finish_reason", "prompt_tokens"]),
                                       inner, max_size=4), max_leaves=20)


@pytest.mark.catalogue_free
@hsettings(max_examples=500, deadline=None, database=None)
@given(_JSON)
def test_any_decoded_reply_is_a_reply_or_a_bad_reply(data: Any) -> None:
    from errands.agent.provider import Reply, _reply
    try:
        reply = _reply(data, _config("http://127.0.0.1:9/v1"))
    except ProviderError as exc:
        assert exc.code in (BAD_REPLY, CONTEXT_TOO_LONG) and exc.message
        return
    assert isinstance(reply, Reply)
    assert reply.content is None or isinstance(reply.content, str)
    assert all(isinstance(c.name, str) and c.name and isinstance(c.arguments, str)
               for c in reply.tool_calls)
    assert reply.prompt_tokens >= 0 and reply.completion_tokens >= 0


# ------------------------------------------------------------------------- the checks

@pytest.mark.catalogue_free
async def test_checks_all_pass_on_a_tool_calling_model(server: ScriptedServer) -> None:
    server.play(call("ping"))
    checks = await check_provider(_config(server.base_url))
    assert [(c.check, c.status) for c in checks] == [
        ("reachable", "ok"), ("key_accepted", "ok"), ("model_present", "ok"),
        ("tool_calling", "ok")]
    assert server.requests[0]["tools"][0]["function"]["name"] == "ping"


@pytest.mark.catalogue_free
async def test_checks_name_what_fails(server: ScriptedServer) -> None:
    server.play(say("I would rather chat"))
    checks = {c.check: c for c in await check_provider(_config(server.base_url))}
    assert checks["tool_calling"].status == "failed"
    assert "answered in text" in checks["tool_calling"].detail

    server.play(fail(401, "bad key"))
    checks = {c.check: c for c in await check_provider(_config(server.base_url))}
    assert checks["key_accepted"].status == "failed"
    assert checks["key_accepted"].detail.startswith(KEY_REJECTED)

    server.play(say("x"))
    other = ProviderConfig(base_url=server.base_url, model="missing-model")
    checks = {c.check: c for c in await check_provider(other)}
    assert checks["model_present"].status == "failed"
    assert "scripted-model" in checks["model_present"].detail  # what it does list
    assert checks["tool_calling"].detail.startswith(MODEL_NOT_FOUND)

    unreachable = await check_provider(_config(f"http://127.0.0.1:{_closed_port()}/v1"))
    assert [c.status for c in unreachable] == ["failed", "skipped", "skipped", "skipped"]


# ------------------------------------------------------------------------------ the key

@pytest.fixture
def memory_keyring() -> MemoryKeyring:
    """The empty in-memory keyring conftest gives every test."""
    backend = keyring.get_keyring()
    assert isinstance(backend, MemoryKeyring)
    return backend


@pytest.fixture
def no_keyring() -> None:
    """A machine without a keyring, as headless Linux is (the next test gets a fresh one)."""
    keyring.set_keyring(keyring.backends.fail.Keyring())


@pytest.mark.catalogue_free
def test_keyring_keeps_one_key_per_data_folder(memory_keyring: MemoryKeyring,
                                               tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert secrets.get_api_key(one) == (None, None)
    secrets.set_api_key(one, f"  {KEY}\n")
    assert secrets.get_api_key(one) == (KEY, "keyring")
    assert secrets.get_api_key(two) == (None, None)
    assert memory_keyring.passwords == {("errands", str(one.resolve())): KEY}
    assert secrets.delete_api_key(one) is True
    assert secrets.delete_api_key(one) is False
    assert secrets.get_api_key(one) == (None, None)


@pytest.mark.catalogue_free
def test_the_environment_wins(memory_keyring: MemoryKeyring, tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    secrets.set_api_key(tmp_path, "sk-stored")
    monkeypatch.setenv("ERRANDS_API_KEY", KEY)
    assert secrets.get_api_key(tmp_path) == (KEY, "environment")
    monkeypatch.setenv("ERRANDS_API_KEY", "")  # empty: as if unset
    assert secrets.get_api_key(tmp_path) == ("sk-stored", "keyring")


@pytest.mark.catalogue_free
def test_no_keyring_reads_as_no_key_and_refuses_to_store(
        no_keyring: None, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert secrets.get_api_key(tmp_path) == (None, None)
    assert secrets.delete_api_key(tmp_path) is False
    with pytest.raises(secrets.KeyringUnavailable) as caught:
        secrets.set_api_key(tmp_path, KEY)
    assert caught.value.code == "no_keyring"
    assert "ERRANDS_API_KEY" in caught.value.message and KEY not in str(caught.value)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


class _Broken(MemoryKeyring):
    def get_password(self, service: str, username: str) -> str | None:
        raise RuntimeError("the bus is gone")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise RuntimeError(f"could not store {password}")  # a backend echoing the secret


@pytest.mark.catalogue_free
def test_a_failing_keyring_is_reported_without_the_key(tmp_path: Path) -> None:
    keyring.set_keyring(_Broken())
    with pytest.raises(secrets.KeyringUnavailable) as read:
        secrets.get_api_key(tmp_path)
    with pytest.raises(secrets.KeyringUnavailable) as write:
        secrets.set_api_key(tmp_path, KEY)
    with pytest.raises(ProviderError) as loading:
        load_provider_config(Settings({"provider_base_url": "http://127.0.0.1:1/v1",
                                       "provider_model": "m"}, environ={}), tmp_path)
    assert read.value.code == write.value.code == "keyring_error"
    assert KEY not in str(write.value) and write.value.__cause__ is None
    assert write.value.__suppress_context__
    assert loading.value.code == NO_KEY


@pytest.mark.catalogue_free
@pytest.mark.parametrize("text, words", [("", "empty"), ("sk one two", "spaces"),
                                         ("sk-é", "non-ASCII"), ("x" * 5000, "longer")])
def test_a_bad_key_is_refused_without_echo(text: str, words: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        secrets.check_api_key(text)
    assert words in caught.value.message
    assert caught.value.field == "--api-key-stdin"
    assert (text.strip() or "§") not in str(caught.value)


@pytest.mark.catalogue_free
def test_provider_config_from_settings_and_keyring(memory_keyring: MemoryKeyring,
                                                   tmp_path: Path) -> None:
    assert load_provider_config(Settings({}, environ={}), tmp_path) is None
    assert load_provider_config(Settings({"provider_base_url": "http://h/v1"}, environ={}),
                                tmp_path) is None
    stored = {"provider_base_url": "http://h/v1", "provider_model": "m",
              "provider_timeout": "30s"}
    config = load_provider_config(Settings(stored, environ={}), tmp_path)
    assert config == ProviderConfig("http://h/v1", "m", timedelta(seconds=30), None)
    secrets.set_api_key(tmp_path, KEY)
    config = load_provider_config(Settings(stored, environ={"ERRANDS_PROVIDER_MODEL": "e"}),
                                  tmp_path)
    assert config is not None and (config.model, config.api_key) == ("e", KEY)
    assert KEY not in repr(config)
    with pytest.raises(InvalidInput) as caught:
        load_provider_config(Settings(stored, environ={"ERRANDS_PROVIDER_BASE_URL": "nope"}),
                             tmp_path)
    assert caught.value.field == "ERRANDS_PROVIDER_BASE_URL"


# ------------------------------------------------------------------------- the settings

@pytest.mark.catalogue_free
def test_provider_settings() -> None:
    defaults = Settings({}, environ={})
    assert defaults.get("provider_base_url") == defaults.get("provider_model") == ""
    assert defaults.get("provider_timeout") == timedelta(minutes=2)
    assert normalize("provider_base_url", "https://api.openai.com/v1/") == \
        "https://api.openai.com/v1"
    assert normalize("provider_timeout", "120s") == "2m"
    for key, value, words in [
            ("provider_base_url", "", "empty"),
            ("provider_base_url", "localhost:11434", "http"),
            ("provider_base_url", "http://user:pw@host/v1", "password"),
            ("provider_base_url", "http://host:70000/v1", "port"),
            ("provider_base_url", "http://host/v1?key=1", "query"),
            ("provider_base_url", "http://" + "h" * 300, "200"),
            ("provider_model", "two\nlines", "control"),
            ("provider_model", "", "empty"),
            ("provider_timeout", "0s", "duration"),
            ("provider_timeout", "2h", "range")]:
        with pytest.raises(InvalidInput) as caught:
            normalize(key, value)
        assert caught.value.field == key and words in str(caught.value), (value, caught.value)
    with pytest.raises(InvalidInput) as caught:
        normalize("provider_base_url", "ftp://host")
    assert caught.value.expected and "http" in caught.value.expected
    assert caught.value.example == "http://127.0.0.1:11434/v1"


_URL_PIECES = st.sampled_from(["http://", "https://", "HTTP://", "ftp://", "//", "http:", "[",
                               "]", "::1", "@", ":", "/", "?", "#", "%", "%zz", "127.0.0.1",
                               "host", "v1", " ", "\n", "\x00", "é", "\ud800", ":99999",
                               ":11434", "user:pw@"])


@pytest.mark.catalogue_free
@hsettings(max_examples=400, deadline=None, database=None)
@given(st.one_of(st.text(), st.lists(_URL_PIECES, max_size=8).map("".join),
                 st.tuples(st.sampled_from(["http://", "https://"]),
                           st.text(max_size=40)).map("".join)))
@example("HTTP://0/%00")  # (an encoded NUL in the path: accepted, so the client must take it)
@example("HTTP://[::]A")  # (no port after a bracketed host: refused)
@example("http://[::1]]")  # (a second bracket: refused)
@example("http://[v1.x]")  # (an IPvFuture host, which the client does not take)
def test_base_url_parser_refuses_only_with_invalid_input(text: str) -> None:
    try:
        value = normalize("provider_base_url", text)
    except InvalidInput as exc:
        assert exc.field == "provider_base_url" and exc.expected and exc.example
        return
    assert value.lower().startswith(("http://", "https://"))
    assert normalize("provider_base_url", value) == value  # canonical
    # the client takes whatever was accepted, and keeps the base's path for each endpoint
    url = Provider(ProviderConfig(value, "m"))._url("chat/completions")
    assert url.path.endswith("/chat/completions") and not url.path.endswith("//chat/completions")


# --------------------------------------------------------------------- the CLI, end to end

@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRANDS_")}
    env.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "home" / "data"),
               PYTHONPATH=os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")]).rstrip(
                   os.pathsep),
               PYTHON_KEYRING_BACKEND="keyring_backend.FileKeyring",
               KEYRING_TEST_FILE=str(tmp_path / "keyring.json"))
    return env


def _errands(env: dict[str, str], data: Path, *args: str, stdin: str | None = None,
             expect: int = 0) -> Result:
    proc = errands([*args, "--data-dir", str(data)], env, stdin=stdin)
    assert proc.returncode == expect, f"{args} -> {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def _bytes_under(folder: Path) -> bytes:
    """Every file under the data folder: the database and its -wal and -shm, logs, …"""
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def _stored(folder: Path) -> bytes:
    """All that is kept for the data folder: its files, and a shared catalogue's rows."""
    return _bytes_under(folder) + (catalogue_text(folder).encode() if on_postgresql() else b"")


class _Serve:
    def __init__(self, env: dict[str, str], data: Path) -> None:
        self.proc = subprocess.Popen([str(ERRANDS), "serve", "--data-dir", str(data)],
                                     env=handed_on(env), stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert "Errands engine running" in line, line

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        out, _ = self.proc.communicate(timeout=30)
        return out


pytestmark_cli = pytest.mark.skipif(not ERRANDS.exists(), reason="no errands console script")


@pytestmark_cli
def test_cli_set_show_test_with_the_keyring_while_an_engine_runs(
        server: ScriptedServer, cli_env: dict[str, str], tmp_path: Path) -> None:
    data = tmp_path / "data"
    engine = _Serve(cli_env, data)  # settings go through it, as config set's do
    try:
        set_ = _errands(cli_env, data, "provider", "set", "--base-url", server.base_url + "/",
                        "--model", "scripted-model", "--timeout", "30s", "--api-key-stdin",
                        "--json", stdin=KEY + "\n")
        shown = _errands(cli_env, data, "provider", "show", "--json")
        human = _errands(cli_env, data, "provider", "show")
        server.play(call("ping"))
        tested = _errands(cli_env, data, "provider", "test", "--json")
        listed = _errands(cli_env, data, "config", "list", "--json")
        forgot = _errands(cli_env, data, "provider", "set", "--forget-key", "--json")
        assert on_postgresql() or any(p.name.endswith("-wal") for p in data.iterdir())
        while_running = _stored(data)  # the engine's WAL is checkpointed when it stops
    finally:
        engine_output = engine.stop()
    doc = json.loads(shown.stdout)
    assert json.loads(set_.stdout) == doc
    assert doc == {"configured": True, "base_url": server.base_url, "model": "scripted-model",
                   "timeout": "30s", "sources": {"base_url": "stored", "model": "stored",
                                                 "timeout": "stored"},
                   "api_key": {"present": True, "source": "keyring"}, "problems": []}
    assert "stored in the keyring" in human.stdout
    report = json.loads(tested.stdout)
    assert report["ok"] is True
    assert [(c["check"], c["status"]) for c in report["checks"]] == [
        ("reachable", "ok"), ("key_accepted", "ok"), ("model_present", "ok"),
        ("tool_calling", "ok")]
    assert _authorization(server) == f"Bearer {KEY}"
    assert json.loads(forgot.stdout)["api_key"] == {"present": False, "source": None}
    assert KEY not in (tmp_path / "keyring.json").read_text()
    everything = [set_, shown, human, tested, listed, forgot]
    for proc in everything:
        assert KEY not in proc.stdout + proc.stderr
    assert KEY not in engine_output
    for on_disk in (while_running, _stored(data)):
        assert KEY.encode() not in on_disk
        assert server.base_url.encode() in on_disk  # (the settings are there, the key not)


@pytestmark_cli
def test_cli_with_the_environment_key_and_no_keyring(server: ScriptedServer,
                                                     cli_env: dict[str, str],
                                                     tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {**cli_env, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    with_key = {**env, "ERRANDS_API_KEY": KEY}
    _errands(env, data, "provider", "set", "--base-url", server.base_url, "--model",
             "scripted-model")
    shown = json.loads(_errands(with_key, data, "provider", "show", "--json").stdout)
    assert shown["api_key"] == {"present": True, "source": "environment"}
    server.play(call("ping"))
    tested = _errands(with_key, data, "provider", "test")
    assert _authorization(server) == f"Bearer {KEY}"
    rows = tested.stdout.splitlines()[1:]
    assert len(rows) == 4 and all(" ok " in row for row in rows), tested.stdout

    refused = _errands(env, data, "provider", "set", "--api-key-stdin", "--json",
                       stdin=KEY + "\n", expect=1)
    error = json.loads(refused.stderr)["error"]
    assert error["code"] == "no_keyring" and "ERRANDS_API_KEY" in error["message"]
    without = json.loads(_errands(env, data, "provider", "show", "--json").stdout)
    assert without["api_key"] == {"present": False, "source": None}
    for proc in (refused, tested):
        assert KEY not in proc.stdout + proc.stderr
    assert KEY.encode() not in _stored(data)


@pytestmark_cli
def test_cli_test_fails_with_a_reason_and_set_refuses_bad_input(
        server: ScriptedServer, cli_env: dict[str, str], tmp_path: Path) -> None:
    data = tmp_path / "data"
    unconfigured = _errands(cli_env, data, "provider", "test", "--json", expect=4)
    assert json.loads(unconfigured.stderr)["error"]["code"] == "not_configured"
    bad = _errands(cli_env, data, "provider", "set", "--base-url", "localhost:11434", "--json",
                   expect=2)
    assert json.loads(bad.stderr)["error"]["field"] == "--base-url"
    nothing = _errands(cli_env, data, "provider", "set", expect=2)
    assert "--base-url" in nothing.stderr
    two_lines = _errands(cli_env, data, "provider", "set", "--api-key-stdin", "--json",
                         stdin="sk one\n", expect=2)
    assert json.loads(two_lines.stderr)["error"]["field"] == "--api-key-stdin"
    _errands(cli_env, data, "provider", "set", "--base-url", server.base_url, "--model",
             "absent-model")
    server.play(say("x"))
    failed = _errands(cli_env, data, "provider", "test", expect=1)
    lines = {line.split("  ")[0]: line for line in failed.stdout.splitlines()[1:]}
    assert "failed" in lines["model present"] and "scripted-model" in lines["model present"]
    assert "model_not_found" in lines["tool calling"]
    assert " ok " in lines["reachable"]
    _errands(cli_env, data, "config", "unset", "provider_model")
    cleared = json.loads(_errands(cli_env, data, "provider", "show", "--json").stdout)
    assert (cleared["configured"], cleared["model"]) == (False, None)
