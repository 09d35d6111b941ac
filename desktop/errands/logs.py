"""Errands' own log: rotating files in the platform log folder, with secrets redacted.

``errands serve`` and the app call :func:`setup_logging` once at start. The log goes to
``ERRANDS_LOG_DIR``, else platformdirs' ``user_log_dir("errands")`` (``~/.local/state/
errands/log`` on Linux, ``~/Library/Logs/errands`` on macOS, ``%LOCALAPPDATA%\\errands\\
Logs`` on Windows): ``errands.log``, rotated at 1 MB, five old files kept
(``errands.log.1`` … ``.5``). The folder is 0700 and the files 0600.

Nothing secret reaches a log file: :class:`Redactor`, on the handler, replaces the API key
(``ERRANDS_API_KEY``, and a key read from the keyring, which :mod:`errands.agent.secrets`
reports through :func:`remember_secret`) and anything after ``Bearer`` with ``***`` in the
message, its arguments, and any traceback. A command's own output goes to its run's log
(``<data dir>/logs/runs/<automation id>/<run id>.log``), not here; the command runs
without ``ERRANDS_API_KEY`` in its environment, so it cannot print it by accident.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import re
import threading
from pathlib import Path

from platformdirs import user_log_path

from .paths import PRIVATE_FILE, private_dir

LOG_NAME = "errands.log"
MAX_BYTES = 1024 * 1024
BACKUPS = 5
MIN_SECRET = 6  # shorter values would redact ordinary words; no real key is this short
MASK = "***"
_FORMAT = "%(asctime)s %(levelname)s [%(process)d %(threadName)s] %(name)s: %(message)s"

_BEARER = re.compile(r"(?i)(\bbearer\s+)[^\s'\",;]+")
_AUTH_HEADER = re.compile(r"(?i)(['\"]?(?:authorization|x-api-key|api[-_]key)['\"]?\s*[:=]\s*"
                          r"['\"]?)(?!bearer\b)[^\s'\",;}]+")
_secrets: set[str] = set()
_lock = threading.Lock()


def log_dir() -> Path:
    explicit = os.environ.get("ERRANDS_LOG_DIR")
    if explicit:
        return Path(explicit).expanduser().resolve()
    return user_log_path("errands", appauthor=False)


def remember_secret(value: str | None) -> None:
    """A secret that must never be logged (an API key); ignored if too short to be one."""
    if value and len(value) >= MIN_SECRET:
        with _lock:
            _secrets.add(value)


def known_secrets() -> list[str]:
    """Every secret this process knows of (remembered, or the environment's key, also when
    it was taken out of the environment at start), longest first."""
    from .sealed import environment_key

    with _lock:
        known = set(_secrets)
    env = environment_key() or ""
    if len(env) >= MIN_SECRET:
        known.add(env)
    return sorted(known, key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every known secret and bearer token replaced by ``***``."""
    for secret in known_secrets():
        if secret in text:
            text = text.replace(secret, MASK)
    text = _BEARER.sub(lambda m: m.group(1) + MASK, text)
    return _AUTH_HEADER.sub(lambda m: m.group(1) + MASK, text)


class Redactor(logging.Filter):
    """Rewrites a record so that no handler after it sees a secret: the message is
    formatted and redacted, its arguments dropped, a traceback formatted and redacted."""

    _formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: log what there is, redacted
            message = f"{record.msg!r} % {record.args!r}"
        record.msg = redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class _PrivateRotatingHandler(logging.handlers.RotatingFileHandler):
    """Each file, the first and every rotated one, is opened 0600."""

    def _open(self):  # type: ignore[no-untyped-def]
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE_FILE)
        if os.name == "posix":
            os.fchmod(fd, PRIVATE_FILE)
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)


_installed: logging.Handler | None = None
_stderr: logging.Handler | None = None


def setup_logging(role: str, *, level: int = logging.INFO) -> Path | None:
    """Send Errands' log (and the root logger's: asyncio, Qt glue) to the rotating file.
    Returns the file, or None when the folder cannot be used (then nothing is written,
    and the caller goes on: a log is never a reason not to start). Called twice, it keeps
    the first handler."""
    global _installed
    remember_secret(os.environ.get("ERRANDS_API_KEY", "").strip())
    if _installed is not None:
        return Path(getattr(_installed, "baseFilename", "")) or None
    folder = log_dir()
    try:
        private_dir(folder)
        handler = _PrivateRotatingHandler(folder / LOG_NAME, maxBytes=MAX_BYTES,
                                          backupCount=BACKUPS, encoding="utf-8", delay=False)
    except OSError:
        return None
    handler.setFormatter(logging.Formatter(_FORMAT))
    handler.addFilter(Redactor())
    handler.setLevel(level)
    root = logging.getLogger()
    root.addHandler(handler)
    global _stderr
    if not any(isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)
               for h in root.handlers):
        # what Python printed before a handler existed (warnings and errors on stderr)
        _stderr = logging.StreamHandler()
        _stderr.setLevel(logging.WARNING)
        _stderr.addFilter(Redactor())
        root.addHandler(_stderr)
    if root.level > level or root.level == logging.NOTSET:
        root.setLevel(level)
    _installed = handler
    logging.getLogger("errands").info("errands %s started (pid %d); log %s", role, os.getpid(),
                                      handler.baseFilename)
    return Path(handler.baseFilename)


def teardown_logging() -> None:
    """Remove the handler :func:`setup_logging` installed (tests, a clean exit)."""
    global _installed, _stderr
    for handler in (_installed, _stderr):
        if handler is not None:
            logging.getLogger().removeHandler(handler)
            handler.close()
    _installed = _stderr = None
