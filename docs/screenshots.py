"""Render the main window to PNG screenshots for the README, light and dark.

    .venv/bin/python docs/screenshots.py [--out docs/images] [--language de|zh_CN]

Runs offscreen (no display needed): a throw-away data folder with a few automations, the
real app shell over a real engine, each view grabbed with ``QWidget.grab()``. Writes
``window-light.png``, ``window-dark.png``, ``welcome-*.png`` (the first start) and
``describe-*.png`` (quick create's card), ``script-form-light.png`` (a script after Try
it), ``script-run-*.png`` (a script run's record), ``tray-states.png``; with ``--language``,
the window and the form in that language, light: ``window-de.png``, ``form-de.png``. Look
at them before you publish them (Chinese needs a font with its characters, e.g.
``fonts-wqy-microhei``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.pop("ERRANDS_DATA_DIR", None)

ROOT = Path(__file__).resolve().parent.parent
SIZES = {"large": (1400, 880), "small": (820, 560)}
SAMPLES = [
    ("Disk report", "df -h /", {"kind": "cron", "expression": "0 9 * * MON-FRI"}),
    ("Backup notes", "true", {"kind": "every", "every": "6h"}),
    ("Site monitor", "exit 1", {"kind": "every", "every": "15m"}),
    ("Weekly review", "true", {"kind": "cron", "expression": "0 17 * * FRI"}),
]
SCRIPT = """\
// Files new invoices, and keeps a count.
export default function ({ event, state, actions }) {
  const count = (state.get("filed") || 0) + 1;
  actions.moveFile("inbox/invoice-0042.pdf", "Invoices/invoice-0042.pdf");
  actions.setState("filed", count);
  actions.notify("Filed invoice-0042.pdf", "Invoices");
  actions.writeFile("/etc/motd", "hello");
  actions.log("filed", count);
}
"""
# what "Describe it…" is shown reading (a monthly day, a folder asked for; the common forms)
SENTENCES = {"": "on the last working day of the month at 5pm sum up the invoices in the repo",
             "de": "jeden Montag um 10 Uhr den Wochenbericht im Projektordner schreiben",
             "zh_CN": "每个工作日上午8点半检查构建"}
# the samples' titles as someone writing in that language would name them
TITLES = {"de": ("Festplattenbericht", "Notizen sichern", "Website-Monitor", "Wochenrückblick"),
          "zh_CN": ("磁盘报告", "备份笔记", "网站监控", "每周回顾")}


async def shoot(out: Path, data: Path, language: str | None = None) -> list[Path]:
    from PySide6.QtWidgets import QApplication

    from errands.app.notifications import RecordingBackend
    from errands.app.shell import AppShell

    shell = AppShell(data, tray_available=True, notifications=RecordingBackend(),
                     language=language or "en")
    titles = TITLES.get(language or "", [title for title, _c, _t in SAMPLES])
    written = []
    try:
        await shell.start()
        api = shell.api
        assert api is not None
        if not language:  # the first start: an empty catalogue
            await asyncio.sleep(0.6)
            await shell.idle()
            for size, (width, height) in SIZES.items():
                shell.window.resize(width, height)
                for scheme in ("light", "dark"):
                    shell.set_theme(scheme)
                    await asyncio.sleep(0.2)
                    QApplication.processEvents()
                    path = out / (f"welcome-{scheme}.png" if size == "large"
                                  else f"welcome-{scheme}-{size}.png")
                    if not shell.window.grab().save(str(path)):
                        raise OSError(f"could not write {path}")
                    written.append(path)
        ids = []
        for title, (_title, command, trigger) in zip(titles, SAMPLES):
            made, _ = (await api.create({
                "title": title, "runner": {"kind": "command", "command": command},
                "trigger": trigger, "policy": {"retry": {"max_attempts": 1}}})).value
            ids.append(made.id)
        for automation_id in ids[:1] * 3 + ids[2:3]:
            await api.run_now(automation_id, wait=True)
        controller = shell.controller
        assert controller is not None
        script_id = script_run = None
        if not language:  # a script, run once (its record), and its form after Try it
            work = data.parent / "invoices-example"
            (work / "inbox").mkdir(parents=True, exist_ok=True)
            (work / "inbox" / "invoice-0042.pdf").write_bytes(b"%PDF-1.7")
            made, _ = (await api.create({
                "title": "File invoices", "runner": {"kind": "script", "source": SCRIPT},
                "trigger": {"kind": "manual"}, "workdir": str(work)})).value
            script_id = made.id
            script_run = (await api.run_now(script_id, wait=True)).value.id
        controller.sidebar.select(ids[0])
        await asyncio.sleep(0.5)  # let views refresh from the notices
        failed = (await api.runs(ids[2])).value[0][0]
        views = ("window", "form", "describe") if language else (
            "window", "upcoming", "run", "inbox", "form", "script-run", "script-form",
            "describe")
        flow = None
        for view in views:
            if view == "upcoming":
                controller.show_upcoming()
            elif view == "run":
                controller.sidebar.select(ids[2])
                await asyncio.sleep(0.3)
                controller.open_run(failed.id)
            elif view == "inbox":
                controller.show_inbox()
            elif view == "form":
                controller.pages.show_page("detail")
                controller.sidebar.select(ids[0])
                await asyncio.sleep(0.3)
                controller.edit(ids[0])
            elif view == "script-run":
                if controller.form is not None:
                    controller.form.reject()
                controller.pages.show_page("detail")
                controller.sidebar.select(script_id)
                await asyncio.sleep(0.3)
                controller.open_run(script_run)
            elif view == "script-form":
                controller.edit(script_id)
                await asyncio.sleep(0.3)
                assert controller.form is not None
                controller.form.resize(900, 820)
                controller.form.script.show_answer((await api.try_script(script_id)).value)
            elif view == "describe":
                if controller.form is not None:
                    controller.form.reject()
                flow = controller.describe()
                flow.dialog.resize(720, 640)
                flow.dialog.line_edit.setText(SENTENCES.get(language or "", SENTENCES[""]))
                flow.dialog.request_draft()
                await asyncio.sleep(0.3)
                await flow.tasks.idle()
            await asyncio.sleep(0.4)
            await shell.idle()
            for size, (width, height) in SIZES.items():
                if language and size != "large":
                    continue
                shell.window.resize(width, height)
                for scheme in ("light",) if language else ("light", "dark"):
                    shell.set_theme(scheme)
                    await asyncio.sleep(0.2)
                    QApplication.processEvents()
                    if view in ("form", "describe", "script-form") and size != "large":
                        continue  # a dialog keeps its own size
                    if view == "script-form" and scheme != "light":
                        continue
                    name = f"{view}-{scheme}.png" if size == "large" else \
                        f"{view}-{scheme}-{size}.png"
                    if language:
                        name = f"{view}-{language}.png"
                    path = out / name
                    target = (controller.form if view in ("form", "script-form") else
                              flow.dialog if view == "describe" and flow is not None
                              else shell.window)
                    if not target.grab().save(str(path)):
                        raise OSError(f"could not write {path}")
                    written.append(path)
        if flow is not None:
            flow.dialog.reject()
            await flow.wait()
        await controller.idle()
        if not language:
            written.append(tray_states(out))
    finally:
        shell.set_theme("system")
        await shell.close()
    return written


def tray_states(out: Path) -> Path:
    """The tray icon's looks side by side at 64 and 22 px: idle, running, 3 need you,
    everything paused."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QPainter, QPixmap

    from errands.app.icons import tray_pixmap

    states = [{}, {"running": 1}, {"attention": 3}, {"running": 2, "attention": 12},
              {"paused": True}]
    strip = QPixmap(len(states) * 80, 110)
    strip.fill(Qt.GlobalColor.transparent)
    painter = QPainter(strip)
    for i, state in enumerate(states):
        painter.drawPixmap(i * 80 + 8, 4, tray_pixmap(64, **state))
        painter.drawPixmap(i * 80 + 29, 80, tray_pixmap(22, **state))
    painter.end()
    path = out / "tray-states.png"
    if not strip.save(str(path)):
        raise OSError(f"could not write {path}")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--language", choices=("de", "zh_CN"),
                        help="the window and the form in this language instead")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    loop = qasync.QEventLoop(app)
    with tempfile.TemporaryDirectory(prefix="errands-shots-") as tmp:
        try:
            # the shell's settings (theme, geometry) stay in the throw-away folder
            written = loop.run_until_complete(shoot(args.out, Path(tmp) / "data",
                                                     args.language))
        finally:
            loop.close()
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
