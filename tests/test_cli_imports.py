"""A command imports only what it needs, so that scripts and status bars calling `errands`
many times a day get an answer at once: ``--version`` and ``--help`` need neither a
database driver nor asyncio, and ``list``, ``show`` and ``runs`` with ``--json`` ask a
running engine over its channel with the standard library alone. Checked in a fresh
interpreter for each command (what a later change brings back in fails here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pg_support import handed_on

ERRANDS = str(Path(sys.executable).parent / "errands")
HEAVY = ("sqlalchemy", "asyncio", "errands.store", "errands.engine.core", "PySide6")
PROBE = """
import json, sys
from errands.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _env(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRANDS_")}
    env["ERRANDS_DATA_DIR"] = str(data)
    return handed_on(env)  # (and the PostgreSQL pass's catalogue)


def loaded(data: Path, *argv: str) -> tuple[int, set[str], str]:
    """(exit code, modules loaded, stdout) of one command in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True,
                          text=True, env=_env(data), timeout=60)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], set(report["modules"]), done.stdout


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A running ``errands serve`` with one automation: (data folder, its id)."""
    data = tmp_path / "data"
    env = _env(data)
    made = subprocess.run([ERRANDS, "add", "--title", "Backup", "--command", "true",
                           "--schedule", "every:1h", "--paused", "--json"],
                          capture_output=True, text=True, env=env, check=True, timeout=60)
    ident = json.loads(made.stdout)["id"]
    proc = subprocess.Popen([ERRANDS, "serve"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "Errands engine running" in line, line
    try:
        yield data, ident
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


@pytest.mark.catalogue_free
@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["list", "--help"]])
def test_version_and_help_load_no_database_and_no_asyncio(tmp_path: Path,
                                                          argv: list[str]) -> None:
    code, modules, out = loaded(tmp_path / "data", *argv)
    assert code == 0 and out
    assert heavy(modules) == []
    # nor what reads the values the help only names (schedules, tool servers, the channel)
    readers = ("errands.schedule_spec", "errands.tool_servers", "errands.channel",
               "errands.timeutil", "errands.jsondoc", "zoneinfo", "socket")
    assert sorted(m for m in readers if m in modules) == []


def test_what_a_running_engine_answers_costs_no_database_driver(
        engine: tuple[Path, str]) -> None:
    data, ident = engine
    for argv in (["list", "--json"], ["show", ident[:8], "--json"],
                 ["runs", ident, "--json"], ["list"]):
        code, modules, out = loaded(data, *argv)
        assert code == 0, (argv, out)
        assert heavy(modules) == [], argv
    for argv in (["events"], ["events", "--json"]):  # (the channel's client is asyncio's)
        code, modules, out = loaded(data, *argv)
        assert code == 0 and "revision" in out, (argv, out)
        assert [m for m in heavy(modules) if not m.startswith("asyncio")] == [], argv
    listed = json.loads(loaded(data, "list", "--json")[2])
    assert [a["id"] for a in listed["automations"]] == [ident]


def test_the_engine_and_the_database_give_the_same_documents(
        engine: tuple[Path, str], tmp_path: Path) -> None:
    """The same commands, answered by the engine and then read from the database."""
    data, ident = engine
    asked = {name: json.loads(loaded(data, *argv)[2]) for name, argv in (
        ("list", ["list", "--json"]), ("show", ["show", ident, "--json"]),
        ("runs", ["runs", ident, "--json"]))}
    copy = tmp_path / "copy"  # the same database, no engine on it
    copy.mkdir()
    for name in os.listdir(data):
        if name.startswith("errands.sqlite3"):
            (copy / name).write_bytes((data / name).read_bytes())
    read = {name: json.loads(loaded(copy, *argv)[2]) for name, argv in (
        ("list", ["list", "--json"]), ("show", ["show", ident, "--json"]),
        ("runs", ["runs", ident, "--json"]))}
    assert asked == read
    # the listing the engine renders is the very text the database path prints
    assert loaded(data, "list", "--json")[2] == loaded(copy, "list", "--json")[2]


def test_an_unknown_id_is_refused_alike_by_the_engine(engine: tuple[Path, str]) -> None:
    data, _ = engine
    done = subprocess.run([ERRANDS, "show", "nosuchid", "--json"], capture_output=True,
                          text=True, env=_env(data), timeout=60)
    assert done.returncode == 3
    assert json.loads(done.stderr)["error"]["code"] == "not_found"


@pytest.mark.parametrize("refusal", [("op", "unknown operation 'automations'"),
                                     ("rendered", "unknown argument 'rendered'")])
def test_an_engine_without_the_operation_leaves_the_answer_to_the_database(
        engine: tuple[Path, str], monkeypatch: pytest.MonkeyPatch,
        refusal: tuple[str, str]) -> None:
    """The app still open from before an update: its engine does not know ``automations``
    (or its ``rendered`` argument); ``list`` reads the database instead of failing."""
    import io
    from contextlib import redirect_stdout

    from errands import channel
    from errands.cli import main, routing  # noqa: F401 (imported now: a module first
    # imported while request_sync is patched would keep the fake after this test)
    from errands.errors import InvalidInput

    data, ident = engine

    def old_engine(*_args: object, **_kwargs: object) -> object:
        raise InvalidInput(refusal[0], refusal[1], "one of …", "ping")

    monkeypatch.setattr(channel, "request_sync", old_engine)
    monkeypatch.setattr("errands.cli.reading.request_sync", old_engine)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["list", "--json", "--data-dir", str(data)]) == 0
    assert [a["id"] for a in json.loads(out.getvalue())["automations"]] == [ident]


def test_only_the_command_that_runs_has_its_grammar_built() -> None:
    """Building every command's options took as long as the interpreter's start: the
    command line builds the one that runs, and names the others (with their help line) so
    that ``errands --help`` still lists them all and a wrong name is still refused."""
    import argparse

    from errands.cli.parser import ALL, build_parser, parse_command_line

    def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return dict(sub.choices)

    parser, args, extra = parse_command_line(["list", "--archived", "--json"])
    built = commands(parser)
    assert args.command_name == "list" and args.archived and extra == []
    assert {a.dest for a in built["list"]._actions} >= {"archived", "json", "data_dir"}
    assert [a.dest for a in built["add"]._actions] == []  # named only
    assert set(built) == set(commands(build_parser(ALL)))  # every command named
    everything = build_parser(ALL)
    assert all(len(p._actions) > 0 for p in commands(everything).values())
