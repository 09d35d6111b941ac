"""Script automations through the command line, with the names scripts rely on (issue 30):
``add --script FILE`` (a refusal names the line), ``run-now ID --dry-run --json`` (each
action with would_apply and reason), and ``runs ID --json`` carrying each run's ``script``
record. In-process (``errands.cli.main``); with no engine running, the CLI hosts one."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli_triggers import Cli, cli  # noqa: F401 (fixture)

SCRIPT = """\
export default function ({ event, state, actions }) {
  const n = (state.get("n") || 0) + 1;
  actions.setState("n", n);
  actions.appendFile("log.txt", `run ${n} (${event.type})\\n`);
  actions.writeFile("/etc/not-yours", "x");
  actions.log("counted", n);
  return `n = ${n}`;
}
"""


def test_add_dry_run_run_and_the_run_record(cli: Cli, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "count.js").write_text(SCRIPT)
    made = cli.json("add", "--title", "Counter", "--script", str(tmp_path / "count.js"),
                    "--schedule", "manual", "--workdir", str(work))
    assert made["runner"]["kind"] == "script" and made["runner"]["limits"]["time_ms"] == 100
    trial = cli.json("run-now", made["id"][:8], "--dry-run")
    assert trial["status"] == "ok" and trial["log"] == ["counted 1"]
    assert [(a["type"], a["would_apply"]) for a in trial["actions"]] == [
        ("setState", True), ("appendFile", True), ("writeFile", False)]
    assert "outside the automation's folder" in trial["actions"][2]["reason"]
    assert not (work / "log.txt").exists()
    out, _ = cli("run-now", made["id"][:8], "--dry-run")
    assert "Nothing was applied or recorded." in out and "no writeFile /etc/not-yours" in out
    cli("run-now", made["id"][:8], "--wait", "--json")
    assert (work / "log.txt").read_text() == "run 1 (manual)\n"
    [run] = cli.json("runs", made["id"][:8])["runs"]
    script = run["script"]
    assert {"status", "limit_hit", "duration_ms", "memory_peak", "reads", "actions",
            "log"} <= set(script)
    assert script["status"] == "ok" and script["limit_hit"] is None and script["reads"] == 1
    assert [(a["type"], a["applied"], a["reason"] is None) for a in script["actions"]] == [
        ("setState", True, True), ("appendFile", True, True), ("writeFile", False, False)]
    assert run["state"] == "succeeded" and run["result"] == "n = 1"


def test_a_refusal_names_the_line(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "bad.js").write_text("export default function () {\n  return 1 +;\n}\n")
    error = cli.error("add", "--title", "Bad", "--script", str(tmp_path / "bad.js"),
                      "--schedule", "manual")
    assert error["field"] == "runner.source" and error["message"].startswith("line 2:")
    (tmp_path / "big.js").write_text("//" + "x" * (10 * 1024 * 1024))
    error = cli.error("add", "--title", "Big", "--script", str(tmp_path / "big.js"),
                      "--schedule", "manual")
    assert error["field"] == "--script" and "64 KB" in error["message"]
    error = cli.error("add", "--title", "None", "--script", str(tmp_path / "absent.js"),
                      "--schedule", "manual")
    assert error["field"] == "--script"
    assert cli.json("list")["automations"] == []


def test_folders_a_script_may_change_are_rules(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "s.js").write_text("export default function ({ actions }) {\n"
                                   "  actions.writeFile(%r, 'x');\n}\n"
                                   % str(tmp_path / "Invoices" / "a.txt"))
    made = cli.json("add", "--title", "Filer", "--script", str(tmp_path / "s.js"),
                    "--schedule", "manual", "--allow-write", str(tmp_path / "Invoices"))
    assert made["permissions"]["rules"] == [{"tool": "write_file", "action": "allow",
                                             "pattern": f"{tmp_path / 'Invoices'}/*"}]
    trial = cli.json("run-now", made["id"][:8], "--dry-run")
    assert trial["actions"][0]["would_apply"] is True
    odd = tmp_path / "[old]"
    odd.mkdir()
    made = cli.json("add", "--title", "Odd", "--script", str(tmp_path / "s.js"),
                    "--schedule", "manual", "--allow-write", str(odd))
    assert made["permissions"]["rules"][0]["pattern"] == f"{tmp_path}/[[]old]/*"
    error = cli.error("add", "--title", "Cmd", "--command", "true", "--schedule", "manual",
                      "--allow-write", str(tmp_path))
    assert error["field"] == "--allow-write"


def test_a_dry_run_on_a_given_event(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "s.js").write_text("export default function ({ event, actions }) {\n"
                                   "  actions.notify(event.type + ' ' + event.payload.body.n);\n}\n")
    made = cli.json("add", "--title", "Hook", "--script", str(tmp_path / "s.js"),
                    "--schedule", "manual")
    event = json.dumps({"trigger": {"kind": "webhook"}, "payload": {"body": {"n": 7}}})
    trial = cli.json("run-now", made["id"][:8], "--dry-run", "--event", event)
    assert trial["actions"][0]["message"] == "webhook.received 7"
    error = cli.error("run-now", made["id"][:8], "--dry-run", "--event", "{not json")
    assert error["field"] == "--event"
