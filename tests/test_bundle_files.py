"""The packaging files, checked without building anything: the Linux desktop entry and
AppStream metainfo, the rendered icons, what the PyInstaller spec collects, install-linux.sh.

The bundle itself is built and smoke-tested by tests/test_bundle_smoke.py (opt-in, slow)."""

from __future__ import annotations

import ast
import configparser
import os
import re
import shutil
import struct
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
LINUX = PACKAGING / "linux"
DESKTOP = LINUX / "errands.desktop"
METAINFO = LINUX / "io.github.errands.Errands.metainfo.xml"
HICOLOR = LINUX / "icons" / "hicolor"
SPEC = PACKAGING / "errands.spec"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    return parser["Desktop Entry"]


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


# -- the desktop entry ----------------------------------------------------------------------

def test_desktop_entry_has_the_required_keys() -> None:
    entry = _desktop_entry()
    assert entry["Type"] == "Application"
    assert entry["Name"] == "Errands"
    assert entry["Comment"].strip()
    assert entry["Exec"] == "errands"  # install-linux.sh puts in the full path
    assert entry["Icon"] == "errands"
    assert entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";") and "Utility" in entry["Categories"].split(";")
    assert entry["Keywords"].endswith(";") and len(entry["Keywords"].split(";")) > 3


def test_desktop_entry_matches_the_apps_desktop_file_name() -> None:
    """Wayland matches windows to entries by app id (the desktop file name), X11 by
    StartupWMClass: both must be what the app announces with setDesktopFileName."""
    shell = (ROOT / "desktop" / "errands" / "app" / "shell.py").read_text(encoding="utf-8")
    announced = re.search(r'setDesktopFileName\("([^"]+)"\)', shell)
    assert announced, "the app no longer calls setDesktopFileName"
    assert DESKTOP.stem == announced.group(1)
    assert _desktop_entry()["StartupWMClass"] == announced.group(1)


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-validate is not installed (desktop-file-utils)")
def test_desktop_entry_validates() -> None:
    out = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True)
    assert out.returncode == 0 and "error" not in out.stdout, out.stdout + out.stderr


# -- the AppStream metainfo ------------------------------------------------------------------

def test_metainfo_has_the_required_elements() -> None:
    root = ET.parse(METAINFO).getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == METAINFO.name.removesuffix(".metainfo.xml")
    assert root.findtext("name") == "Errands"
    assert root.findtext("summary", "").strip()
    assert root.findtext("metadata_license")
    assert root.findtext("project_license") == PYPROJECT["project"]["license"]["text"]
    description = root.find("description")
    assert description is not None and description.findtext("p", "").strip()
    launchable = root.find("launchable")
    assert launchable is not None and launchable.get("type") == "desktop-id"
    assert launchable.text == DESKTOP.name
    rating = root.find("content_rating")
    assert rating is not None and rating.get("type", "").startswith("oars-")


def test_metainfo_release_is_the_project_version() -> None:
    releases = ET.parse(METAINFO).getroot().findall("releases/release")
    assert releases, "no <release>"
    newest = releases[0]
    assert newest.get("version") == PYPROJECT["project"]["version"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", newest.get("date", ""))


def test_metainfo_screenshots_are_the_documented_images() -> None:
    images = [e.text or "" for e in ET.parse(METAINFO).getroot().iter("image")]
    assert images
    for url in images:
        assert url.startswith("https://") and "/docs/images/" in url, url
        assert (ROOT / "docs" / "images" / url.rsplit("/", 1)[1]).exists(), url


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="appstreamcli is not installed")
def test_metainfo_validates() -> None:
    out = subprocess.run(["appstreamcli", "validate", "--no-net", str(METAINFO)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


# -- icons -----------------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_hicolor_icon_exists_at_its_size(size: int) -> None:
    path = HICOLOR / f"{size}x{size}" / "apps" / "errands.png"
    assert path.exists(), f"{path} is missing: run packaging/linux/render_icons.py"
    assert _png_size(path) == (size, size)


def test_scalable_icon_is_the_app_icon() -> None:
    source = (ROOT / "resources" / "icons" / "errands.svg").read_bytes()
    assert (HICOLOR / "scalable" / "apps" / "errands.svg").read_bytes() == source


def test_installer_icons_hold_their_sizes() -> None:
    ico = (PACKAGING / "windows" / "errands.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind) == (0, 1) and count >= 5
    sides = {ico[6 + 16 * i] or 256 for i in range(count)}
    assert {16, 32, 48, 256} <= sides
    icns = (PACKAGING / "macos" / "errands.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)


# -- what the PyInstaller spec collects ------------------------------------------------------

def _spec_constant(name: str) -> tuple[str, ...]:
    for node in ast.parse(SPEC.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError(f"{SPEC.name} defines no {name}")


def test_spec_collects_every_resource_file() -> None:
    """Every file a wheel ships under errands.resources (pyproject's package data, .qm
    translations included) matches the spec's patterns, and so does every file there now."""
    patterns = set(_spec_constant("RESOURCE_PATTERNS"))
    wheel = set(PYPROJECT["tool"]["setuptools"]["package-data"]["errands.resources"])
    assert wheel <= patterns and "**/*.qm" in patterns
    resources = ROOT / "resources"
    collected = {p for pattern in patterns for p in resources.glob(pattern)}
    shipped = {p for p in resources.rglob("*") if p.is_file() and p.suffix != ".pyc"
               and p.name != "__init__.py" and "__pycache__" not in p.parts}
    assert shipped and shipped <= collected, sorted(map(str, shipped - collected))


def test_spec_collects_the_migrations_as_files() -> None:
    """Alembic reads env.py, the template and the revisions from the folder, not through
    imports: every one must be collected as data."""
    patterns = _spec_constant("MIGRATION_PATTERNS")
    migrations = ROOT / "desktop" / "errands" / "migrations"
    collected = {p for pattern in patterns for p in migrations.glob(pattern)}
    wanted = {migrations / "env.py", migrations / "script.py.mako",
              *(migrations / "versions").glob("[0-9]*.py")}
    assert len(wanted) >= 4 and wanted <= collected


def test_spec_names_the_modules_loaded_by_name() -> None:
    text = SPEC.read_text(encoding="utf-8")
    for name in ("keyring.backends", "plyer.platforms.linux.notification", "plyer.platforms.win",
                 "plyer.platforms.macosx", "sqlalchemy.dialects.sqlite", '"alembic"', "qasync",
                 "httpx", "cron_descriptor", "tzdata", "errands/resources",
                 "errands/migrations", "LSUIElement"):
        assert name in text, name


# -- install-linux.sh ------------------------------------------------------------------------

@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script")
def test_install_linux_installs_and_uninstalls(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    (bundle / "_internal").mkdir(parents=True)
    program = bundle / "errands"
    program.write_text("#!/bin/sh\necho 'errands 0.1.0'\n")
    program.chmod(0o755)
    home = tmp_path / "home"
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    script = LINUX / "install-linux.sh"
    done = subprocess.run(["sh", str(script), "--bundle", str(bundle)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    share, opt = home / ".local" / "share", home / ".local" / "opt" / "errands"
    assert (opt / "errands").exists() and (opt / "_internal").is_dir()
    assert (home / ".local" / "bin" / "errands").resolve() == (opt / "errands").resolve()
    installed = share / "applications" / "errands.desktop"
    text = installed.read_text()
    assert f"Exec={opt}/errands\n" in text and f"TryExec={opt}/errands\n" in text
    assert (share / "metainfo" / METAINFO.name).read_bytes() == METAINFO.read_bytes()
    for size in SIZES:
        assert _png_size(share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "errands.png") \
            == (size, size)
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / "errands.svg").exists()
    (share / "errands").mkdir()  # the user's data, which uninstalling keeps
    gone = subprocess.run(["sh", str(script), "--uninstall"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert gone.returncode == 0, gone.stderr
    left = {p.relative_to(home) for p in home.rglob("*") if p.is_file() or p.is_symlink()}
    assert not {p for p in left if "errands" in p.name}, left
    assert (share / "errands").is_dir() and not opt.exists()


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script")
def test_install_linux_refuses_without_a_bundle(tmp_path: Path) -> None:
    done = subprocess.run(["sh", str(LINUX / "install-linux.sh"), "--bundle", str(tmp_path)],
                          env={"HOME": str(tmp_path / "home"), "PATH": os.environ["PATH"]},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "python3 dev.py bundle" in done.stderr
    assert not (tmp_path / "home" / ".local" / "opt").exists()
