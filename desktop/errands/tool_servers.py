"""The MCP servers a person adds for agent runs: their shape, and the refusals of a bad one.

A server is a stdio command (``command``: the program and its arguments) or a streamable
HTTP endpoint (``url``, with one ``header`` whose value the keyring keeps: never the
definition, a setting or a log). Servers in the ``mcp_servers`` setting join every agent
run; an automation's ``runner.mcp_servers`` adds its own (the automation's wins on a name
both use). Plain data: the client that talks to them is :mod:`errands.agent.mcp_tools`.
"""

from __future__ import annotations

import ipaddress
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .errors import InvalidInput

MAX_SERVERS = 16
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,29}")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
HEADER = re.compile(r"[A-Za-z0-9-]{1,64}")
EXAMPLE = ('{"name": "files", "command": ["npx", "-y", "@modelcontextprotocol/server-filesystem",'
           ' "/home/me/notes"]}')
HTTP_EXAMPLE = '{"name": "deploy", "url": "https://deploy.example.com/mcp", "header": "Authorization"}'
KEYS = ("name", "command", "env", "url", "header", "trusted")


@dataclass(frozen=True)
class ToolServer:
    name: str                                   # the tools' prefix: mcp__<name>__<tool>
    command: tuple[str, ...] = ()               # a stdio server: the program and arguments
    env: tuple[tuple[str, str], ...] = ()       # plain environment for a stdio server
    url: str | None = None                      # a streamable HTTP server
    header: str | None = None                   # the header the keyring's secret goes in
    trusted: bool = False                       # its results are not text from outside

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"name": self.name}
        if self.command:
            doc["command"] = list(self.command)
        if self.env:
            doc["env"] = dict(self.env)
        if self.url:
            doc["url"] = self.url
        if self.header:
            doc["header"] = self.header
        if self.trusted:
            doc["trusted"] = True
        return doc


def _fail(field: str, message: str, expected: str, example: str = EXAMPLE) -> InvalidInput:
    return InvalidInput(field, message, expected, example)


def _command(value: Any, field: str) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            value = shlex.split(value)
        except ValueError as exc:
            raise _fail(field, f"cannot be read as a command line: {exc}",
                        "a list of the program and its arguments") from None
    if not isinstance(value, list) or not value or len(value) > 64:
        raise _fail(field, "expected the program and its arguments",
                    "a list of 1 to 64 strings", '["uvx", "mcp-server-git"]')
    for i, part in enumerate(value):
        if not isinstance(part, str) or "\x00" in part or len(part) > 4096 \
                or (i == 0 and not part.strip()):
            raise _fail(f"{field}[{i}]", "not an argument", "a string of at most 4096 "
                        "characters without NUL", 'mcp-server-git')
    return tuple(value)


def _env(value: Any, field: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict) or len(value) > 50:
        raise _fail(field, "expected names and values", "an object of at most 50 "
                    "environment variables", '{"LOG_LEVEL": "warning"}')
    for key, item in value.items():
        if not ENV_NAME.fullmatch(key) or not isinstance(item, str) or "\x00" in item \
                or len(item) > 4096:
            raise _fail(f"{field}.{key}", "not an environment variable", "a name of letters, "
                        "digits and _ with a string value (secrets do not belong here)",
                        '{"LOG_LEVEL": "warning"}')
    return tuple(sorted(value.items()))


def _url(value: Any, field: str) -> str:
    if not isinstance(value, str) or len(value) > 2000:
        raise _fail(field, "expected a URL", "an https URL (http only on this machine)",
                    "https://deploy.example.com/mcp")
    parts = urlsplit(value)
    host = parts.hostname or ""
    loopback = host == "localhost"
    try:
        loopback = loopback or ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    if parts.scheme not in ("https", "http") or not host or (parts.scheme == "http"
                                                              and not loopback):
        raise _fail(field, f"not a usable endpoint: {value!r}", "an https URL (plain http "
                    "only to this machine: the header would travel in the clear)",
                    "https://deploy.example.com/mcp")
    return value


def parse_server(doc: Any, field: str) -> ToolServer:
    if not isinstance(doc, dict):
        raise _fail(field, f"expected an object, got {type(doc).__name__}",
                    "an object with name and command (or url)")
    unknown = [k for k in doc if k not in KEYS]
    if unknown:
        raise _fail(f"{field}.{unknown[0]}", "unknown key", "one of " + ", ".join(KEYS))
    name = doc.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise _fail(f"{field}.name", f"not a server name: {name!r}", "1 to 30 lower-case "
                    "letters, digits and -, starting with a letter or digit", 'files')
    has_command, has_url = doc.get("command") is not None, doc.get("url") is not None
    if has_command == has_url:
        raise _fail(field, "needs exactly one of command and url", "a stdio command or a "
                    "streamable HTTP URL")
    trusted = doc.get("trusted", False)
    if not isinstance(trusted, bool):
        raise _fail(f"{field}.trusted", "expected true or false", "true or false", "false")
    if has_command:
        if doc.get("header") is not None:
            raise _fail(f"{field}.header", "a stdio server takes no header", "no header "
                        "(use url for an HTTP server)")
        return ToolServer(name=name, command=_command(doc["command"], f"{field}.command"),
                          env=_env(doc.get("env"), f"{field}.env"), trusted=trusted)
    if doc.get("env") is not None:
        raise _fail(f"{field}.env", "an HTTP server takes no environment", "no env")
    header = doc.get("header")
    if header is not None and (not isinstance(header, str) or not HEADER.fullmatch(header)):
        raise _fail(f"{field}.header", f"not a header name: {header!r}", "a header name, "
                    "its value set with 'errands mcp secret NAME'", 'Authorization',
                    ) from None
    return ToolServer(name=name, url=_url(doc["url"], f"{field}.url"), header=header,
                      trusted=trusted)


def parse_servers(doc: Any, field: str) -> tuple[ToolServer, ...]:
    """A list of servers, each refusal naming ``field[i].key``; names must differ."""
    if isinstance(doc, (str, bytes)):
        from .jsondoc import loads
        doc = loads(doc, field)
    if doc is None:
        return ()
    if not isinstance(doc, list) or len(doc) > MAX_SERVERS:
        raise _fail(field, "expected a list of servers", f"a list of at most {MAX_SERVERS} "
                    "servers", f"[{EXAMPLE}]")
    servers = [parse_server(item, f"{field}[{i}]") for i, item in enumerate(doc)]
    seen: set[str] = set()
    for i, server in enumerate(servers):
        if server.name in seen:
            raise _fail(f"{field}[{i}].name", f"{server.name!r} is named twice",
                        "a different name for each server", 'files-2')
        seen.add(server.name)
    return tuple(servers)


def server_from_line(text: str, field: str) -> dict[str, Any]:
    """One server written on one line, as ``--mcp-server`` and the form take it:
    ``NAME=COMMAND LINE``, ``NAME=URL`` or a JSON object (the document is checked after,
    naming the field at fault)."""
    text = text.strip()
    if text.startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError as exc:
            raise InvalidInput(field, f"not JSON: {exc}", "a JSON object",
                               HTTP_EXAMPLE) from None
        return doc if isinstance(doc, dict) else {"name": doc}
    name, sep, where = text.partition("=")
    if not sep or not where.strip():
        raise InvalidInput(field, f"not NAME=COMMAND or NAME=URL: {text!r}",
                           "NAME=COMMAND, NAME=URL or a JSON object",
                           "notes=npx -y @modelcontextprotocol/server-filesystem ~/notes")
    where = where.strip()
    if where.startswith(("http://", "https://")):
        return {"name": name.strip(), "url": where}
    try:
        return {"name": name.strip(), "command": shlex.split(where)}
    except ValueError as exc:
        raise InvalidInput(field, f"cannot read the command: {exc}", "NAME=COMMAND with "
                           "balanced quotes", "git=uvx mcp-server-git") from None


def server_line(doc: dict[str, Any]) -> str:
    """A server document as one line :func:`server_from_line` reads back: ``NAME=…`` when
    that says all of it, else its JSON."""
    plain = set(doc) <= {"name", "command", "url"}
    command = doc.get("command")
    if plain and isinstance(command, list) and all(isinstance(c, str) for c in command):
        return f"{doc.get('name')}={shlex.join(command)}"
    if plain and isinstance(doc.get("url"), str):
        return f"{doc.get('name')}={doc['url']}"
    return json.dumps(doc, ensure_ascii=False)


def show_servers(servers: tuple[ToolServer, ...]) -> str:
    return json.dumps([s.to_dict() for s in servers], ensure_ascii=False)


def merged(everywhere: tuple[ToolServer, ...], own: tuple[ToolServer, ...]
           ) -> tuple[ToolServer, ...]:
    """The servers one run uses: the setting's, then the automation's (which wins)."""
    mine = {s.name for s in own}
    return tuple(s for s in everywhere if s.name not in mine) + own


# the header's value: in the keyring (service errands-mcp), per data folder and server

SECRET_SERVICE = "errands-mcp"


def _user(data_dir: Path, name: str, url: str) -> str:
    """The keyring entry: the data folder, the server's name and its URL. A secret is
    bound to the address it was kept for: a server of the same name elsewhere (an
    automation's own, say) never receives it."""
    return f"{Path(data_dir).resolve()}#{name}#{url}"


def get_secret(data_dir: Path, name: str, url: str) -> str | None:
    """The header value kept for server ``name`` at ``url`` (blocking: call it off the
    loop); None when none is kept or the keyring cannot be read (the server answers 401)."""
    import keyring
    import keyring.errors
    try:
        return keyring.get_password(SECRET_SERVICE, _user(data_dir, name, url))
    except keyring.errors.KeyringError:
        return None


def set_secret(data_dir: Path, name: str, url: str, value: str | None) -> None:
    """Keep (or with None forget) the header value of server ``name`` at ``url``."""
    import keyring
    import keyring.errors
    if value is None:
        try:
            keyring.delete_password(SECRET_SERVICE, _user(data_dir, name, url))
        except keyring.errors.PasswordDeleteError:
            pass
        return
    if not value or "\n" in value or len(value) > 8192 or any(c in value for c in "\r\x00"):
        raise InvalidInput("--value-stdin", "not a header value", "one line of 1 to 8192 "
                           "characters", "Bearer abc123 (typed on standard input)")
    keyring.set_password(SECRET_SERVICE, _user(data_dir, name, url), value)
