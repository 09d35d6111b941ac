"""The permission model: defaults, global and automation rules, untrusted escalation, and
the parser of the global rules setting."""

from __future__ import annotations

from typing import Any

import pytest
import re
import shlex
import time

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from errands.agent.permissions import (DEFAULT_ACTIONS, ESCALATED_TOOLS, RULE_TOOLS, Verdict,
                                       decide, literal, parse_rules, rule_matches, subject_of)
from errands.agent.shell import MAX_CHARS, Parsed, parse
from errands.agent.tools.base import EFFECTS, ToolSpec
from errands.definition import TOOL_NAMES, Permissions, Rule
from errands.errors import InvalidInput

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

_SUBJECTS = {"run_command": "command", "read_file": "path", "write_file": "path",
             "edit_file": "path", "list_files": "path", "search_files": "path",
             "fetch_url": "url"}
_EFFECTS = {"run_command": "exec", "read_file": "read", "write_file": "write",
            "edit_file": "write", "list_files": "read", "search_files": "read",
            "fetch_url": "network", "notify": "notify", "ask_user": "ask", "finish": "control",
            "automate": "automate", "list_mail": "read", "read_mail": "read",
            "send_mail": "send"}
# Every tool as the model will know it; notify, ask_user, finish and automate are built
# elsewhere, so their specs are stand-ins with the effect class they will have.
SPECS = {name: ToolSpec(name=name, effect=_EFFECTS[name], description="", parameters={},
                        subject=_SUBJECTS.get(name)) for name in TOOL_NAMES}
RUN, READ, WRITE, FETCH = (SPECS[n] for n in ("run_command", "read_file", "write_file",
                                              "fetch_url"))
NOTIFY, AUTOMATE = SPECS["notify"], SPECS["automate"]
ASK = Permissions()


def verdict(spec: ToolSpec, subject: str | None = None, *, rules: tuple[Rule, ...] = (),
            permissions: Permissions = ASK, untrusted: bool = False) -> Verdict:
    arguments = {spec.subject: subject} if spec.subject and subject is not None else {}
    return decide(spec, arguments, global_rules=rules, permissions=permissions,
                  untrusted=untrusted)


def test_defaults_follow_the_effect_class() -> None:
    assert set(DEFAULT_ACTIONS) == set(EFFECTS)
    expected = {"read": "allow", "notify": "allow", "control": "allow", "ask": "allow",
                "write": "ask", "exec": "ask", "network": "ask", "automate": "ask", "send": "ask"}
    for spec in SPECS.values():
        result = verdict(spec, "x")
        assert result.action == expected[spec.effect]
        assert result.reason == f"the default for {spec.effect} tools"


def test_a_rule_matches_tool_name_effect_class_or_star() -> None:
    for tool in ("write_file", "write", "*"):
        assert verdict(WRITE, "a.txt", rules=(Rule(tool, "*", "allow"),)).action == "allow"
    assert verdict(WRITE, "a.txt", rules=(Rule("edit_file", "*", "allow"),)).action == "ask"
    assert verdict(WRITE, "a.txt", rules=(Rule("read", "*", "allow"),)).action == "ask"


def test_patterns_glob_the_subject_and_star_matches_calls_without_one() -> None:
    notes = Rule("write_file", "notes/*", "allow")
    assert verdict(WRITE, "notes/a/b.md", rules=(notes,)).action == "allow"  # * crosses /
    assert verdict(WRITE, "./notes//b.md", rules=(notes,)).action == "allow"  # plain form
    assert verdict(WRITE, "Notes/b.md", rules=(notes,)).action == "ask"       # case counts
    assert verdict(WRITE, "src/notes/b.md", rules=(notes,)).action == "ask"
    assert verdict(NOTIFY, rules=(Rule("notify", "*", "deny"),)).action == "deny"
    assert verdict(NOTIFY, rules=(Rule("notify", "x*", "deny"),)).action == "allow"
    assert verdict(FETCH, "https://example.com/a",
                   rules=(Rule("fetch_url", "https://example.com/*", "allow"),)).action == "allow"
    assert subject_of(READ, {"path": 7}) is None and subject_of(NOTIFY, {"text": "x"}) is None
    assert subject_of(SPECS["list_files"], {}) == "."  # no path: the workdir
    assert verdict(SPECS["search_files"], rules=(Rule("read", ".", "deny"),)).action == "deny"


def test_last_matching_rule_wins_and_names_itself() -> None:
    rules = (Rule("run_command", "*", "allow"), Rule("run_command", "rm *", "ask"),
             Rule("exec", "git *", "allow"))
    assert verdict(RUN, "git status", rules=rules) == Verdict(
        "allow", 'your rule 3 (exec "git *": allow)')
    assert verdict(RUN, "rm -rf build", rules=rules) == Verdict(
        "ask", 'your rule 2 (run_command "rm *": ask)')
    assert verdict(RUN, "ls", rules=rules).reason == 'your rule 1 (run_command "*": allow)'


def test_a_global_deny_beats_every_automation_grant() -> None:
    deny = (Rule("run_command", "rm *", "deny"),)
    generous = Permissions(mode="allow_all", tools=("run_command",),
                           rules=(Rule("run_command", "*", "allow"),),
                           untrusted_ok=("run_command",))
    assert verdict(RUN, "rm -rf ~", rules=deny, permissions=generous) == Verdict(
        "deny", 'your rule 1 (run_command "rm *": deny)')
    assert verdict(RUN, "ls", rules=deny, permissions=generous).action == "allow"
    # a later global rule can lift an earlier global deny; an automation cannot
    lifted = deny + (Rule("run_command", "rm -rf build", "ask"),)
    assert verdict(RUN, "rm -rf build", rules=lifted).action == "ask"


def test_the_automation_mode_and_its_rules_override_global_allow_and_ask() -> None:
    assert verdict(RUN, "make", permissions=Permissions(mode="allow_all")) == Verdict(
        "allow", "this automation allows every tool")
    listed = Permissions(mode="allow_listed", tools=("read_file", "run_command"))
    assert verdict(RUN, "make", permissions=listed) == Verdict(
        "allow", "this automation allows run_command")
    assert verdict(WRITE, "a", permissions=listed).action == "ask"
    asks = Permissions(mode="allow_all", rules=(Rule("write_file", "secret*", "deny"),
                                                Rule("read_file", "*", "ask")))
    assert verdict(WRITE, "secrets.txt", permissions=asks) == Verdict(
        "deny", 'this automation\'s rule 1 (write_file "secret*": deny)')
    assert verdict(READ, "a", permissions=asks).action == "ask"
    global_ask = (Rule("*", "*", "ask"),)
    assert verdict(RUN, "make", rules=global_ask,
                   permissions=Permissions(mode="allow_all")).action == "allow"
    saved = Permissions(rules=(Rule("run_command", "make *", "allow"),))
    assert verdict(RUN, "make test", rules=global_ask, permissions=saved).action == "allow"


def test_an_allow_pattern_never_allows_more_command_than_it_says() -> None:
    git = Permissions(rules=(Rule("run_command", "git *", "allow"),))
    assert verdict(RUN, "git status", permissions=git).action == "allow"
    assert verdict(RUN, "git add . && git commit -m x", permissions=git).action == "allow"
    for sneaky in ("git log; rm -rf ~", "git log | sh", "git log && curl x",
                   "git log\nrm -rf ~", "git log $(rm -rf ~)", "git log `id`",
                   "git log > ~/.bashrc", "git log < /etc/passwd", "git log & rm x",
                   "git log || rm x"):
        assert verdict(RUN, sneaky, permissions=git).action == "ask", sneaky
    rm = (Rule("run_command", "rm *", "deny"),)
    for hidden in ("ls; rm -rf ~", "ls && rm x", "echo hi |rm x", "ls\nrm -rf ~"):
        assert verdict(RUN, hidden, rules=rm).action == "deny", hidden
    assert rule_matches(Rule("run_command", "git *", "ask"), RUN, "git log; ls")


def test_untrusted_content_makes_execution_and_spreading_ask() -> None:
    everything = Permissions(mode="allow_all")
    for spec in (RUN, AUTOMATE, FETCH):
        result = verdict(spec, "x", permissions=everything, untrusted=True)
        assert result.action == "ask" and "untrusted content" in result.reason
        assert result.reason.endswith("(otherwise allowed: this automation allows every tool)")
        trusted_ok = Permissions(mode="allow_all", untrusted_ok=(spec.name,))
        assert verdict(spec, "x", permissions=trusted_ok, untrusted=True).action == "allow"
    for spec in (READ, WRITE, NOTIFY):
        assert verdict(spec, "x", permissions=everything, untrusted=True).action == "allow"
    globally = (Rule("run_command", "*", "allow"),)
    assert verdict(RUN, "ls", rules=globally, untrusted=True).action == "ask"
    denied = (Rule("fetch_url", "*", "deny"),)
    assert verdict(FETCH, "https://x", rules=denied, untrusted=True).action == "deny"


def test_a_truer_subject_replaces_the_argument() -> None:
    deny = (Rule("read_file", "secrets/*", "deny"),)
    assert decide(READ, {"path": "link/key"}, global_rules=deny, permissions=ASK,
                  untrusted=False, subject="secrets/key").action == "deny"
    assert decide(READ, {"path": "link/key"}, global_rules=deny, permissions=ASK,
                  untrusted=False).action == "allow"


# --------------------------------------------------------------------- the parser

def test_parse_rules_reads_the_global_setting() -> None:
    text = ('[{"tool": "run_command", "pattern": "git *", "action": "allow"},'
            ' {"tool": "write", "action": "ask"}, {"tool": "*", "pattern": "", "action": "deny"}]')
    assert parse_rules(text, "agent_rules") == (Rule("run_command", "git *", "allow"),
                                                Rule("write", "*", "ask"),
                                                Rule("*", "*", "deny"))
    assert parse_rules([], "agent_rules") == () and parse_rules(None, "agent_rules") == ()
    assert set(TOOL_NAMES) | set(EFFECTS) | {"*"} == set(RULE_TOOLS)
    assert len(RULE_TOOLS) == len(set(RULE_TOOLS))


@pytest.mark.parametrize("doc, field, words", [
    ({"tool": "x"}, "agent_rules", "expected a list"),
    ('{"a": 1', "agent_rules", "not valid JSON"),
    ([{"tool": "rm", "action": "allow"}], "agent_rules[0].tool", "unknown tool 'rm'"),
    ([{"tool": "read", "action": "allow"}, {"tool": "exec", "action": "maybe"}],
     "agent_rules[1].action", "unsupported action 'maybe'"),
    ([{"tool": "exec", "pattern": 5, "action": "deny"}], "agent_rules[0].pattern",
     "expected a string"),
    ([{"tool": "exec", "pattern": "a\nb", "action": "deny"}], "agent_rules[0].pattern",
     "control character"),
    ([{"tool": "exec", "pattern": "x" * 1001, "action": "deny"}], "agent_rules[0].pattern",
     "1001 characters"),
    ([{"tool": "exec", "action": "deny", "why": 1}], "agent_rules[0].why", "unknown field"),
    (["exec"], "agent_rules[0]", "expected an object"),
])
def test_parse_rules_names_the_field_the_shape_and_an_example(doc: Any, field: str,
                                                             words: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_rules(doc, "agent_rules")
    assert caught.value.field == field and words in caught.value.message
    assert caught.value.expected and caught.value.example


def test_automation_rules_still_name_tools_only() -> None:
    """The definition's own rules share the parser, with tool names alone, as before."""
    from datetime import datetime, timezone

    from errands.definition import ParseContext, parse_definition
    doc = {"title": "t", "trigger": {"kind": "manual"},
           "runner": {"kind": "agent", "prompt": "p"},
           "permissions": {"rules": [{"tool": "exec", "action": "allow"}]}}
    with pytest.raises(InvalidInput) as caught:
        parse_definition(doc, ParseContext(now=datetime.now(timezone.utc)))
    assert caught.value.field == "permissions.rules[0].tool"


# ------------------------------------------------------------------ properties

_TOOLS = st.sampled_from(sorted(SPECS))
_SUBJECT = st.one_of(st.none(), st.sampled_from(["git status", "rm -rf ~", "ls; rm x",
                                                 "notes/a.md", "secrets/key", "https://x/y",
                                                 "", "*"]), st.text(max_size=12))
_RULES = st.lists(st.builds(Rule, tool=st.sampled_from(RULE_TOOLS),
                            pattern=st.sampled_from(["*", "git *", "rm *", "notes/*",
                                                     "secrets/*", "https://*", "?*", "x"]),
                            action=st.sampled_from(["allow", "ask", "deny"])), max_size=5)
_PERMISSIONS = st.builds(Permissions, mode=st.sampled_from(["ask", "allow_listed", "allow_all"]),
                         tools=st.lists(st.sampled_from(TOOL_NAMES), max_size=4).map(tuple),
                         rules=_RULES.map(tuple),
                         untrusted_ok=st.lists(st.sampled_from(TOOL_NAMES),
                                               max_size=3).map(tuple))
_RANK = {"deny": 0, "ask": 1, "allow": 2}
PROPERTY = settings(max_examples=400, deadline=None, database=None)


@PROPERTY
@given(_TOOLS, _SUBJECT, _RULES, _PERMISSIONS, st.booleans(),
       st.sampled_from(["name", "effect", "*"]))
def test_a_final_global_deny_is_never_overridden(name: str, subject: str | None,
                                                 rules: list[Rule], permissions: Permissions,
                                                 untrusted: bool, by: str) -> None:
    spec = SPECS[name]
    tool = {"name": spec.name, "effect": spec.effect, "*": "*"}[by]
    result = verdict(spec, subject, rules=(*rules, Rule(tool, "*", "deny")),
                     permissions=permissions, untrusted=untrusted)
    assert result.action == "deny" and result.reason.startswith("your rule")


@PROPERTY
@given(_TOOLS, _SUBJECT, _RULES, _PERMISSIONS, st.booleans(),
       st.sampled_from(["allow", "ask", "deny"]))
def test_the_last_matching_automation_rule_wins(name: str, subject: str | None,
                                                rules: list[Rule], permissions: Permissions,
                                                untrusted: bool, action: str) -> None:
    spec = SPECS[name]
    last = Rule(spec.name, "*", action)  # type: ignore[arg-type]
    mine = Permissions(permissions.mode, permissions.tools, (*permissions.rules, last),
                       permissions.untrusted_ok)
    result = verdict(spec, subject, rules=tuple(rules), permissions=mine, untrusted=untrusted)
    before_automation = verdict(spec, subject, rules=tuple(rules))
    if before_automation.action == "deny" and before_automation.reason.startswith("your"):
        assert result == before_automation  # a global deny stays
    elif (action == "allow" and spec.subject == "command" and subject is not None
          and not parse(subject).proven
          and any(r.action == "deny" and r.tool in (spec.name, spec.effect, "*")
                  for r in (*rules, *mine.rules))):
        # a deny rule makes an unproven command ask, whatever a later allow rule says
        assert result.action == "ask" and "cannot be checked" in result.reason
    elif (action == "allow" and untrusted and name in ESCALATED_TOOLS
          and name not in permissions.untrusted_ok):
        assert result.action == "ask"
    else:
        assert result.action == action
        assert result.reason.startswith("this automation's rule")


@PROPERTY
@given(_TOOLS, _SUBJECT, _RULES, _PERMISSIONS)
def test_untrusted_only_ever_turns_escalated_allows_into_asks(
        name: str, subject: str | None, rules: list[Rule], permissions: Permissions) -> None:
    spec = SPECS[name]
    trusted = verdict(spec, subject, rules=tuple(rules), permissions=permissions)
    untrusted = verdict(spec, subject, rules=tuple(rules), permissions=permissions,
                        untrusted=True)
    assert _RANK[untrusted.action] <= _RANK[trusted.action]
    if untrusted.action != trusted.action:
        assert (trusted.action, untrusted.action) == ("allow", "ask")
        assert name in ESCALATED_TOOLS and name not in permissions.untrusted_ok


@PROPERTY
@given(_TOOLS, _SUBJECT, _RULES, _PERMISSIONS, st.booleans(), _RULES)
def test_rules_for_other_tools_change_nothing(name: str, subject: str | None,
                                              rules: list[Rule], permissions: Permissions,
                                              untrusted: bool, extra: list[Rule]) -> None:
    spec = SPECS[name]
    unrelated = tuple(r for r in extra if r.tool not in (spec.name, spec.effect, "*"))
    base = verdict(spec, subject, rules=tuple(rules), permissions=permissions,
                   untrusted=untrusted)
    mixed = verdict(spec, subject, rules=unrelated + tuple(rules),
                    permissions=permissions, untrusted=untrusted)
    assert mixed.action == base.action


# ------------------------------------------------------- commands: what rules mean on shell

GIT_ALLOWED = Permissions(rules=(Rule("run_command", "git *", "allow"),))
RM_DENIED = (Rule("run_command", "rm *", "deny"),)

# With `git *` allowed, each of these would run something besides git (or make git run it).
GIT_ESCAPES = [
    "git --version ${x:=$'\\x24(touch F)'} ${x@P}",   # the review's finding
    "git --version `touch F`",
    "git --version \"`touch F`\"",
    'git log "$(touch F)"',
    "git log $'\\x3b' touch F",
    "git log ${PAGER}",
    "git log $((1))",
    "git log >F",
    "git log 2>&1 >>F",
    "git log &>F",
    "git log <(touch F)",
    "git log & touch F",
    "git log |& touch F",
    "git log; (touch F)",
    "git log && { touch F; }",
    "git log *",
    "git log ~/x",
    "git log \\; touch F",
    "GIT_PAGER='touch F' git log",
    "git -c core.pager='touch F' log",
    "git -c core.fsmonitor='touch F' status",
    "git --config-env=core.pager=X log",
    "git --exec-path=/tmp/evil log",
    "git clone -u 'touch F' x y",
    "git fetch --upload-pack='touch F' origin",
    "git fetch --upl='touch F' origin",          # git takes an abbreviated long option
    "git push --receive-pack='touch F' origin",
    "git archive --remote=x --exec='touch F' HEAD",
    "git submodule foreach 'touch F'",
    "git bisect run touch F",
    "git rebase --exec 'touch F' main",
    "git difftool -x 'touch F'",
    "git grep -O'touch F' x",
    "git config core.fsmonitor 'touch F'",
    "git log | sh",
    "git log\rtouch F",
    "git log\x00touch F",
]


@pytest.mark.parametrize("command", GIT_ESCAPES)
def test_an_allow_pattern_allows_only_what_it_can_prove(command: str) -> None:
    assert verdict(RUN, command, permissions=GIT_ALLOWED).action == "ask"
    assert not rule_matches(Rule("run_command", "git *", "allow"), RUN, command)


@pytest.mark.parametrize("command, parts", [
    ("git status", [["git", "status"]]),
    ("git commit -m 'fix: a b' && git push", [["git", "commit", "-m", "fix: a b"],
                                             ["git", "push"]]),
    ('git log --format="%h %s" -n 3', [["git", "log", "--format=%h %s", "-n", "3"]]),
    ("'git' st''atus", [["git", "status"]]),
    ("git status;\n\ngit diff;", [["git", "status"], ["git", "diff"]]),
    ("git log |\n  git status", [["git", "log"], ["git", "status"]]),
])
def test_a_proven_command_is_allowed_part_by_part(command: str, parts: list[list[str]]) -> None:
    assert parse(command) == Parsed(tuple(tuple(p) for p in parts), True)
    assert verdict(RUN, command, permissions=GIT_ALLOWED).action == "allow"


# With `rm *` denied, each of these runs rm (or an equal) in a way the text hides.
RM_ESCAPES = [
    "bash -c 'rm -rf x'", "sh -c 'rm x'", "/bin/sh -c 'rm x'", "zsh -c 'rm x'",
    "echo $(rm x)", "echo `rm x`", "echo \"$(rm x)\"", "FOO=1 rm x", "/bin/rm x",
    "/usr/bin/rm -rf x", "\\rm x", "r''m x", "r\"\"m x", '"rm" x', "'rm' -rf x",
    "command rm x", "builtin rm x", "exec rm x", "eval 'rm x'", "env rm x",
    "/usr/bin/env rm x", "env -i rm x", "sudo rm x", "nice -n 5 rm x", "nohup rm x",
    "timeout 5 rm x", "time rm x", "setsid rm x", "xargs rm", "echo x | xargs rm",
    "find . -delete", "find . -name x -exec rm ';'", "(rm x)", "{ rm x; }", "! rm x",
    "if true; then rm x; fi", "ls; rm x", "ls && rm x", "ls || rm x", "ls | rm x",
    "ls\nrm x", "rm x &", "$'rm' x", "${RM:-rm} x", "'r''m' x", "=rm x",
    "hash -p /bin/rm ls; ls x", "alias ls=rm\nls x", "trap 'rm x' EXIT",
]
_GENEROUS = Permissions(mode="allow_all", tools=("run_command",),
                        rules=(Rule("run_command", "*", "allow"),),
                        untrusted_ok=("run_command",))


@pytest.mark.parametrize("command", RM_ESCAPES)
def test_a_deny_rule_is_never_walked_around(command: str) -> None:
    for rules, permissions in (
            (RM_DENIED, Permissions(mode="allow_all")),       # a global deny, mode allow_all
            (RM_DENIED, _GENEROUS),                           # … and a later automation allow
            (RM_DENIED + (Rule("run_command", "ls *", "allow"),), Permissions()),
            ((), Permissions(mode="allow_all", rules=RM_DENIED))):   # the automation's deny
        result = verdict(RUN, command, rules=rules, permissions=permissions)
        assert result.action in ("ask", "deny"), (command, rules, permissions)
        if permissions.mode == "allow_all":  # otherwise allowed: the deny rule says why not
            assert "rm *" in result.reason, result.reason
            parsed = parse(command)
            if result.action == "ask" and not parsed.proven:
                assert parsed.why and parsed.why in result.reason
    # an unproven command asks even where the automation's own later rule allows all
    lifted = Permissions(mode="allow_all", rules=(*RM_DENIED, Rule("run_command", "*", "allow")))
    if not parse(command).proven:
        assert verdict(RUN, command, permissions=lifted).action == "ask"


@pytest.mark.parametrize("command", ["rm -rf x", "r''m x", "/bin/rm -rf x", '"rm" x',
                                     "ls && /usr/bin/rm x", "echo hi | 'rm' x"])
def test_a_proven_command_that_runs_a_denied_program_is_denied_finally(command: str) -> None:
    assert verdict(RUN, command, rules=RM_DENIED, permissions=_GENEROUS) == Verdict(
        "deny", 'your rule 1 (run_command "rm *": deny)')


def test_an_unproven_command_asks_naming_the_deny_rule_and_why() -> None:
    rules = (Rule("write_file", "*", "deny"), Rule("exec", "curl *", "deny"))
    result = verdict(RUN, "echo $HOME", rules=rules, permissions=Permissions(mode="allow_all"))
    assert result == Verdict("ask", 'your rule 2 (exec "curl *": deny) cannot be checked on this '
                                    f"command, so it asks first: {parse('echo $HOME').why}")
    assert "$" in result.reason and "character 6" in result.reason
    # a deny rule for another tool changes nothing; nor does one on a proven command
    other = (Rule("write_file", "*", "deny"),)
    assert verdict(RUN, "echo $HOME", rules=other,
                   permissions=Permissions(mode="allow_all")).action == "allow"
    assert verdict(RUN, "echo hi", rules=rules,
                   permissions=Permissions(mode="allow_all")).action == "allow"
    # an unproven command that is not otherwise allowed keeps its own reason
    assert verdict(RUN, "echo $HOME", rules=rules).reason == "the default for exec tools"


def test_a_deny_rule_names_a_program_not_an_effect() -> None:
    """Documented: another program with the same effect is not the program denied."""
    anything = Permissions(mode="allow_all")
    for other in ("unlink x", "python3 x.py", "git rm x", "shred -u x"):
        assert verdict(RUN, other, rules=RM_DENIED, permissions=anything).action == "allow"


# ------------------------------------------------------------ "always allow": the exact text

def _saved(command: str) -> Rule:
    from errands.runners.agent import AgentRunner
    from errands.records import Blocker, Decision
    rule = AgentRunner().saved_rule(Blocker("permission", "run_command", {"command": command}),
                                    Decision("approve_always"))
    assert rule is not None
    return rule


@pytest.mark.parametrize("approved, other", [
    ("echo a >> log.txt && echo b", "echo a >> log.txt && echo c"),
    ("echo a >> log.txt && echo b", "echo a >> log.txt && echo b; rm x"),
    ("echo a >> log.txt && echo b", "echo a >> log.txt"),
    ("ls *.txt > list", "ls a.txt > list"),
    ("ls *.txt > list", "ls ?.txt > list"),
    ("grep -c x [ab].log 2>&1", "grep -c x a.log 2>&1"),
    ("echo $(date) >> log", "echo $(rm x) >> log"),
])
def test_always_allow_matches_exactly_the_approved_text(approved: str, other: str) -> None:
    rule = _saved(approved)
    saved = Permissions(rules=(rule,))
    assert verdict(RUN, approved, permissions=saved) == Verdict(
        "allow", f'this automation\'s rule 1 (run_command "{rule.pattern}": allow)')
    assert verdict(RUN, f"  {approved}\n", permissions=saved).action == "allow"  # stripped
    assert verdict(RUN, other, permissions=saved).action == "ask"
    assert rule_matches(rule, RUN, approved) and not rule_matches(rule, RUN, other)


def test_a_literal_pattern_is_one_without_unescaped_wildcards() -> None:
    assert literal("echo a >> b") == "echo a >> b"
    assert literal("ls [*].txt [?] [[]x]") == "ls *.txt ? [x]"
    assert literal("ls *") is None and literal("ls ?") is None and literal("ls [ab]") is None
    assert literal("ls [!*]") is None and literal("") == ""


def test_an_exact_approval_still_asks_when_a_deny_rule_cannot_check_it() -> None:
    saved = Permissions(rules=(_saved("echo a >> log.txt"),))
    result = verdict(RUN, "echo a >> log.txt", rules=RM_DENIED, permissions=saved)
    assert result.action == "ask" and "redirection" in result.reason


# ------------------------------------------------------------------- the shell grammar

@pytest.mark.parametrize("command, words", [
    ("'a b' \"c d\" e''f", "a b|c d|ef"),
    ("echo '$HOME `x` \\' ", None),         # a backslash in single quotes: fish
    ("echo '$HOME `x` *'", "echo|$HOME `x` *"),
    ('echo "it\'s * ok"', "echo|it's * ok"),
    ("echo 'a\nb'", None),                     # a line break in quotes: csh
    ("echo a\tb", "echo|a|b"),
    ("echo a=b --c=d", "echo|a=b|--c=d"),
    ("echo 'unterminated", None),
    ('echo "unterminated', None),
    ("ls;", "ls"),
    (";ls", None),
    ("ls ;; x", None),
    ("ls &&", None),
    ("ls ||\n\nx", "ls||x"),
    ("", None),
    ("   \n ", None),
    ("# a comment", None),
    ("echo a#b", None),
    ("echo ~", None),
    ("echo a^b", None),
    ("echo é ü", "echo|é|ü"),
    ("for x in a; do echo x; done", None),
    ("declare 'a[$(touch F)]=1'", None),
    ("printf -v 'a[$(touch F)]' x", None),
    ("[ -v 'a[$(touch F)]' ]", None),
    ("[ -f x ]", None),                        # an unquoted [ is a glob character
    ("'[' -f x ']'", "[|-f|x|]"),
    ("test -f x", "test|-f|x"),
    ("set -euo pipefail; make", "set|-euo|pipefail||make"),
    ("set -gx PATH /tmp/evil; ls", None),     # fish sets a variable
    ("export PATH=.; ls", None),
    ("find . -name x -print", "find|.|-name|x|-print"),
    ("git -C sub status", "git|-C|sub|status"),
    ("git clone -q https://x/y", "git|clone|-q|https://x/y"),
    ("x" * MAX_CHARS, "x" * MAX_CHARS),
    ("x" * (MAX_CHARS + 1), None),
])
def test_the_grammar_reads_words_or_says_why_not(command: str, words: str | None) -> None:
    parsed = parse(command)
    if words is None:
        assert not parsed.proven and parsed.why
    else:
        assert parsed.proven and parsed.why == ""
        assert "||".join("|".join(p) for p in parsed.parts) == words


_FRAGMENTS = ["git", "rm", "x", " ", "\t", "\n", ";", "&&", "||", "|", "&", "$(", ")", "`",
              "'", '"', "\\", ">", "<", ">>", "2>&1", "${x}", "$'\\x24'", "*", "?", "[", "]",
              "{", "}", "(", "~", "#", "!", "^", "=", "FOO=1", "-c", "'a b'", '"a b"', "if",
              "env", "find", "-delete", "--upload-pack=x", "\x00", "\r", "é", "\ud800",
              "/bin/", "''", "-v"]
_SHELLISH = st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map("".join)


@PROPERTY
@given(st.one_of(st.text(max_size=200), _SHELLISH))
def test_parse_never_raises_and_answers_in_shape(command: str) -> None:
    parsed = parse(command)
    assert isinstance(parsed.proven, bool) and isinstance(parsed.why, str)
    assert parsed.proven == (parsed.why == "")
    assert all(isinstance(w, str) for part in parsed.parts for w in part)
    if parsed.proven:
        assert parsed.parts and all(parsed.parts)
    # and the permission model takes any text as a command
    verdict(RUN, command, rules=RM_DENIED, permissions=GIT_ALLOWED)


def test_parse_is_bounded_in_time() -> None:
    worst = ["'a' " * (MAX_CHARS // 4), "a;" * (MAX_CHARS // 2), "'" * MAX_CHARS,
             "a" * MAX_CHARS, "\n" * MAX_CHARS, "x " * (MAX_CHARS // 2), "$" * (10 ** 6),
             "git " + "-C x " * (MAX_CHARS // 5 - 1)]
    started = time.perf_counter()
    for text in worst:
        assert isinstance(parse(text), Parsed)
        verdict(RUN, text, rules=RM_DENIED, permissions=GIT_ALLOWED)
    assert time.perf_counter() - started < 2.0


_PLAIN = st.text(alphabet="abcxyz019_-./:,@%+=", min_size=1, max_size=6)
_SINGLE = st.text(st.characters(blacklist_characters="'\\\n",
                                blacklist_categories=("Cc", "Cs")), max_size=6)
_DOUBLE = st.text(st.characters(blacklist_characters='"$`\\\n',
                                blacklist_categories=("Cc", "Cs")), max_size=6)
_WORD = st.lists(st.one_of(_PLAIN, _SINGLE.map("'{}'".format), _DOUBLE.map('"{}"'.format)),
                 min_size=1, max_size=3).map("".join)
_PART = st.lists(_WORD, min_size=1, max_size=4).map(" ".join)
_LINE = st.tuples(_PART, st.lists(st.tuples(st.sampled_from(
    ["; ", ";", " && ", "&&", " || ", " | ", "|", "\n", ";\n\n"]), _PART), max_size=3)).map(
    lambda t: t[0] + "".join(sep + part for sep, part in t[1]))


@PROPERTY
@given(st.one_of(_LINE, st.lists(st.lists(st.text(max_size=8), min_size=1, max_size=4),
                                 min_size=1, max_size=3).map(
    lambda parts: " ; ".join(shlex.join(p) for p in parts))))
def test_a_proven_parse_survives_rejoining(command: str) -> None:
    parsed = parse(command)
    assume(parsed.proven)
    again = parse(" ; ".join(shlex.join(part) for part in parsed.parts))
    assert again == parsed


def _outside_quotes(text: str) -> tuple[list[int], list[int]]:
    """Insertion points of a proven line outside single quotes, and outside any quotes."""
    quote, outside_single, outside_all = "", [], []
    for index in range(len(text) + 1):
        if quote != "'":
            outside_single.append(index)
        if not quote:
            outside_all.append(index)
        if index < len(text) and text[index] in "'\"" and quote in ("", text[index]):
            quote = "" if quote else text[index]
    return outside_single, outside_all


@PROPERTY
@given(_LINE, st.data())
def test_a_substitution_or_redirection_anywhere_makes_a_line_unproven(command: str,
                                                                    data: st.DataObject) -> None:
    assume(parse(command).proven)
    outside_single, outside_all = _outside_quotes(command)
    for insert, places in (("$(", outside_single), ("`", outside_single), (">", outside_all)):
        at = data.draw(st.sampled_from(places))
        changed = command[:at] + insert + command[at:]
        assert not parse(changed).proven, changed
        assert verdict(RUN, changed, permissions=Permissions(
            mode="allow_all", rules=(Rule("run_command", "never *", "deny"),))).action == "ask"
