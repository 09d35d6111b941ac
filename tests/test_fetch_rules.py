"""fetch_url's network rules at every hop: credentials refused, redirects followed by the
tool and judged again, loopback and private addresses reached only with a rule naming the
host, and the connection pinned to the address that was checked.

Real HTTP servers on 127.0.0.1 (``http.server`` in a thread); the permission model is a
stand-in ``judge_url`` written per test."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from errands.agent.tools import web
from errands.agent.tools.base import ToolEnv, ToolError, ToolResult, UrlJudgement

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

Route = tuple[int, dict[str, str], bytes]


@dataclass
class Server:
    """One HTTP server: ``routes`` maps a path to (status, headers, body); every request
    is recorded as (path, headers)."""

    base: str = ""
    port: int = 0
    routes: dict[str, Route] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [path for path, _ in self.requests]

    def page(self, path: str, text: str = "hello", headers: dict[str, str] | None = None
             ) -> str:
        self.routes[path] = (200, {"Content-Type": "text/plain", **(headers or {})},
                             text.encode())
        return self.base + path

    def redirect(self, path: str, location: str, status: int = 302,
                 headers: dict[str, str] | None = None) -> str:
        self.routes[path] = (status, {"Location": location, **(headers or {})}, b"")
        return self.base + path


def _serve(server: Server, tls: ssl.SSLContext | None = None) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            server.requests.append((self.path, dict(self.headers.items())))
            if self.path == "/echo-headers":
                status, headers, body = 200, {"Content-Type": "text/plain"}, "\n".join(
                    f"{k}: {v}" for k, v in self.headers.items()).encode()
            else:
                status, headers, body = server.routes.get(
                    self.path, (404, {"Content-Type": "text/plain"}, b"no such page"))
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    if tls is not None:
        httpd.socket = tls.wrap_socket(httpd.socket, server_side=True)
    server.port = httpd.server_address[1]
    server.base = f"{'https' if tls else 'http'}://127.0.0.1:{server.port}"
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    return httpd


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Server, Server]]:
    """Two servers, ``a`` and ``b``, on two ports of 127.0.0.1."""
    for key in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                "all_proxy"):
        monkeypatch.delenv(key, raising=False)
    pair = (Server(), Server())
    running = [_serve(s) for s in pair]
    try:
        yield pair
    finally:
        for httpd in running:
            httpd.shutdown()
            httpd.server_close()


def judge(*, names: tuple[str, ...] = (), ask: tuple[str, ...] = (),
          deny: tuple[str, ...] = (), calls: list[str] | None = None
          ) -> Callable[[str], UrlJudgement]:
    """A stand-in for the permission model: URLs starting with one of ``ask``/``deny`` get
    that; all else is allowed (as by a ``*`` rule), naming the host only for URLs starting
    with one of ``names``."""
    def verdict(url: str) -> UrlJudgement:
        if calls is not None:
            calls.append(url)
        if url.startswith(deny):
            return UrlJudgement("deny", "test rule: deny", names_host=False)
        if url.startswith(ask):
            return UrlJudgement("ask", "test default: ask", names_host=False)
        return UrlJudgement("allow", "test rule: allow *", names_host=url.startswith(names))
    return verdict


def env_for(tmp_path: Path, judge_url: Callable[[str], UrlJudgement] | None,
            dry_run: bool = False) -> ToolEnv:
    return ToolEnv(workdir=tmp_path, dry_run=dry_run, judge_url=judge_url)


async def fetch(env: ToolEnv, url: str) -> ToolResult:
    return await web.fetch_url(env, {"url": url})


def refused_redirect(result: ToolResult) -> str:
    """The text of a redirect that was refused: an error result, untrusted (it quotes a
    URL the server chose)."""
    assert result.text.startswith("Error: fetch_url: ") and "which was not fetched" in result.text
    assert result.untrusted
    return result.text


# ------------------------------------------------------------------- redirects judged

@pytest.mark.parametrize("action", ["ask", "deny"])
async def test_a_redirect_the_rules_do_not_allow_is_not_followed(
        servers: tuple[Server, Server], tmp_path: Path, action: str) -> None:
    a, b = servers
    secret = b.page("/secret", "the secret")
    start = a.redirect("/go", secret)
    rules = judge(names=(a.base, b.base), **{action: (b.base,)})  # type: ignore[arg-type]
    text = refused_redirect(await fetch(env_for(tmp_path, rules), start))
    assert b.requests == [] and a.paths == ["/go"]
    assert secret in text and start in text and "the secret" not in text
    assert "call fetch_url with that URL" in text
    assert ("ask before" if action == "ask" else "deny") in text


async def test_an_allowed_loopback_url_redirected_to_another_port_is_judged_again(
        servers: tuple[Server, Server], tmp_path: Path) -> None:
    """The review's case: a rule allows one loopback service; it redirects to another
    port's secret, which only a ``*`` allows, without naming it."""
    a, b = servers
    b.page("/token", "s3cr3t")
    start = a.redirect("/", b.base + "/token")
    result = await fetch(env_for(tmp_path, judge(names=(a.base,))), start)
    text = refused_redirect(result)
    assert "loopback or private address" in text and f"{b.base}/*" in text
    assert b.requests == [] and "s3cr3t" not in text


async def test_a_redirect_chain_all_allowed_is_followed(servers: tuple[Server, Server],
                                                         tmp_path: Path) -> None:
    a, b = servers
    a.page("/end", "arrived")
    b.redirect("/two", a.base + "/three", status=301)
    a.redirect("/three", "/end", status=307)  # relative, resolved against the current URL
    start = a.redirect("/one", b.base + "/two", status=308)
    calls: list[str] = []
    result = await fetch(env_for(tmp_path, judge(names=(a.base, b.base), calls=calls)), start)
    assert result.untrusted and result.text.startswith(f"URL: {a.base}/end\nStatus: 200")
    assert result.text.endswith("arrived")
    assert a.paths == ["/one", "/three", "/end"] and b.paths == ["/two"]
    # every redirect target judged again (the first URL only for its private address)
    assert calls[1:] == [b.base + "/two", a.base + "/three", a.base + "/end"]


async def test_a_redirect_loop_is_refused(servers: tuple[Server, Server],
                                          tmp_path: Path) -> None:
    a, _ = servers
    a.redirect("/x", "/y")
    a.redirect("/y", "/x")
    rules = judge(names=(a.base,))
    with pytest.raises(ToolError, match="redirect loop"):
        await fetch(env_for(tmp_path, rules), a.base + "/x")
    assert a.paths == ["/x", "/y"]
    a.redirect("/self", "/self")
    with pytest.raises(ToolError, match="redirect loop"):
        await fetch(env_for(tmp_path, rules), a.base + "/self")
    assert a.paths[2:] == ["/self"]


async def test_more_than_max_redirects_is_refused(servers: tuple[Server, Server],
                                                  tmp_path: Path) -> None:
    a, _ = servers
    limit = web.MAX_REDIRECTS
    for n in range(limit + 1):
        a.redirect(f"/r{n}", f"/r{n + 1}")
    a.page(f"/r{limit + 1}", "too far")
    rules = judge(names=(a.base,))
    with pytest.raises(ToolError, match=f"more than {limit} redirects"):
        await fetch(env_for(tmp_path, rules), a.base + "/r0")
    assert a.paths == [f"/r{n}" for n in range(limit + 1)]
    # exactly MAX_REDIRECTS is fine
    result = await fetch(env_for(tmp_path, rules), a.base + "/r1")
    assert result.text.endswith("too far")


async def test_a_redirect_keeps_its_cookies_for_the_next_hop(servers: tuple[Server, Server],
                                                             tmp_path: Path) -> None:
    a, _ = servers
    start = a.redirect("/login", "/echo-headers", headers={"Set-Cookie": "session=abc; Path=/"})
    result = await fetch(env_for(tmp_path, judge(names=(a.base,))), start)
    assert "Cookie: session=abc" in result.text


async def test_a_bad_redirect_target_is_an_error_result(servers: tuple[Server, Server],
                                                        tmp_path: Path) -> None:
    a, _ = servers
    rules = judge(names=(a.base,))
    for location, why in [("gopher://x/", "only http and https"),
                          ("http://exa mple.com/", "spaces"), ("//user@[::1]/", "password")]:
        text = refused_redirect(await fetch(env_for(tmp_path, rules),
                                            a.redirect("/bad", location)))
        assert why in text
    # a Location httpx cannot parse at all: httpx itself refuses it, as a protocol error
    with pytest.raises(ToolError, match="could not fetch .*location header"):
        await fetch(env_for(tmp_path, rules), a.redirect("/bad", "http://[::1"))


# ------------------------------------------------------------------------ credentials

@pytest.mark.parametrize("userinfo", ["user:pw@", "user@", "us%65r:p%40ss@", ":@", "@",
                                      "user%3Apw%40", "user%3apw@"])
async def test_credentials_in_the_url_are_refused_before_connecting(
        servers: tuple[Server, Server], tmp_path: Path, userinfo: str) -> None:
    a, _ = servers
    url = f"http://{userinfo}127.0.0.1:{a.port}/"
    with pytest.raises(ToolError, match="user name or password|percent-encoded"):
        await fetch(env_for(tmp_path, judge(names=("http://",))), url)
    with pytest.raises(ToolError):  # a dry run refuses them too
        await fetch(env_for(tmp_path, judge(names=("http://",)), dry_run=True), url)
    assert a.requests == []


async def test_a_redirect_to_a_url_with_credentials_is_refused(
        servers: tuple[Server, Server], tmp_path: Path) -> None:
    a, b = servers
    start = a.redirect("/", f"http://admin:hunter2@127.0.0.1:{b.port}/")
    text = refused_redirect(await fetch(env_for(tmp_path, judge(names=("http://",))), start))
    assert "user name or password" in text and "hunter2" not in text
    assert b.requests == []


# ------------------------------------------------------------- loopback and private hosts

async def test_loopback_needs_a_rule_naming_the_host(servers: tuple[Server, Server],
                                                     tmp_path: Path) -> None:
    a, _ = servers
    url = a.page("/", "local page")
    with pytest.raises(ToolError, match="loopback or private") as refused:
        await fetch(env_for(tmp_path, judge()), url)  # allowed by "*", host not named
    assert f"pattern {a.base}/*" in str(refused.value)
    with pytest.raises(ToolError, match="loopback or private"):
        await fetch(env_for(tmp_path, None), url)  # no rules at all: refused too
    assert a.requests == []
    result = await fetch(env_for(tmp_path, judge(names=(a.base,))), url)
    assert result.text.endswith("local page") and a.paths == ["/"]


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST.", "api.localhost", "printer.local",
                                  "[::1]", "0.0.0.0", "127.1", "2130706433", "0x7f.1",
                                  "0177.0.0.1", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]",
                                  "169.254.169.254", "10.0.0.1", "192.168.0.1",
                                  "[fd00::1]", "[fe80::1]", "100.64.0.1"])
async def test_internal_hosts_are_refused_without_a_rule_naming_them(
        servers: tuple[Server, Server], tmp_path: Path, host: str) -> None:
    a, _ = servers
    calls: list[str] = []
    # (httpx finds 0177.0.0.1 no URL at all: refused as well, and that is all it takes)
    with pytest.raises(ToolError, match="^fetch_url: (.* is a loopback or private address"
                                        "|not a URL)"):
        await fetch(env_for(tmp_path, judge(calls=calls)), f"http://{host}:{a.port}/")
    assert a.requests == []
    if host != "0177.0.0.1":  # the rules were asked whether they name the host
        assert calls == [f"http://{host}:{a.port}/".replace("LOCALHOST.", "localhost.")]


async def test_a_name_is_resolved_once_and_the_checked_address_is_used(
        servers: tuple[Server, Server], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    """Pinning: the tool's own lookup decides where the connection goes; the name is not
    looked up a second time (which could give another answer), and the server still sees
    the name in ``Host``."""
    a, _ = servers
    a.page("/echo-headers")
    looked_up = _resolve_as_loopback(monkeypatch, "service.test")
    url = f"http://service.test:{a.port}/echo-headers"
    with pytest.raises(ToolError, match=r"service\.test \(127\.0\.0\.1\) is a loopback"):
        await fetch(env_for(tmp_path, judge()), url)
    result = await fetch(env_for(tmp_path, judge(names=(f"http://service.test:{a.port}/",))),
                         url)
    assert f"Host: service.test:{a.port}" in result.text
    assert result.text.startswith(f"URL: {url}\n")
    assert looked_up.count("service.test") == 2  # once per fetch, by the tool itself


def _resolve_as_loopback(monkeypatch: pytest.MonkeyPatch, *names: str) -> list[str]:
    """Make the running loop resolve ``names`` to 127.0.0.1; the hosts looked up, listed."""
    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo
    looked_up: list[str] = []

    async def fake(host: Any, port: Any, *args: Any, **kw: Any) -> Any:
        looked_up.append(str(host))
        if host in names:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return await real(host, port, *args, **kw)

    monkeypatch.setattr(loop, "getaddrinfo", fake)
    return looked_up


def _tls_files(tmp_path: Path, name: str) -> tuple[Path, Path, Path]:
    """A CA and a certificate for ``name`` it signed: (ca.pem, cert.pem, key.pem)."""
    pytest.importorskip("cryptography")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.now(timezone.utc)

    def cert(subject: str, key: Any, issuer: str, signer: Any, ca: bool) -> Any:
        b = (x509.CertificateBuilder()
             .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
             .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
             .public_key(key.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - timedelta(hours=1)).not_valid_after(now + timedelta(days=1))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if ca:
            b = b.add_extension(x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=True,
                crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                                critical=False)
        else:
            b = b.add_extension(x509.SubjectAlternativeName([x509.DNSName(subject)]),
                                critical=False)
            b = b.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                signer.public_key()), critical=False)
        return b.sign(signer, hashes.SHA256())

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_pem, cert_pem, key_pem = tmp_path / "ca.pem", tmp_path / "cert.pem", tmp_path / "key.pem"
    ca_pem.write_bytes(cert("Test CA", ca_key, "Test CA", ca_key, True)
                       .public_bytes(serialization.Encoding.PEM))
    cert_pem.write_bytes(cert(name, key, "Test CA", ca_key, False)
                         .public_bytes(serialization.Encoding.PEM))
    key_pem.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                          serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return ca_pem, cert_pem, key_pem


@pytest.mark.parametrize("certified", ["service.test", "other.test"])
async def test_https_is_pinned_with_the_original_name_for_sni_and_the_certificate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, certified: str) -> None:
    """The connection goes to the checked address, yet TLS speaks to and verifies the
    name in the URL: SNI is that name, and a certificate for another name is refused."""
    for key in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                "all_proxy", "SSL_CERT_DIR"):
        monkeypatch.delenv(key, raising=False)
    ca, cert, key = _tls_files(tmp_path, certified)
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    sni: list[str | None] = []
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda sock, name, ctx: sni.append(name)  # type: ignore[assignment]
    server = Server()
    httpd = _serve(server, context)
    try:
        looked_up = _resolve_as_loopback(monkeypatch, "service.test")
        url = f"https://service.test:{server.port}/echo-headers"
        env = env_for(tmp_path, judge(names=(f"https://service.test:{server.port}/",)))
        if certified == "service.test":
            result = await fetch(env, url)
            assert result.text.startswith(f"URL: {url}\nStatus: 200")
            assert f"Host: service.test:{server.port}" in result.text
        else:
            with pytest.raises(ToolError, match="could not fetch"):
                await fetch(env, url)
            assert server.requests == []
        assert sni == ["service.test"] and looked_up.count("service.test") == 1
    finally:
        httpd.shutdown()
        httpd.server_close()


async def test_a_name_with_any_internal_address_is_refused(
        servers: tuple[Server, Server], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    a, _ = servers
    loop = asyncio.get_running_loop()

    async def fake(host: Any, port: Any, *args: Any, **kw: Any) -> Any:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", port))]

    monkeypatch.setattr(loop, "getaddrinfo", fake)
    with pytest.raises(ToolError, match=r"mixed\.test \(10\.1\.2\.3\) is a loopback"):
        await fetch(env_for(tmp_path, judge()), "http://mixed.test/")


async def test_a_redirect_from_a_public_url_to_loopback_is_refused(
        servers: tuple[Server, Server], tmp_path: Path) -> None:
    """"Public" here: the first host is named by a rule, the second only allowed by ``*``."""
    a, b = servers
    b.page("/admin", "internal")
    for target in (b.base + "/admin", f"http://localhost:{b.port}/admin",
                   f"http://[::ffff:127.0.0.1]:{b.port}/admin"):
        start = a.redirect("/", target)
        text = refused_redirect(await fetch(env_for(tmp_path, judge(names=(a.base,))), start))
        assert "loopback or private address" in text and "internal" not in text
    assert b.requests == []


# ------------------------------------------------------------------- the address check

@pytest.mark.parametrize("address, internal", [
    ("127.0.0.1", True), ("10.0.0.1", True), ("172.16.5.4", True), ("192.168.1.1", True),
    ("169.254.169.254", True), ("0.0.0.0", True), ("100.64.0.1", True), ("224.0.0.1", True),
    ("240.0.0.1", True), ("255.255.255.255", True), ("::1", True), ("::", True),
    ("fc00::1", True), ("fd12:3456::1", True), ("fe80::1", True), ("ff02::1", True),
    ("::ffff:127.0.0.1", True), ("::ffff:10.0.0.1", True), ("64:ff9b::7f00:1", True),
    ("64:ff9b::a00:1", True), ("2002:7f00:1::1", True), ("2002:c0a8:101::1", True),
    ("::127.0.0.1", True),
    ("93.184.216.34", False), ("8.8.8.8", False), ("2606:4700:4700::1111", False),
    ("::ffff:8.8.8.8", False), ("64:ff9b::808:808", False), ("2002:808:808::1", False)])
def test_internal_address(address: str, internal: bool) -> None:
    assert web.internal_address(ipaddress.ip_address(address)) is internal
