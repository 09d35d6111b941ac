"""What a ``run_command`` shell line runs, when its text alone can tell. Pure, standard library.

:func:`parse` reads a small grammar of *simple commands* exactly and calls anything outside
it **unproven**, saying why: the permission rules (:mod:`errands.agent.permissions`) then
cannot know what the line runs, and judge it so. The grammar is a common core of the shells
``$SHELL -c`` may be (sh, dash, bash, zsh, ksh, fish, and csh as far as it goes): a proven
line splits into the same commands, with the same words, in each of them.

The grammar
-----------

::

    line   = NL* part (sep NL* part)* [";"] NL*   with blanks (space, tab) between tokens
    sep    = ";" | "&&" | "||" | "|" | NL         NL: a line break
    part   = word (blank+ word)*                  a simple command: a program, its arguments
    word   = (plain | single | double)+           adjacent pieces make one word
    plain  = a character other than a blank, NL, ; & | ' " and the specials below
    single = ' any characters but ', backslash, NL '
    double = " any characters but ", $, backquote, backslash, NL "

A proven line is that and nothing else. Its parts are its simple commands, each as its
words after quote removal (``r''m x`` is ``rm x``).

Unproven, with the reason in :attr:`Parsed.why`:

- Unquoted specials: ``$`` (variables, ``${…}``, ``$(…)``, ``$((…))``, ``$'…'``),
  backquotes, backslashes, ``<`` and ``>`` (every redirection: ``>>``, ``<<``, ``&>``,
  ``2>&1``), a single ``&`` (a background job; ``|&``), ``(`` ``)`` (subshells, ``<(…)``),
  ``{`` ``}`` (groups, brace expansion), the globs ``*`` ``?`` ``[`` (they expand to file
  names, which can be options), ``#`` (a comment), ``~`` (a home folder), ``!``
  (negation), ``^`` (a zsh pattern).
- In double quotes: ``$``, a backquote or a backslash. In single quotes: a backslash (fish
  reads ``\\'`` there as a quote). A line break inside quotes (csh reads each line
  alone). A single-quoted string right after another (``'a''b'``: zsh's RC_QUOTES reads a
  quote there).
- An unterminated quote; a control character other than tab and line break (NUL, CR …)
  or a lone surrogate; an empty part (``a;;b``, ``| a``, ``a &&`` at the end); an empty
  line; a line longer than :data:`MAX_CHARS` (not read at all: time stays bounded).
- A part whose first word sets a variable (``NAME=value cmd``, an environment prefix) or
  is a shell keyword (:data:`KEYWORDS`: ``if``, ``for``, ``function``, ``time``, fish's
  ``not``, zsh's ``noglob`` …); any word starting with ``=`` (zsh reads ``=rm`` as rm's
  path).
- A part whose program (the base name of its first word) runs another command or code
  named in its arguments (:data:`WRAPPERS`: ``env``, ``command``, ``exec``, ``eval``,
  ``source``, ``xargs``, ``sudo``, ``nice``, ``timeout``, ``ssh``, the shells …), or is a
  builtin that evaluates a variable name (``declare``, ``let``, ``read``, ``unset`` …: bash
  runs the ``$(…)`` in a subscript such as ``'a[$(cmd)]'``) or sets one (``export``;
  ``set`` with more than options, as fish's ``set -gx PATH …``); ``printf -v``; ``test`` or
  ``[`` with ``-v`` or ``-R``; ``find`` with ``-exec``, ``-execdir``, ``-ok``, ``-okdir`` or
  ``-delete``; ``git`` with an option that runs a program or sets one (:func:`_git_problem`:
  ``-c``, ``--config-env``, ``--exec-path`` before the subcommand; ``--upload-pack``,
  ``--receive-pack``, ``--exec``, ``--extcmd``, ``--config``, ``--template`` and their
  abbreviations after it; ``clone -u``/``-c``, ``ls-remote -u``, ``rebase -x``,
  ``difftool -x``, ``grep -O``; ``git config``, ``filter-branch``, ``submodule foreach``,
  ``bisect run``).

A proven line tells which programs start, with which words; not what they do then. Outside
it stay: what a program does with its arguments (``python -c``, ``awk``'s ``system()``,
``tar --to-command``, ``make``, a script), wrappers the list does not know, git's own
configuration (hooks, aliases, filters), and functions or aliases the shell's startup
files (``BASH_ENV``, ``.zshenv``) define.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

MAX_CHARS = 10_000  # longer lines are unproven, unread: parsing stays bounded in time

BLANKS = " \t"

# Shell reserved words across bash, zsh, ksh and fish (and ``-``, zsh's precommand modifier).
KEYWORDS = frozenset({
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
    "do", "done", "in", "function", "time", "coproc", "{", "}", "!", "[[", "]]", "repeat",
    "foreach", "end", "begin", "not", "and", "or", "switch", "-", "nocorrect", "noglob"})

# Programs whose work is to run another command or code named in their arguments, and
# shell builtins that evaluate text (a name, an array subscript, arithmetic) or change what
# a later name runs (alias, hash, trap).
WRAPPERS = frozenset({
    # run another program
    "env", "command", "builtin", "exec", "xargs", "sudo", "doas", "su", "runuser", "pkexec",
    "sg", "nice", "nohup", "timeout", "stdbuf", "setsid", "time", "watch", "chroot",
    "unshare", "nsenter", "flock", "ionice", "chrt", "taskset", "prlimit", "setpriv",
    "capsh", "strace", "ltrace", "valgrind", "gdb", "busybox", "toybox", "parallel", "ssh",
    "script", "expect", "unbuffer", "systemd-run", "run-parts", "firejail", "bwrap",
    "fakeroot", "tmux", "screen", "dbus-run-session", "xvfb-run", "torsocks",
    "proxychains", "proxychains4", "entr",
    # shells
    "sh", "ash", "bash", "rbash", "dash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "oksh",
    "yash", "posh", "fish", "csh", "tcsh", "rc", "es", "nu", "elvish", "xonsh", "pwsh",
    # builtins that run code or change what a name runs
    "eval", "source", ".", "trap", "alias", "fc", "hash", "enable", "complete", "compgen",
    "bind", "emulate", "autoload", "zmodload", "sched", "functions",
    # builtins that evaluate a variable name, a subscript or arithmetic
    "let", "declare", "typeset", "local", "readonly", "export", "unset", "read", "mapfile",
    "readarray", "getopts", "wait", "integer", "float", "vared"})

FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete"})

_SPECIALS = {
    "$": "$ (a variable, an expansion, a substitution or a $'…' string)",
    "`": "a backquote (command substitution)",
    "\\": "a backslash",
    "<": "a redirection (<)",
    ">": "a redirection (>)",
    "&": "a single & (a background job)",
    "(": "a parenthesis (a subshell or substitution)",
    ")": "a parenthesis (a subshell or substitution)",
    "{": "a brace (a group or brace expansion)",
    "}": "a brace (a group or brace expansion)",
    "*": "an unquoted * (it expands to file names)",
    "?": "an unquoted ? (it expands to file names)",
    "[": "an unquoted [ (it expands to file names)",
    "#": "# (a comment)",
    "~": "~ (a home folder)",
    "!": "! (negation)",
    "^": "^ (a pattern in zsh)",
}
_ASSIGNMENT = re.compile(r"[^=/\s]+\+?=")  # any NAME= (zsh allows non-ASCII names)


@dataclass(frozen=True)
class Parsed:
    """A shell line as :func:`parse` read it."""

    parts: tuple[tuple[str, ...], ...]  # each simple command's words; () when unreadable
    proven: bool                        # what it runs is exactly ``parts``
    why: str = ""                       # for a person: what could not be judged


class _Unproven(Exception):
    pass


def _at(what: str, index: int) -> _Unproven:
    return _Unproven(f"{what} at character {index + 1}")


def parse(command: str) -> Parsed:
    """``command`` read by the grammar of the module text. Never raises; linear in time."""
    try:
        if not isinstance(command, str):
            return Parsed((), False, "it is not text")
        if len(command) > MAX_CHARS:
            return Parsed((), False, f"it is longer than {MAX_CHARS:,} characters")
        return _parse(command)
    except Exception as exc:  # noqa: BLE001 - a parser of hostile text must answer
        return Parsed((), False, f"it could not be read ({type(exc).__name__})")


@lru_cache(maxsize=256)
def _parse(command: str) -> Parsed:
    try:
        parts = _parts(_tokens(command))
    except _Unproven as exc:
        return Parsed((), False, str(exc))
    for words in parts:
        problem = _part_problem(words)
        if problem:
            return Parsed(parts, False, problem)
    return Parsed(parts, True)


def _tokens(text: str) -> list[tuple[str, str]]:
    """The words (``("w", word)``) and separators (``("op", op)``) of ``text``."""
    for index, char in enumerate(text):
        if char not in "\t\n" and unicodedata.category(char) in ("Cc", "Cs"):
            raise _at(f"a control character (U+{ord(char):04X})", index)
    tokens: list[tuple[str, str]] = []
    word: list[str] | None = None
    i, n = 0, len(text)

    def flush() -> None:
        nonlocal word
        if word is not None:
            tokens.append(("w", "".join(word)))
            word = None

    while i < n:
        char = text[i]
        if char in BLANKS:
            flush()
            i += 1
        elif char in ";\n":
            flush()
            tokens.append(("op", char))
            i += 1
        elif char == "|" or text.startswith("&&", i):
            flush()
            op = text[i:i + 2] if text.startswith(("||", "&&"), i) else "|"
            tokens.append(("op", op))
            i += len(op)
        elif char in "'\"":
            end = text.find(char, i + 1)
            if end < 0:
                raise _at(f"an unterminated {char} quote", i)
            body = text[i + 1:end]
            banned = "\\\n" if char == "'" else "$`\\\n"
            for offset, inner in enumerate(body):
                if inner in banned:
                    what = {"\n": "a line break", "\\": "a backslash", "$": "$",
                            "`": "a backquote"}[inner]
                    quotes = "single" if char == "'" else "double"
                    raise _at(f"{what} inside {quotes} quotes", i + 1 + offset)
            if char == "'" and text.startswith("'", end + 1):
                raise _at("two single-quoted strings touching ('a''b')", end)
            word = word if word is not None else []
            word.append(body)
            i = end + 1
        elif char in _SPECIALS:
            raise _at(_SPECIALS[char], i)
        else:
            word = word if word is not None else []
            word.append(char)
            i += 1
    flush()
    return tokens


def _parts(tokens: list[tuple[str, str]]) -> tuple[tuple[str, ...], ...]:
    parts: list[tuple[str, ...]] = []
    i, n = 0, len(tokens)
    while i < n and tokens[i] == ("op", "\n"):
        i += 1
    if i == n:
        raise _Unproven("it is empty")
    while True:
        words: list[str] = []
        while i < n and tokens[i][0] == "w":
            words.append(tokens[i][1])
            i += 1
        if not words:
            where = f"before {tokens[i][1]!r}" if i < n else "at the end"
            raise _Unproven(f"it has an empty command {where}")
        parts.append(tuple(words))
        if i == n:
            break
        op = tokens[i][1]
        i += 1
        while i < n and tokens[i] == ("op", "\n"):
            i += 1
        if i == n:
            if op in (";", "\n"):
                break
            raise _Unproven(f"it ends with {op!r}")
    return tuple(parts)


def program(words: tuple[str, ...]) -> str:
    """The program a simple command names: its first word's base name (``/bin/rm``: rm)."""
    return posixpath.basename(words[0]) if words else ""


def _part_problem(words: tuple[str, ...]) -> str:
    first, name, args = words[0], program(words), words[1:]
    shown = " ".join(words)
    if len(shown) > 60:
        shown = shown[:57] + "…"
    if _ASSIGNMENT.match(first):
        return f"{first.split('=', 1)[0]}= sets a variable for the command ({shown})"
    if first in KEYWORDS:
        return f"{first} is a shell keyword ({shown})"
    for word in words:
        if word.startswith("="):
            return f"the word {word!r} starts with = (zsh reads =name as a program's path)"
    if name in WRAPPERS:
        return f"{name} runs another command or code ({shown})"
    if name == "find":
        found = next((a for a in args if a in FIND_ACTIONS), None)
        if found:
            return f"find {found} runs a command or deletes ({shown})"
    if name in ("test", "[") and any(a in ("-v", "-R") for a in args):
        return f"{name} -v evaluates a variable name ({shown})"
    if name == "printf" and any(a.startswith("-v") for a in args):
        return f"printf -v evaluates a variable name ({shown})"
    if name == "set" and _set_names_a_value(args):
        return f"set with a value sets variables (fish: PATH) ({shown})"
    if name == "git":
        problem = _git_problem(args)
        if problem:
            return f"{problem} ({shown})"
    return ""


def _set_names_a_value(args: tuple[str, ...]) -> bool:
    """Whether ``set`` is given more than options (``set -euo pipefail`` is only options;
    fish's ``set -gx PATH …`` and ``set -- a b`` are not)."""
    after_o = False
    for arg in args:
        if arg[:1] in ("-", "+") and arg not in ("-", "--", "+"):
            after_o = "o" in arg[1:]
        elif after_o:
            after_o = False
        else:
            return True
    return False


# git options that make it run a program (long options may be abbreviated to a prefix).
_GIT_GLOBAL_RUNNING = ("--config-env", "--exec-path")
_GIT_GLOBAL_VALUED = frozenset({"-C", "--git-dir", "--work-tree", "--namespace",
                                "--super-prefix", "--attr-source", "--list-cmds"})
_GIT_RUNNING = ("--upload-pack", "--receive-pack", "--exec", "--extcmd",
                "--open-files-in-pager", "--config", "--template")
_GIT_RUNNING_SHORT = {"clone": "cu", "ls-remote": "u", "rebase": "x", "difftool": "x",
                      "grep": "O"}
_GIT_RUNNING_SUBCOMMANDS = {"config": "", "filter-branch": "", "submodule": "foreach",
                            "bisect": "run"}
# The git subcommands a line may be proven with: everyday work on a repository. Anything
# else (an alias, which may be !a-shell-command; send-email, instaweb, help --web,
# fast-import, archive, difftool …) is not proven.
_GIT_SUBCOMMANDS = frozenset({
    "status", "log", "diff", "show", "branch", "tag", "add", "commit", "restore", "checkout",
    "switch", "stash", "fetch", "pull", "push", "merge", "rebase", "reset", "rm", "mv",
    "grep", "blame", "describe", "rev-parse", "rev-list", "ls-files", "ls-tree", "cat-file",
    "remote", "shortlog", "reflog", "cherry-pick", "revert", "init", "clone", "worktree",
    "version", "clean", "cherry", "range-diff", "whatchanged", "show-ref", "for-each-ref",
    "merge-base", "name-rev", "count-objects", "fsck", "gc", "prune", "submodule", "bisect",
    "sparse-checkout", "am", "apply", "format-patch", "bundle", "notes", "maintenance"})
# Options that write a file the line names (what a > redirection would do), or pick the
# repository or the pager: not proven, wherever they stand.
_GIT_WRITING = ("--output", "--output-directory", "--export-marks", "--import-marks",
                "--git-dir", "--work-tree", "--paginate")


def _abbreviates(option: str, names: tuple[str, ...]) -> str:
    """The option of ``names`` that ``option`` (``--name[=value]``) spells or abbreviates."""
    if not option.startswith("--") or len(option) < 3:
        return ""
    head = option.split("=", 1)[0]
    return next((name for name in names if name.startswith(head)), "")


def _git_problem(args: tuple[str, ...]) -> str:
    """Why a git command line may run a program it names, or ""."""
    for arg in args:
        written = _abbreviates(arg, _GIT_WRITING)
        if written:
            return f"git {written} writes a file or picks a pager or repository"
    i = 0
    while i < len(args) and args[i].startswith("-"):
        option = args[i]
        if option.startswith("-c") or _abbreviates(option, _GIT_GLOBAL_RUNNING):
            return f"git {option.split('=', 1)[0]} can make git run a program"
        if option == "-p":  # (before the subcommand: --paginate, the configured pager)
            return "git -p runs the configured pager"
        i += 2 if option in _GIT_GLOBAL_VALUED else 1
    if i >= len(args):
        return ""
    sub, rest = args[i], args[i + 1:]
    if sub not in _GIT_SUBCOMMANDS:
        return f"git {sub} is not among the subcommands Errands can judge (an alias may run a shell command)"
    if sub in _GIT_RUNNING_SUBCOMMANDS:
        needed = _GIT_RUNNING_SUBCOMMANDS[sub]
        if not needed or needed in rest:
            return f"git {sub} {needed}".rstrip() + " can make git run a program"
    letters = _GIT_RUNNING_SHORT.get(sub, "")
    for arg in rest:
        long = _abbreviates(arg, _GIT_RUNNING)
        if long:
            return f"git {sub} {long} runs a program"
        if (letters and arg.startswith("-") and not arg.startswith("--")
                and any(letter in arg[1:] for letter in letters)):
            return f"git {sub} {arg} may run a program"
    return ""
