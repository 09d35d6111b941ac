"""Export and import of automation definitions: a versioned JSON document, no Qt.

The document (``errands export``)::

    {"format": "errands-export", "version": 1, "exported_at": "2026-03-30T07:00:00Z",
     "automations": [{"id": "3f2a91c0-…", "request_id": "export:3f2a91c0-…",
                      "definition": {"title": …, "runner": {…}, "trigger": {…}, …}}]}

It holds definitions only: never the API key (that lives in the keyring), never runs,
sessions, attention items or settings. ``request_id`` is the identity of an entry: the
automation's own creation request id when it has one, else ``export:<automation id>``.

Import is idempotent and all or nothing:

- every entry is checked first (shape, then its definition as ``add`` would check it, on
  this machine, now); any problem refuses the whole import, naming the entry and the field
  (``automations[3].definition.trigger.expression``), and nothing is written;
- an entry whose ``request_id`` (or ``id``) already names an automation here, with the same
  definition (or the one created from this very entry), is ``unchanged``;
- one whose request id names an automation here with a *different* definition is refused as
  ``identity_conflict`` (exit 4), like ``add --request-id`` with another document. Import
  never overwrites an automation: the file may be older than the edits made here since,
  and a silent revert of a schedule or a command is worse than a refusal that says what to
  do (delete the local one, or give the entry another request id);
- the rest are created together, in one transaction.

``export_document`` and ``plan_import``/``apply_import`` are what the CLI and (later) the
window's menu call.
"""

from __future__ import annotations

from dataclasses import replace, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Sequence

from .definition import canonical_json, check_request_id
from .errors import Conflict, InvalidInput
from .jsondoc import key_path
from .timeutil import format_instant, shown

if TYPE_CHECKING:
    from .catalog import Catalog
    from .records import Automation
    from .store import Store

FORMAT = "errands-export"
VERSION = 1
_TOP_KEYS = ("format", "version", "exported_at", "automations")
_ENTRY_KEYS = ("id", "request_id", "definition")
_EXAMPLE = ('{"format": "errands-export", "version": 1, "automations": [{"request_id": '
            '"export:1", "definition": {"title": "Backup", "runner": {...}, "trigger": {...}}}]}')
_ENTRY_EXAMPLE = ('{"id": "3f2a91c0-…", "request_id": "export:3f2a91c0-…", '
                  '"definition": {"title": "Backup", …}}')

CREATE, UNCHANGED = "create", "unchanged"


# ------------------------------------------------------------------------ export

def export_request_id(automation: "Automation") -> str:
    return automation.request_id or f"export:{automation.id}"


def export_document(store: "Store", ids: Sequence[str] | None = None, *,
                    now: datetime) -> tuple[dict[str, Any], list[str]]:
    """The export document of the automations ``ids`` (full ids; None: all), and notes
    about any left out: a broken automation (its definition does not load) cannot be
    imported anywhere, so it is left out with the reason, never written half-way."""
    items = store.list() if ids is None else [store.get(i) for i in ids]
    entries: list[dict[str, Any]] = []
    notes: list[str] = []
    for a in items:
        if a.definition is None:
            notes.append(f"left out {a.title} ({a.id[:8]}): it is broken ({a.problem}); "
                         f"repair it first (errands show {a.id[:8]})")
            continue
        entries.append({"id": a.id, "request_id": export_request_id(a),
                        "definition": a.definition.to_dict()})
    doc = {"format": FORMAT, "version": VERSION, "exported_at": format_instant(now.replace(microsecond=0)),
           "automations": entries}
    return doc, notes


# ------------------------------------------------------------------------ import

# An export file travels in one request to a running engine, so its limit is the channel's.
MAX_FILE_BYTES = 4 * 1024 * 1024


def read_document(source: Any) -> Any:
    """An export file's document from a path, a binary stream (standard input) or bytes,
    refused in words when it cannot be read, is too large or is not JSON. The window and
    the command line read files this one way."""
    from . import jsondoc

    limit = MAX_FILE_BYTES + 1
    try:
        if isinstance(source, (bytes, bytearray)):
            data = bytes(source[:limit])
        elif hasattr(source, "read"):
            data = source.read(limit)
        else:
            with open(source, "rb") as f:
                data = f.read(limit)
    except (OSError, ValueError) as exc:
        raise InvalidInput("FILE", f"cannot read {source}: "
                           f"{getattr(exc, 'strerror', None) or exc}",
                           "a file written by 'errands export', or - for standard input",
                           "errands import automations.json") from None
    try:
        return jsondoc.loads(data, max_bytes=MAX_FILE_BYTES)
    except InvalidInput as exc:
        if exc.field != "document":
            raise
        hint = " (export fewer at a time: errands export ID…)" \
            if "KiB" in exc.message else ""
        raise InvalidInput("document", exc.message + hint, "an export document, as "
                           "'errands export' writes it, of at most 4 MiB",
                           '{"format": "errands-export", "version": 1, '
                           '"automations": [...]}') from None

@dataclass(frozen=True)
class Entry:
    index: int
    id: str | None
    request_id: str
    definition: dict[str, Any]

    @property
    def where(self) -> str:
        return f"automations[{self.index}]"


@dataclass
class PlanItem:
    index: int
    action: str                       # create | unchanged
    request_id: str
    title: str
    automation_id: str | None         # the existing one (unchanged) or, once applied, the new
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "action": self.action, "request_id": self.request_id,
                "title": self.title, "automation_id": self.automation_id,
                "reason": self.reason or None}


@dataclass
class ImportPlan:
    items: list[PlanItem] = field(default_factory=list)
    # what apply_import needs: (plan item, entry, parsed definition) of each create
    creates: list[tuple[PlanItem, Entry, Any]] = field(default_factory=list)
    # the instant the definitions were read at: their schedules start from it, so their
    # first fires are reckoned from it too (a long import may end seconds later)
    now: datetime | None = None

    def counts(self) -> dict[str, int]:
        return {action: sum(1 for i in self.items if i.action == action)
                for action in (CREATE, UNCHANGED)}

    def to_dict(self, *, dry_run: bool) -> dict[str, Any]:
        counts = self.counts()
        return {"dry_run": dry_run, "created": counts[CREATE], "unchanged": counts[UNCHANGED],
                "items": [i.to_dict() for i in self.items]}


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(value),
                                                                      type(value).__name__)


def read_entries(doc: Any) -> list[Entry]:
    """The entries of an export document, its shape checked (not yet the definitions):
    any problem is an ``InvalidInput`` naming the field, ``automations[2].request_id``."""
    if not isinstance(doc, dict):
        raise InvalidInput("document", f"expected an object, got {_kind(doc)}",
                           "an export document made by 'errands export'", _EXAMPLE)
    unknown = [k for k in doc if k not in _TOP_KEYS]
    if unknown:
        raise InvalidInput(key_path("", unknown[0]), f"unknown key {shown(unknown[0])}",
                           "only: " + ", ".join(_TOP_KEYS), _EXAMPLE)
    if doc.get("format") != FORMAT:
        got = "missing" if "format" not in doc else f"is {shown(doc['format'])}"
        raise InvalidInput("format", f"{got}; this is not an Errands export",
                           f'"{FORMAT}"', FORMAT)
    version = doc.get("version")
    if version != VERSION or isinstance(version, bool):
        got = "missing" if "version" not in doc else f"{shown(version)} is not supported"
        raise InvalidInput("version", f"{got} (this Errands reads version {VERSION}; a "
                           "newer Errands may have written it)", f"{VERSION}", str(VERSION))
    exported = doc.get("exported_at")
    if exported is not None and not isinstance(exported, str):
        raise InvalidInput("exported_at", f"expected a string, got {_kind(exported)}",
                           "an RFC 3339 instant (informative only)", "2026-03-30T07:00:00Z")
    items = doc.get("automations")
    if not isinstance(items, list):
        got = "missing" if "automations" not in doc else f"expected a list, got {_kind(items)}"
        raise InvalidInput("automations", got, "a list of entries", "[" + _ENTRY_EXAMPLE + "]")
    entries: list[Entry] = []
    seen_request: dict[str, int] = {}
    seen_id: dict[str, int] = {}
    for index, item in enumerate(items):
        where = f"automations[{index}]"
        if not isinstance(item, dict):
            raise InvalidInput(where, f"expected an object, got {_kind(item)}",
                               "an entry with request_id and definition", _ENTRY_EXAMPLE)
        unknown = [k for k in item if k not in _ENTRY_KEYS]
        if unknown:
            raise InvalidInput(key_path(where, unknown[0]), f"unknown key {shown(unknown[0])}",
                               "only: " + ", ".join(_ENTRY_KEYS), _ENTRY_EXAMPLE)
        ident = item.get("id")
        if ident is not None and not (isinstance(ident, str) and 1 <= len(ident) <= 64
                                      and ident.isprintable()):
            raise InvalidInput(f"{where}.id", f"expected an automation id, got {_brief(ident)}",
                               "a string of 1 to 64 printable characters, or null",
                               "3f2a91c0-5b7e-4c1d-9a0e-2f6d8b1c4e7a")
        if "request_id" not in item:
            raise InvalidInput(f"{where}.request_id", "is required", "1–200 printable "
                               "characters that name this entry wherever it is imported",
                               "export:3f2a91c0")
        request_id = check_request_id(item["request_id"], f"{where}.request_id")
        definition = item.get("definition")
        if not isinstance(definition, dict):
            got = "is required" if "definition" not in item else \
                f"expected an object, got {_kind(definition)}"
            raise InvalidInput(f"{where}.definition", got, "a definition document",
                               '{"title": "Backup", "runner": {...}, "trigger": {...}}')
        if request_id in seen_request:
            raise InvalidInput(f"{where}.request_id", f"{shown(request_id)} is also the request "
                               f"id of automations[{seen_request[request_id]}]",
                               "each entry's request id once", "export:3f2a91c0")
        if ident is not None and ident in seen_id:
            raise InvalidInput(f"{where}.id", f"{shown(ident)} is also the id of "
                               f"automations[{seen_id[ident]}]", "each id once", "null")
        seen_request[request_id] = index
        if ident is not None:
            seen_id[ident] = index
        entries.append(Entry(index, ident, request_id, definition))
    return entries


def _brief(value: object) -> str:
    return shown(value) if isinstance(value, (str, int, float, bool)) else _kind(value)


def plan_import(catalog: "Catalog", doc: Any, *, now: datetime | None = None) -> ImportPlan:
    """What importing ``doc`` would do, every entry checked: raises on the first problem
    (``InvalidInput`` naming ``automations[i]…``, or ``Conflict`` ``identity_conflict``),
    so nothing is ever imported half-way. Writes nothing."""
    from .catalog import fingerprint

    entries = read_entries(doc)
    now = (now or catalog.clock()).replace(microsecond=0)
    plan = ImportPlan(now=now)
    for entry in entries:
        try:
            definition = catalog.validate(entry.definition, now)
        except InvalidInput as exc:
            raise exc.with_prefix(f"{entry.where}.definition") from None
        fp = fingerprint(entry.definition)
        wanted = canonical_json(definition.to_dict())
        existing, how = _match(catalog, entry)
        if existing is None:
            if definition.runner.kind == "script" and not definition.paused:
                # a script from a file starts paused: a person reads it and enables it
                definition = replace(definition, paused=True)
            item = PlanItem(entry.index, CREATE, entry.request_id, definition.title, None)
            plan.items.append(item)
            plan.creates.append((item, entry, definition))
            continue
        automation, created_fp = existing
        same_now = (automation.definition is not None
                    and canonical_json(automation.definition.to_dict()) == wanted)
        if same_now or created_fp == fp:
            reason = ("the same definition is here" if same_now else
                      "imported before; edited here since, and kept as it is")
            plan.items.append(PlanItem(entry.index, UNCHANGED, entry.request_id,
                                       automation.title, automation.id, reason))
            continue
        raise Conflict("identity_conflict", f"{entry.where}: {how} names "
                       f"{automation.title} ({automation.id[:8]}) here, whose definition "
                       "differs from the entry's; nothing was imported. Import never "
                       "overwrites an automation: delete the one here "
                       f"(errands delete {automation.id[:8]}), or give the entry another "
                       "request_id to import it as a new one")
    return plan


def _match(catalog: "Catalog", entry: Entry) -> tuple[Any, str]:
    """The automation here that ``entry`` stands for, with its creation fingerprint: the
    one created with its request id, else the one with its id (a file exported from this
    very data folder)."""
    from .errors import NotFound

    found = catalog.store.find_by_request(entry.request_id)
    if found is not None:
        return found, f"its request_id {shown(entry.request_id)}"
    if entry.id is not None:
        try:
            return (catalog.store.get(entry.id), None), f"its id {entry.id[:8]}"
        except NotFound:
            pass
    return None, ""


def _bound(definition: Any, doc: Any, machine: str) -> Any:
    """``definition`` bound as ``definition.bind_to`` binds its document ``doc``."""
    from dataclasses import replace

    from .definition import bind_to
    bound = bind_to(doc, machine)
    return definition if bound is doc else replace(definition, runs_on=bound["runs_on"])


def apply_import(catalog: "Catalog", plan: ImportPlan, *, actor: str = "user",
                 now: datetime | None = None, made_on: str | None = None) -> ImportPlan:
    """Create every entry the plan creates, in one transaction; fills in their ids. On a
    shared catalogue a command or folder-bound entry that does not say where it runs runs
    on the machine it is imported on (``made_on``, else this one), as ``add`` binds one."""
    from .catalog import first_fire, fingerprint

    if not plan.creates:
        return plan
    now = (now or plan.now or catalog.clock()).replace(microsecond=0)
    shared = catalog.store.dialect != "sqlite"  # (a command runs where it was imported)
    rows = [(_bound(definition, entry.definition, made_on or catalog.store.machine)
             if shared else definition,
             None if definition.paused else first_fire(definition, now),
             entry.request_id, fingerprint(entry.definition))
            for _, entry, definition in plan.creates]
    created = catalog.store.insert_automations(rows, now=now, actor=actor)
    for (item, _, _), automation in zip(plan.creates, created):
        item.automation_id = automation.id
    return plan
