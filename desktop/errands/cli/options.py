"""Turning ``add``/``edit`` options into a definition document, and ``SPEC`` into a trigger.

The CLI never builds a ``Definition`` itself: it builds the same JSON document a client
would send and lets ``parse_definition`` judge it, so every path validates alike.
"""

from __future__ import annotations

import argparse
import copy
import glob
import os
import re
import sys
from datetime import datetime
from typing import Any

from ..errors import InvalidInput
from ..limits import MAX_HISTORY_LIMIT, MAX_INTEGER, SPEC_EXAMPLE, SPEC_FORMS
# (what reads the values is imported where they are read: building the parser for
# ``errands --help`` needs none of it)

LOCALE_HELP = ("orders numeric dates in a phrase: en_US reads 8/1 as 1 August, en_GB or de_DE "
               "as 8 January (default: LC_ALL, LC_TIME or LANG; none refuses ambiguous dates)")
_INTEGER = re.compile(r"[+-]?[0-9]+")


def read_script(name: str) -> str:
    """A script's source from a file (``-``: standard input), refused with the flag's name
    when it cannot be read, is not UTF-8 text or is larger than a script may be."""
    from ..definition import MAX_SCRIPT_BYTES
    try:
        if name == "-":
            data = sys.stdin.buffer.read(MAX_SCRIPT_BYTES + 1)
        else:
            with open(os.path.expanduser(name), "rb") as f:
                data = f.read(MAX_SCRIPT_BYTES + 1)
    except OSError as exc:
        raise InvalidInput("--script", f"cannot read {name}: {exc.strerror or exc}",
                           "a JavaScript file", "--script ~/errands/file-invoices.js") from None
    if len(data) > MAX_SCRIPT_BYTES:
        raise InvalidInput("--script", f"{name} is larger than {MAX_SCRIPT_BYTES // 1024} KB",
                           f"a script of at most {MAX_SCRIPT_BYTES // 1024} KB",
                           "--script ~/errands/file-invoices.js", reason="too_large")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput("--script", f"{name} is not UTF-8 text (byte {exc.start})",
                           "a JavaScript file in UTF-8", "--script file-invoices.js") from None


def _leave_agent(doc: dict[str, Any], args: argparse.Namespace, warnings: list[str],
                 what: str) -> None:
    """An agent turned into a command or a reminder: what only agents have goes, said."""
    doc.pop("permissions", None)
    warnings.append(f"the agent's permissions were dropped: {what} takes none")
    if doc.get("worktree") and not args.worktree:
        doc["worktree"] = False
        warnings.append("worktree was turned off: only agent runs work in a worktree")


def add_definition_options(p: argparse.ArgumentParser, *, editing: bool) -> None:
    """The options ``add`` and ``edit`` share (``edit`` changes only what is given)."""
    p.add_argument("--title", help="a short name, 1–120 characters")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--prompt", help="what the agent should do (an agent automation)")
    what.add_argument("--command", help="a shell command to run (a command automation)")
    what.add_argument("--remind", metavar="MESSAGE",
                      help="show this message as a notification (a reminder; no model)")
    what.add_argument("--script", metavar="FILE",
                      help="a JavaScript file whose default export runs in a sandbox and "
                           "proposes actions (a script automation; - reads standard input)")
    p.add_argument("--schedule", metavar="SPEC", action="append",
                   help="when it fires: " + SPEC_FORMS + " (repeatable: each is a trigger)")
    p.add_argument("--on-folder", metavar="DIR", action="append",
                   help="fire when files change in DIR (repeatable)")
    p.add_argument("--glob", metavar="PATTERN", action="append",
                   help="only files matching PATTERN, such as *.pdf (repeatable; with "
                        "--on-folder)")
    p.add_argument("--on-webhook", action="store_true", default=None,
                   help="fire on an authenticated POST to a local address (its token is "
                        "printed once)")
    p.add_argument("--on-mail", metavar="ACCOUNT",
                   help="fire when mail arrives for this mail account (errands mail)")
    p.add_argument("--mail-from", metavar="ADDRESS", help="only mail from this sender")
    p.add_argument("--mail-subject", metavar="TEXT", help="only mail whose subject has TEXT")
    p.add_argument("--mail-batch", metavar="DURATION", help="at most one run per DURATION "
                   "(10s to 7d; default 1h for an agent, 1m for others)")
    p.add_argument("--after-automation", metavar="ID", action="append",
                   help="fire when that automation's run ends (repeatable)")
    p.add_argument("--after-states", metavar="STATES",
                   help="which ends fire it: succeeded, failed, cancelled, expired or any, "
                        "comma-separated (default: succeeded)")
    p.add_argument("--tz", metavar="ZONE", help="IANA time zone for cron schedules "
                   "(default: this machine's)")
    p.add_argument("--locale", metavar="LOCALE", help=LOCALE_HELP)
    p.add_argument("--context", choices=("fresh", "continue"))
    p.add_argument("--max-runs", metavar="N", help="stop after N runs that succeeded or failed"
                   + (" (none to clear)" if editing else ""))
    p.add_argument("--until", metavar="INSTANT", help="stop at this instant (RFC 3339 with offset)"
                   + (" (none to clear)" if editing else ""))
    p.add_argument("--until-condition", action="store_true", default=None,
                   help="stop when a run reports that its condition is met")
    if editing:
        p.add_argument("--no-until-condition", dest="until_condition", action="store_false")
    p.add_argument("--paused", action="store_true", default=None,
                   help="pause it (like 'errands pause')" if editing else "create it paused")
    if editing:
        p.add_argument("--no-paused", dest="paused", action="store_false",
                       help="resume it (like 'errands resume')")
    p.add_argument("--misfire", choices=("skip", "run-once"))
    p.add_argument("--catch-up-max-age", metavar="DURATION")
    p.add_argument("--overlap", choices=("skip", "queue-one", "cancel-previous"))
    p.add_argument("--model", metavar="M")
    p.add_argument("--max-steps", metavar="N", type=whole_number("--max-steps"))
    p.add_argument("--timeout", metavar="DURATION")
    p.add_argument("--max-attempts", metavar="N", type=whole_number("--max-attempts"))
    p.add_argument("--notify", choices=("quiet", "every-run", "on-change"))
    p.add_argument("--pause-after-failures", metavar="N")
    p.add_argument("--history-limit", metavar="N",
                   help=f"ended runs this automation keeps, 1 to {MAX_HISTORY_LIMIT} "
                        "(default: the run_history_limit setting"
                        + ("; default to go back to it)" if editing else ")"))
    p.add_argument("--jitter", metavar="DURATION")
    p.add_argument("--email-result", action="store_true", default=None,
                   help="mail each run's result to your own address (errands mail)")
    if editing:
        p.add_argument("--no-email-result", dest="email_result", action="store_false")
    p.add_argument("--allow-recipient", metavar="ADDRESS", action="append",
                   help="an address the agent's send_mail may write to unasked (repeatable)")
    p.add_argument("--permissions", choices=("ask", "allow-listed", "allow-all"))
    p.add_argument("--allow", metavar="TOOL", action="append",
                   help="a tool the agent may use without asking (repeatable)")
    p.add_argument("--allow-write", metavar="DIR", action="append",
                   help="a folder outside --workdir a script may change (repeatable)")
    p.add_argument("--allow-read", metavar="DIR", action="append",
                   help="a folder outside --workdir a script may read (repeatable)")
    p.add_argument("--mcp-server", metavar="SPEC", action="append",
                   help="an MCP server whose tools this agent may use (each call asks unless "
                        "allowed): NAME=COMMAND, NAME=URL or a JSON object (repeatable)")
    if editing:
        p.add_argument("--no-mcp-servers", action="store_true", default=None,
                       help="the agent uses only the servers of the mcp_servers setting")
    p.add_argument("--workdir", metavar="DIR")
    p.add_argument("--runs-on", metavar="any|MACHINE",
                   help="on a shared catalogue, the machine whose engine runs it, or any "
                        "(default: this machine for a command or a --workdir, else any)")
    p.add_argument("--worktree", action="store_true", default=None,
                   help="agent runs with a fresh context: each run works in its own git "
                        "worktree of --workdir, kept only when it changed something")
    if editing:
        p.add_argument("--no-worktree", dest="worktree", action="store_false",
                       help="runs work in the workdir itself again")
    if not editing:
        p.add_argument("--request-id", metavar="ID", type=request_id,
                       help="makes creation idempotent: repeating it returns the same automation")
        p.add_argument("--from-json", metavar="FILE",
                       help="create from a definition document (a file, or - for stdin)")


def whole_number(flag: str, low: int = -MAX_INTEGER, high: int = MAX_INTEGER,
                 example: str = "5", expected: str | None = None) -> Any:
    """An argparse type: a whole number (ASCII digits) from ``low`` to ``high``, refused
    naming ``flag``; the length is checked before converting, so a huge one is cheap.
    ``expected`` replaces the shape named in a refusal (when words are taken too)."""
    if expected is None:
        expected = ("a whole number" if (low, high) == (-MAX_INTEGER, MAX_INTEGER)
                    else f"a whole number from {low} to {high}")

    def parse(text: str) -> int:
        from ..timeutil import shown
        if not _INTEGER.fullmatch(text):  # int() also takes "١٢", " 5" and "1_000"
            raise InvalidInput(flag, f"not a whole number: {shown(text)}", expected, example)
        value = int(text) if len(text) <= 20 else None
        if value is None or not low <= value <= high:
            raise InvalidInput(flag, f"{shown(text)} is out of range", expected, example)
        return value
    return parse


def request_id(text: str) -> str:
    from ..definition import check_request_id  # (the definition module: when it is used)

    return check_request_id(text, "--request-id")


def _nullable_int(flag: str, text: str) -> int | None:
    if text.lower() in ("none", "null", ""):
        return None
    return whole_number(flag)(text)


HISTORY_LIMIT_WORDS = ("default", "none")  # back to the run_history_limit setting


def history_limit(text: str) -> int | None:
    """``--history-limit``: a whole number of ended runs to keep, or ``default`` (None:
    the ``run_history_limit`` setting applies); refused naming the flag, like the rest."""
    if text.lower() in HISTORY_LIMIT_WORDS:
        return None
    return whole_number("--history-limit", 1, MAX_HISTORY_LIMIT, "500",
                        f"a whole number from 1 to {MAX_HISTORY_LIMIT}, or default "
                        "(the run_history_limit setting)")(text)


def phrase_locale(args: argparse.Namespace) -> str | None:
    """``--locale``, else the environment's (LC_ALL, LC_TIME, LANG)."""
    from ..phrases.numeric import locale_from_environment
    given = getattr(args, "locale", None)
    return given if given is not None else locale_from_environment()


RUN_ENDS = ("succeeded", "failed", "cancelled", "expired")


def event_triggers(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The event triggers the options ask for, as trigger documents."""
    out: list[dict[str, Any]] = []
    if args.glob and not args.on_folder:
        raise InvalidInput("--glob", "applies only to --on-folder", "--glob with --on-folder",
                           "--on-folder ~/Downloads --glob '*.pdf'")
    for folder in args.on_folder or ():
        doc: dict[str, Any] = {"kind": "folder",
                               "path": os.path.abspath(os.path.expanduser(folder))}
        if args.glob:
            doc["include"] = list(args.glob)
        out.append(doc)
    if args.on_webhook:
        out.append({"kind": "webhook"})
    if (args.mail_from or args.mail_subject or args.mail_batch) and not args.on_mail:
        raise InvalidInput("--mail-from" if args.mail_from else "--mail-subject"
                           if args.mail_subject else "--mail-batch",
                           "applies only to --on-mail", "with --on-mail ACCOUNT",
                           "--on-mail work --mail-from billing@example.com")
    if args.on_mail:
        mail: dict[str, Any] = {"kind": "mail", "account": args.on_mail}
        if args.mail_from:
            mail["sender"] = args.mail_from
        if args.mail_subject:
            mail["subject"] = args.mail_subject
        if args.mail_batch:
            mail["batch"] = args.mail_batch
        out.append(mail)
    if args.after_states and not args.after_automation:
        raise InvalidInput("--after-states", "applies only to --after-automation",
                           "with --after-automation ID", "--after-automation 3f2a --after-states failed")
    states = ["succeeded"]
    if args.after_states:
        states = [s.strip() for s in args.after_states.split(",") if s.strip()]
        if states == ["any"]:
            states = list(RUN_ENDS)
        bad = [s for s in states if s not in RUN_ENDS]
        if bad or not states:
            from ..timeutil import shown
            raise InvalidInput("--after-states", f"not a run's end: {shown(bad[0]) if bad else '(none)'}",
                               ", ".join(RUN_ENDS) + " or any, comma-separated", "succeeded,failed")
    for automation in args.after_automation or ():
        out.append({"kind": "automation", "automation": automation, "states": states})
    return out


def build_document(args: argparse.Namespace, base: dict[str, Any] | None,
                   now: datetime) -> tuple[dict[str, Any], list[str]]:
    """The definition document after applying the options to ``base`` (None when adding)."""
    from ..schedule_spec import spec_to_trigger
    from ..tool_servers import server_from_line
    editing = base is not None
    doc: dict[str, Any] = copy.deepcopy(base) if base else {}
    warnings: list[str] = []
    phrase = None
    events = event_triggers(args)
    if args.schedule or events:
        schedules = []
        for spec in args.schedule or ():
            trigger, said = spec_to_trigger(spec, args.tz, now,
                                            doc.get("trigger") if editing else None,
                                            phrase_locale(args))
            schedules.extend(trigger["triggers"] if trigger["kind"] == "set" else [trigger])
            if said is not None:
                phrase = phrase or said
                warnings.extend(said.warnings)
                if any(v for v in said.stop.values()):
                    doc["stop"] = {**doc.get("stop", {}),
                                   **{k: v for k, v in said.stop.items() if v}}
        members = schedules + events
        from ..definition import put_trigger
        put_trigger(doc, members[0] if len(members) == 1 else {"kind": "set",
                                                               "triggers": members})
    elif args.tz is not None:
        crons = [t for t in doc.get("triggers") or [doc.get("trigger") or {}]
                 if isinstance(t, dict) and t.get("kind") == "cron"]
        if not editing or not crons:
            raise InvalidInput("--tz", "applies only to a cron schedule",
                               "--tz together with a cron schedule", "Europe/Berlin")
        for trigger in crons:
            trigger["timezone"] = args.tz
    elif not editing:
        raise InvalidInput("--schedule", "is required (or an event: --on-folder, --on-webhook, "
                           "--on-mail, --after-automation)", SPEC_FORMS, SPEC_EXAMPLE)

    said = None  # what the phrase's task runs ("remind me to …" is a reminder)
    explicit = any(v is not None for v in (args.prompt, args.command, args.remind,
                                           args.script))
    if not editing and not explicit and phrase is not None and phrase.prompt:
        from ..phrases.text import title_of, task_runner
        said = task_runner(phrase.prompt)
    if args.title is not None:
        doc["title"] = args.title
    elif said is not None and said["kind"] == "notify":
        doc["title"] = title_of(said["message"])
    elif not editing and phrase is not None and phrase.title:
        doc["title"] = phrase.title
    runner = doc.get("runner", {})
    if args.prompt is not None:
        runner = {"kind": "agent", "prompt": args.prompt, "model": runner.get("model"),
                  **({"mcp_servers": runner["mcp_servers"]} if runner.get("kind") == "agent"
                     and runner.get("mcp_servers") else {})}
    elif args.command is not None:
        runner = {"kind": "command", "command": args.command}
        if editing and doc.get("runner", {}).get("kind") == "agent":
            _leave_agent(doc, args, warnings, "a command")
    elif args.remind is not None:
        runner = {"kind": "notify", "message": args.remind}
        if editing and doc.get("runner", {}).get("kind") == "agent":
            _leave_agent(doc, args, warnings, "a reminder")
    elif args.script is not None:
        runner = {"kind": "script", "source": read_script(args.script),
                  **({"limits": runner["limits"]} if runner.get("kind") == "script"
                     and runner.get("limits") else {})}
        if editing and doc.get("runner", {}).get("kind") == "agent":
            _leave_agent(doc, args, warnings, "a script")
    elif said is not None:
        runner = said
    if args.model is not None:
        if runner.get("kind") != "agent":
            raise InvalidInput("--model", "applies only to an agent automation (--prompt)",
                               "--model together with --prompt", "gpt-4o-mini")
        runner["model"] = args.model
    if args.mcp_server or getattr(args, "no_mcp_servers", False):
        if runner.get("kind") != "agent":
            raise InvalidInput("--mcp-server", "applies only to an agent automation (--prompt)",
                               "--mcp-server together with --prompt",
                               "notes=npx -y @modelcontextprotocol/server-filesystem ~/notes")
        kept = [] if getattr(args, "no_mcp_servers", False) else list(
            runner.get("mcp_servers") or [])
        for spec in args.mcp_server or ():
            server = server_from_line(spec, "--mcp-server")
            kept = [s for s in kept if s.get("name") != server.get("name")] + [server]
        runner["mcp_servers"] = kept
    if runner:
        doc["runner"] = runner
    elif not editing:
        raise InvalidInput("--prompt", "give --prompt (an agent) or --command (a shell command)",
                           "--prompt TEXT or --command TEXT", "--command 'backup.sh'")
    if not editing and "title" not in doc:
        raise InvalidInput("--title", "is required", "a short name of 1–120 characters",
                           "Nightly backup")

    if args.context is not None:
        doc.setdefault("context", {})["mode"] = args.context
    stop = doc.setdefault("stop", {})
    if args.max_runs is not None:
        stop["max_runs"] = _nullable_int("--max-runs", args.max_runs)
    if args.until is not None:
        stop["until"] = None if args.until.lower() in ("none", "null") else args.until
    if args.until_condition is not None:
        stop["when_condition_met"] = args.until_condition
    if not stop:
        doc.pop("stop")
    if args.misfire is not None:
        doc["misfire"] = args.misfire.replace("-", "_")
    if args.catch_up_max_age is not None:
        doc["catch_up_max_age"] = args.catch_up_max_age
    if args.overlap is not None:
        doc["overlap"] = args.overlap.replace("-", "_")
    policy = doc.setdefault("policy", {})
    if args.max_steps is not None:
        policy["max_steps"] = args.max_steps
    if args.timeout is not None:
        policy["timeout"] = args.timeout
    if args.max_attempts is not None:
        policy.setdefault("retry", {})["max_attempts"] = args.max_attempts
    if args.notify is not None:
        policy["notify"] = args.notify.replace("-", "_")
    if args.pause_after_failures is not None:
        policy["pause_after_failures"] = _nullable_int("--pause-after-failures",
                                                       args.pause_after_failures)
    if args.history_limit is not None:
        policy["history_limit"] = history_limit(args.history_limit)
    if args.jitter is not None:
        policy["jitter"] = None if args.jitter.lower() in ("none", "null") else args.jitter
    if args.email_result is not None:
        policy["email_result"] = args.email_result
    if not policy:
        doc.pop("policy")
    if args.permissions is not None or args.allow or args.allow_recipient:
        perms = doc.setdefault("permissions", {})
        if args.allow_recipient:
            perms["email_allowed_recipients"] = list(dict.fromkeys(
                [*perms.get("email_allowed_recipients", []), *args.allow_recipient]))
        if args.permissions is not None:
            perms["mode"] = args.permissions.replace("-", "_")
        if args.allow:
            perms["tools"] = list(dict.fromkeys([*perms.get("tools", []), *args.allow]))
    for flag, tool, folders in (("--allow-write", "write_file", args.allow_write),
                                ("--allow-read", "read_file", args.allow_read)):
        for folder in folders or ():
            if runner.get("kind") != "script":
                raise InvalidInput(flag, "applies only to a script automation (--script)",
                                   f"{flag} together with --script", "~/Documents/Invoices")
            path = os.path.abspath(os.path.expanduser(folder)).rstrip(os.sep)
            rules = doc.setdefault("permissions", {}).setdefault("rules", [])
            # (a folder called [old] is that folder, not a pattern of one letter)
            rule = {"tool": tool, "pattern": f"{glob.escape(path)}/*", "action": "allow"}
            if rule not in rules:
                rules.append(rule)
    if args.workdir is not None:
        doc["workdir"] = os.path.abspath(os.path.expanduser(args.workdir))
    if args.worktree is not None:
        doc["worktree"] = args.worktree
    if getattr(args, "runs_on", None) is not None:
        doc["runs_on"] = args.runs_on
    if not editing:  # (edit pauses and resumes through the pause and resume commands)
        if args.paused:
            doc["paused"] = True
        doc.setdefault("origin", {"kind": "cli"})
    return doc, warnings
