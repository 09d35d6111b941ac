"""A large event payload (a big webhook body, a batch of long mails) kept as a file beside
the database instead of in it: the run records its digest, size and where it is, and the
run gets the whole payload when it starts. Files are private (0600) under
``<data dir>/events/<automation id>/``, named by their SHA-256, and go with the automation."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from .paths import PRIVATE_FILE, private_dir

LARGE = 64 * 1024    # a payload whose JSON is larger than this is stored as a file


def folder(data_dir: Path, automation_id: str) -> Path:
    return Path(data_dir) / "events" / automation_id


def store_if_large(data_dir: Path, automation_id: str, payload: Any) -> Any:
    """``payload`` itself, or for a large one ``{"artifact", "digest", "size"}`` after
    writing it (blocking: call it off the loop)."""
    if payload is None:
        return None
    text = json.dumps(payload, ensure_ascii=True, separators=(",", ":"))
    if len(text) <= LARGE:
        return payload
    digest = hashlib.sha256(text.encode()).hexdigest()
    where = folder(data_dir, automation_id)
    private_dir(where.parent)
    private_dir(where)
    path = where / f"{digest}.json"
    if not path.exists():
        temp = path.with_suffix(".tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    return {"artifact": f"events/{automation_id}/{digest}.json", "digest": f"sha256:{digest}",
            "size": len(text)}


def load(data_dir: Path, payload: Any) -> Any:
    """The whole payload a run is given: a stored one read back (blocking)."""
    if not (isinstance(payload, dict) and set(payload) == {"artifact", "digest", "size"}):
        return payload
    path = Path(data_dir) / str(payload["artifact"])
    try:
        text = path.read_text(encoding="ascii")
    except OSError as exc:
        return {**payload, "error": f"the stored event could not be read: {exc.strerror or exc}"}
    if "sha256:" + hashlib.sha256(text.encode()).hexdigest() != payload["digest"]:
        return {**payload, "error": "the stored event was changed since it was received"}
    return json.loads(text)


def forget(data_dir: Path, automation_id: str) -> None:
    """The automation was deleted: its stored events go too."""
    shutil.rmtree(folder(data_dir, automation_id), ignore_errors=True)
