"""Script automations in the window, offscreen over a real engine (issue 30): the form's
script editor refuses a script that cannot run with the error under it and its line marked,
"Try it" lists each proposed action with its verdict and applies nothing, and a run's page
shows the script's record."""

from __future__ import annotations

from pathlib import Path

import qasync

from app_support import run, shell, until  # noqa: F401 (fixture)
from errands.app.shell import AppShell


def test_the_form_refuses_at_the_line_and_tries_without_applying(
        shell: AppShell, qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    controller = shell.controller
    assert controller is not None
    form = controller.new()
    form.title_edit.setText("Tidy")
    form.runner_box.setCurrentIndex(form.runner_box.findData("script"))
    assert form.script.isVisibleTo(form) and not form.command_edit.isVisibleTo(form)
    work = tmp_path / "work"
    work.mkdir()
    form.workdir_edit.setText(str(work))
    form.script.set_source("export default function ({ actions }) {\n"
                           "  actions.writeFile('a.txt', 'x');\n"
                           "  actions.deleteFile('/etc/hostname');\n"
                           "  return 1 +;\n}\n")
    assert form.submit()
    run(qloop, until(lambda: form.field_error("runner.source")))
    assert form.field_error("runner.source").startswith("line 4:")
    assert form.script.editor.error_line == 4
    assert shell.api is not None
    assert run(qloop, shell.api.automations()).value[0] == []
    form.script.set_source("export default function ({ actions }) {\n"
                           "  actions.writeFile('a.txt', 'x');\n"
                           "  actions.deleteFile('/etc/hostname');\n}\n")
    assert form.script.editor.error_line is None   # an edit clears the mark
    form.script.try_button.click()
    run(qloop, until(lambda: form.script.model.rowCount() == 2))
    verdicts = [form.script.model.item(r, 2).text() for r in range(2)]
    assert verdicts[0] == "Yes" and verdicts[1].startswith("No: /etc/hostname is outside")
    assert "Nothing was applied." in form.script.summary.text()
    assert not (work / "a.txt").exists()
    assert form.submit()
    run(qloop, until(lambda: controller.form is None))
    [made] = run(qloop, shell.api.automations()).value[0]
    assert made.definition.runner.kind == "script"
    run(qloop, shell.api.run_now(made.id, wait=True))
    [runs, _] = run(qloop, shell.api.runs(made.id)).value
    assert (work / "a.txt").read_text() == "x"
    controller.open_run(runs[0].id)
    from errands.app.detail.session import SessionView
    page = shell.window.findChild(SessionView)
    run(qloop, until(lambda: page.script_model.rowCount() == 2))
    assert page.script_model.item(0, 2).text() == "Yes"
    assert page.script_model.item(1, 2).text().startswith("No: ")
    assert page.script_label.text().startswith("It ran.")


def test_the_pages_dry_run_and_a_run_over_the_files_already_there(
        shell: AppShell, qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    from errands.app.dialogs.script_editor import TrialDialog
    from PySide6.QtWidgets import QMessageBox
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in ("a.txt", "b.txt"):
        (inbox / name).write_text(name)
    api, controller = shell.api, shell.controller
    assert api is not None and controller is not None
    made, _ = run(qloop, api.create({
        "title": "Copier", "workdir": str(tmp_path / "copies"),
        "trigger": {"kind": "folder", "path": str(inbox)},
        "runner": {"kind": "script", "source":
                   "export default function ({ event, actions }) {\n"
                   "  const c = (event.payload && event.payload.changes) || [];\n"
                   "  for (const x of c) actions.writeFile(x.path, 'copied');\n}\n"}})).value
    controller.open_automation(made.id)
    run(qloop, until(lambda: controller.detail.automation is not None
                     and controller.detail.automation.id == made.id))
    assert controller.detail.more_actions["existing"].isVisible()
    controller.detail.buttons["dry_run"].click()
    dialog = controller.told
    assert isinstance(dialog, TrialDialog)
    run(qloop, until(lambda: "Nothing was applied." in dialog.trial.summary.text()))
    dialog.reject()
    assert run(qloop, api.runs(made.id)).value[0] == []   # a dry run records nothing
    controller.detail.more_actions["existing"].trigger()
    box = controller.told
    assert isinstance(box, QMessageBox)
    [go] = [b for b in box.buttons() if b.text() == "Run over them"]
    go.click()
    run(qloop, until(lambda: (tmp_path / "copies" / "b.txt").exists()))
    run(qloop, until(lambda: "Ran over 2 files" in shell.window.statusBar().currentMessage()))
    assert (tmp_path / "copies" / "a.txt").read_text() == "copied"
    assert len(run(qloop, api.runs(made.id)).value[0]) == 2
