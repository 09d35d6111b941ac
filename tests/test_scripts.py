"""Script automations as a user meets them (issue 30): the uses the issue names, end to
end through the real engine, sandbox workers and disk; propose-then-validate (all or
nothing, effects that already hold); state; the pause after five failures; what an agent or
a file creates starts paused; runs of other automations with an input; dry runs; runs over
the files already in a folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errands.timeutil import utcnow
from agent_support import AgentHarness, h, last_tool_result, server  # noqa: F401 (fixtures)
from mail_support import Smtp, smtp  # noqa: F401 (fixture)
from openai_server import ScriptedServer, call, say
from script_support import Scripts, scripts, until  # noqa: F401 (fixture)

INVOICES = """\
export default function ({ event, files, actions }) {
  for (const change of event.payload.changes) {
    if (change.change !== "created" || !/invoice/i.test(change.path)) continue;
    const from = event.payload.folder + "/" + change.path;
    actions.moveFile(from, "Invoices/" + change.path);
    actions.notify("Filed " + change.path, "Invoices");
  }
}
"""


async def test_an_invoice_landing_in_downloads_is_filed_and_told(scripts: Scripts,
                                                                 tmp_path: Path) -> None:
    downloads = tmp_path / "Downloads"
    downloads.mkdir()
    a = await scripts.add("File invoices", INVOICES, trigger={
        "kind": "folder", "path": str(downloads), "include": ["*.pdf"], "debounce": "1s"},
        permissions={"rules": [{"tool": "write_file", "pattern": f"{downloads}/*",
                                "action": "allow"}]})
    await until(lambda: any(k[0] == a and w.task is not None for k, w in
                            scripts.engine.sources.kinds["folder"].watches.items()), "watching")
    (downloads / "invoice-0042.pdf").write_bytes(b"%PDF-1.7 \x00\xff binary")
    (downloads / "holiday.pdf").write_bytes(b"%PDF")
    await until(lambda: [r for r in scripts.runs(a) if not r.active], "a run")
    [run] = [r for r in scripts.runs(a) if not r.active]
    assert run.state == "succeeded", run.to_dict()
    filed = scripts.work / "Invoices" / "invoice-0042.pdf"
    assert filed.read_bytes() == b"%PDF-1.7 \x00\xff binary"   # a move keeps the bytes
    assert not (downloads / "invoice-0042.pdf").exists() and (downloads / "holiday.pdf").exists()
    record = run.details["script"]
    assert [(r["type"], r["applied"]) for r in record["actions"]] == [("moveFile", True),
                                                                      ("notify", True)]
    assert any(i.kind == "notify" and "Filed invoice-0042.pdf" in (i.body or i.title)
               for i in scripts.store.attention())


STALE_BACKUP = """\
export default function ({ event, files, actions }) {
  const log = files.stat("backup.log");
  if (log === null) { actions.notify("No backup log at all"); return "missing"; }
  const age = Date.parse(event.at) - Date.parse(log.modified);
  if (age > 24 * 3600 * 1000) actions.notify("The backup log is " + Math.round(age / 3600000) + " h old");
  return "checked";
}
"""


async def test_a_morning_check_reads_the_clock_from_its_event(scripts: Scripts) -> None:
    a = await scripts.add("Backup fresh?", STALE_BACKUP, trigger={
        "kind": "cron", "expression": "0 8 * * *", "timezone": "Europe/Berlin"})
    log = scripts.work / "backup.log"
    log.write_text("done")
    import os
    old = utcnow().timestamp() - 3 * 24 * 3600
    os.utime(log, (old, old))
    run = await scripts.run(a)
    assert run.state == "succeeded" and run.result == "checked"
    assert run.details["script"]["actions"][0]["message"].startswith("The backup log is 7")
    assert run.details["script"]["reads"] == 1


INCIDENTS = """\
export default function ({ event, actions }) {
  const p = event.payload;
  actions.appendFile("incidents.md", `- ${event.at} ${p.automation.title}: run #${p.run.index} ${p.run.state}\\n`);
}
"""


async def test_when_the_deploy_fails_a_line_is_appended_to_the_incidents(scripts: Scripts) -> None:
    deploy, _ = await scripts.engine.commands.create({
        "title": "Deploy", "runner": {"kind": "command", "command": "exit 3"},
        "trigger": {"kind": "manual"}, "policy": {"retry": {"max_attempts": 1}}})
    a = await scripts.add("Incidents", INCIDENTS, trigger={
        "kind": "automation", "automation": deploy.id, "states": ["failed"]})
    (scripts.work / "incidents.md").write_text("# Incidents\n")
    for _ in range(2):
        run = await scripts.engine.commands.run_now(deploy.id)
        await scripts.engine.commands.wait_run(run.id)
        await until(lambda: len([r for r in scripts.runs(a) if not r.active]) >= _ + 1,
                    "the follower ran")
    text = (scripts.work / "incidents.md").read_text()
    assert text.startswith("# Incidents\n") and text.count("Deploy: run #") == 2, text
    assert "run #1 failed" in text and "run #2 failed" in text


async def test_a_path_under_a_file_is_refused_before_anything_is_changed(
        scripts: Scripts) -> None:
    (scripts.work / "blocker").write_text("a file, not a folder")
    a = await scripts.add("two", "export default function ({ actions }) {\n"
                          "  actions.writeFile('first.txt', 'one');\n"
                          "  actions.writeFile('blocker/second.txt', 'two');\n"
                          "  actions.writeFile('third.txt', 'x');\n"
                          "  actions.writeFile('third.txt/fourth.txt', 'y');\n}\n")
    run = await scripts.run(a)
    rows = run.details["script"]["actions"]
    assert [r["applied"] for r in rows] == [True, False, True, False], rows
    assert "is a file, not a folder" in rows[1]["reason"]
    assert "will be a file, not a folder" in rows[3]["reason"]
    assert (scripts.work / "blocker").read_text() == "a file, not a folder"
    assert not list(scripts.work.glob(".errands-*"))


@pytest.mark.catalogue_free
def test_a_failure_while_applying_puts_back_all_that_was_done(tmp_path: Path) -> None:
    """A folder swapped for a link between the check and the change: nothing is left
    changed, nothing is written through the link, and no staged file stays behind."""
    from errands.scripts import effects
    from errands.scripts.scope import Scope
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "sub").mkdir(parents=True)
    outside.mkdir()
    (work / "a.txt").write_text("old a")
    (work / "b.txt").write_text("b")
    (work / "d.txt").write_text("d")
    verdicts, plan = effects.check_files(Scope.of(str(work)), [
        {"type": "writeFile", "path": "a.txt", "text": "new a"},
        {"type": "moveFile", "from": "b.txt", "to": "c.txt"},
        {"type": "deleteFile", "path": "d.txt"},
        {"type": "writeFile", "path": "sub/e.txt", "text": "e"}])
    assert all(v.ok for v in verdicts)
    (work / "sub").rmdir()
    (work / "sub").symlink_to(outside)
    with pytest.raises(effects.ApplyError) as failed:
        effects.apply(plan, "t")
    assert failed.value.undone
    assert sorted(p.name for p in work.iterdir()) == ["a.txt", "b.txt", "d.txt", "sub"]
    assert (work / "a.txt").read_text() == "old a" and not any(outside.iterdir())


@pytest.mark.catalogue_free
def test_two_files_trade_names_and_modes_and_line_ends_are_kept(tmp_path: Path) -> None:
    import os
    from errands.scripts import effects
    from errands.scripts.scope import Scope
    (tmp_path / "a.txt").write_text("AAA")
    (tmp_path / "b.txt").write_text("BBB")
    (tmp_path / "run.sh").write_bytes(b"echo hi\r\n")
    os.chmod(tmp_path / "run.sh", 0o750)
    verdicts, plan = effects.check_files(Scope.of(str(tmp_path)), [
        {"type": "moveFile", "from": "a.txt", "to": "tmp.txt"},
        {"type": "moveFile", "from": "b.txt", "to": "a.txt"},
        {"type": "moveFile", "from": "tmp.txt", "to": "b.txt"},
        {"type": "appendFile", "path": "run.sh", "text": "echo bye\n"}])
    assert all(v.ok for v in verdicts), [v.reason for v in verdicts]
    effects.apply(plan, "t")
    assert (tmp_path / "a.txt").read_text() == "BBB" and (tmp_path / "b.txt").read_text() == "AAA"
    assert not (tmp_path / "tmp.txt").exists()
    assert (tmp_path / "run.sh").read_bytes() == b"echo hi\r\necho bye\n"
    assert os.stat(tmp_path / "run.sh").st_mode & 0o777 == 0o750
    assert not list(tmp_path.glob(".errands-*"))


async def test_a_pipe_or_a_device_is_never_opened(scripts: Scripts) -> None:
    import os
    os.mkfifo(scripts.work / "pipe")
    a = await scripts.add("pipe", "export default function ({ files, actions }) {\n"
                          "  let said = [];\n"
                          "  try { files.read('pipe') } catch (e) { said.push(e.message) }\n"
                          "  actions.appendFile('pipe', 'x');\n"
                          "  actions.writeFile('/dev/zero', 'x');\n"
                          "  return said.join();\n}\n",
                          permissions={"rules": [{"tool": "write_file", "pattern": "/dev/*",
                                                  "action": "allow"}]})
    run = await scripts.run(a)
    assert "not a regular file" in run.result
    rows = run.details["script"]["actions"]
    assert all(not r["applied"] and "not a regular file" in r["reason"] for r in rows), rows


async def test_an_effect_that_already_holds_is_not_a_failure(scripts: Scripts) -> None:
    (scripts.work / "same.txt").write_text("same")
    a = await scripts.add("holds", "export default function ({ actions }) {\n"
                          "  actions.writeFile('same.txt', 'same');\n"
                          "  actions.deleteFile('never-there.txt');\n}\n")
    run = await scripts.run(a)
    assert run.state == "succeeded", run.to_dict()
    assert [r["reason"].startswith("already holds") for r in
            run.details["script"]["actions"]] == [True, True]


async def test_each_action_sees_the_ones_before_it(scripts: Scripts) -> None:
    a = await scripts.add("sequence", "export default function ({ actions }) {\n"
                          "  actions.writeFile('a.txt', 'one\\n');\n"
                          "  actions.appendFile('a.txt', 'two\\n');\n"
                          "  actions.moveFile('a.txt', 'b.txt');\n"
                          "  actions.writeFile('a.txt', 'new');\n}\n")
    run = await scripts.run(a)
    assert run.state == "succeeded", run.to_dict()
    assert (scripts.work / "b.txt").read_text() == "one\ntwo\n"
    assert (scripts.work / "a.txt").read_text() == "new"


async def test_state_lasts_across_runs_and_restarts_and_a_dry_run_leaves_it(
        scripts: Scripts) -> None:
    a = await scripts.add("counter", "export default function ({ state, actions }) {\n"
                          "  const n = (state.get('n') || 0) + 1;\n"
                          "  actions.setState('n', n);\n  return String(n);\n}\n")
    assert (await scripts.run(a)).result == "1"
    trial = await scripts.engine.scripts.try_script(a)
    assert trial["actions"] == [{"type": "setState", "key": "n", "would_apply": True,
                                 "reason": None}]
    await scripts.restart()
    assert (await scripts.run(a)).result == "2"
    assert scripts.store.script_state(a) == {"n": 2}
    assert len(scripts.runs(a)) == 2   # the dry run recorded nothing


async def test_five_failures_in_a_row_pause_it_with_the_reason(scripts: Scripts) -> None:
    a = await scripts.add("broken", "export default function () {\n"
                          "  throw new Error('schema changed');\n}\n",
                          trigger={"kind": "every", "every": "1h",
                                   "start_at": "2030-01-01T00:00:00Z"})
    for _ in range(5):
        await scripts.run(a)
    automation = scripts.store.get(a)
    assert automation.status == "paused"
    assert "5 consecutive failures" in (automation.paused_reason or "")
    assert any(i.kind == "auto_paused" for i in scripts.store.attention())
    await scripts.run(a)   # by hand while paused: recorded, the reason stays
    assert scripts.store.get(a).paused_reason == automation.paused_reason


async def test_what_an_agent_or_a_file_brings_starts_paused(scripts: Scripts) -> None:
    source = "export default function ({ actions }) { actions.notify('hi') }\n"
    doc = {"title": "From outside", "runner": {"kind": "script", "source": source},
           "trigger": {"kind": "manual"}, "origin": {"kind": "agent"}}
    made, _ = await scripts.engine.commands.create(doc)
    assert made.status == "paused"
    from errands.transfer import export_document
    exported, _ = export_document(scripts.store, [made.id], now=utcnow())
    exported["automations"][0]["definition"]["paused"] = False
    exported["automations"][0]["request_id"] = "another"
    exported["automations"][0].pop("id", None)
    plan = await scripts.engine.commands.import_document(exported)
    imported = scripts.store.get(plan.creates[0][0].automation_id)
    assert imported.status == "paused" and imported.definition.runner.kind == "script"
    resumed = await scripts.engine.commands.set_paused(imported.id, False)
    assert resumed.status == "active"   # a person enables it (compiled again)


async def test_a_script_runs_another_automation_with_an_input(scripts: Scripts) -> None:
    target = await scripts.add("Report", "export default function ({ event, actions }) {\n"
                               "  actions.writeFile('report.txt', JSON.stringify(event.payload.input));\n"
                               "  return event.type;\n}\n")
    a = await scripts.add("Asker", "export default function ({ actions }) {\n"
                          "  actions.runAutomation('Report', {week: 49});\n"
                          "  actions.runAutomation('No such one', {});\n}\n")
    run = await scripts.run(a)
    rows = run.details["script"]["actions"]
    assert rows[0]["applied"] and not rows[1]["applied"]
    assert "no automation is called" in rows[1]["reason"]
    await until(lambda: [r for r in scripts.runs(target) if not r.active], "the report ran")
    [done] = scripts.runs(target)
    assert done.state == "succeeded" and done.result == "automation.requested"
    assert json.loads((scripts.work / "report.txt").read_text()) == {"week": 49}
    assert done.fired_by()["depth"] == 1 and done.fired_by()["chain"] == [a]


async def test_a_dry_run_on_a_chosen_or_an_earlier_event(scripts: Scripts) -> None:
    a = await scripts.add("echo", "export default function ({ event, actions }) {\n"
                          "  actions.writeFile('out.txt', event.type + ' ' + "
                          "JSON.stringify(event.payload));\n}\n")
    chosen = await scripts.engine.scripts.try_script(a, event={
        "trigger": {"kind": "webhook", "id": "hook"}, "payload": {"body": {"x": 1}}})
    assert chosen["status"] == "ok" and chosen["actions"][0]["would_apply"]
    assert not (scripts.work / "out.txt").exists()
    await scripts.run(a)
    earlier = await scripts.engine.scripts.try_script(a, event={"run": 1})
    assert earlier["actions"][0]["would_apply"] is False   # the same text: it holds
    assert earlier["actions"][0]["reason"].startswith("already holds")
    draft = {"title": "draft", "runner": {"kind": "script", "source":
             "export default function () { return 'draft' }"}, "trigger": {"kind": "manual"}}
    assert (await scripts.engine.scripts.try_script(doc=draft))["result"] == "draft"


async def test_run_over_what_is_already_there(scripts: Scripts, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for i in range(3):
        (inbox / f"note-{i}.txt").write_text(str(i))
    (inbox / "skip.bin").write_text("x")
    a = await scripts.add("copy", "export default function ({ event, files, actions }) {\n"
                          "  const name = event.payload.changes[0].path;\n"
                          "  actions.writeFile('copies/' + name, 'seen');\n}\n",
                          trigger={"kind": "folder", "path": str(inbox),
                                   "include": ["*.txt"]})
    dry = await scripts.engine.scripts.run_over_existing(a, dry_run=True)
    assert dry["total"] == 3 and not (scripts.work / "copies").exists()
    assert all(r["actions"][0]["would_apply"] for r in dry["results"])
    done = await scripts.engine.scripts.run_over_existing(a)
    assert [r["state"] for r in done["results"]] == ["succeeded"] * 3
    assert sorted(p.name for p in (scripts.work / "copies").iterdir()) == [
        "note-0.txt", "note-1.txt", "note-2.txt"]
    assert done["more"] is False


@pytest.mark.parametrize("limits, field", [({"time_ms": 0}, "runner.limits.time_ms"),
                                           ({"heap_mb": 4096}, "runner.limits.heap_mb"),
                                           ({"cpu": 1}, "runner.limits.cpu")])
async def test_limits_are_settable_within_their_ceilings(scripts: Scripts, limits: dict,
                                                         field: str) -> None:
    from errands.errors import InvalidInput
    with pytest.raises(InvalidInput) as caught:
        await scripts.add("limits", "export default function () {}", limits=limits)
    assert caught.value.field == field
    a = await scripts.add("roomy", "export default function () {\n"
                          "  let n = 0; for (let i = 0; i < 3e6; i++) n += i; return 'done';\n}\n",
                          limits={"time_ms": 3000})
    assert (await scripts.run(a)).result == "done"


async def test_the_script_templates_do_what_they_say(scripts: Scripts, tmp_path: Path) -> None:
    from errands.templates import load_templates
    templates = {t.name: t for t in load_templates()[0] if t.runner == "script"}
    assert set(templates) == {"file-invoices", "stale-backup", "log-new-files"}
    downloads, invoices = tmp_path / "dl", tmp_path / "inv"
    downloads.mkdir()
    invoices.mkdir()
    (downloads / "Invoice-7.pdf").write_bytes(b"%PDF")
    made, _ = await scripts.engine.commands.create(templates["file-invoices"].fill(
        {"downloads": str(downloads), "dest": str(invoices), "words": 'in"voice'}))
    trial = await scripts.engine.scripts.try_script(made.id, event={
        "trigger": {"kind": "folder"}, "payload": {"folder": str(downloads), "changes": [
            {"change": "created", "path": "Invoice-7.pdf"}]}})
    assert trial["status"] == "ok" and trial["actions"] == []   # 'in"voice' is not in the name
    made, _ = await scripts.engine.commands.create(templates["file-invoices"].fill(
        {"downloads": str(downloads), "dest": str(invoices)}))
    done = await scripts.engine.scripts.run_over_existing(made.id)
    assert [r["state"] for r in done["results"]] == ["succeeded"]
    assert (invoices / "Invoice-7.pdf").read_bytes() == b"%PDF"
    (invoices / "backup.log").write_text("ok")
    made, _ = await scripts.engine.commands.create(templates["stale-backup"].fill(
        {"folder": str(invoices), "hours": 1}))
    run = await scripts.run(made.id)
    assert run.state == "succeeded" and run.result == "0 h old"
    made, _ = await scripts.engine.commands.create(templates["log-new-files"].fill(
        {"folder": str(invoices)}))
    trial = await scripts.engine.scripts.try_script(made.id, event={
        "trigger": {"kind": "folder"}, "payload": {"folder": str(invoices), "changes": [
            {"change": "created", "path": "a.txt"}, {"change": "created",
                                                     "path": "new-files.md"}]}})
    assert [(a["type"], a["path"], a["would_apply"]) for a in trial["actions"]] == [
        ("appendFile", "new-files.md", True)]


async def test_an_agent_proposes_a_script_that_waits_paused_for_a_person(
        h: AgentHarness, server: ScriptedServer) -> None:
    """The automate tool: even an attended run's script starts paused, with an item to
    review it, and its folder rules cannot be wider than the agent's own."""
    from errands.runners.script import ScriptRunner
    h.engine.runners["script"] = ScriptRunner()
    a = await h.agent("helper", permissions={"mode": "allow_listed", "tools": ["automate"]})
    source = "export default function ({ actions }) { actions.notify('hello') }"
    server.play(call("automate", {"action": "create", "title": "Greeter",
                                  "runner": {"kind": "script", "source": source},
                                  "schedule": "every day at 9am"}), say("Proposed."))
    assert (await h.run(a)).state == "succeeded"
    [made] = [x for x in h.store.list() if x.title == "Greeter"]
    assert made.status == "paused" and made.definition.runner.kind == "script"
    assert made.definition.origin.kind == "agent"
    assert any(i.kind == "review" and "Greeter" in i.title for i in h.store.attention())
    server.play(call("automate", {"action": "create", "title": "Wide",
                                  "runner": {"kind": "script", "source": source},
                                  "schedule": "manual", "permissions": {"rules": [
                                      {"tool": "write_file", "pattern": "/*",
                                       "action": "allow"}]}}), say("Tried."))
    await h.run(a)
    assert not [x for x in h.store.list() if x.title == "Wide"]
    server.play(call("automate", {"action": "create", "title": "Broken",
                                  "runner": {"kind": "script", "source": "export default 1 +"},
                                  "schedule": "manual"}), say("Oops."))
    await h.run(a)
    assert not [x for x in h.store.list() if x.title == "Broken"]
    server.play(call("automate", {"action": "create", "title": "Everywhere",
                                  "runner": {"kind": "script", "source": source},
                                  "schedule": "manual", "workdir": "/"}), say("Tried."))
    await h.run(a)   # its folder is a grant: no wider than the agent's own
    assert not [x for x in h.store.list() if x.title == "Everywhere"]
    assert "the run's own folder" in last_tool_result(server)


async def test_text_that_is_not_text_is_mended_not_fatal(scripts: Scripts) -> None:
    a = await scripts.add("surrogates", "export default function ({ actions }) {\n"
                          "  actions.log('half \\ud800 a pair');\n"
                          "  actions.notify('ok');\n  return '\\udc00';\n}\n")
    run = await scripts.run(a)
    assert run.state == "succeeded" and run.result == "\ufffd"
    assert run.details["script"]["log"] == ["half \ufffd a pair"]


async def test_a_script_mails_me_through_the_mail_account(scripts: Scripts, smtp: Smtp) -> None:
    import email
    from errands.mail.accounts import parse_account, set_password
    from mail_support import PASSWORD, USER
    a = await scripts.add("Backup watch", "export default function ({ actions }) {\n"
                          "  actions.mailMe('Backup is stale', 'The log is 3 days old.');\n}\n")
    run = await scripts.run(a)   # no account yet: refused, and so the run failed
    assert run.state == "failed" and "no mail account" in run.details["script"]["actions"][0][
        "reason"]
    scripts.store.save_mail_account(parse_account({
        "name": "home", "address": USER, "imap_host": "127.0.0.1", "imap_port": 993,
        "imap_security": "none", "smtp_host": "127.0.0.1", "smtp_port": smtp.port,
        "smtp_security": "none"}), utcnow())
    set_password(scripts.data, "home", PASSWORD)
    run = await scripts.run(a)
    assert run.state == "succeeded", run.to_dict()
    [(_, to, raw)] = smtp.messages
    message = email.message_from_bytes(raw)
    assert to == [USER] and message["Subject"] == "Backup watch: Backup is stale"
    assert "3 days old" in message.get_payload()


async def test_the_state_is_bounded_and_a_key_set_to_null_goes(scripts: Scripts) -> None:
    a = await scripts.add("big", "export default function ({ state, actions }) {\n"
                          "  for (let i = 0; i < 20; i++) actions.setState('k' + i, 'v'.repeat(15000));\n"
                          "  actions.setState('gone', null);\n}\n", limits={"actions": 100})
    run = await scripts.run(a)
    rows = run.details["script"]["actions"]
    applied = [r["applied"] for r in rows[:20]]
    assert applied[:16] == [True] * 16 and applied[-1] is False   # 256 KB: the rest refused
    assert "256 KB" in rows[19]["reason"]
    assert len(scripts.store.script_state(a)) == sum(applied)
