"""The ``errands`` command line's grammar: every command, its options and its handler.

Building it imports no command's module: a handler is named here (:class:`H`) and imported
when its command runs, so ``errands --help`` and ``errands --version`` cost an interpreter
and argparse, and each command pays only for what it uses."""

from __future__ import annotations

import argparse
import importlib
from typing import Any, Callable, NoReturn

from .. import __version__
from ..errors import InvalidInput
from .options import LOCALE_HELP, SPEC_FORMS, add_definition_options, whole_number


class H:
    """A command's handler, by module and name (``H("commands", "add")``)."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, args: argparse.Namespace) -> Any:
        handler = getattr(importlib.import_module(f"errands.cli.{self.module}"), self.name)
        return handler(args)


class _Parser(argparse.ArgumentParser):
    """Argument errors become ``InvalidInput`` so they print (and exit) like every other."""

    def error(self, message: str) -> NoReturn:
        field = "arguments"
        if message.startswith("argument "):
            field, _, message = message[len("argument "):].partition(": ")
            field = field.split("/")[0]
        raise InvalidInput(field, message, None, f"{self.prog} --help")


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", metavar="DIR", default=argparse.SUPPRESS,
                        help="where Errands keeps its data (default: ERRANDS_DATA_DIR or the "
                             "user data folder)")
    common.add_argument("--database", metavar="URL", default=argparse.SUPPRESS,
                        help="a shared catalogue on PostgreSQL, postgresql://USER@HOST/DB "
                             "(as ERRANDS_DATABASE_URL; the password in the keyring: "
                             "'errands database password')")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print one JSON document")
    return common


class _Sink:
    """A command's grammar while another command runs: not built (``build_parser``)."""

    def __getattr__(self, name: str) -> Callable[..., "_Sink"]:
        return lambda *args, **kwargs: self


ALL = "*"  # build_parser(only=ALL): every command built in full


def parse_command_line(argv: list[str]) -> tuple[argparse.ArgumentParser,
                                                   argparse.Namespace, list[str]]:
    """The parser, the arguments and what is left over. Two passes: the first, over a
    grammar that only names the commands, finds which one runs (and answers a top-level
    ``--help`` or ``--version``); the second builds that command alone in full. Building
    all of them took 20 ms, as long as the interpreter's own start."""
    named = build_parser(only=None)
    command = getattr(named.parse_known_args(argv)[0], "command_name", None)
    parser = named if command is None else build_parser(only=command)
    args, extra = parser.parse_known_args(argv)
    return parser, args, extra


def build_parser(only: str | None = ALL) -> argparse.ArgumentParser:
    """The grammar; ``only``: the command to build in full (None: none, ``ALL``: every
    one), the others named with their one-line help and nothing more."""
    common = _common()
    parser = _Parser(prog="errands", parents=[common],
                     description="Errands runs your automations (agent prompts and shell "
                     "commands) once, on an interval, in a loop, on a cron schedule or by hand. "
                     "With no command, 'errands' opens the app (its window and tray icon).",
                     epilog="Run 'errands COMMAND --help' for a command's options.")
    parser.add_argument("--version", action="version", version=f"errands {__version__}")
    parser.add_argument("--tray", action="store_true",
                        help="open the app minimised to the tray, without its window (how "
                             "'errands autostart on' starts it at login)")
    sub = parser.add_subparsers(dest="command_name", metavar="COMMAND", parser_class=_Parser)

    def cmd(name: str, handler: Callable[..., int], help: str) -> Any:
        if only not in (ALL, name):  # (named in the help's list; parses nothing)
            sub.add_parser(name, help=help, add_help=False)
            return _Sink()
        p = sub.add_parser(name, parents=[common], help=help, description=help)
        p.set_defaults(handler=handler)
        return p

    p = cmd("add", H("commands", "add"), "create an automation")
    add_definition_options(p, editing=False)
    p = cmd("edit", H("commands", "edit"), "change an automation (only the options given)")
    p.add_argument("id")
    add_definition_options(p, editing=True)
    p.add_argument("--from-json", metavar="FILE", help="replace the whole definition with this "
                   "document (a file, or - for stdin); the way to repair a broken automation")
    p.add_argument("--expect-revision", metavar="N", type=_revision,
                   help="refuse the edit (stale_revision, exit 4) unless the automation is "
                        "still at revision N, as 'show --json' gave it: no edit made since "
                        "is overwritten")
    p = cmd("list", H("reading", "list_"), "list automations (all but the archived ones)")
    p.add_argument("--archived", action="store_true",
                   help="list only the archived automations")
    p = cmd("show", H("reading", "show"), "show one automation")
    p.add_argument("id")
    for name, handler, text in (
            ("pause", H("commands", "pause"), "stop automatic fires"),
            ("resume", H("commands", "resume"), "re-arm from the next future fire"),
            ("archive", H("commands", "archive"), "stop an automation for good, keeping its runs, "
             "transcripts, revisions and output logs"),
            ("unarchive", H("commands", "unarchive"), "bring an archived automation back, paused"),
            ("delete", H("commands", "delete"), "delete an automation and its runs, transcripts and "
             "revisions (its output logs are kept); archive keeps them all")):
        p = cmd(name, handler, text)
        p.add_argument("id")
    p = cmd("runs", H("reading", "runs"), "the run history of an automation, newest first")
    p.add_argument("id")
    p.add_argument("--limit", type=whole_number("--limit", 1, 1000, "50"), default=50,
                   metavar="N")
    p.add_argument("--cursor", metavar="C", type=_cursor)

    p = cmd("schedule", lambda *_: 2, "preview or parse schedules")
    ssub = p.add_subparsers(dest="schedule_command", metavar="ACTION", parser_class=_Parser,
                            required=True)
    sp = ssub.add_parser("preview", parents=[common], help="the next fires of a schedule")
    sp.set_defaults(handler=H("commands", "schedule_preview"))
    src = sp.add_mutually_exclusive_group(required=True)
    src.add_argument("--spec", metavar="SPEC", help=SPEC_FORMS)
    src.add_argument("--cron", metavar="EXPR")
    sp.add_argument("--tz", metavar="ZONE")
    sp.add_argument("--after", metavar="INSTANT", help="list fires strictly after this (default now)")
    sp.add_argument("--count", type=whole_number("--count", 1, 1000, "10"), default=10, metavar="N")
    sp.add_argument("--locale", metavar="LOCALE", help=LOCALE_HELP)
    sp = ssub.add_parser("parse", parents=[common], help="turn a phrase into a schedule, offline")
    sp.set_defaults(handler=H("commands", "schedule_parse"))
    sp.add_argument("text", nargs="+")
    sp.add_argument("--tz", metavar="ZONE")
    sp.add_argument("--now", metavar="INSTANT")
    sp.add_argument("--locale", metavar="LOCALE", help=LOCALE_HELP)

    p = cmd("config", lambda *_: 2, "settings: min_interval, grace, concurrency, ...")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION", parser_class=_Parser,
                            required=True)
    cp = csub.add_parser("list", parents=[common], help="every setting, its value and source")
    cp.set_defaults(handler=H("commands", "config_list"))
    cp = csub.add_parser("get", parents=[common], help="one setting")
    cp.set_defaults(handler=H("commands", "config_get"))
    cp.add_argument("key")
    cp = csub.add_parser("set", parents=[common], help="store a setting")
    cp.set_defaults(handler=H("commands", "config_set"))
    cp.add_argument("key")
    cp.add_argument("value")
    cp = csub.add_parser("unset", parents=[common], help="back to the default")
    cp.set_defaults(handler=H("commands", "config_unset"))
    cp.add_argument("key")
    _more(cmd, common)
    return parser


def _cursor(text: str) -> str:
    from ..records import cursor_index

    cursor_index(text, "--cursor")
    return text


def _revision(text: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 18) or int(text) < 1:
        raise InvalidInput("--expect-revision", f"{text!r} is not a revision number",
                           "a whole number from 1", "--expect-revision 3")
    return int(text)


def _more(cmd: Callable[..., argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    """The commands beyond the catalogue's own."""
    parser_class = _Parser
    # transfer_commands
    p = cmd("export", H("transfer_commands", "export"), "print automations as an export document (definitions only, "
            "never secrets or runs), for 'errands import'")
    p.add_argument("ids", nargs="*", metavar="ID", help="the automations (default: all)")
    p.add_argument("--definition", action="store_true",
                   help="print one automation's stored definition document as it is (the "
                        "starting point of a repair: edit --from-json)")
    p = cmd("import", H("transfer_commands", "import_"), "create the automations of an export document; all or "
            "nothing, and a second import changes nothing")
    p.add_argument("file", metavar="FILE", help="a file written by 'errands export', or - "
                   "for standard input")
    p.add_argument("--dry-run", action="store_true",
                   help="list what would be created or left unchanged; change nothing")

    # engine_commands
    p = cmd("serve", H("engine_commands", "serve"), "run the engine headless until SIGINT/SIGTERM")
    p.add_argument("--standby", action="store_true",
                   help="on a shared catalogue where an engine of this machine's name "
                        "(ERRANDS_MACHINE) already runs: wait, and take its place when it "
                        "stops (or its machine goes away)")
    p = cmd("run-now", H("engine_commands", "run_now"), "run an automation now (also while paused)")
    p.add_argument("id")
    p.add_argument("--request-id", metavar="R", help="repeating it returns the same run")
    p.add_argument("--dry-run", action="store_true", help="report what would run; run nothing "
                   "(a script: what it would do, each action with whether it would apply)")
    p.add_argument("--wait", action="store_true", help="wait until the run has finished")
    p.add_argument("--event", metavar="JSON", help="a script's dry run on this event: "
                   '{"trigger": {"kind": "folder"}, "payload": {…}} or @FILE')
    p.add_argument("--event-run", metavar="N", type=int,
                   help="a script's dry run on the event of its run #N")
    p.add_argument("--over-existing", action="store_true",
                   help="a folder script: run once for each file already in its folder "
                        "(200 at a time; with --dry-run, only say what each would do)")
    p.add_argument("--offset", metavar="N", type=int, default=0,
                   help="with --over-existing: skip the first N files (the next page)")
    p = cmd("stop", H("engine_commands", "stop"), "cancel the active run of an automation")
    p.add_argument("id")
    p = cmd("attention", H("engine_commands", "attention"), "what asks for your attention (failures, notes, approvals)")
    p.add_argument("--unread", action="store_true")
    sub = p.add_subparsers(dest="attention_command", metavar="ACTION")
    rp = sub.add_parser("read", help="mark items read")
    rp.set_defaults(handler=H("engine_commands", "attention_read"))
    rp.add_argument("item", nargs="?", type=int, metavar="ID")
    rp.add_argument("--all", action="store_true")
    for action in (rp,):
        action.add_argument("--data-dir", metavar="DIR", default=argparse.SUPPRESS)
        action.add_argument("--json", action="store_true", default=argparse.SUPPRESS)

    # observe
    p = cmd("events", H("events", "events"), "the engine's change notices (one line each with --follow)")
    p.add_argument("--follow", "-f", action="store_true",
                   help="keep printing notices until Ctrl-C or the engine stops")
    p = cmd("output", H("reading", "output"), "a run's output so far (an agent run's transcript); "
            "--follow: as it comes, until the run ends")
    p.add_argument("run", metavar="RUN", help="the run's id (errands runs ID lists them)")
    p.add_argument("--follow", "-f", action="store_true",
                   help="keep printing what the run prints until it ends (needs the app or "
                        "errands serve running)")
    p = cmd("webhook", H("commands", "webhook"), "an automation's webhook addresses; "
            "--rotate gives a trigger a new token (the old one stops working)")
    p.add_argument("id")
    p.add_argument("--rotate", metavar="TRIGGER", help="the webhook trigger's id (errands "
                   "webhook ID lists them)")
    p = cmd("mail", lambda *_: 2, "mail accounts the mail trigger and the mail tools use")
    msub = p.add_subparsers(dest="mail_command", metavar="ACTION", parser_class=_Parser,
                            required=True)
    sp = msub.add_parser("add", parents=[common], help="add a mail account, or change one "
                         "(the password goes to the OS keyring)")
    sp.set_defaults(handler=H("mail_commands", "add"))
    sp.add_argument("name", help="a short name for it, such as work")
    sp.add_argument("--address", required=True, help="your own address there")
    sp.add_argument("--imap-host", required=True, metavar="HOST")
    sp.add_argument("--imap-port", metavar="PORT", type=whole_number("--imap-port", 1, 65535, "993"))
    sp.add_argument("--imap-security", choices=("tls", "none"),
                    help="tls (the default), or none for a server on this machine only")
    sp.add_argument("--user", metavar="NAME", help="the login, when it is not the address")
    sp.add_argument("--smtp-host", metavar="HOST", help="where mail is sent from (the mail "
                    "tools and 'email me the result')")
    sp.add_argument("--smtp-port", metavar="PORT", type=whole_number("--smtp-port", 1, 65535, "465"))
    sp.add_argument("--smtp-security", choices=("tls", "none"))
    sp.add_argument("--password-stdin", action="store_true",
                    help="read the password from standard input (else it is asked for)")
    sp = msub.add_parser("list", parents=[common], help="the mail accounts")
    sp.set_defaults(handler=H("mail_commands", "list_accounts"))
    sp = msub.add_parser("test", parents=[common], help="log in and open the inbox")
    sp.set_defaults(handler=H("mail_commands", "test"))
    sp.add_argument("name")
    sp = msub.add_parser("remove", parents=[common], help="remove a mail account no "
                         "automation uses, and its password")
    sp.set_defaults(handler=H("mail_commands", "remove"))
    sp.add_argument("name")
    p = cmd("mcp", H("mcp_commands", "serve"), "serve Errands to other agents over the Model "
            "Context Protocol (stdio); 'mcp config --client NAME' prints a client's setup")
    p.add_argument("--as", dest="as_client", metavar="NAME",
                   help="the client this server is for, as your configuration names it (only "
                        "such a name can be trusted: setting mcp_trusted_clients)")
    msub = p.add_subparsers(dest="mcp_command", metavar="ACTION", parser_class=_Parser)
    sp = msub.add_parser("config", parents=[common], help="print what an MCP client's "
                         "configuration needs to start Errands (writes nothing)")
    sp.set_defaults(handler=H("mcp_commands", "config"))
    sp.add_argument("--client", required=True, choices=("claude-code", "codex", "goose",
                                                        "cursor"))
    sp = msub.add_parser("secret", parents=[common], help="keep the header value an MCP "
                         "server for agent runs needs (a token) in the system keyring; read "
                         "from standard input or asked for")
    sp.set_defaults(handler=H("mcp_commands", "secret"))
    sp.add_argument("name", help="the server's name, as in mcp_servers or --mcp-server")
    sp.add_argument("--value-stdin", action="store_true",
                    help="read the value from standard input (one line)")
    sp.add_argument("--remove", action="store_true", help="forget the value")
    sp.add_argument("--url", help="the server's URL (the secret is sent there only); default: "
                    "the URL of the mcp_servers setting's server NAME")
    p = cmd("history", H("observe", "history"), "an automation's revisions (what changed) and its audit trail")
    p.add_argument("id")
    p = cmd("decide", H("observe", "decide"), "decide a parked run in one command (scripts); approve, deny and answer are the same")
    p.add_argument("run", help="the run id (or a unique prefix of it)")
    p.add_argument("--approve", action="store_true", help="approve this once")
    p.add_argument("--always", action="store_true",
                   help="approve, and allow the same from now on for this automation")
    p.add_argument("--rule", metavar="PATTERN", help="with --always: the narrower rule to save")
    p.add_argument("--deny", action="store_true", help="refuse; the run is told so")
    p.add_argument("--note", metavar="TEXT", help="with --deny: why, for the run")
    p.add_argument("--answer", metavar="TEXT", help="answer the run's question")
    p.add_argument("--request-id", metavar="R", help="repeating it changes nothing")

    # agent_commands
    p = cmd("approvals", H("agent_commands", "approvals"), "agent runs waiting for your approval or answer")
    p.add_argument("id", nargs="?", help="only this automation's")
    p = cmd("approve", H("agent_commands", "approve"), "approve what parked runs ask; they go on")
    p.add_argument("run", nargs="*", help="run ids (or unique prefixes of them)")
    p.add_argument("--all", action="store_true",
                   help="every run waiting for an approval now (questions want an answer)")
    p.add_argument("--automation", metavar="ID", help="with --all: only this automation's")
    p.add_argument("--always", action="store_true",
                   help="and allow the same from now on for this automation (a saved rule)")
    p.add_argument("--rule", metavar="PATTERN",
                   help="with --always: the pattern to save (default: exactly this call)")
    p.add_argument("--request-id", metavar="R", help="repeating it changes nothing")
    p = cmd("deny", H("agent_commands", "deny"), "refuse what parked runs ask; each is told so and goes on")
    p.add_argument("run", nargs="*", help="run ids (or unique prefixes of them)")
    p.add_argument("--all", action="store_true", help="every run waiting for a decision now")
    p.add_argument("--automation", metavar="ID", help="with --all: only this automation's")
    p.add_argument("--note", metavar="TEXT", help="why, for the run")
    p.add_argument("--request-id", metavar="R", help="repeating it changes nothing")
    p = cmd("answer", H("agent_commands", "answer"), "answer a parked run's question; it goes on")
    p.add_argument("run")
    p.add_argument("text")
    p.add_argument("--request-id", metavar="R", help="repeating it changes nothing")

    p = cmd("session", lambda *_: 2, "agent transcripts: show one, or reply in it")
    ssub = p.add_subparsers(dest="session_command", metavar="ACTION", parser_class=parser_class,
                            required=True)
    sp = ssub.add_parser("show", parents=[common], help="the transcript: messages, tool calls "
                         "and results")
    sp.set_defaults(handler=H("agent_commands", "session_show"))
    sp.add_argument("session", help="a session id (a run's session_id)")
    sp = ssub.add_parser("reply", parents=[common], help="a follow-up: a discussion forked "
                         "from the run (or the discussion's next turn); never a run")
    sp.set_defaults(handler=H("agent_commands", "session_reply"))
    sp.add_argument("session")
    sp.add_argument("text")
    sp.add_argument("--request-id", metavar="R", help="repeating it gives the same discussion")

    p = cmd("discuss", H("agent_commands", "discuss"), "talk with an agent automation about "
            "its run N, apart from its history: 'discuss ID --run N TEXT' starts, 'discuss "
            "d-… TEXT' goes on, 'discuss ID' lists")
    p.set_defaults(trailing="text")
    p.add_argument("target", metavar="ID | d-…", help="an automation (or a discussion's id)")
    p.add_argument("text", nargs="?", help="what to ask")
    p.add_argument("--run", metavar="N", type=whole_number("--run"),
                   help="the ended run to discuss (starting one)")
    p.add_argument("--list", action="store_true", help="list the automation's discussions "
                   "(of run N with --run)")
    p.add_argument("--approve", action="store_true", help="let the call it waits for run")
    p.add_argument("--deny", action="store_true", help="refuse it (TEXT: a note)")
    p.add_argument("--answer", metavar="TEXT", help="answer its question")
    p.add_argument("--request-id", metavar="R", help="repeating it gives the same discussion")

    p = cmd("rules", H("agent_commands", "rules"), "an automation's saved approvals: 'rules ID' lists them, "
            "'rules remove ID N' revokes one (an edit, with a new revision)")
    p.add_argument("words", nargs="+", metavar="ID | remove ID N")

    # provider_commands
    p = cmd("provider", lambda *_: 2, "the model provider agent runs use: set, show, test")
    sub = p.add_subparsers(dest="provider_command", metavar="ACTION", parser_class=parser_class,
                           required=True)
    sp = sub.add_parser("set", parents=[common], help="store the provider's URL, model, "
                        "timeout and API key (only what is given)")
    sp.set_defaults(handler=H("provider_commands", "provider_set"))
    sp.add_argument("--base-url", metavar="URL",
                    help="the OpenAI-compatible API root, e.g. http://127.0.0.1:11434/v1")
    sp.add_argument("--model", metavar="M", help="the model agent runs use by default")
    sp.add_argument("--timeout", metavar="DURATION", help="how long one request may take "
                    "(default 2m)")
    key = sp.add_mutually_exclusive_group()
    key.add_argument("--api-key-stdin", action="store_true",
                     help="read the API key from one line of standard input into the keyring")
    key.add_argument("--forget-key", action="store_true",
                     help="remove the API key from the keyring")
    sp = sub.add_parser("show", parents=[common], help="the provider settings and whether an "
                        "API key is present (never the key)")
    sp.set_defaults(handler=H("provider_commands", "provider_show"))
    sp = sub.add_parser("test", parents=[common], help="check the provider: reachable, key "
                        "accepted, model present, tool calling; exit 1 if any fails")
    sp.set_defaults(handler=H("provider_commands", "provider_test"))

    # database_commands
    p = cmd("database", lambda *_: 2, "where the catalogue lives: this machine's SQLite file, "
            "or a PostgreSQL database shared by several machines")
    sub = p.add_subparsers(dest="database_command", metavar="ACTION", parser_class=parser_class,
                           required=True)
    sp = sub.add_parser("show", parents=[common], help="the catalogue in use, where that was "
                        "chosen, and whether the keyring holds its password")
    sp.set_defaults(handler=H("database_commands", "show"))
    sp = sub.add_parser("use", parents=[common], help="use a shared catalogue from now on "
                        "(kept in the data folder, without password), or --local again")
    sp.set_defaults(handler=H("database_commands", "use"))
    target = sp.add_mutually_exclusive_group(required=True)
    target.add_argument("url", nargs="?", metavar="URL",
                        help="postgresql://USER@HOST[:PORT]/DATABASE")
    target.add_argument("--local", action="store_true",
                        help="this machine's own SQLite file again")
    sp = sub.add_parser("password", parents=[common], help="keep the catalogue's password in "
                        "the keyring (typed, or one line of standard input), or remove it")
    sp.set_defaults(handler=H("database_commands", "password"))
    sp.add_argument("--url", metavar="URL", help="the catalogue (default: the one in use)")
    how = sp.add_mutually_exclusive_group()
    how.add_argument("--value-stdin", action="store_true",
                     help="read the password from one line of standard input")
    how.add_argument("--remove", action="store_true", help="remove it from the keyring")

    p = cmd("migrate", H("migrate_commands", "migrate"), "copy the catalogue in use (definitions, "
            "revisions, runs, transcripts, approvals, settings) into another: a shared "
            "PostgreSQL one, or back into this data folder's own file; again, it adds only "
            "what is missing")
    p.add_argument("--to", required=True, metavar="URL",
                   help="postgresql+psycopg://USER@HOST[:PORT]/DATABASE, or local (this data "
                        "folder's own SQLite file)")

    # worktrees

    p = cmd("worktrees", H("worktrees", "worktrees"), "the git worktrees kept for runs of automations with "
            "worktree: true (--prune removes those whose removal loses nothing)")
    p.add_argument("--prune", action="store_true",
                   help="remove the worktrees (and branches) with no changes, or whose "
                        "changes are all committed and merged into the repository's HEAD; "
                        "never one an unfinished run uses")
    sub = p.add_subparsers(dest="worktrees_command", metavar="ACTION", parser_class=_Parser)
    rp = sub.add_parser("remove", parents=[_common()],
                        help="remove one worktree and its branch",
                        description="remove one worktree kept by Errands and its branch")
    rp.set_defaults(handler=H("worktrees", "remove"))
    rp.add_argument("path", metavar="PATH", help="the worktree's folder, as listed")
    rp.add_argument("--force", action="store_true",
                    help="also when it holds changes that are not merged: they are lost")

    # diagnose_commands
    p = cmd("autostart", H("diagnose_commands", "autostart"), "start Errands at login, in the tray: on, off or status")
    p.add_argument("action", choices=("on", "off", "status"), nargs="?", default="status")
    cmd("doctor", H("diagnose_commands", "doctor"), "check the data folder, database, keyring, notifications, tray, "
        "provider, clock and engine; say what to do about each problem")
