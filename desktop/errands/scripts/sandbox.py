"""One script run, or one compile check, in a fresh QuickJS runtime (``jsbox``).

Used only inside the worker process (:mod:`.worker`). The runtime has no filesystem,
network, process, timers, clock or randomness: a prelude (trusted code, run before the
script) takes ``Date.now``, ``new Date()`` without arguments and ``Math.random`` away and
builds the one context object. Reads are answered at once (confined by :mod:`.scope`,
counted); actions are only queued, for the engine to check and apply.

Budgets that a script must not be able to swallow (the action cap, the read cap) abort the
runtime with a ``BaseException`` from the host call, which JavaScript's ``catch`` never sees;
the time limit is jsbox's interrupt, which ``catch`` cannot see either.
"""

from __future__ import annotations

import json
import os
import re
import stat as statmod
import time
from datetime import datetime, timezone
from fnmatch import fnmatchcase
from typing import Any

from .effects import read_text
from .scope import Refused, Scope

MAX_READ_BYTES = 256 * 1024          # files.read
MAX_WRITE_CHARS = 1024 * 1024        # one writeFile/appendFile's text
MAX_WRITE_TOTAL = 8 * 1024 * 1024    # all of a run's file text together
MAX_STATE_VALUE = 16 * 1024          # one state value, as JSON
MAX_INPUT = 64 * 1024                # runAutomation's input, as JSON
MAX_LOG_LINES = 200
MAX_LOG_CHARS = 1000
MAX_TEXT_CHARS = 2000                # the run's result and error, as recorded
MAX_DEPTH = 32                       # nesting of a state value or an input
MAX_LISTED = 20_000                  # entries files.list looks at (in name order after)
# what no path a script names may hold: control characters, line and paragraph separators,
# and the bidirectional controls that make a name read as another
BAD_PATH = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
ACTION_TYPES = ("notify", "writeFile", "appendFile", "moveFile", "deleteFile", "setState",
                "runAutomation", "mailMe")

PRELUDE = r"""
(function () {
  "use strict";
  // every built-in the prelude uses is taken now, before the script can replace it
  const read = globalThis.__errands_read, act = globalThis.__errands_act,
        say = globalThis.__errands_log, close = globalThis.__errands_close;
  const parse = JSON.parse, stringify = JSON.stringify, construct = Reflect.construct;
  const define = Object.defineProperty, freeze = Object.freeze, values = Object.values;
  const getPrototypeOf = Object.getPrototypeOf;
  const wellFormed = String.prototype.toWellFormed;
  const job = parse(globalThis.__errands_job);
  for (const name of ["__errands_read", "__errands_act", "__errands_log", "__errands_close",
                      "__errands_job", "queueMicrotask", "performance", "WebAssembly"]) {
    delete globalThis[name];
  }
  const fixed = (object, name, value) => define(object, name,
      {value, writable: false, enumerable: false, configurable: false});
  const noClock = (what) => {
    throw new TypeError(what + " reads the clock, which a script cannot: use event.at");
  };
  const RealDate = Date;
  function SafeDate(...args) {
    if (!new.target) noClock("Date()");
    if (args.length === 0) noClock("new Date()");
    return construct(RealDate, args, new.target);
  }
  SafeDate.prototype = RealDate.prototype;
  fixed(SafeDate, "UTC", RealDate.UTC);
  fixed(SafeDate, "parse", RealDate.parse);
  fixed(SafeDate, "now", () => noClock("Date.now()"));
  fixed(RealDate, "now", () => noClock("Date.now()"));
  fixed(RealDate.prototype, "constructor", SafeDate);
  fixed(globalThis, "Date", SafeDate);
  fixed(Math, "random", () => {
    throw new TypeError("Math.random() is not available: a script's run must be repeatable");
  });
  const frozen = (value) => {
    if (value && typeof value === "object") {
      for (const inner of values(value)) frozen(inner);
      freeze(value);
    }
    return value;
  };
  // (a lone surrogate is no text: it is replaced before it reaches Errands)
  const whole = (value) => typeof value === "string" ? value.length > 0 && wellFormed ?
      Reflect.apply(wellFormed, value, []) : value : value;
  const json = (value) => whole(stringify(value === undefined ? null : value));
  const answer = (text) => {
    const reply = parse(text);
    if (reply.error !== undefined) {
      throw new (reply.type === "range" ? RangeError : TypeError)(reply.error);
    }
    return reply.value;
  };
  const ask = (kind, args) => answer(read(kind, json(args)));
  const propose = (type, args) => { answer(act(type, json(args))); };
  const text = (value) => typeof value === "string" ? whole(value) : json(value);
  const log = (...parts) => {
    let line = "";
    for (let i = 0; i < parts.length; i++) line += (i ? " " : "") + text(parts[i]);
    say(line);
  };
  fixed(globalThis, "console", freeze({log, info: log, warn: log, error: log, debug: log}));
  const ctx = frozen({
    event: job.event,
    files: {
      list: (path = ".", options = {}) => ask("files.list", [path, options]),
      read: (path) => ask("files.read", [path]),
      stat: (path) => ask("files.stat", [path]),
    },
    runs: { recent: (count = 10) => ask("runs.recent", [count]) },
    state: { get: (key) => ask("state.get", [key]), all: () => ask("state.all", []) },
    actions: {
      notify: (message, title = null) => propose("notify", {message, title}),
      writeFile: (path, text) => propose("writeFile", {path, text}),
      appendFile: (path, text) => propose("appendFile", {path, text}),
      moveFile: (from, to) => propose("moveFile", {from, to}),
      deleteFile: (path) => propose("deleteFile", {path}),
      setState: (key, value) => propose("setState", {key, value: value === undefined ? null : value}),
      runAutomation: (automation, input = null) => propose("runAutomation", {automation, input}),
      mailMe: (subject, body = "") => propose("mailMe", {subject, body}),
      log,
    },
  });
  const kindOf = (main) => typeof main !== "function" ? "none" :
      (getPrototypeOf(main) || {}).constructor === getPrototypeOf(function () {}).constructor
        ? "Function" : String((getPrototypeOf(main) || {})[Symbol.toStringTag] || "Other");
  let called = false;
  const check = (main) => {
    const kind = kindOf(main);
    if (kind === "none") throw new SyntaxError("the default export is not a function: write export default function ({ event, actions }) { … }");
    if (kind !== "Function") throw new SyntaxError("the default export is " + (kind.startsWith("Async") ? "async" : "a generator") + ": a script runs synchronously (no async, no await)");
    return true;
  };
  fixed(globalThis, "__errands_check", check);
  fixed(globalThis, "__errands_call", (main) => {
    check(main);
    if (called) throw new Error("the script called its own entry point");
    called = true;
    const result = main(ctx);
    close();
    if (result !== null && (typeof result === "object" || typeof result === "function")
        && typeof result.then === "function") {
      throw new TypeError("the default export returned a promise: a script runs synchronously");
    }
    return result === undefined ? null : text(result);
  });
})();
"""
MAIN = "import main from 'script';\nexport const outcome = __errands_call(main);\n"
CHECK = "import main from 'script';\nexport const outcome = __errands_check(main);\n"
_LINE = re.compile(r"(?<![\w.])(?:script|check):(\d+):\d+")


def _utf8(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError, RecursionError):
        return False
    return True


def _depth(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests at most ``limit`` deep (lists and objects)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth > limit:
                return False
            stack.extend((inner, depth + 1) for inner in
                         (item.values() if isinstance(item, dict) else item))
    return True


def clean(text: Any, limit: int = MAX_TEXT_CHARS) -> str | None:
    """Text fit for a record: valid UTF-8, at most ``limit`` characters."""
    if text is None:
        return None
    text = str(text).encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= limit else text[:limit - 1] + "…"


class Budget(BaseException):
    """A budget the script ran out of; ends the runtime (JavaScript cannot catch it)."""

    def __init__(self, limit: str, message: str) -> None:
        super().__init__(message)
        self.limit = limit


def _reply(value: Any = None, error: str | None = None, kind: str = "type") -> str:
    if error is not None:
        return json.dumps({"error": error, "type": kind})
    return json.dumps({"value": value})


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Host:
    """What the runtime's host calls reach: reads answered, actions queued, the log."""

    def __init__(self, job: dict[str, Any]) -> None:
        limits = job["limits"]
        self.max_actions = int(limits["actions"])
        self.max_reads = int(limits["reads"])
        self.max_rows = int(limits["rows"])
        self.scope = Scope.from_dict(job.get("scope") or {})
        self.state: dict[str, Any] = dict(job.get("state") or {})
        self.runs: list[dict[str, Any]] = list(job.get("runs") or [])
        self.actions: list[dict[str, Any]] = []
        self.log: list[str] = []
        self.log_cut = False
        self.reads = 0
        self.truncated = False
        self.closed = False
        self.started = time.perf_counter()
        self.late = False
        self.written = 0

    # -- reads -----------------------------------------------------------------
    def read(self, kind: str, args_text: str) -> str:
        if self.reads >= self.max_reads:
            raise Budget("reads", f"more than {self.max_reads} reads (the limit reads)")
        self.reads += 1
        try:
            args = json.loads(args_text)
            if not isinstance(args, list):
                raise TypeError("bad arguments")
            if kind == "files.list":
                return _reply(self._list(*args))
            if kind == "files.read":
                return _reply(self._read(*args))
            if kind == "files.stat":
                return _reply(self._stat(*args))
            if kind == "runs.recent":
                count = args[0]
                if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                    return _reply(error="runs.recent(count): count is a whole number from 1, "
                                        "like runs.recent(5)")
                return _reply(self._rows(self.runs[:count]))
            if kind == "state.get":
                key = args[0]
                if not isinstance(key, str):
                    return _reply(error='state.get(key): key is a string, like state.get("last")')
                return _reply(self.state.get(key))
            if kind == "state.all":
                return _reply(dict(self.state))
        except Refused as exc:
            return _reply(error=str(exc), kind="range")
        except OSError as exc:
            return _reply(error=f"{exc.strerror or exc}: {exc.filename or ''}".strip(": "),
                          kind="range")
        except (TypeError, ValueError, RecursionError) as exc:
            return _reply(error=f"{kind}: {exc}")
        return _reply(error=f"no such read: {kind}")

    def _where(self, path: Any) -> Any:
        if isinstance(path, str) and (BAD_PATH.search(path) or path.startswith("~")):
            raise Refused(f"{path[:80]!r} is not a path a script may name: no control "
                          "characters, and no ~ (give a path relative to the folder, or "
                          "an absolute one)")
        return self.scope.resolve(path)

    def _rows(self, rows: list[Any]) -> list[Any]:
        if len(rows) > self.max_rows:
            self.truncated = True
            return rows[:self.max_rows]
        return rows

    def _shown(self, path: Any) -> str:
        if self.scope.inside(path) and self.scope.folder is not None:
            return os.path.relpath(path, self.scope.folder)
        return str(path)

    def _list(self, path: Any = ".", options: Any = None) -> list[dict[str, Any]]:
        options = options if isinstance(options, dict) else {}
        glob = options.get("glob")
        if glob is not None and not isinstance(glob, str):
            raise TypeError('files.list(path, {glob}): glob is a string, like {glob: "*.pdf"}')
        where = self._where(path)
        self.scope.check(where, "read", listing=True, given=path)
        rows = []
        with os.scandir(where) as entries:
            seen = []
            for entry in entries:
                seen.append(entry)
                if len(seen) >= MAX_LISTED:
                    self.truncated = True
                    break
            for entry in sorted(seen, key=lambda e: e.name):
                if glob is not None and not fnmatchcase(entry.name, glob):
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                row = {"name": entry.name, "path": self._shown(where / entry.name),
                       "size": info.st_size, "modified": _iso(info.st_mtime),
                       "dir": statmod.S_ISDIR(info.st_mode)}
                if not _utf8(entry.name):  # (shown, but no path a script could use)
                    row.update(name=clean(entry.name, 1000), path=None, bad_name=True)
                rows.append(row)
                if len(rows) > self.max_rows:
                    break
        return self._rows(rows)

    def _read(self, path: Any) -> str:
        where = self._where(path)
        self.scope.check(where, "read", given=path)
        return read_text(where, path, MAX_READ_BYTES, "a script may read")

    def _stat(self, path: Any) -> dict[str, Any] | None:
        where = self._where(path)
        self.scope.check(where, "read", given=path)
        try:
            info = os.stat(where)
        except FileNotFoundError:
            return None
        return {"path": self._shown(where), "size": info.st_size,
                "modified": _iso(info.st_mtime), "dir": statmod.S_ISDIR(info.st_mode)}

    # -- actions ---------------------------------------------------------------
    def act(self, kind: str, args_text: str) -> str:
        if self.closed:
            self.late = True
            return _reply(error="an action was proposed after the script returned (from a "
                                "promise callback?): a script runs synchronously")
        if len(self.actions) >= self.max_actions:
            raise Budget("actions", f"more than {self.max_actions} actions (the limit "
                                    "actions): the whole run is rejected")
        try:
            args = json.loads(args_text)
            if not isinstance(args, dict):
                raise TypeError(f"actions.{kind}: bad arguments")
            if not _utf8(args):
                raise TypeError(f"actions.{kind}: a text holds a lone surrogate (not text)")
            if not _depth(args, MAX_DEPTH + 1):
                raise TypeError(f"actions.{kind}: a value nests more than {MAX_DEPTH} deep")
            action = self._action(kind, args)
        except RecursionError:
            return _reply(error=f"actions.{kind}: a value nests more than {MAX_DEPTH} deep")
        except (TypeError, ValueError) as exc:
            return _reply(error=str(exc))
        self.actions.append(action)
        return _reply(True)

    def _action(self, kind: str, args: dict[str, Any]) -> dict[str, Any]:
        def string(key: str, limit: int, example: str, *, optional: bool = False) -> str | None:
            value = args.get(key)
            if value is None and optional:
                return None
            if not isinstance(value, str) or (not value and not optional and key != "text"
                                              and key != "body"):
                raise TypeError(f"actions.{kind}: {key} is a string, like {example}")
            if len(value) > limit:
                raise TypeError(f"actions.{kind}: {key} is {len(value)} characters long, more "
                                f"than {limit}")
            if key in ("path", "from", "to") and (BAD_PATH.search(value)
                                                  or value.startswith("~")):
                raise TypeError(f"actions.{kind}: {key} {value[:80]!r} is not a path a script "
                                "may name: no control characters, and no ~ (give a path "
                                "relative to the folder, or an absolute one)")
            return value

        if kind == "notify":
            return {"type": kind, "message": string("message", 2000, '"Invoice filed"'),
                    "title": string("title", 120, '"Invoices"', optional=True)}
        if kind in ("writeFile", "appendFile"):
            path = string("path", 4096, '"notes.md"')
            body = string("text", MAX_WRITE_CHARS, '"a line\\n"') or ""
            self.written += len(body)
            if self.written > MAX_WRITE_TOTAL:
                raise TypeError(f"actions.{kind}: a run may write at most "
                                f"{MAX_WRITE_TOTAL // (1024 * 1024)} MB of text in all")
            return {"type": kind, "path": path, "text": body}
        if kind == "moveFile":
            return {"type": kind, "from": string("from", 4096, '"Downloads/a.pdf"'),
                    "to": string("to", 4096, '"Invoices/a.pdf"')}
        if kind == "deleteFile":
            return {"type": kind, "path": string("path", 4096, '"old.log"')}
        if kind == "setState":
            key = string("key", 100, '"last_seen"')
            value = args.get("value")
            if len(json.dumps(value)) > MAX_STATE_VALUE:
                raise TypeError(f"actions.setState: the value is more than "
                                f"{MAX_STATE_VALUE // 1024} KB as JSON")
            return {"type": kind, "key": key, "value": value}
        if kind == "runAutomation":
            value = args.get("input")
            if len(json.dumps(value)) > MAX_INPUT:
                raise TypeError(f"actions.runAutomation: the input is more than "
                                f"{MAX_INPUT // 1024} KB as JSON")
            return {"type": kind, "automation": string("automation", 200, '"Weekly report"'),
                    "input": value}
        if kind == "mailMe":
            return {"type": kind, "subject": string("subject", 200, '"Backup is stale"'),
                    "body": string("body", 64 * 1024, '"…"') or ""}
        raise TypeError(f"no such action: {kind}")

    def close(self) -> None:
        """The script's function has returned: later proposals come from callbacks."""
        self.closed = True

    def say(self, text: Any) -> None:
        if len(self.log) >= MAX_LOG_LINES:
            self.log_cut = True
            return
        self.log.append(clean(text, MAX_LOG_CHARS) or "")


def _line(stack: str | None) -> int | None:
    match = _LINE.search(stack or "")
    if match is None:
        return None
    return int(match.group(1))


def _runtime(job: dict[str, Any], host: Host) -> Any:
    from jsbox import Runtime  # (imported in the worker only: the engine never runs JS)
    rt = Runtime(memory_limit=int(job["limits"]["heap_mb"]) * 1024 * 1024,
                 max_stack_size=512 * 1024)
    rt.bind_function("__errands_read", host.read)
    rt.bind_function("__errands_act", host.act)
    rt.bind_function("__errands_log", host.say)
    rt.bind_function("__errands_close", host.close)
    rt.bind_object("__errands_job", json.dumps({"event": job.get("event")}))
    rt.eval(PRELUDE)
    return rt


def _failure(exc: BaseException) -> tuple[str, str | None, str, int | None]:
    """(status, limit hit, message, line) for what ended a runtime early."""
    from jsbox import JavaScriptError, JsTimeoutError
    if isinstance(exc, Budget):
        return "rejected", exc.limit, str(exc), None
    if isinstance(exc, JsTimeoutError):
        return "timeout", "execution_time", "ran out of time (the limit time_ms)", None
    if isinstance(exc, JavaScriptError):
        name = getattr(exc, "name", None) or "Error"
        message = getattr(exc, "message", None)
        line = _line(getattr(exc, "stack", None))
        if message is None or message == "out of memory" and name == "InternalError":
            return "failed", "memory", "ran out of memory (the limit heap_mb)", line
        if name == "RangeError" and ("call stack" in message or "stack overflow" in message):
            return "failed", "stack", "recursed too deep (stack overflow)", line
        if name == "Error" and message.startswith("module not found"):
            return "failed", None, (f"{message}: a script cannot import anything; "
                                    "everything it may use is in its context object"), line
        return "failed", None, f"{name}: {message}", line
    if isinstance(exc, (MemoryError, OverflowError)):
        return "failed", "memory", "ran out of memory (the limit heap_mb)", None
    return "failed", None, f"{type(exc).__name__}: {exc}", None


def check(source: str, limits: dict[str, Any]) -> dict[str, Any]:
    """Whether ``source`` can run: it parses as a module, its top level runs within the
    limits, and its default export is a plain (not async) function, which is not called.
    ``{"ok": true}`` or ``{"ok": false, "error", "line"}``."""
    from jsbox import JavaScriptError, Runtime
    try:
        Runtime().check_syntax(source, module=True)
    except JavaScriptError as exc:
        return {"ok": False, "error": f"{exc.name}: {exc.message}", "line": _line(exc.stack)}
    host = Host({"limits": limits})
    rt = _runtime({"limits": limits}, host)
    rt.add_static_module("script", source)
    rt.add_static_module("errands:check", CHECK)
    try:
        rt.eval_module("errands:check", timeout=int(limits["time_ms"]) / 1000)
    except BaseException as exc:  # noqa: BLE001 (a Budget too: top level has no context)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        status, _, message, line = _failure(exc)
        if "Could not find export 'default'" in message:
            message = ("the script has no default export: write "
                       "export default function ({ event, actions }) { … }")
        return {"ok": False, "error": message, "line": line}
    return {"ok": True}


def run(job: dict[str, Any]) -> dict[str, Any]:
    """One run of ``job["source"]`` against ``job["event"]``: its status, the limit it hit,
    what it read and proposed, and its log (nothing is applied here)."""
    host = Host(job)
    status, limit, error, line, result = "ok", None, None, None, None
    rt = _runtime(job, host)
    rt.add_static_module("script", job["source"])
    rt.add_static_module("errands:main", MAIN)
    started = time.perf_counter()
    try:
        result = rt.eval_module("errands:main", timeout=int(job["limits"]["time_ms"]) / 1000
                                ).get("outcome")
    except BaseException as exc:  # noqa: BLE001 (Budget is a BaseException on purpose)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        status, limit, error, line = _failure(exc)
    duration = (time.perf_counter() - started) * 1000
    if status == "ok" and duration > int(job["limits"]["time_ms"]):
        # (one long native call the interrupt could not stop, a slow host read)
        status, limit, error = "timeout", "execution_time", "ran out of time (the limit time_ms)"
    if status == "ok" and host.late:
        status, error = "failed", ("an action was proposed after the script returned (from a "
                                   "promise callback?): a script runs synchronously")
    if error is not None and "Could not find export 'default'" in error:
        error = "the script has no default export"
    return {"status": status, "limit_hit": limit, "error": clean(error), "line": line,
            "duration_ms": round(duration, 3), "reads": host.reads,
            "truncated": host.truncated, "actions": host.actions,
            "log": host.log + (["(log cut: more than 200 lines)"] if host.log_cut else []),
            "result": clean(result) if isinstance(result, str) else None}
