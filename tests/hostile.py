"""Hostile inputs and the judges that say whether Errands handled them.

Shared by the property tests (``tests/test_hostile.py``) and the long fuzz run
(``fuzz/fuzz_inputs.py``). A *probe* feeds one input to a real entry point (the CLI's
``main`` in-process, the JSON gate, the definition parser, the schedule spec parsers) and
returns ``"success"`` or ``"refusal"``; anything else (an exception other than
``InvalidInput``, a refusal that names no field, exit code 1, a traceback, a slow answer)
raises ``Defect`` with what happened.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import time
import traceback
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from hypothesis import strategies as st

from errands import jsondoc
from errands.cli import main
from errands.schedule_spec import spec_to_trigger
from errands.cron import CronExpression
from errands.definition import ParseContext, canonical_json, parse_definition
from errands.errors import InvalidInput
from errands.schedule import describe, next_fires
from errands.timeutil import parse_duration, parse_instant, zone
from pg_support import on_postgresql

NOW = datetime(2026, 3, 29, 10, 0, tzinfo=timezone.utc)
SLOW = 5.0  # seconds: an answer slower than this is a defect (the machine is shared)


class Defect(AssertionError):
    """An input that ended in anything but success or a named refusal."""

    def __init__(self, what: str, detail: str, where: str = "") -> None:
        super().__init__(f"{what}: {detail}")
        self.what = what
        self.detail = detail
        self.where = where  # the errands module whose frame raised, when known


# ----------------------------------------------------------------------- strategies

ODD_CHARS = ("\x00", "\t", "\n", "\r", "\x1b", "\x7f", "\x85", "\u2028", "\u2029", "\ufeff",
             "\u200d", "\u202e", "\ud800", "\udcff", "\udfff", "²", "١", "５", "😀", "\"",
             "\\", "{", "[", "'", ":", "=", "-", " ", "é", "ß")
any_char = st.characters(exclude_categories=())  # surrogates and controls included
odd_char = st.one_of(st.sampled_from(ODD_CHARS), any_char)
odd_text = st.one_of(
    st.text(odd_char, max_size=12),
    st.text(any_char, min_size=1, max_size=40),
    st.sampled_from(("", " ", "\x00", "\ud800", "a\u2028b")),
    st.integers(100, 300).map(lambda n: "x" * n), st.integers(65_530, 70_000).map(lambda n: "é" * n))
digits = st.one_of(st.integers(0, 10**12).map(str),
                   st.integers(1, 5000).map(lambda n: "9" * n),
                   st.sampled_from(("0", "00", "1_000", "١٢", "²", "-1", "+5", " 5", "1e3")))
huge_int = st.one_of(st.integers(), st.integers(10**18, 10**40),
                     st.integers(1, 4400).map(lambda n: 10**n), st.just(2**63), st.just(-2**63))
units = st.sampled_from(("s", "m", "h", "d", "w", "", "S", "ms", "d\n", "dd"))
good_duration = st.builds(lambda n, u: f"{n}{u}", st.integers(1, 600), st.sampled_from("smhd"))
odd_duration = st.one_of(good_duration, st.builds(lambda n, u: n + u, digits, units), odd_text)


def _instant(year: int, month: int, day: int, hour: int, minute: int, second: int,
             frac: str, zone_text: str) -> str:
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{frac}{zone_text}"


offsets = st.one_of(st.sampled_from(("Z", "z", "+00:00", "-00:00", "+14:00", "-12:00", "+23:59",
                                     "-23:59", "+24:00", "", "+5")),
                    st.builds(lambda s, h, m: f"{s}{h:02d}:{m:02d}", st.sampled_from("+-"),
                              st.integers(0, 99), st.integers(0, 99)))
good_instant = st.builds(lambda y, s: _instant(y, 3, 29, 9, 30, s, "", "+02:00"),
                         st.sampled_from((2027, 2099, 9999)), st.integers(0, 59))
odd_instant = st.one_of(
    good_instant,
    st.builds(_instant, st.sampled_from((1, 2, 1969, 1970, 2026, 9998, 9999)),
              st.integers(0, 13), st.integers(0, 32), st.integers(0, 24), st.integers(0, 60),
              st.integers(0, 60), st.sampled_from(("", ".5", ".999999", ".123456789")), offsets),
    st.sampled_from(("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59Z",
                     "9999-12-31T23:59:59-01:00", "1970-01-01T00:00:00Z",
                     "9999-12-31T20:00:00Z", "1970-01-01T00:00:00+14:00",
                     "1969-12-31T23:59:59Z", "2026-03-29T09:00:00", "２０２６-03-29T09:00:00Z",
                     "2026-02-30T09:00:00Z", "2026-03-29T09:00:00Z\n")),
    odd_text)
good_cron_token = st.sampled_from(("*", "*/15", "1-5", "0", "30", "9", "1,15", "MON-FRI", "*/2"))
cron_token = st.one_of(
    good_cron_token, good_cron_token, good_cron_token,
    st.sampled_from(("*", "*/15", "1-5", "0", "59", "60", "MON-FRI", "FRI-MON", "JAN", "L",
                     "?", "#", "1,2,3", "*/0", "0-59/1", "7", "31", "30", "2", "@daily")),
    digits, st.builds(lambda a, b: f"{a}-{b}", digits, digits),
    st.builds(lambda a, b: f"*/{b}", digits, digits), odd_text)
odd_cron = st.one_of(st.lists(cron_token, min_size=5, max_size=5).map(" ".join),
                     st.lists(cron_token, min_size=0, max_size=7).map(" ".join), odd_text)
zones = st.one_of(st.sampled_from(("UTC", "Europe/Berlin", "Pacific/Kiritimati", "Etc/GMT+12",
                                   "America/St_Johns", "Nope/Zone", "../etc", "/UTC", "")),
                  odd_text)
non_phrase_spec = st.one_of(
    st.just("manual"),
    st.builds(lambda h, v: f"{h}:{v}", st.sampled_from(("at", "AT", "at ")), odd_instant),
    st.builds(lambda h, v: f"{h}:{v}", st.sampled_from(("in", "every", "after", "Every")),
              odd_duration),
    st.builds(lambda v: f"cron:{v}", odd_cron))
phrase_words = st.sampled_from(
    "every day at 9am 10 minutes after it finishes tomorrow 7pm in 2 hours until weekday "
    "monday on 24 december 18:00 times 5 keep checking is green , midnight noon 99999999999 "
    "0 -1 1000000000 year 9999".split(" "))
phrase = st.one_of(
    st.lists(st.one_of(phrase_words, odd_text), max_size=6).map(" ".join),
    st.builds(lambda head, n, unit, tail: f"{head} {n} {unit}{tail}",
              st.sampled_from(("every", "in", "every other", "after")), digits,
              st.sampled_from(("minutes", "hours", "days", "weeks", "seconds", "minute", "day")),
              st.sampled_from(("", " after it finishes", " 5 times", ", check the backup",
                               " until 31 december"))),
    st.sampled_from(("tomorrow at 7pm", "on 31 december at 23:59", "every day at 9am",
                     "in 2 hours", "every weekday at 9am", "on 29 february at 12:00")))
any_spec = st.one_of(non_phrase_spec, phrase)


def _json_leaf() -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), st.booleans(), huge_int,
                     st.floats(allow_nan=True, allow_infinity=True), odd_text, odd_duration,
                     odd_instant)


json_value = st.recursive(
    _json_leaf(),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.one_of(odd_text, st.sampled_from(
                                ("kind", "title", "", "request_id"))), inner, max_size=4)),
    max_leaves=12)

_BASE = {"title": "Backup", "runner": {"kind": "command", "command": "backup.sh"},
         "trigger": {"kind": "every", "every": "1h"}}
_PATHS = (("title",), ("runner",), ("runner", "kind"), ("runner", "command"),
          ("runner", "prompt"), ("runner", "model"), ("trigger",), ("trigger", "kind"),
          ("trigger", "every"), ("trigger", "start_at"), ("trigger", "at"), ("trigger", "in"),
          ("trigger", "expression"), ("trigger", "timezone"), ("trigger", "interval"),
          ("context", "mode"), ("context", "max_history_tokens"), ("stop", "max_runs"),
          ("stop", "until"), ("stop", "when_condition_met"), ("misfire",),
          ("catch_up_max_age",), ("overlap",), ("policy", "timeout"), ("policy", "jitter"),
          ("policy", "retry", "max_attempts"), ("policy", "retry", "backoff", "factor"),
          ("policy", "retry", "backoff", "initial"), ("policy", "max_steps"),
          ("policy", "pause_after_failures"), ("permissions", "tools"),
          ("permissions", "rules"), ("permissions", "mode"), ("workdir",), ("worktree",), ("paused",),
          ("origin", "kind"), ("origin", "depth"), ("origin", "session_id"), ("",),
          ("request_id",), ("id",))
_KIND_SWAPS = ({"runner": {"kind": "agent", "prompt": "Summarize", "model": None}},
               {"trigger": {"kind": "cron", "expression": "30 9 * * *", "timezone": "UTC"}},
               {"trigger": {"kind": "after", "interval": "10m"}},
               {"trigger": {"kind": "at", "at": "2027-01-01T00:00:00Z"}},
               {"trigger": {"kind": "manual"}}, {})


def _set(doc: dict[str, Any], path: Sequence[str], value: Any) -> dict[str, Any]:
    node = doc
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = node[key] = {}
        node = child
    node[path[-1]] = value
    return doc


@st.composite
def definition_docs(draw: st.DrawFn) -> Any:
    """A valid definition with one to three fields set to something hostile (sometimes
    a document that is not even an object)."""
    if draw(st.integers(0, 19)) == 0:
        return draw(json_value)
    doc = json.loads(json.dumps({**_BASE, **draw(st.sampled_from(_KIND_SWAPS))}))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_PATHS))
        value = draw(st.one_of(json_value, odd_text, odd_duration, odd_instant, odd_cron,
                               good_duration, good_instant, st.integers(0, 100), st.booleans(),
                               st.sampled_from(("skip", "run_once", "agent", "cron", "UTC"))))
        _set(doc, path, value)
    return doc


def _deep(depth: int, opener: str) -> str:
    closer = {"[": "]", "{\"a\":": "}"}[opener]
    return opener * depth + "1" + closer * depth


json_texts = st.one_of(
    definition_docs().map(lambda d: _to_json(d)),
    st.builds(_deep, st.integers(1, 3000), st.sampled_from(("[", "{\"a\":"))),
    st.builds(lambda n: '{"context": {"max_history_tokens": ' + "1" * n + "}}",
              st.integers(1, 6000)),
    st.builds(lambda k: '{"title": "a", "title": "b", ' + json.dumps(k) + ": 1, "
              + json.dumps(k) + ": 2}", odd_text),
    st.sampled_from(('{"title": "\\ud800"}', '{"\\udfff": 1}', '{"": 1}', "NaN", "-Infinity",
                     '{"a": 1e999}', "[1, 2", "", "\ufeff{}")),
    st.integers(65_530, 70_000).map(lambda n: '{"title": "' + "x" * n + '"}'),
    st.text(any_char, max_size=60))
json_bytes = st.one_of(json_texts.map(lambda t: t.encode("utf-8", "surrogatepass")),
                       st.binary(max_size=60))


def _to_json(value: Any) -> str:
    """JSON text of a generated value: UTF-8 where it can be, escapes where it holds lone
    surrogates, and a hand-written huge literal where an integer is too long to print."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return json.dumps(value, allow_nan=True)
    except ValueError:  # an integer beyond str()'s 4,300 digits
        return '{"title": "T", "stop": {"max_runs": ' + "9" * 5000 + "}}"


# ---------------------------------------------------------------------------- probes

def _where(exc: BaseException) -> str:
    """The innermost errands module in the traceback (``phrases.reader``, ``definition`` …)."""
    names = [Path(f.filename).stem for f in traceback.extract_tb(exc.__traceback__)
             if "/errands/" in f.filename]
    return names[-1] if names else ""


def judged(fn: Callable[[], Any], what: str) -> str:
    """Run ``fn``: a value is a success, a named ``InvalidInput`` a refusal, else a Defect."""
    started = time.perf_counter()
    try:
        fn()
        outcome = "success"
    except InvalidInput as exc:
        if not exc.field:
            raise Defect(what, f"refusal names no field: {exc}") from exc
        outcome = "refusal"
    except Defect:
        raise
    except Exception as exc:  # the point: anything else is a defect
        raise Defect(what, f"{type(exc).__name__}: {str(exc)[:200]}", _where(exc)) from exc
    took = time.perf_counter() - started
    if took > SLOW:
        raise Defect(what, f"took {took:.1f}s")
    return outcome


def _ctx(now: datetime = NOW) -> ParseContext:
    return ParseContext(now=now, min_interval=timedelta(seconds=60), default_timezone="UTC")


def _accept(definition: Any) -> None:
    """What a success must also allow: storing (UTF-8), re-encoding and a round trip."""
    doc = definition.to_dict()
    canonical_json(doc).encode("utf-8")
    again = parse_definition(doc, ParseContext(now=NOW, min_interval=timedelta(0),
                                               default_timezone="UTC", previous=definition))
    if again != definition:
        raise Defect("definition", f"round trip changed {doc!r}")


def probe_definition(doc: Any) -> str:
    """A Python document straight into the definition parser (no JSON gate before it:
    a caller in this process may pass any value, huge integers and surrogates included)."""
    def go() -> None:
        _accept(parse_definition(doc, _ctx()))
    return judged(go, "definition")


def probe_json(data: str | bytes) -> str:
    """JSON text through the gate, then (an object) the definition parser."""
    def go() -> None:
        value = jsondoc.loads(data)
        json.dumps(value)  # re-encoding must be safe too
        if isinstance(value, dict):
            value.pop("request_id", None)
            _accept(parse_definition(value, _ctx()))
    return judged(go, "json")


def probe_spec(spec: str, tz: str | None, after: str | None) -> str:
    """A non-phrase ``SPEC`` as the CLI reads it, validated, and its next fires."""
    def go() -> None:
        start = parse_instant(after, "--after") if after else NOW
        trigger, _ = spec_to_trigger(spec, tz, NOW)
        doc = {**_BASE, "trigger": trigger}
        definition = parse_definition(doc, _ctx(min(NOW, start)))
        next_fires(definition.trigger, start, 3)
        describe(definition.trigger)
    return judged(go, "spec")


def probe_cron(text: str, tz: str, after: str) -> str:
    def go() -> None:
        expr = CronExpression.parse(text)
        expr.min_gap()
        expr.describe("UTC")
        start = parse_instant(after, "after")
        expr.next_fire(start, zone(tz, "timezone"))
    return judged(go, "cron")


def probe_time(instant: str, duration: str) -> str:
    def go() -> None:
        failures = []
        for fn, value in ((parse_instant, instant), (parse_duration, duration)):
            try:
                fn(value)
            except InvalidInput as exc:
                failures.append(exc)
        if failures:
            raise failures[0]
    return judged(go, "timeutil")


def _stream(errors: str) -> io.TextIOWrapper:
    """A text stream that encodes like the real one (stdout strict, stderr backslashreplace)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors=errors, write_through=True)


def _app_stand_in(data_dir: Path, argv: list[str] | None = None, **_: Any) -> int:
    print(f"(the app would open on {data_dir})")
    return 0


def run_cli(argv: Sequence[str]) -> tuple[int, str, str]:
    """``errands ARGV`` in this process. ``ERRANDS_DEBUG`` is set so that what would print
    as ``internal error`` (exit 1) raises here, traceback and all."""
    from errands.app import main as app_main

    out, err = _stream("strict"), _stream("backslashreplace")
    saved = os.environ.get("ERRANDS_DEBUG")
    os.environ["ERRANDS_DEBUG"] = "1"
    # No command opens the app, which runs until Quit: here it only says where it would open.
    opening, app_main.run_app = app_main.run_app, _app_stand_in  # type: ignore[assignment]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    finally:
        app_main.run_app = opening  # type: ignore[assignment]
        if saved is None:
            del os.environ["ERRANDS_DEBUG"]
        else:
            os.environ["ERRANDS_DEBUG"] = saved
    return code, out.buffer.getvalue().decode(), err.buffer.getvalue().decode()  # type: ignore[attr-defined]


def probe_cli(argv: Sequence[str]) -> str:
    """The real ``errands`` entry in-process: exit 0, or 2/3/4 with a named refusal."""
    shown = f"errands {' '.join(map(repr, argv))}"[:300]
    started = time.perf_counter()
    try:
        code, out, err = run_cli(argv)
    except Exception as exc:  # main let a bug through (ERRANDS_DEBUG)
        raise Defect("cli", f"{type(exc).__name__}: {str(exc)[:200]} <- {shown}",
                     _where(exc)) from exc
    took = time.perf_counter() - started
    if "Traceback" in err or "internal error" in err or code not in (0, 2, 3, 4):
        raise Defect("cli", f"exit {code}: {err.strip()[:300]} <- {shown}")
    # (a command on a shared catalogue opens a connection to its server first: on a
    # saturated 2-core machine running both a test server and four workers, twice as long)
    if took > SLOW * (2 if on_postgresql() else 1):
        raise Defect("cli", f"took {took:.1f}s <- {shown}")
    if code == 0:
        return "success"
    if "--json" in argv:
        try:
            error = json.loads(err)["error"]
        except (ValueError, KeyError, TypeError):
            raise Defect("cli", f"stderr is not a JSON error: {err[:200]} <- {shown}")
        if error["code"] == "invalid_input" and not error["field"]:
            raise Defect("cli", f"refusal names no field: {err[:200]} <- {shown}")
    elif not err.startswith("error: "):
        raise Defect("cli", f"exit {code} without an error line: {err[:200]} <- {shown}")
    return "refusal"


# ------------------------------------------------------------------------- CLI argv

FLAG_VALUES: dict[str, st.SearchStrategy[str]] = {
    "--title": odd_text, "--command": odd_text, "--prompt": odd_text, "--schedule": any_spec,
    "--tz": zones, "--max-runs": digits, "--until": odd_instant, "--timeout": odd_duration,
    "--jitter": odd_duration, "--catch-up-max-age": odd_duration, "--max-steps": digits,
    "--max-attempts": digits, "--pause-after-failures": digits, "--model": odd_text,
    "--allow": odd_text, "--workdir": odd_text, "--request-id": odd_text,
    "--context": odd_text, "--notify": odd_text}
FLAGS = ("--until-condition", "--paused", "--worktree", "--no-worktree", "--bogus", "--json",
         "-x", "--")


@st.composite
def definition_argv(draw: st.DrawFn, command: str, spec: st.SearchStrategy[str]) -> list[str]:
    """``add`` or ``edit`` with hostile options (an ``add`` often complete but for them)."""
    argv = [command] + (["{ID}"] if command == "edit" else [])
    if command == "add" and draw(st.booleans()):
        argv += ["--title", "T", "--command", "true", "--schedule", draw(non_phrase_spec)]
    for flag in draw(st.lists(st.sampled_from(sorted(FLAG_VALUES)), max_size=4)):
        argv += [flag, draw(spec if flag == "--schedule" else FLAG_VALUES[flag])]
    argv += draw(st.lists(st.sampled_from(FLAGS), max_size=2))
    return argv


def cli_argvs() -> st.SearchStrategy[list[str]]:
    """Argument lists for the CLI, phrases included; ``{ID}`` stands for an existing
    automation's id."""
    spec = any_spec
    plain = st.one_of(
        definition_argv("add", spec), definition_argv("edit", spec),
        st.builds(lambda s, tz, a, c: ["schedule", "preview", "--spec", s, *tz, *a, *c], spec,
                  st.one_of(st.just([]), zones.map(lambda z: ["--tz", z])),
                  st.one_of(st.just([]), odd_instant.map(lambda i: ["--after", i])),
                  st.one_of(st.just([]), digits.map(lambda n: ["--count", n]))),
        st.builds(lambda e, a: ["schedule", "preview", "--cron", e, "--tz", "UTC", *a], odd_cron,
                  st.one_of(st.just([]), odd_instant.map(lambda i: ["--after", i]))),
        st.builds(lambda c, n: ["runs", "{ID}", *c, *n],
                  st.one_of(st.just([]), st.one_of(odd_text, digits.map("r".__add__))
                            .map(lambda c: ["--cursor", c])),
                  st.one_of(st.just([]), digits.map(lambda n: ["--limit", n]))),
        st.builds(lambda k, v: ["config", "set", k, v],
                  st.sampled_from(("grace", "concurrency", "shutdown_grace", "network_wait",
                                   "catch_up_stagger", "bogus", "")), odd_duration),
        st.builds(lambda i: ["show", i], st.one_of(odd_text, st.just("{ID}"))),
        st.builds(lambda pairs: ["provider", "set", *[x for pair in pairs for x in pair]],
                  st.lists(st.tuples(st.sampled_from(("--base-url", "--model", "--timeout")),
                                     st.one_of(odd_text, odd_duration)), max_size=3)),
        st.just(["provider", "show"]),
        st.builds(lambda c, i: [c, i], st.sampled_from(("history", "approvals")),
                  st.one_of(odd_text, st.just("{ID}"))),
        st.builds(lambda r, d, x: ["decide", r, *d, *x], st.one_of(odd_text, st.just("{ID}")),
                  st.lists(st.sampled_from(("--approve", "--always", "--deny")), max_size=2),
                  st.lists(st.sampled_from(("--answer", "--rule", "--note", "--request-id"))
                           .flatmap(lambda f: odd_text.map(lambda v: [f, v])), max_size=2)
                  .map(lambda pairs: [x for pair in pairs for x in pair])),
        st.builds(lambda f: ["events", *f], st.lists(st.sampled_from(("--follow", "-f")),
                                                     max_size=1)),
        st.builds(lambda c, r, x: [c, *r, *x], st.sampled_from(("approve", "deny")),
                  st.lists(st.one_of(odd_text, st.just("{ID}")), max_size=3),
                  st.lists(st.sampled_from(("--always", "--rule", "--note", "--request-id")),
                           max_size=2)),
        st.builds(lambda r, t: ["answer", r, t], st.one_of(odd_text, st.just("{ID}")), odd_text),
        st.builds(lambda a, i, t: ["session", a, i, *t], st.sampled_from(("show", "reply", "x")),
                  odd_text, st.lists(odd_text, max_size=1)),
        st.builds(lambda w: ["rules", *w], st.lists(st.one_of(odd_text, st.just("{ID}"),
                                                              st.just("remove"), digits),
                                                    max_size=4)),
        st.lists(st.one_of(odd_text, st.sampled_from(FLAGS)), max_size=3))
    plain = st.one_of(plain, st.builds(
        lambda t, n: ["schedule", "parse", t, *n], phrase,
        st.one_of(st.just([]), odd_instant.map(lambda i: ["--now", i]))))
    return st.builds(lambda argv, j: argv + (["--json"] if j else []), plain, st.booleans())


def prepared_data_dir(root: Path) -> tuple[Path, str]:
    """A data folder holding one automation (for ``{ID}``), created through the CLI."""
    code, out, err = run_cli(["--data-dir", str(root), "add", "--title", "Seed", "--command",
                              "true", "--schedule", "every:1h", "--json"])
    assert code == 0, err
    return root, json.loads(out)["id"]


def with_id(argv: Sequence[str], data_dir: Path, ident: str) -> list[str]:
    return ["--data-dir", str(data_dir)] + [ident if a == "{ID}" else a for a in argv]
