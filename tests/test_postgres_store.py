"""The catalogue on PostgreSQL (issue 32, its first part): where the catalogue is named, the
password in the keyring, migrations and refusals on a real server, the store's work on both
databases (``catalogue_location`` runs those tests on SQLite and PostgreSQL), and the
command line as people use it: two data folders sharing one catalogue, one engine serving
it, changes made through that engine, reads from anywhere."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_support import errands
from errands.catalog import Catalog
from errands.cli import main
from errands.db.location import (ENV, KEYRING_SERVICE, ServerDatabase, database_location,
                                 parse_database_url)
from errands.errors import InvalidInput, StoreError
from errands.migrations import HEAD
from errands.store import Store

# (PostgreSQL's own tests: each chooses its catalogues, in the first pass)
pytestmark = pytest.mark.own_catalogues


def doc(title: str = "Backup", **changes: object) -> dict[str, object]:
    d: dict[str, object] = {"title": title, "runner": {"kind": "command", "command": "true"},
                            "trigger": {"kind": "every", "every": "1h"}}
    d.update(changes)
    return d


def cli(*args: str, stdin: str | None = None, capsys: Any = None,
        monkeypatch: Any = None) -> tuple[int, Any]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main([*args, "--json"])
    captured = capsys.readouterr()
    out = captured.out if captured.out.strip() else captured.err
    try:
        return code, json.loads(out) if out.strip() else None
    except ValueError:
        return code, out


# ----------------------------------------------------------------- the location

def test_encoded_parts_stay_encoded_when_the_url_is_shown_and_saved() -> None:
    """A database named 'review_1?sslmode=disable' is not the database review_1 with TLS
    off, and an application name holding '&password=' adds no password."""
    tricky = parse_database_url("postgresql://a%3Ab@h/review_1%3Fsslmode%3Ddisable"
                                "?application_name=x%26password%3Dhunter2")
    assert tricky.user == "a:b" and tricky.database == "review_1?sslmode=disable"
    assert tricky.options == (("application_name", "x&password=hunter2"),)
    assert tricky.display == ("postgresql://a%3Ab@h:5432/review_1%3Fsslmode%3Ddisable"
                              "?application_name=x%26password%3Dhunter2")
    assert parse_database_url(tricky.display).database == tricky.database


def test_a_database_url_is_read_and_shown_without_a_password() -> None:
    server = parse_database_url("postgresql+psycopg://me@homeserver:6543/errands?sslmode=require")
    assert server == ServerDatabase("me", "homeserver", 6543, "errands", (("sslmode", "require"),),
                                    ENV)
    assert server.display == "postgresql://me@homeserver:6543/errands?sslmode=require"
    assert server.keyring_user == "me@homeserver:6543/errands"
    assert parse_database_url("postgres://me@h/db").port == 5432


@pytest.mark.parametrize("url, words", [
    ("postgresql://me:secret@h/db", "holds a password"),
    ("postgresql://me@h/db?password=x", "holds a password"),
    ("mysql://me@h/db", "names mysql scheme"),
    ("postgresql://h/db", "names no user"),
    ("postgresql://me@/db", "names no host"),
    ("postgresql://me@h", "names no database"),
    ("postgresql://me@h/db?sslmode=require&host=/tmp", "option 'host'"),
    ("postgresql://me@h:99999/db", "out of range"),
    ("", "is empty"),
    ("postgresql://me@h/d\nb", "control characters"),
    ("postgresql://me@h/rev%0Aiew", "control character once decoded"),
    ("postgresql://me%00@h/db", "control character once decoded"),
])
def test_a_bad_database_url_is_refused_naming_the_field(url: str, words: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_database_url(url, "--database")
    assert refused.value.field == "--database" and words in str(refused.value)
    assert "secret" not in str(refused.value)
    assert refused.value.example and refused.value.expected


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=120))
def test_any_text_as_a_database_url_is_read_or_refused_cleanly(text: str) -> None:
    try:
        server = parse_database_url(text, "url")
    except InvalidInput as exc:
        assert exc.field == "url"
        return
    assert server.user and server.host and server.database
    again = parse_database_url(server.display, "url")  # shown, it names the same catalogue
    assert (again.user, again.host, again.port, again.database, again.options) == (
        server.user, server.host, server.port, server.database, server.options)


def test_the_catalogue_is_chosen_by_flag_environment_saved_file_then_the_default(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    assert database_location(data) == data / "errands.sqlite3"
    data.mkdir()
    (data / "database.url").write_text("postgresql://saved@h/db\n")
    assert database_location(data).user == "saved"  # type: ignore[union-attr]
    monkeypatch.setenv(ENV, "postgresql://env@h/db")
    assert database_location(data).user == "env"  # type: ignore[union-attr]
    assert database_location(data, "postgresql://flag@h/db").user == "flag"  # type: ignore[union-attr]
    monkeypatch.delenv(ENV)
    (data / "database.url").write_text("postgresql://me:pw@h/db\n")
    with pytest.raises(InvalidInput) as refused:
        database_location(data)
    assert refused.value.field == str(data / "database.url")


# ------------------------------------------------------------ the server itself

def test_an_empty_database_is_migrated_to_exactly_the_models_schema(postgres: Any) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import create_engine

    from errands.db.schema import Base

    location = postgres.fresh(empty=True)
    try:
        store = Store(location)
        store.close()
        engine = create_engine(postgres.url(location.database).replace(
            "postgresql://", "postgresql+psycopg://"))
        with engine.connect() as conn, warnings.catch_warnings():
            warnings.filterwarnings("ignore", "autogenerate skipping metadata-specified "
                                    "expression-based index")
            warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based")
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}),
                                    Base.metadata)
            version = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
            order = conn.exec_driver_sql("SELECT indexdef FROM pg_indexes WHERE indexname = "
                                         "'ix_automations_next_fire_order'").scalar()
        engine.dispose()
        assert diff == [] and version == HEAD
        assert order is not None and "(next_fire_at IS NULL)" in order
    finally:
        postgres.drop(location)


def test_a_database_holding_other_tables_or_a_newer_schema_is_refused_untouched(
        postgres: Any) -> None:
    foreign = postgres.fresh(empty=True)
    newer = postgres.fresh()
    try:
        import psycopg
        with psycopg.connect(postgres.url(foreign.database), autocommit=True) as conn:
            conn.execute("CREATE TABLE invoices (id int)")
        with psycopg.connect(postgres.url(newer.database), autocommit=True) as conn:
            conn.execute("UPDATE alembic_version SET version_num = '9999'")
        with pytest.raises(StoreError) as refused:
            Store(foreign)
        assert refused.value.code == "foreign"
        with pytest.raises(StoreError) as refused:
            Store(newer)
        assert refused.value.code == "newer_version" and "9999" in str(refused.value)
        with psycopg.connect(postgres.url(foreign.database), autocommit=True) as conn:
            tables = [r[0] for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        assert tables == ["invoices"]
    finally:
        postgres.drop(foreign)
        postgres.drop(newer)


def test_a_server_that_is_not_there_is_named_in_the_refusal(tmp_path: Path) -> None:
    from pg_support import free_port

    with pytest.raises(StoreError) as refused:
        Store(ServerDatabase("errands", "127.0.0.1", free_port(), "gone"))
    assert refused.value.code == "database_unreachable"
    assert "cannot reach the catalogue postgresql://errands@127.0.0.1:" in str(refused.value)


def test_the_password_comes_from_the_keyring_and_is_never_written_down(
        postgres: Any, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A role that needs a password: refused without it, served once the keyring holds it
    (set with the command), and the password is in no file of the data folder."""
    postgres.require_password("keeper", "s3cret-Pass")
    location = postgres.fresh()
    data = tmp_path / "data"
    url = f"postgresql://keeper@127.0.0.1:{postgres.port}/{location.database}"
    try:
        code, out = cli("--data-dir", str(data), "database", "use", url, capsys=capsys)
        assert code == 0 and out["location"] == url
        code, out = cli("--data-dir", str(data), "list", capsys=capsys)
        assert code != 0 and "password" in json.dumps(out).lower()
        code, out = cli("--data-dir", str(data), "database", "password", "--value-stdin",
                        stdin="s3cret-Pass\n", capsys=capsys, monkeypatch=monkeypatch)
        assert code == 0 and out["password_in_keyring"] is True
        import keyring
        assert keyring.get_password(KEYRING_SERVICE,
                                    f"keeper@127.0.0.1:{postgres.port}/{location.database}") \
            == "s3cret-Pass"
        code, out = cli("--data-dir", str(data), "add", "--title", "Kept", "--command", "true",
                        "--schedule", "every 1h", capsys=capsys)
        assert code == 0, out
        code, out = cli("--data-dir", str(data), "database", "show", capsys=capsys)
        assert out["kind"] == "postgresql" and out["password_in_keyring"] is True
        for path in data.rglob("*"):
            if path.is_file():
                assert b"s3cret-Pass" not in path.read_bytes(), path
    finally:
        postgres.drop(location)


# ------------------------------------------------------------- on both databases

def test_a_catalogue_keeps_what_is_created_revised_paused_and_deleted(
        catalogue_location: Any) -> None:
    store = Store(catalogue_location)
    try:
        catalog = Catalog(store)
        a, _ = catalog.create(doc("First"))
        b, _ = catalog.create(doc("Second"))
        assert [x.title for x in store.list()] == ["First", "Second"]
        edited, changed = catalog.revise(a.id, doc("First, renamed"), expected_revision=1)
        assert changed and edited.revision == 2 and store.get(a.id).title == "First, renamed"
        catalog.set_paused(b.id, True)
        assert store.get(b.id).status == "paused"
        catalog.delete(b.id)
        assert [x.id for x in store.list()] == [a.id]
        actions = [(e.action, e.actor) for e in store.audit(a.id)]
        assert ("created", "user") in actions and ("revised", "user") in actions
        for actor in ("agent:" + "r" * 36, "mcp:" + "c" * 400):  # no width refused on either
            catalog.set_paused(a.id, actor.startswith("agent"), actor=actor)
            assert store.audit(a.id)[-1].actor == actor
    finally:
        store.close()


async def test_an_engine_fires_and_records_on_both(catalogue_location: Any, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from errands.engine.core import Engine
    from errands.runners.command import CommandRunner

    monkeypatch.setenv("ERRANDS_MACHINE", "bench-7")
    store = Store(catalogue_location)
    store.set_setting("min_interval", "1s")
    engine = Engine(store, tmp_path, {"command": CommandRunner()})
    try:
        await engine.start()
        a, _ = await engine.commands.create(doc("Echo", runner={"kind": "command",
                                                                "command": "echo $((6*7))"},
                                                trigger={"kind": "manual"}))
        run = await engine.commands.run_now(a.id)
        ended = await engine.commands.wait_run(run.id)
        assert (ended.state, ended.result) == ("succeeded", "42")
        runs, _ = store.runs_page(a.id, limit=10)
        assert [(r.index, r.state, r.machine) for r in runs] == [(1, "succeeded", "bench-7")]
    finally:
        await engine.stop()
        store.close()


# -------------------------------------------------------- two machines, one catalogue

def _serve(data: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "errands", "--data-dir", str(data), "serve"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _serving(data: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """``errands serve``, once it says its engine runs (it serves the catalogue then)."""
    engine = _serve(data, env)
    assert engine.stdout is not None
    said = engine.stdout.readline()
    if "Errands engine running" not in said:  # (nothing left running when it did not start)
        engine.terminate()
        rest, _ = engine.communicate(timeout=30)
        raise AssertionError(said + rest)
    return engine


def _errands(data: Path, env: dict[str, str], *args: str) -> tuple[int, Any]:
    done = errands(["--data-dir", str(data), *args, "--json"], env, timeout=60)
    text = done.stdout if done.stdout.strip() else done.stderr
    try:
        return done.returncode, json.loads(text)
    except ValueError:
        return done.returncode, text


def test_each_machine_runs_its_own_automations_and_any_one_runs_the_rest(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path) -> None:
    """Two machines, each with its engine, on one catalogue: a command made on the laptop
    runs on the laptop whoever asks; one that may run anywhere runs on the engine doing
    the common work (the desk's, the first); a change asked on one machine is made by the
    engine that fires the automation; a second engine of one name is refused; with the
    laptop's engine stopped, running its automation is refused and changing it is not."""
    url = postgres.url(pg_catalogue.database)
    desk = {**os.environ, ENV: url, "ERRANDS_MACHINE": "desk"}
    laptop = {**os.environ, ENV: url, "ERRANDS_MACHINE": "laptop"}
    desk_data, laptop_data = tmp_path / "desk", tmp_path / "laptop"
    code, shared = _errands(desk_data, desk, "add", "--title", "Anywhere", "--command",
                            "echo anywhere", "--schedule", "every 1h", "--runs-on", "any")
    assert code == 0, shared
    engines = [_serving(desk_data, desk)]
    try:
        second = _serving(laptop_data, laptop)
        engines.append(second)
        assert second.stdout is not None
        assert "another machine's engine runs those that may run anywhere" in \
            second.stdout.readline()
        code, made = _errands(laptop_data, laptop, "add", "--title", "Laptop's",
                              "--command", "echo made on the laptop", "--schedule", "every 1h")
        assert code == 0 and made["runs_on"] == "laptop", made
        # asked on the desk, run by the laptop's engine (and the other way round)
        code, ran = _errands(desk_data, desk, "run-now", made["id"], "--wait")
        assert code == 0 and ran["state"] == "succeeded", ran
        code, ran = _errands(laptop_data, laptop, "run-now", shared["id"], "--wait")
        assert code == 0 and ran["state"] == "succeeded", ran
        code, runs = _errands(desk_data, desk, "runs", made["id"])
        assert [(r["result"], r["machine"]) for r in runs["runs"]] == [
            ("made on the laptop", "laptop")]
        code, runs = _errands(laptop_data, laptop, "runs", shared["id"])
        assert [(r["result"], r["machine"]) for r in runs["runs"]] == [("anywhere", "desk")]
        code, out = _errands(desk_data, desk, "pause", made["id"])
        assert code == 0 and out["status"] == "paused", out
        code, out = _errands(desk_data, desk, "edit", made["id"], "--timeout", "soon")
        assert code == 2 and out["error"]["field"] == "policy.timeout", out
        code, out = _errands(desk_data, desk, "resume", made["id"])
        assert code == 0 and out["status"] == "active", out
        code, out = _errands(laptop_data, laptop, "doctor")
        assert {c["name"]: c for c in out["checks"]}["engines"]["detail"] == \
            "desk (the common work), laptop", out
        # one engine per machine name
        again = _serve(tmp_path / "laptop-2", laptop)
        said, _ = again.communicate(timeout=60)
        assert again.returncode != 0 and "an Errands engine named laptop already serves" in said
        second.terminate()
        second.communicate(timeout=30)
        code, out = _errands(desk_data, desk, "run-now", made["id"])
        assert code != 0 and out["error"]["code"] == "engine_elsewhere", out
        assert "runs on laptop, and no Errands engine runs there now" in out["error"]["message"]
        code, out = _errands(desk_data, desk, "edit", made["id"], "--runs-on", "any")
        assert code == 0 and "runs_on" not in out, out
        code, ran = _errands(desk_data, desk, "run-now", made["id"], "--wait")
        assert code == 0 and ran["state"] == "succeeded", ran
        code, runs = _errands(desk_data, desk, "runs", made["id"])
        assert [r["machine"] for r in runs["runs"]] == ["desk", "laptop"]
    finally:
        for engine in engines:
            if engine.poll() is None:
                engine.terminate()
            engine.communicate(timeout=30)
    code, out = _errands(laptop_data, laptop, "pause", made["id"])  # nobody serves it now
    assert code == 0 and out["status"] == "paused", out


def test_doctor_checks_the_shared_catalogue(pg_catalogue: ServerDatabase, postgres: Any,
                                            tmp_path: Path, capsys: Any) -> None:
    from pg_support import free_port

    url = postgres.url(pg_catalogue.database)
    code, out = cli("--data-dir", str(tmp_path / "d"), "--database", url, "doctor",
                    capsys=capsys)
    checks = {c["name"]: c for c in out["checks"]}
    assert checks["database"]["status"] == "ok"
    assert f"shared catalogue {url} on PostgreSQL " in checks["database"]["detail"]
    assert checks["schema"]["status"] == "ok" and f"schema {HEAD}" in checks["schema"]["detail"]
    assert checks["engines"]["detail"] == "no engine serves it right now"
    assert checks["catalogue clock"]["status"] == "ok", checks  # (one machine: one clock)
    assert checks["catalogue clock"]["detail"].startswith("this machine's clock is 0.0 s ")
    gone = f"postgresql://errands@127.0.0.1:{free_port()}/nowhere"
    code, out = cli("--data-dir", str(tmp_path / "d"), "--database", gone, "doctor",
                    capsys=capsys)
    checks = {c["name"]: c for c in out["checks"]}
    assert code != 0 and checks["database"]["status"] == "fail"
    assert f"cannot reach the shared catalogue {gone}" in checks["database"]["detail"]
    assert "errands database show" in checks["database"]["advice"]


async def test_an_engine_with_a_clock_off_the_servers_is_refused(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Database time is the reference: an engine whose machine's clock is more than
    MAX_CLOCK_SKEW_S off the server's is refused before it serves (it would claim fires
    early or late, and call on-time ones missed), saying by how much and what to do;
    doctor says the same. Within the bound it serves. (This machine's clock is read
    through ``postgres.local_time``: the one part faked, as the system clock cannot be set
    from a test.)"""
    from errands.db import postgres as pg
    from errands.engine.service import EngineHost

    url = postgres.url(pg_catalogue.database)
    monkeypatch.setenv(ENV, url)
    monkeypatch.setenv("ERRANDS_MACHINE", "desk")
    monkeypatch.setattr(pg, "local_time", lambda: time.time() + 7.25)  # 7 s fast
    host = EngineHost(tmp_path / "desk")
    with pytest.raises(StoreError) as refused:
        await host.open()
    assert refused.value.code == "clock_skew"
    assert "clock is 7.2 s ahead of the clock of the server" in str(refused.value) \
        or "clock is 7.3 s ahead of the clock of the server" in str(refused.value)
    assert "timedatectl set-ntp true" in str(refused.value)
    from errands.db.postgres import engine_holder
    assert host.store is None and engine_holder(pg_catalogue) is None  # nothing held
    code, out = cli("--data-dir", str(tmp_path / "d"), "doctor", capsys=capsys)
    clock = {c["name"]: c for c in out["checks"]}["catalogue clock"]
    assert code != 0 and clock["status"] == "fail" and "ahead of the server's" in clock["detail"]
    assert "timedatectl" in clock["advice"]

    monkeypatch.setattr(pg, "local_time", lambda: time.time() - 1.5)  # within the bound
    host = EngineHost(tmp_path / "desk")
    await host.open()
    try:
        assert host.store is not None
    finally:
        await host.close()


@pytest.mark.logs("the connection holding the catalogue", "this engine stops")
async def test_an_engine_whose_clock_drifted_stops_when_it_must_take_the_catalogue_again(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The serving engine's hold is cut (a server restart, a network blip) and its clock has
    drifted meanwhile: it does not go on claiming by a wrong clock, retrying in silence; it
    stops, saying why, as when another machine took the catalogue over."""
    import asyncio

    from errands.db import postgres as pg
    from errands.engine.service import EngineHost

    monkeypatch.setenv(ENV, postgres.url(pg_catalogue.database))
    monkeypatch.setenv("ERRANDS_MACHINE", "desk")
    told: list[str] = []
    host = EngineHost(tmp_path / "desk", listen=False, on_replaced=told.append)
    engine = await host.start()
    try:
        monkeypatch.setattr(pg, "local_time", lambda: time.time() - 9.0)  # 9 s slow now
        cut = await asyncio.to_thread(
            postgres.admin_in, pg_catalogue.database,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'errands engine on desk'")
        assert cut == [(True,)]
        for _ in range(200):
            if told:
                break
            await asyncio.sleep(0.05)
        assert len(told) == 1 and "clock is 9.0 s behind the clock of the server" in told[0]
        assert engine.stopping
    finally:
        await host.close()


def test_why_the_app_cannot_open_is_shown_in_a_window(qapp: Any, tmp_path: Path) -> None:
    """Started from a menu, nobody reads standard error: the refusal (here, another machine
    serving the catalogue) is told in a dialog with the whole message."""
    from PySide6.QtWidgets import QMessageBox

    from errands.app.main import startup_problem_box

    message = ("an Errands engine on desk already serves the catalogue "
               "postgresql://errands@homeserver:5432/errands; one engine serves a catalogue "
               "at a time (stop that one first)")
    box = startup_problem_box(message)
    box.show()
    qapp.processEvents()
    assert box.windowTitle() == "Errands cannot open" == box.accessibleName()
    assert box.text() == "Errands cannot open its data."
    assert box.informativeText() == "An" + message[2:]
    assert box.standardButtons() == QMessageBox.StandardButton.Close
    assert box.grab().save(str(tmp_path / "startup-problem.png"))
    box.close()


# ------------------------------------------------- commands through the catalogue

def test_a_request_no_engine_takes_is_withdrawn_and_nothing_is_left_to_do(
        pg_catalogue: ServerDatabase, postgres: Any) -> None:
    from errands.channel import EngineUnreachable
    from errands.remote_requests import ask

    began = time.monotonic()
    with pytest.raises(EngineUnreachable) as unanswered:
        ask(pg_catalogue, "pause", {"id": "x"}, timeout=1.5, serving="desk")
    assert unanswered.value.reason == "refused" and "nothing was done" in str(unanswered.value)
    assert 1.4 < time.monotonic() - began < 10
    assert postgres.admin_in(pg_catalogue.database, "SELECT count(*) FROM requests") == [(0,)]


async def test_each_request_is_performed_once_however_many_desks_look(
        pg_catalogue: ServerDatabase, postgres: Any) -> None:
    """Two desks take from one queue (FOR UPDATE SKIP LOCKED): sixty requests asked at once
    from threads, each performed exactly once and answered to its own asker; an error comes
    back as the error it was."""
    import asyncio

    from errands.errors import NotFound
    from errands.remote_requests import RequestDesk, ask

    performed: list[tuple[str, int]] = []

    def desk_handler(name: str) -> Any:
        async def handle(op: str, args: dict[str, Any]) -> Any:
            performed.append((name, args["n"]))
            await asyncio.sleep(0.01)
            if args["n"] == 7:
                raise NotFound("no automation with id 'seven'")
            return {"doubled": args["n"] * 2}
        return handle

    desks = [RequestDesk(pg_catalogue, desk_handler(name)) for name in ("a", "b")]
    for desk in desks:
        await desk.start()
    try:
        def one(n: int) -> Any:
            try:
                return ask(pg_catalogue, "double", {"n": n}, timeout=30)
            except NotFound as exc:
                return str(exc)
        answers = await asyncio.gather(*(asyncio.to_thread(one, n) for n in range(60)))
    finally:
        for desk in desks:
            await desk.close()
    assert sorted(n for _, n in performed) == list(range(60))  # each once, none twice
    assert answers[7] == "no automation with id 'seven'"
    assert all(answers[n] == {"doubled": 2 * n} for n in range(60) if n != 7)
    assert postgres.admin_in(pg_catalogue.database, "SELECT count(*) FROM requests") == [(0,)]


async def test_another_machines_leftover_child_is_left_to_that_machine(
        pg_catalogue: ServerDatabase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The desk's engine was killed with a run going. The laptop's engine, serving next,
    ends that run as interrupted but never signals the pid (it names a process of the desk);
    the desk's next start ends its own leftover child."""
    import asyncio
    import subprocess

    from errands.engine import runs as core
    from errands.engine.core import Engine
    from errands.runners.command import CommandRunner
    from errands.runners.processes import process_start_ticks
    from errands.timeutil import utcnow

    if not sys.platform.startswith("linux"):
        pytest.skip("process groups and /proc")
    monkeypatch.setattr(core, "LEFTOVER_GRACE", 1.0)
    monkeypatch.setenv("ERRANDS_MACHINE", "desk")
    desk_store = Store(pg_catalogue)
    a, _ = Catalog(desk_store).create(doc("Long", trigger={"kind": "manual"},
                                          policy={"retry": {"max_attempts": 1}}))
    child = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        with desk_store.transaction() as s:  # what a kill -9 of the desk's engine leaves
            row = desk_store.insert_run_in(s, desk_store.get_in(s, a.id), slot="manual:x",
                                           trigger="manual", state="running", now=utcnow(),
                                           scheduled_for=utcnow())
            row.pid, row.pid_started = child.pid, process_start_ticks(child.pid)
            row.machine = "desk"
            run_id = row.id
        desk_store.close()

        monkeypatch.setenv("ERRANDS_MACHINE", "laptop")
        laptop_store = Store(pg_catalogue)
        laptop = Engine(laptop_store, tmp_path / "laptop", {"command": CommandRunner()})
        await laptop.start()
        await asyncio.sleep(1.5)
        ended = laptop_store.get_run(run_id)
        assert ended.state == "interrupted" and child.poll() is None  # untouched here
        await laptop.stop()
        laptop_store.close()

        monkeypatch.setenv("ERRANDS_MACHINE", "desk")
        desk_store = Store(pg_catalogue)
        desk = Engine(desk_store, tmp_path / "desk", {"command": CommandRunner()})
        await desk.start()
        for _ in range(100):
            if child.poll() is not None:
                break
            await asyncio.sleep(0.05)
        assert child.poll() is not None  # its own machine ended it
        await desk.stop()
        desk_store.close()
    finally:
        child.kill()
        child.wait()


def test_the_common_work_moves_to_another_engine_when_its_engine_dies(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path) -> None:
    """The desk's engine does the common work; killed (kill -9), the laptop's engine takes
    it over within seconds and runs what may run anywhere. A second engine of the desk's
    name started with --standby waits, and takes the desk's place when it dies."""
    import signal

    url = postgres.url(pg_catalogue.database)
    desk = {**os.environ, ENV: url, "ERRANDS_MACHINE": "desk"}
    laptop = {**os.environ, ENV: url, "ERRANDS_MACHINE": "laptop"}
    code, made = _errands(tmp_path / "desk", desk, "add", "--title", "Anywhere", "--command",
                          "echo ran", "--schedule", "every 1h", "--runs-on", "any")
    assert code == 0, made
    engines = [_serving(tmp_path / "desk", desk)]
    try:
        member = _serving(tmp_path / "laptop", laptop)
        engines.append(member)
        standby = subprocess.Popen([sys.executable, "-m", "errands", "--data-dir",
                                    str(tmp_path / "desk-2"), "serve", "--standby"], env=desk,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        engines.append(standby)
        assert member.stdout is not None and standby.stdout is not None
        assert "another machine's engine runs those" in member.stdout.readline()
        assert standby.stdout.readline().startswith(
            "Standing by: another Errands engine named desk serves this catalogue")
        engines[0].send_signal(signal.SIGKILL)
        engines[0].communicate(timeout=30)
        began = time.monotonic()
        assert "now also runs the automations that may run anywhere" in \
            member.stdout.readline()
        assert time.monotonic() - began < 20
        assert "Errands engine running" in standby.stdout.readline()
        code, ran = _errands(tmp_path / "laptop", laptop, "run-now", made["id"], "--wait")
        assert code == 0 and ran["state"] == "succeeded", ran
        code, runs = _errands(tmp_path / "desk-2", desk, "runs", made["id"])
        assert [r["machine"] for r in runs["runs"]] == ["laptop"]  # asked from the desk
    finally:
        for process in engines:
            if process.poll() is None:
                process.terminate()
            process.communicate(timeout=30)


@pytest.mark.logs("due fires wait for the database", "could not be recorded yet")
async def test_fires_missed_while_the_database_was_away_are_recorded_once_with_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server stops for a few seconds under a running engine: the engine lives on,
    claims nothing meanwhile, and when the server is back every fire is accounted once: run,
    or in a skipped record saying why: the catalogue could not be reached, or (when the
    outage caught a run's end) the previous run was still going, until its end was
    recorded."""
    import asyncio
    from datetime import timedelta

    from pg_support import PostgresServer

    from errands.engine import runs as run_control
    from errands.engine import timer
    from errands.engine.core import Engine
    from errands.runners.command import CommandRunner

    monkeypatch.setattr(timer, "RETRY_ADMISSION", 0.5)
    monkeypatch.setattr(run_control, "RETRY_ADMISSION", 0.5)
    server = PostgresServer()  # its own: this test stops it
    try:
        location = server.fresh()
        store = Store(location)
        store.set_setting("min_interval", "1s")
        engine = Engine(store, tmp_path, {"command": CommandRunner()})
        await engine.start()
        # (every 2 s: a grid starts on the whole second before it was made, so a 1-second
        # one made late in a second could find its first two fires due at once)
        a, _ = await engine.commands.create(doc("Tick", runner={"kind": "command",
                                                                "command": "sleep 0.3"},
                                                trigger={"kind": "every", "every": "2s"}))
        await asyncio.sleep(2.5)
        await asyncio.to_thread(server.pause)
        await asyncio.sleep(5)  # (two fires at least: all but the last are missed)
        await asyncio.to_thread(server.resume)
        await asyncio.sleep(3)
        await engine.stop()
        runs, _ = store.runs_page(a.id, limit=100)
        store.close()
    finally:
        server.stop()
    slots = [r.scheduled_for for r in runs if r.state != "skipped"]
    assert len(slots) == len(set(slots)), "a slot ran twice"
    missed = [r for r in runs if r.state == "skipped"]
    reasons = {r.skip_reason for r in missed}
    assert "database_unreachable" in reasons and reasons <= {
        "database_unreachable", "previous_run_active"}, [(r.state, r.skip_reason) for r in runs]
    covered: list[Any] = list(slots)
    for r in missed:  # each skipped record stands for its fires, first to last
        t, last = r.missed_first or r.scheduled_for, r.missed_last or r.scheduled_for
        assert t is not None and last is not None
        while t <= last:
            covered.append(t)
            t += timedelta(seconds=2)
    span = sorted(covered)
    assert len(span) == len(set(span)), "an instant is counted twice"
    assert all(b - a == timedelta(seconds=2) for a, b in zip(span, span[1:])), \
        "an instant is not accounted for"


async def test_a_command_printing_a_nul_character_is_recorded_on_both(
        catalogue_location: Any, tmp_path: Path) -> None:
    """PostgreSQL's text cannot hold NUL (SQLite's can): the run still ends, recorded, with
    U+FFFD in its place there."""
    from errands.engine.core import Engine
    from errands.runners.command import CommandRunner

    store = Store(catalogue_location)
    engine = Engine(store, tmp_path, {"command": CommandRunner()})
    try:
        await engine.start()
        a, _ = await engine.commands.create(doc("Nul", runner={"kind": "command",
                                                               "command": "printf 'a\\0b'"},
                                                trigger={"kind": "manual"}))
        ended = await engine.commands.wait_run((await engine.commands.run_now(a.id)).id)
        assert ended.state == "succeeded"
        kept = store.get_run(ended.id)
        assert kept.result in ("a\x00b", "a\ufffdb") and kept.state == "succeeded"
        assert (kept.result == "a\x00b") == (store.dialect == "sqlite")
    finally:
        await engine.stop()
        store.close()


def test_an_engine_whose_hold_is_cut_takes_the_catalogue_again(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path) -> None:
    """The server ends the desk engine's session (as a restart or a network blip does):
    the engine notices and holds its place and the common work again at once: a second
    engine named desk is still refused, and the laptop's engine finds the common work
    held."""
    url = postgres.url(pg_catalogue.database)
    desk = {**os.environ, ENV: url, "ERRANDS_MACHINE": "desk"}
    laptop = {**os.environ, ENV: url, "ERRANDS_MACHINE": "laptop"}
    engine = _serving(tmp_path / "desk", desk)
    try:
        cut = postgres.admin_in(pg_catalogue.database,
                                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                "WHERE application_name = 'errands engine on desk'")
        assert cut == [(True,)]
        deadline = time.monotonic() + 20
        holders: list[tuple[object, ...]] = []
        while time.monotonic() < deadline:
            holders = postgres.admin_in(
                pg_catalogue.database, "SELECT count(*) FROM pg_stat_activity WHERE "
                "application_name = 'errands engine on desk'")
            if holders == [(1,)]:
                break
            time.sleep(0.2)
        assert holders == [(1,)], "the engine did not take the catalogue again"
        second = _serve(tmp_path / "desk-2", desk)  # its place is taken again ...
        said, _ = second.communicate(timeout=60)
        assert second.returncode != 0 and "an Errands engine named desk already serves" in said
        member = _serving(tmp_path / "laptop", laptop)  # ... and so is the common work
        assert member.stdout is not None
        said = member.stdout.readline()
        member.terminate()
        member.communicate(timeout=30)
        assert "another machine's engine runs those that may run anywhere" in said
        assert engine.poll() is None
    finally:
        engine.terminate()
        engine.communicate(timeout=30)


def test_an_older_schema_is_not_upgraded_under_the_engine_that_serves_it(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path) -> None:
    """A newer Errands on another machine does not upgrade the schema the serving engine
    runs on: it is refused, saying who serves it, and nothing changes. Another program's
    migrations are called foreign, not newer."""
    import psycopg

    url = postgres.url(pg_catalogue.database)
    desk = {**os.environ, ENV: url, "ERRANDS_MACHINE": "desk"}
    engine = _serving(tmp_path / "desk", desk)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("UPDATE alembic_version SET version_num = '0009'")
        with pytest.raises(StoreError) as refused:
            Store(pg_catalogue)
        assert refused.value.code == "schema_behind" and "engine on desk" in str(refused.value)
        with psycopg.connect(url, autocommit=True) as conn:
            assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == ("0009",)
            conn.execute("UPDATE alembic_version SET version_num = 'ae1027a6acf'")
        with pytest.raises(StoreError) as refused:
            Store(pg_catalogue)
        assert refused.value.code == "foreign"
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"UPDATE alembic_version SET version_num = '{HEAD}'")
    finally:
        engine.terminate()
        engine.communicate(timeout=30)


def test_a_secret_is_refused_on_a_machine_whose_engine_does_not_serve(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path) -> None:
    url = postgres.url(pg_catalogue.database)
    desk = {**os.environ, ENV: url, "ERRANDS_MACHINE": "desk"}
    laptop = {**os.environ, ENV: url, "ERRANDS_MACHINE": "laptop"}
    engine = _serving(tmp_path / "desk", desk)
    try:
        done = subprocess.run([sys.executable, "-m", "errands", "--data-dir",
                               str(tmp_path / "laptop"), "provider", "set", "--api-key-stdin",
                               "--json"], env=laptop, input="sk-test-0123456789abcdef\n",
                              capture_output=True, text=True, timeout=60)
        error = json.loads(done.stderr)["error"]
        assert done.returncode == 4 and error["code"] == "engine_elsewhere"
        assert "run this command on desk" in error["message"]
    finally:
        engine.terminate()
        engine.communicate(timeout=30)


async def _hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *machines: str) -> list[Any]:
    """An engine host per machine name (in this process, no control channel), started in
    that order: the first does the common work."""
    from errands.engine.service import EngineHost

    hosts = []
    try:
        for machine in machines:
            monkeypatch.setenv("ERRANDS_MACHINE", machine)
            host = EngineHost(tmp_path / machine, listen=False)
            hosts.append(host)
            await host.start()
    except BaseException:
        for host in hosts:
            await host.close()
        raise
    return hosts


async def _within(seconds: float, ready: Any) -> float:
    """How long ``ready()`` took to hold (AssertionError past ``seconds``)."""
    import asyncio

    began = time.monotonic()
    while not ready():
        assert time.monotonic() - began < seconds, "not within the time"
        await asyncio.sleep(0.01)
    return time.monotonic() - began


async def test_a_change_made_anywhere_reaches_every_engine_within_a_second(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A command on a machine without an engine (the phone) writes the catalogue itself:
    the engine each automation concerns takes it in (its change notice) within a second,
    the others tell their windows; moved to run anywhere, the laptop lets it go and the
    desk, doing the common work, takes it."""
    monkeypatch.setenv(ENV, postgres.url(pg_catalogue.database))
    desk, laptop = await _hosts(tmp_path, monkeypatch, "desk", "laptop")
    seen: list[Any] = []
    desk.engine.events.tap(lambda change: seen.append(change))
    monkeypatch.setenv("ERRANDS_MACHINE", "phone")
    phone = Store(pg_catalogue)
    try:
        made, _ = Catalog(phone).create(doc("Laptop's", runs_on="laptop"))
        took = await _within(1.0, lambda: made.id in laptop.engine.slots)
        assert made.id not in desk.engine.slots and took < 1.0
        # every engine lists the whole catalogue, whichever part it runs
        for host in (desk, laptop):
            listed, _ = (await host.api.automations()).value
            assert [a.id for a in listed] == [made.id]
            assert (await host.api.automations_json()).value.count(made.id) == 1
        await _within(1.0, lambda: any(c.automation_id == made.id for c in seen))
        Catalog(phone).set_paused(made.id, True)
        await _within(1.0, lambda: laptop.engine.slots[made.id].automation.status == "paused")
        moved = {**doc("Laptop's"), "paused": True, "runs_on": "any"}
        Catalog(phone).revise(made.id, moved)
        await _within(1.0, lambda: made.id in desk.engine.slots)
        await _within(1.0, lambda: made.id not in laptop.engine.slots)
        Catalog(phone).delete(made.id)
        await _within(1.0, lambda: made.id not in desk.engine.slots)
    finally:
        phone.close()
        for host in (laptop, desk):
            await host.close()


@pytest.mark.logs("the connection holding the catalogue", "does the catalogue's common work now")
async def test_an_engine_cut_off_while_another_took_its_common_work_goes_on_without_it(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The desk's engine does the common work and loses its connections (a network blip):
    the laptop's engine takes the common work over at once. When the desk's engine gets
    its connection back it keeps running its own machine's automations and lets the
    others go: nothing is run by two engines."""
    import asyncio

    monkeypatch.setenv(ENV, postgres.url(pg_catalogue.database))
    monkeypatch.setenv("ERRANDS_MACHINE", "phone")
    phone = Store(pg_catalogue)
    anywhere, _ = Catalog(phone).create(doc("Anywhere", runs_on="any"))
    desks, _ = Catalog(phone).create(doc("Desk's", runs_on="desk"))
    phone.close()
    desk, laptop = await _hosts(tmp_path, monkeypatch, "desk", "laptop")
    try:
        assert set(desk.engine.slots) == {anywhere.id, desks.id} and not laptop.engine.slots
        cut = await asyncio.to_thread(
            postgres.admin_in, pg_catalogue.database,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'errands engine on desk'")
        assert cut and all(row == (True,) for row in cut)
        await _within(10.0, lambda: anywhere.id in laptop.engine.slots)
        await _within(10.0, lambda: anywhere.id not in desk.engine.slots)
        assert laptop.engine.fleet.common and not desk.engine.fleet.common
        assert desks.id in desk.engine.slots and not desk.engine.stopping
        assert desk.hold.common is False
    finally:
        for host in (laptop, desk):
            await host.close()


async def test_the_common_work_never_ends_a_live_engines_runs(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine doing the common work ends the runs of engines gone (its look every
    SWEEP_S): the laptop's engine is alive, so neither its running run nor the one waiting
    for a place (claimed, not started) is touched; once the laptop's engine is gone, the
    running one waits for its next attempt (its policy allows three) and the other ends
    as interrupted."""
    import asyncio

    monkeypatch.setenv(ENV, postgres.url(pg_catalogue.database))
    desk, laptop = await _hosts(tmp_path, monkeypatch, "desk", "laptop")
    try:
        await laptop.handle("set_setting", {"key": "concurrency", "value": "1"})
        first, _ = await laptop.engine.commands.create(doc(
            "Long", runner={"kind": "command", "command": "sleep 30"},
            trigger={"kind": "manual"}, runs_on="laptop"))
        second, _ = await laptop.engine.commands.create(doc(
            "Waiting", runner={"kind": "command", "command": "true"},
            trigger={"kind": "manual"}, runs_on="laptop"))
        running = await laptop.engine.commands.run_now(first.id)
        await _within(5.0, lambda: laptop.store.get_run(running.id).state == "running")
        waiting = await laptop.engine.commands.run_now(second.id)  # (the one place is taken)
        assert laptop.store.get_run(waiting.id).state == "scheduled"
        await desk.engine.runs.recover(desk.engine.clock.now(), sweep=True)
        assert [laptop.store.get_run(r.id).state for r in (running, waiting)] == [
            "running", "scheduled"]
        laptop.hold.release()  # (its lease ends, as when its machine vanishes)
        await desk.engine.runs.recover(desk.engine.clock.now(), sweep=True)
        ended = [desk.store.get_run(r.id) for r in (running, waiting)]
        # the one cut short waits for its next attempt (on the laptop: it is bound there),
        # the one that never began ends
        assert [r.state for r in ended] == ["scheduled", "interrupted"]
        assert ended[0].retry_at is not None and ended[0].attempts[0]["state"] == "interrupted"
    finally:
        for host in (laptop, desk):
            await host.close()


PASSES = """
import os
import pytest
from pathlib import Path
from errands.store import Store


@pytest.mark.catalogue_free
def test_free_and_true() -> None:
    assert 1 + 1 == 2


@pytest.mark.catalogue_free
def test_free_but_opens_one(tmp_path: Path) -> None:
    Store(tmp_path / "errands.sqlite3").close()


def test_opens_the_chosen_catalogue(tmp_path: Path) -> None:
    from errands.db.location import database_location
    Store(database_location(tmp_path)).close()


def test_opens_a_sqlite_file_in_either_pass(tmp_path: Path) -> None:
    Store(tmp_path / "errands.sqlite3").close()


@pytest.mark.sqlite_too("copies between the two")
def test_opens_a_sqlite_file_on_purpose(tmp_path: Path) -> None:
    Store(tmp_path / "errands.sqlite3").close()


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return Store(tmp_path_factory.mktemp("kept") / "errands.sqlite3")


@pytest.mark.sqlite_only("asks for the module's store first")
def test_z1_sqlite_only_first(kept: Store) -> None:
    assert kept.list() == []


def test_z2_then_one_that_would_reuse_it(kept: Store) -> None:
    assert kept.list() == []
"""


@pytest.mark.catalogue_free  # (what it runs opens catalogues, in a pytest of its own)
@pytest.mark.parametrize("catalogue", ["sqlite", "postgresql"])
def test_the_two_passes_hold_their_tests_to_their_marks(tmp_path: Path, catalogue: str) -> None:
    """The SQLite pass fails a test marked catalogue_free that opens a catalogue; the
    PostgreSQL pass leaves catalogue_free tests out, runs the rest on a catalogue of their
    own, and fails one that opened a SQLite file unless it says it does so on purpose."""
    tests = Path(__file__).resolve().parent
    (tmp_path / "test_marks.py").write_text(PASSES)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRANDS_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tests), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-q", "-rA",
                           "-p", "no:cacheprovider",
                           f"--catalogue={catalogue}", "--rootdir", str(tmp_path),
                           "-c", os.devnull, str(tmp_path / "test_marks.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    out = done.stdout
    outcome = {line.split(" ", 1)[0] + " " + line.split("::", 1)[1].split(" ", 1)[0]
               for line in out.splitlines()
               if line.startswith(("PASSED ", "FAILED ", "ERROR ")) and "::" in line}
    if catalogue == "sqlite":
        assert outcome == {"PASSED test_free_and_true", "PASSED test_free_but_opens_one",
                           "ERROR test_free_but_opens_one", "PASSED test_opens_the_chosen_catalogue",
                           "PASSED test_opens_a_sqlite_file_in_either_pass",
                           "PASSED test_opens_a_sqlite_file_on_purpose",
                           "PASSED test_z1_sqlite_only_first",
                           "PASSED test_z2_then_one_that_would_reuse_it"}, out
        assert "marked catalogue_free, but it opened a catalogue" in out, out
    else:
        # (the module's store is made by the first test that runs, and counted there)
        assert outcome == {"PASSED test_opens_the_chosen_catalogue",
                           "PASSED test_opens_a_sqlite_file_in_either_pass",
                           "ERROR test_opens_a_sqlite_file_in_either_pass",
                           "PASSED test_opens_a_sqlite_file_on_purpose",
                           "PASSED test_z2_then_one_that_would_reuse_it",
                           "ERROR test_z2_then_one_that_would_reuse_it"}, out
        assert "opened a SQLite catalogue in the PostgreSQL pass" in out, out
        assert "2 deselected" in out, out
    assert done.returncode == 1, out


def test_a_run_whose_engine_died_is_retried_by_the_engine_that_takes_over(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path) -> None:
    """The desk's engine dies (kill -9) during the first attempt of a run that may run
    anywhere and may be tried twice: the laptop's engine takes the common work over,
    records that attempt as interrupted and runs the second one, which finishes the run
    there."""
    import signal

    url = postgres.url(pg_catalogue.database)
    desk = {**os.environ, ENV: url, "ERRANDS_MACHINE": "desk"}
    laptop = {**os.environ, ENV: url, "ERRANDS_MACHINE": "laptop"}
    marks = tmp_path / "attempts"
    doc_path = tmp_path / "retried.json"
    doc_path.write_text(json.dumps({
        "title": "Retried", "trigger": {"kind": "manual"}, "runs_on": "any",
        "runner": {"kind": "command",
                   "command": f"echo $ERRANDS_ATTEMPT >> {marks}; "
                              "if [ $ERRANDS_ATTEMPT = 1 ]; then exec sleep 300; fi"},
        "policy": {"retry": {"max_attempts": 2,
                             "backoff": {"initial": "1s", "factor": 2, "max": "2s"}}}}))
    code, made = _errands(tmp_path / "desk", desk, "add", "--from-json", str(doc_path))
    assert code == 0, made
    engines = [_serving(tmp_path / "desk", desk)]
    try:
        engines.append(_serving(tmp_path / "laptop", laptop))
        code, run = _errands(tmp_path / "desk", desk, "run-now", made["id"])
        assert code == 0, run
        deadline = time.monotonic() + 30
        while not (marks.exists() and marks.read_text().split() == ["1"]):
            assert time.monotonic() < deadline, "the first attempt did not start"
            time.sleep(0.05)
        engines[0].send_signal(signal.SIGKILL)
        engines[0].communicate(timeout=30)
        deadline = time.monotonic() + 30
        while True:
            code, runs = _errands(tmp_path / "laptop", laptop, "runs", made["id"])
            if code == 0 and runs["runs"][0]["state"] == "succeeded":
                break
            assert time.monotonic() < deadline, runs
            time.sleep(0.2)
        [done] = runs["runs"]
        assert done["id"] == run["id"] and done["attempt"] == 2 and done["machine"] == "laptop"
        assert [a["state"] for a in done["attempts"]] == ["interrupted", "succeeded"]
        assert marks.read_text().split() == ["1", "2"]
    finally:
        for process in engines:
            if process.poll() is None:
                process.terminate()
            process.communicate(timeout=30)


@pytest.mark.parametrize("name", ["My Laptop", "any", "desk/2", "bür0"])
async def test_a_machine_name_no_automation_could_name_is_refused_saying_so(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """An engine's machine name is what automations bound to it say (runs_on): one that
    cannot be said so is refused before the engine serves, naming ERRANDS_MACHINE, and
    nothing is held."""
    from errands.engine.service import EngineHost

    monkeypatch.setenv(ENV, postgres.url(pg_catalogue.database))
    monkeypatch.setenv("ERRANDS_MACHINE", name)
    host = EngineHost(tmp_path / "odd", listen=False)
    with pytest.raises(InvalidInput) as refused:
        await host.start()
    assert refused.value.field == "ERRANDS_MACHINE" and "set ERRANDS_MACHINE" in str(
        refused.value.expected)
    import psycopg
    with psycopg.connect(postgres.url(pg_catalogue.database), autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                            ).fetchone() == (0,)
    assert host.store is None


async def test_a_long_machine_name_is_known_alive_by_its_lock_and_its_runs_are_its_own(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine name longer than a connection's label holds (a cloud host's, 60
    characters): its engine is known alive by its lock itself, so the common work's look
    for engines gone leaves its run alone, commands reach it, and once another engine has
    taken a run over, a late close of the one that lost it changes nothing."""
    from errands.engine.routing import route
    from errands.runners.contract import Outcome

    name = "ip-172-31-22-123.ap-southeast-2.compute.internal.example.org"
    assert len(name) == 60
    monkeypatch.setenv(ENV, postgres.url(pg_catalogue.database))
    desk, cloud = await _hosts(tmp_path, monkeypatch, "desk", name)
    try:
        made, _ = await cloud.engine.commands.create(doc(
            "Long", runner={"kind": "command", "command": "sleep 30"},
            trigger={"kind": "manual"}))
        assert made.definition.runs_on == name  # (a command: bound where it was made)
        running = await cloud.engine.commands.run_now(made.id)
        await _within(5.0, lambda: cloud.store.get_run(running.id).state == "running")
        await desk.engine.runs.recover(desk.engine.clock.now(), sweep=True)
        assert cloud.store.get_run(running.id).state == "running"
        forward = await route(desk.engine, "run_now", {"id": made.id})
        assert forward is not None and forward.target == name and forward.live
        # the desk's engine, cut off meanwhile, closes it late: nothing is written
        late = await desk.engine.ledger.close(running.id, "interrupted", Outcome(
            state="failed", error_code="interrupted", error_message="late"),
            desk.engine.clock.now(), None)
        assert late is None and desk.store.get_run(running.id).state == "running"
    finally:
        for host in (cloud, desk):
            await host.close()


@pytest.mark.logs("could not take the common work over yet")
async def test_a_takeover_the_catalogue_refused_once_is_tried_again(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine that gets the common lock cannot read the catalogue once (a blip): it
    says so and tries again, and then runs what may run anywhere."""
    from errands.engine import service
    from errands.errors import StoreError

    monkeypatch.setattr(service, "LOCK_RETRY_S", 0.2)
    monkeypatch.setenv(ENV, postgres.url(pg_catalogue.database))
    monkeypatch.setenv("ERRANDS_MACHINE", "phone")
    phone = Store(pg_catalogue)
    anywhere, _ = Catalog(phone).create(doc("Anywhere", runs_on="any"))
    phone.close()
    desk, laptop = await _hosts(tmp_path, monkeypatch, "desk", "laptop")
    real = laptop.engine.runs.recover
    refusals = iter([StoreError("database_unreachable", "cannot reach the catalogue")])

    async def once(*args: Any, **kwargs: Any) -> None:
        refusal = next(refusals, None)
        if refusal is not None:
            raise refusal
        await real(*args, **kwargs)
    laptop.engine.runs.recover = once  # type: ignore[method-assign]
    try:
        await desk.close()
        await _within(10.0, lambda: anywhere.id in laptop.engine.slots)
        assert laptop.engine.fleet.common and next(refusals, None) is None
    finally:
        await laptop.close()
        await desk.close()


async def test_an_automation_is_not_moved_to_another_machine_while_it_runs(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Moving it while its run goes on would let the next engine start another beside it:
    refused, saying what to do."""
    from errands.errors import Conflict

    monkeypatch.setenv(ENV, postgres.url(pg_catalogue.database))
    [laptop] = await _hosts(tmp_path, monkeypatch, "laptop")
    try:
        made, _ = await laptop.engine.commands.create(doc(
            "Long", runner={"kind": "command", "command": "sleep 30"},
            trigger={"kind": "manual"}, runs_on="laptop"))
        await laptop.engine.commands.run_now(made.id)
        moved = {**made.definition.to_dict(), "runs_on": "desk"}
        with pytest.raises(Conflict) as refused:
            await laptop.engine.commands.revise(made.id, moved)
        assert refused.value.code == "busy" and "before moving it" in str(refused.value)
        await laptop.engine.commands.stop_current(made.id)
        # a document that says nothing of machines (the window's form) keeps it in place
        renamed = {k: v for k, v in moved.items() if k != "runs_on"} | {"title": "Longer"}
        automation, changed = await laptop.engine.commands.revise(made.id, renamed)
        assert changed and automation.definition.runs_on == "laptop"
        assert made.id in laptop.engine.slots
        automation, changed = await laptop.engine.commands.revise(made.id, moved)
        assert changed and automation.definition.runs_on == "desk"
        assert made.id not in laptop.engine.slots
    finally:
        await laptop.close()


def test_a_command_made_or_imported_without_an_engine_runs_where_it_was_made(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path) -> None:
    """With no engine running anywhere, `add` and `import` write the shared catalogue
    themselves, and bind a command to the machine they were typed on, as an engine would."""
    url = postgres.url(pg_catalogue.database)
    laptop = {**os.environ, ENV: url, "ERRANDS_MACHINE": "laptop"}
    code, made = _errands(tmp_path / "laptop", laptop, "add", "--title", "Here",
                          "--command", "echo here", "--schedule", "every 1h")
    assert code == 0 and made["runs_on"] == "laptop", made
    code, agent = _errands(tmp_path / "laptop", laptop, "add", "--title", "Think",
                           "--prompt", "Think.", "--schedule", "every 1h")
    assert code == 0 and "runs_on" not in agent, agent
    exported = tmp_path / "one.json"
    exported.write_text(json.dumps({"format": "errands-export", "version": 1, "automations": [
        {"request_id": "one", "definition": {"title": "Imported", "trigger": {"kind": "manual"},
                                             "runner": {"kind": "command", "command": "true"}}}]}))
    code, plan = _errands(tmp_path / "laptop", laptop, "import", str(exported))
    assert code == 0, plan
    code, shown = _errands(tmp_path / "laptop", laptop, "show", plan["items"][0]["automation_id"])
    assert shown["runs_on"] == "laptop", shown
    listed = errands(["--data-dir", str(tmp_path / "laptop"), "list"], laptop)
    assert listed.code == 0 and listed.out.splitlines()[0].split()[4:6] == ["RUNS", "ON"]
    assert [w for w in listed.out.split() if w in ("laptop", "any")] == ["laptop", "any",
                                                                        "laptop"], listed.out


@pytest.mark.logs("the connection holding the catalogue")
async def test_both_held_connections_breaking_together_are_one_loss(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine that took the common work over holds two connections (its machine's lock,
    the common lock). A server restart breaks both at once: the engine goes on, with its
    place and the common work, instead of meeting its own place taken and stopping. (Two
    losses told for one restart were never seen here; ``EngineHold._broke`` tells one by
    construction, and this guards the outcome.)"""
    import asyncio

    monkeypatch.setenv(ENV, postgres.url(pg_catalogue.database))
    laptop, desk = await _hosts(tmp_path, monkeypatch, "laptop", "desk")
    try:
        await laptop.close()
        await _within(10.0, lambda: desk.engine.fleet.common)
        cut = await asyncio.to_thread(
            postgres.admin_in, pg_catalogue.database,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'errands engine on desk'")
        assert len(cut) == 2  # (both of its connections)
        await _within(10.0, lambda: desk.hold.common and len(postgres.admin_in(
            pg_catalogue.database, "SELECT 1 FROM pg_stat_activity WHERE "
            "application_name = 'errands engine on desk'")) >= 1)
        await asyncio.sleep(1.0)  # (a second loss, had there been one, stops it by now)
        assert not desk.engine.stopping and desk.engine.fleet.common and desk.hold.common
    finally:
        await desk.close()
