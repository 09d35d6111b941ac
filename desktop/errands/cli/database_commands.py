"""``errands database``: where the catalogue lives, and its password in the keyring."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..db.location import (ENV, KEYRING_SERVICE, ServerDatabase, database_location,
                           parse_database_url, saved_url_path)
from ..errors import ErrandsError, InvalidInput, StoreError
from .commands import _dir, emit, read_secret


def _where(args: argparse.Namespace) -> tuple[Path | ServerDatabase, str]:
    data = _dir(args)
    location = database_location(data)
    if isinstance(location, Path):
        return location, "the data folder (the default)"
    return location, ("--database" if getattr(args, "database", None) else
                      ENV if location.source == ENV else str(saved_url_path(data)))


def show(args: argparse.Namespace) -> int:
    location, source = _where(args)
    doc: dict[str, Any] = {"kind": "sqlite" if isinstance(location, Path) else "postgresql",
                           "location": str(location), "chosen_by": source}
    lines = [f"catalogue: {location}", f"chosen by: {source}"]
    if isinstance(location, ServerDatabase):
        doc["password_in_keyring"] = _has_password(location)
        lines.append("password: " + ("in the keyring" if doc["password_in_keyring"] else
                                     "not in the keyring (errands database password)"))
    emit(args, doc, "\n".join(lines))
    return 0


def use(args: argparse.Namespace) -> int:
    data = _dir(args)
    saved = saved_url_path(data)
    if args.local:
        try:
            saved.unlink(missing_ok=True)
        except OSError as exc:
            raise _unwritable(saved, exc) from exc
        emit(args, {"location": str(data / "errands.sqlite3"), "kind": "sqlite"},
             f"this data folder uses its own catalogue again: {data / 'errands.sqlite3'}")
        return 0
    server = parse_database_url(args.url, "url")
    try:
        data.mkdir(parents=True, exist_ok=True)
        fd = os.open(saved, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(server.display + "\n")
    except OSError as exc:
        raise _unwritable(saved, exc) from exc
    note = ("" if _has_password(server) else
            "\nno password in the keyring for it: 'errands database password' (if it needs one)")
    emit(args, {"location": server.display, "kind": "postgresql", "saved": str(saved)},
         f"this data folder uses the shared catalogue {server} from now on{note}")
    return 0


def password(args: argparse.Namespace) -> int:
    import keyring
    import keyring.errors

    server = (parse_database_url(args.url, "--url") if args.url else _where(args)[0])
    if not isinstance(server, ServerDatabase):
        raise InvalidInput("--url", "the catalogue in use is this machine's SQLite file, "
                           "which has no password", "--url postgresql://USER@HOST/DATABASE",
                           "errands database password --url postgresql://me@homeserver/errands")
    try:
        if args.remove:
            try:
                keyring.delete_password(KEYRING_SERVICE, server.keyring_user)
            except keyring.errors.PasswordDeleteError:
                pass
            emit(args, {"location": server.display, "password_in_keyring": False},
                 f"no password kept for {server} any more")
            return 0
        secret = read_secret(args.value_stdin, "--value-stdin", f"password for {server}: ",
                             "echo \"$PASSWORD\" | errands database password --value-stdin")
        keyring.set_password(KEYRING_SERVICE, server.keyring_user, secret)
    except keyring.errors.KeyringError as exc:
        err = ErrandsError(f"the keyring refused: {exc}; unlock it, or give libpq the password "
                           "(PGPASSWORD, ~/.pgpass)")
        err.code = "keyring"
        raise err from exc
    emit(args, {"location": server.display, "password_in_keyring": True},
         f"the password for {server} is in the keyring")
    return 0


def _unwritable(path: Path, exc: OSError) -> StoreError:
    return StoreError("store_unusable", f"cannot write {path}: {exc.strerror or exc}; "
                      "it must be a file Errands may write (move aside what is there)")


def _has_password(server: ServerDatabase) -> bool:
    from ..db.location import password_for
    return password_for(server) is not None
