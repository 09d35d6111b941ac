"""Property-based guards of the script boundaries: a script's definition (its source and
limits), the paths a script names (never a way out of its folder without a rule), and the
arguments of each proposed action (a clear error, or a well-formed action)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from errands.definition import SCRIPT_LIMITS, parse_script
from errands.errors import InvalidInput
from errands.scripts.sandbox import ACTION_TYPES, Host
from errands.scripts.scope import Refused, Scope

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)
LIMITS = {name: default for name, (_, default, _) in SCRIPT_LIMITS.items()}


@given(limits=st.dictionaries(st.sampled_from([*SCRIPT_LIMITS, "cpu"]), JSON, max_size=4),
       source=st.one_of(st.text(max_size=40), JSON))
def test_a_script_definition_parses_or_names_its_field(limits: dict, source: object) -> None:
    try:
        task = parse_script({"kind": "script", "source": source, "limits": limits}, "runner")
    except InvalidInput as exc:
        assert exc.field is not None and exc.field.startswith("runner.")
        assert exc.expected and exc.example
        return
    for name, (low, _, high) in SCRIPT_LIMITS.items():
        assert low <= getattr(task.limits, name) <= high


SEGMENTS = st.sampled_from(["..", ".", "a", "b", "link", "inner", "", "x.txt"])


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=300)
@given(parts=st.lists(SEGMENTS, min_size=1, max_size=6), absolute=st.booleans(),
       access=st.sampled_from(["read", "write"]))
def test_no_path_leaves_the_folder_without_a_rule(tmp_path_factory, parts: list[str],
                                                  absolute: bool, access: str) -> None:
    root = tmp_path_factory.getbasetemp() / "scope"
    folder, outside = root / "folder", root / "outside"
    if not folder.exists():
        (folder / "inner").mkdir(parents=True)
        outside.mkdir()
        os.symlink(outside, folder / "link")
    scope = Scope.of(str(folder))
    text = "/".join(parts)
    if absolute:
        text = str(folder) + "/" + text
    try:
        path = scope.resolve(text)
        scope.check(path, access)  # type: ignore[arg-type]
    except Refused as exc:
        assert str(exc)
        return
    real = os.path.realpath(path)
    assert real == str(folder.resolve()) or real.startswith(str(folder.resolve()) + os.sep)


@given(kind=st.sampled_from([*ACTION_TYPES, "exec", ""]),
       args=st.dictionaries(st.sampled_from(["path", "text", "from", "to", "key", "value",
                                             "message", "title", "automation", "input",
                                             "subject", "body"]), JSON, max_size=5))
def test_an_action_is_well_formed_or_a_clear_error(kind: str, args: dict) -> None:
    host = Host({"limits": LIMITS})
    reply = json.loads(host.act(kind, json.dumps(args)))
    if "error" in reply:
        assert reply["error"] and not host.actions
        return
    [action] = host.actions
    assert action["type"] == kind
    for key in ("path", "from", "to", "key", "message", "subject", "automation"):
        if key in action and action[key] is not None:
            assert isinstance(action[key], str)
    json.dumps(action)


def test_a_read_answer_is_a_value_or_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello")
    (tmp_path / "bin").write_bytes(b"\xff\xfe\x00")
    host = Host({"limits": {**LIMITS, "rows": 1}, "scope": Scope.of(str(tmp_path)).to_dict()})
    assert json.loads(host.read("files.read", '["a.txt"]')) == {"value": "hello"}
    assert "UTF-8" in json.loads(host.read("files.read", '["bin"]'))["error"]
    assert len(json.loads(host.read("files.list", '[".", {}]'))["value"]) == 1
    assert host.truncated   # two files, one row allowed: flagged in the run's record
    assert json.loads(host.read("files.stat", '["gone"]')) == {"value": None}
    assert "count" in json.loads(host.read("runs.recent", '["x"]'))["error"]
