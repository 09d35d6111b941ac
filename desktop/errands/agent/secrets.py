"""The provider's API key: in the OS keyring, never in the database, settings or logs.

The keyring entry is service ``errands``, user name the data folder's absolute path, so two
data folders keep two keys. ``ERRANDS_API_KEY`` in the environment wins over the keyring
(for headless machines, CI, and a quick try). No message here ever holds the key: a
refusal says what is wrong with it, not what it is.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import keyring
import keyring.errors

from ..errors import ErrandsError, InvalidInput

SERVICE = "errands"
ENV_VAR = "ERRANDS_API_KEY"
MAX_KEY = 4096
Source = Literal["environment", "keyring"]

NO_KEYRING_HINT = (f"set {ENV_VAR} in the environment instead, or install a Secret Service "
                   "(GNOME Keyring, KWallet) and log in to it")


class KeyringUnavailable(ErrandsError):
    """The keyring cannot be used: ``no_keyring`` (none on this machine) or ``keyring_error``
    (locked, refused, broken)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _account(data_dir: Path) -> str:
    return str(Path(data_dir).resolve())


def check_api_key(key: str, field: str = "--api-key-stdin") -> str:
    """The key without surrounding white space; refused (without echoing it) when it could
    not travel in an HTTP header."""
    key = key.strip()
    expected = f"one line of 1 to {MAX_KEY} printable ASCII characters without spaces"
    if not key:
        raise InvalidInput(field, "the key is empty", expected, "sk-...")
    if len(key) > MAX_KEY:
        raise InvalidInput(field, f"the key is longer than {MAX_KEY} characters", expected,
                           "sk-...")
    if any(not "!" <= c <= "~" for c in key):
        raise InvalidInput(field, "the key holds spaces, control or non-ASCII characters "
                           "(more than one line?)", expected, "sk-...")
    return key


def _environment_key() -> str | None:
    from ..sealed import environment_key  # (taken out of the environment at start)
    return environment_key()


def get_api_key(data_dir: Path) -> tuple[str | None, Source | None]:
    """The key in force and where it came from. No keyring on this machine reads as no key
    (local providers need none); a keyring that exists but fails is reported."""
    from ..logs import remember_secret

    key = _environment_key()
    if key is not None:
        remember_secret(key)
        return key, "environment"
    try:
        stored = keyring.get_password(SERVICE, _account(data_dir))
    except keyring.errors.NoKeyringError:
        return None, None
    except Exception as exc:  # backends raise their own (D-Bus, locked, denied)
        raise KeyringUnavailable("keyring_error", "cannot read the API key from the keyring "
                                 f"({type(exc).__name__}); {NO_KEYRING_HINT}") from None
    remember_secret(stored)
    return (stored, "keyring") if stored else (None, None)


def set_api_key(data_dir: Path, key: str) -> None:
    key = check_api_key(key)
    try:
        keyring.set_password(SERVICE, _account(data_dir), key)
    except keyring.errors.NoKeyringError:
        raise KeyringUnavailable("no_keyring", "this machine has no keyring to keep the API "
                                 f"key in; {NO_KEYRING_HINT}") from None
    except Exception as exc:  # (its text is not shown: a backend might echo the secret)
        raise KeyringUnavailable("keyring_error", "cannot store the API key in the keyring "
                                 f"({type(exc).__name__}); {NO_KEYRING_HINT}") from None


def delete_api_key(data_dir: Path) -> bool:
    """Forget the stored key; False when there was none (no keyring holds none)."""
    try:
        keyring.delete_password(SERVICE, _account(data_dir))
    except (keyring.errors.NoKeyringError, keyring.errors.PasswordDeleteError):
        return False
    except Exception as exc:
        raise KeyringUnavailable("keyring_error", "cannot remove the API key from the keyring "
                                 f"({type(exc).__name__})") from None
    return True
