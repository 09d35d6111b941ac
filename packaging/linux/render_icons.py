#!/usr/bin/env python3
"""Render the app icon (resources/icons/errands.svg) for desktops and installers.

    .venv/bin/python packaging/linux/render_icons.py

writes, with Qt's own SVG renderer (offscreen, no display needed):

- ``packaging/linux/icons/hicolor/<n>x<n>/apps/errands.png`` for every size in ``SIZES``,
  and ``hicolor/scalable/apps/errands.svg`` (a copy of the source);
- ``packaging/windows/errands.ico`` (16 to 256 px, PNG entries) for the Windows program;
- ``packaging/macos/errands.icns`` (16 to 1024 px, PNG entries) for the macOS app bundle.

The results are committed; run this again after changing the SVG.
"""

from __future__ import annotations

import os
import shutil
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "resources" / "icons" / "errands.svg"
HICOLOR = ROOT / "packaging" / "linux" / "icons" / "hicolor"
ICO = ROOT / "packaging" / "windows" / "errands.ico"
ICNS = ROOT / "packaging" / "macos" / "errands.icns"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS entry types holding PNG data, by pixel size (the @2x types reuse the larger sizes).
ICNS_TYPES = ((b"icp4", 16), (b"icp5", 32), (b"icp6", 64), (b"ic07", 128), (b"ic08", 256),
              (b"ic09", 512), (b"ic10", 1024), (b"ic11", 32), (b"ic12", 64), (b"ic13", 256),
              (b"ic14", 1024))


def render(size: int) -> bytes:
    """The icon as PNG bytes, ``size`` pixels square, transparent around the shape."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        raise SystemExit(f"error: {SOURCE} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def ico(images: dict[int, bytes]) -> bytes:
    """A Windows .ico whose entries are PNG images (Windows Vista and later read these)."""
    sizes = sorted(images)
    head = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(head) + 16 * len(sizes)
    entries, blobs = b"", b""
    for size in sizes:
        png = images[size]
        side = 0 if size >= 256 else size  # 0 means 256 in an ICONDIRENTRY
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset)
        blobs += png
        offset += len(png)
    return head + entries + blobs


def icns(images: dict[int, bytes]) -> bytes:
    """A macOS .icns made of PNG entries."""
    body = b"".join(kind + struct.pack(">I", 8 + len(images[size])) + images[size]
                    for kind, size in ICNS_TYPES)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (kept alive)
    images = {size: render(size) for size in sorted({*SIZES, *ICO_SIZES, 1024})}
    for size in SIZES:
        target = HICOLOR / f"{size}x{size}" / "apps" / "errands.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(images[size])
    scalable = HICOLOR / "scalable" / "apps" / "errands.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE, scalable)
    for path, data in ((ICO, ico({s: images[s] for s in ICO_SIZES})), (ICNS, icns(images))):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"Wrote {len(SIZES)} PNGs and the SVG under {HICOLOR.relative_to(ROOT)}, "
          f"{ICO.relative_to(ROOT)} and {ICNS.relative_to(ROOT)}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
