"""Where the catalogue lives: the data folder's SQLite file (the default), or a PostgreSQL
database shared by several machines.

The choice, first found wins: ``--database URL`` on the command line, the environment's
``ERRANDS_DATABASE_URL``, the data folder's ``database.url`` (written by ``errands database
use``), else ``<data folder>/errands.sqlite3``. A URL never carries a password: that lives
in the keyring (service ``errands-database``, user ``USER@HOST:PORT/DATABASE``), set with
``errands database password``; libpq's own ``PGPASSWORD`` and ``~/.pgpass`` work too. The
module imports neither SQLAlchemy nor keyring until a server is actually opened, so
commands that never open the store stay quick.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from ..errors import InvalidInput, StoreError

ENV = "ERRANDS_DATABASE_URL"
FILE = "database.url"
KEYRING_SERVICE = "errands-database"
EXAMPLE = "postgresql://errands@homeserver:5432/errands"
SCHEMES = ("postgresql", "postgresql+psycopg", "postgres")
MAX_URL = 2000
# libpq options a URL may carry (anything else is refused, naming it): TLS, the timeout and
# the application's name; no ``password``/``passfile`` (the keyring holds the password)
OPTIONS = frozenset({"sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl", "connect_timeout",
                     "application_name", "target_session_attrs", "options"})


@dataclass(frozen=True)
class ServerDatabase:
    """A PostgreSQL catalogue: where it is, and under which name its password is kept."""

    user: str
    host: str
    port: int
    database: str
    options: tuple[tuple[str, str], ...] = ()
    source: str = ENV  # where it was named (for messages)

    @property
    def display(self) -> str:
        """The URL as shown to people and logs (never a password), its parts encoded again:
        it reads back as the same catalogue."""
        query = "&".join(f"{k}={quote(v, safe='')}" for k, v in self.options)
        return (f"postgresql://{quote(self.user, safe='')}@{self._host()}:{self.port}/"
                f"{quote(self.database, safe='')}" + (f"?{query}" if query else ""))

    @property
    def keyring_user(self) -> str:
        return f"{self.user}@{self._host()}:{self.port}/{self.database}"

    def _host(self) -> str:
        return f"[{self.host}]" if ":" in self.host else self.host

    def __str__(self) -> str:
        return self.display


Location = Path | ServerDatabase


def parse_database_url(text: str, field: str = ENV) -> ServerDatabase:
    """A PostgreSQL URL, checked: refused with the field, the shape and an example."""
    shape = "postgresql://USER@HOST[:PORT]/DATABASE (the password in the keyring)"
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(field, "is empty", shape, EXAMPLE)
    text = text.strip()
    if len(text) > MAX_URL or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise InvalidInput(field, "is not a URL (too long, or control characters)", shape,
                           EXAMPLE)
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise InvalidInput(field, f"is not a URL ({exc})", shape, EXAMPLE) from None
    if parts.scheme.lower() not in SCHEMES:
        raise InvalidInput(field, f"names {parts.scheme or 'no'} scheme; Errands shares a "
                           "catalogue on PostgreSQL only (SQLite is the default, with no URL)",
                           shape, EXAMPLE)
    if parts.password is not None or "password" in {k.lower() for k, _ in
                                                    parse_qsl(parts.query, True)}:
        raise InvalidInput(field, "holds a password; a password belongs in the keyring: "
                           "errands database password", shape, EXAMPLE)
    if not parts.hostname:
        raise InvalidInput(field, "names no host", shape, EXAMPLE)
    if not parts.username:
        raise InvalidInput(field, "names no user", shape, EXAMPLE)
    database = unquote(parts.path.lstrip("/"))
    if not database or "/" in database:
        raise InvalidInput(field, "names no database (the path after the host)", shape,
                           EXAMPLE)
    if parts.fragment:
        raise InvalidInput(field, "has a #fragment", shape, EXAMPLE)
    decoded = [unquote(parts.username), database, *(v for _, v in parse_qsl(parts.query, True))]
    if any(ord(c) < 32 or ord(c) == 127 for part in decoded for c in part):
        raise InvalidInput(field, "holds a control character once decoded (%00, %0A …)",
                           shape, EXAMPLE)
    options = []
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key not in OPTIONS:
            raise InvalidInput(field, f"has the option {key!r}, which Errands does not pass "
                               f"on (it knows {', '.join(sorted(OPTIONS))})", shape, EXAMPLE)
        options.append((key, value))
    if port is not None and not 0 < port < 65536:
        raise InvalidInput(field, f"port {port} is out of range", shape, EXAMPLE)
    return ServerDatabase(unquote(parts.username), parts.hostname, port or 5432, database,
                          tuple(options), field)


def saved_url_path(data_dir: Path) -> Path:
    return data_dir / FILE


def database_location(data_dir: Path, override: str | None = None) -> Location:
    """Where this data folder's catalogue is (see the module text)."""
    if override:
        return parse_database_url(override, "--database")
    env = os.environ.get(ENV)
    if env:
        return parse_database_url(env, ENV)
    saved = saved_url_path(data_dir)
    try:
        text = saved.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError("store_unusable", f"{saved} cannot be read ({exc}); fix it, or "
                         "remove it to use the local catalogue") from exc
    if text is not None and text.strip():
        return parse_database_url(text.strip(), str(saved))
    return data_dir / "errands.sqlite3"


def password_for(server: ServerDatabase) -> str | None:
    """The password the keyring holds for ``server``; None when it holds none or there is
    no usable keyring (libpq then tries ``PGPASSWORD`` and ``~/.pgpass``)."""
    try:
        import keyring
    except ImportError:  # pragma: no cover (a dependency)
        return None
    try:
        return keyring.get_password(KEYRING_SERVICE, server.keyring_user)
    except Exception:  # (KeyringError, or a broken backend's own): libpq's ways remain
        return None


def machine_name() -> str:
    """This engine's machine: ``ERRANDS_MACHINE``, else the host name."""
    import socket

    return (os.environ.get("ERRANDS_MACHINE") or socket.gethostname() or "this machine")[:100]
