"""The error vocabulary shared by the store, the engine, the CLI and (later) the UI.

Every refusal names the field it concerns, the shape that was expected and an example,
so a person can fix the input without reading code. Exit codes follow the CLI contract.
"""

from __future__ import annotations

from typing import Any


class ErrandsError(Exception):
    """Base of every error Errands reports to a person."""

    code: str = "internal"
    exit_code: int = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "field": None, "message": self.message,
                "expected": None, "example": None}

    def __str__(self) -> str:
        return self.message


# Why a value was refused, for clients that word refusals themselves (the window does, in
# its language); ``values`` carries what the words need.
REASONS = {
    "required": "a value is needed",
    "empty": "the text is blank",
    "too_long": "values max (characters) and length",
    "too_large": "values max_kib",
    "characters": "a character that is not allowed (values char, e.g. U+0007)",
    "kind": "the wrong kind of value (a number for text …)",
    "range": "values low and high",
    "choice": "values options (comma-separated)",
    "not_absolute": "a path that does not start at /",
    "past": "an instant already past (words: the instant)",
    "too_often": "fires more often than the engine allows (values min, a duration)",
    "zone": "not a time zone (values zone)",
    "duration": "not a length of time (30s, 15m, 2h, 1d) or over 366 days",
    "instant": "not an RFC 3339 instant with an offset",
    "never": "a schedule that can never fire",
    "no_task": "a sentence that says when but not what to do",
    "both": "two fields given where one of them is wanted (trigger and triggers)",
    "too_many": "more items than allowed (values max)",
    "trigger_id": "not a trigger id (lower-case letters, digits, - and _)",
    "duplicate": "the same name given to two items",
    "glob": "not a file name pattern",
    "not_found": "names something that does not exist",
    "no_account": "names a mail account that is not set up",
}


class InvalidInput(ErrandsError):
    """A definition, argument, schedule or file that does not have the expected shape."""

    code = "invalid_input"
    exit_code = 2

    def __init__(self, field: str, message: str, expected: str | None = None,
                 example: str | None = None, code: str = "invalid_input",
                 words: tuple[str, ...] = (), reason: str | None = None,
                 values: dict[str, str | int] | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.expected = expected
        self.example = example
        self.code = code
        self.words = words          # the words of the input refused (a phrase's "except tomorrow")
        # why, for a client that words the refusal itself (REASONS), and the values its
        # words need ("too_long": {"max": 120, "length": 140})
        self.reason = reason
        self.values: dict[str, str | int] = dict(values or {})

    def with_prefix(self, prefix: str) -> "InvalidInput":
        """The same error, its field placed under ``prefix`` (``trigger`` + ``expression``)."""
        field = f"{prefix}.{self.field}" if self.field else prefix
        return InvalidInput(field, self.message, self.expected, self.example, self.code,
                            self.words, self.reason, self.values)

    def to_dict(self) -> dict[str, Any]:
        doc = {"code": self.code, "field": self.field, "message": self.message,
               "expected": self.expected, "example": self.example}
        if self.reason:
            doc["reason"] = self.reason
        if self.values:
            doc["values"] = dict(self.values)
        return {**doc, "words": list(self.words)} if self.words else doc

    def __str__(self) -> str:
        text = f"{self.field}: {self.message}" if self.field else self.message
        if self.expected and self.expected not in self.message:
            text += f"; expected {self.expected}"
        if self.example and self.example not in text:
            text += f', e.g. "{self.example}"'
        missing = [w for w in self.words if f"'{w}'" not in text]
        if missing:
            text += "; refused: " + ", ".join(f"'{w}'" for w in missing)
        return text


class NotFound(ErrandsError):
    code = "not_found"
    exit_code = 3


class Conflict(ErrandsError):
    """The request collides with existing state (``identity_conflict``, ``busy`` …)."""

    exit_code = 4

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class StoreError(ErrandsError):
    """The database cannot be used safely (corrupt, newer version, locked)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class EngineUnreachable(ConnectionError):
    """No engine answered at ``address``: nobody listening, refused, closed, or too slow.

    ``reason`` is one of ``"refused"`` (nothing listening / socket missing / no token
    file / the request could not be sent: it was not delivered, so trying again is safe),
    ``"closed"`` (the engine hung up before answering), ``"timeout"``.
    A timeout means an engine may well be running and busy: the CLI must not fall back
    to writing the store itself (the lock will tell it so anyway).
    """

    def __init__(self, message: str, *, address: str | None = None,
                 reason: str = "refused") -> None:
        super().__init__(message)
        self.message = message
        self.address = address
        self.reason = reason

    def __str__(self) -> str:
        return self.message
