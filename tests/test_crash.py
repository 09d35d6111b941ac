"""An error nobody caught in the app: logged with its context, shown once in a dialog with
"Copy details", later ones only counted; the engine keeps running."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox, QPushButton

from app_support import command_doc, run, until
from errands.app.notifications import RecordingBackend
from errands.app.shell import AppShell


@pytest.fixture
def shell(qloop: qasync.QEventLoop, tmp_path: Path) -> Iterator[AppShell]:
    app = AppShell(tmp_path / "data", tray_available=True, notifications=RecordingBackend())
    run(qloop, app.start())
    try:
        yield app
    finally:
        run(qloop, app.idle())
        run(qloop, app.close())
        app.window.deleteLater()


class Emitter(QObject):
    poke = Signal()


def broken_slot() -> None:
    raise ValueError("the slot broke: bad row 7")


@pytest.mark.logs("an error nobody caught")
def test_an_error_in_a_slot_is_logged_shown_once_and_the_engine_goes_on(
        shell: AppShell, qloop: qasync.QEventLoop, caplog: pytest.LogCaptureFixture) -> None:
    emitter = Emitter()
    emitter.poke.connect(broken_slot)
    with caplog.at_level(logging.ERROR, logger="errands.app.crash"):
        emitter.poke.emit()                                  # Qt calls sys.excepthook
        run(qloop, until(lambda: shell.crash.shown is not None, what="the dialog"))
    box = shell.crash.shown
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert "ValueError: the slot broke: bad row 7" in box.informativeText()
    assert "keep running" in box.text()
    assert "Traceback" in box.detailedText() and "broken_slot" in box.detailedText()
    assert "Errands " in box.detailedText().splitlines()[0]
    logged = [r for r in caplog.records if r.name == "errands.app.crash"]
    assert len(logged) == 1 and "bad row 7" in logged[0].getMessage()
    assert "Where: the window" in logged[0].getMessage()

    copy = next(b for b in box.findChildren(QPushButton) if b.text() == "Copy details")
    copy.click()
    assert "bad row 7" in QGuiApplication.clipboard().text()
    assert box.isVisible()                                   # copying does not close it

    # a thread's error: logged, counted, no second dialog
    worker = threading.Thread(target=broken_slot, name="worker-1")
    worker.start()
    worker.join()
    run(qloop, until(lambda: shell.crash.count == 2))
    run(qloop, until(lambda: "2 unexpected errors" in shell.window.statusBar().currentMessage()))
    assert shell.crash.shown is box
    box.close()

    # the engine never noticed
    made = run(qloop, shell.api.create(command_doc("Still here", "echo alive"))).value[0]
    done = run(qloop, shell.api.run_now(made.id, wait=True)).value
    assert done.state == "succeeded" and done.result == "alive"


@pytest.mark.logs("an error nobody caught")
def test_a_task_nobody_awaited_is_reported(shell: AppShell, qloop: qasync.QEventLoop,
                                           caplog: pytest.LogCaptureFixture) -> None:
    async def failing() -> None:
        raise RuntimeError("lost in the background")

    async def scenario() -> None:
        task = shell.loop.create_task(failing())
        await until(lambda: task.done())
        del task  # collected unretrieved: the loop's exception handler hears it

    with caplog.at_level(logging.ERROR, logger="errands.app.crash"):
        run(qloop, scenario())
        import gc
        gc.collect()
        run(qloop, until(lambda: shell.crash.count >= 1, what="reported"))
    assert any("lost in the background" in r.getMessage() for r in caplog.records)
    run(qloop, until(lambda: shell.crash.shown is not None))
    shell.crash.shown.close()
