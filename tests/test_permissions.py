"""The permission model: defaults, global and automation rules, untrusted escalation, and
the parser of the global rules setting."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errands.agent.permissions import (DEFAULT_ACTIONS, ESCALATED_TOOLS, RULE_TOOLS, Verdict,
                                       decide, parse_rules, rule_matches, subject_of)
from errands.agent.tools.base import EFFECTS, ToolSpec
from errands.definition import TOOL_NAMES, Permissions, Rule
from errands.errors import InvalidInput

_SUBJECTS = {"run_command": "command", "read_file": "path", "write_file": "path",
             "edit_file": "path", "list_files": "path", "search_files": "path",
             "fetch_url": "url"}
_EFFECTS = {"run_command": "exec", "read_file": "read", "write_file": "write",
            "edit_file": "write", "list_files": "read", "search_files": "read",
            "fetch_url": "network", "notify": "notify", "ask_user": "ask", "finish": "control",
            "automate": "automate"}
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
                "write": "ask", "exec": "ask", "network": "ask", "automate": "ask"}
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
        assert result.action == "ask" and "web content" in result.reason
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
