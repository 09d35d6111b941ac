"""An installed wheel (not the editable checkout) finds its migrations and resources."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A child Python must find the wheel, never the checkout: an inherited PYTHONPATH=desktop
# (or PYTHONHOME, PYTHONSTARTUP, PYTHONUSERBASE, ...) would let the test pass against the
# source tree. So every PYTHON* variable is dropped except these, which only change how
# Python runs, not what it imports (PYTHONSAFEPATH only removes a path).
_HARMLESS = {"PYTHONSAFEPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONHASHSEED",
             "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONFAULTHANDLER"}
_VENV_MARKERS = {"VIRTUAL_ENV", "__PYVENV_LAUNCHER__"}  # the caller's environment, not ours


def _child_env() -> dict[str, str]:
    """The environment of every child, built here rather than inherited wholesale: uv keeps
    what it needs (PATH, HOME and its cache, proxies, UV_*), Python gets nothing that moves
    its import path, and Errands reads no ERRANDS_* setting of the caller."""
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("PYTHON") and k not in _HARMLESS)
           and k not in _VENV_MARKERS and not k.startswith("ERRANDS_")}
    env["PYTHONNOUSERSITE"] = "1"  # no ~/.local site-packages either
    return env


@pytest.mark.own_catalogues  # (the installed wheel, outside the checkout: its own data folder)
def test_wheel_installs_and_runs_outside_the_checkout(tmp_path: Path) -> None:
    env = _child_env()
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "uv", "build", "--wheel", "--out-dir", str(dist), str(ROOT)],
                   check=True, capture_output=True, timeout=300, env=env)
    wheel = next(dist.glob("errands-*.whl"))
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    # Borrow the dependencies from this environment without its editable Errands finder:
    # a plain .pth line adds the folder to sys.path but runs none of the .pth files inside it.
    site = Path(subprocess.check_output(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        text=True, cwd=tmp_path, env=env).strip())
    (site / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "uv", "pip", "install", "--no-deps", "--python", str(py),
                    str(wheel)], check=True, capture_output=True, timeout=300, env=env)
    where = subprocess.check_output(
        [str(py), "-c", "import errands, errands.resources_access as r; print(errands.__file__);"
         "print(r.resource('icons', 'errands.svg').read_text()[:4]);"
         "print(*(r.resource('i18n', f'errands_{l}.qm').read_bytes()[:4].hex()"
         " for l in ('de', 'zh_CN')))"],
        text=True, cwd=tmp_path, env=env)
    location, svg, *translations = where.split()
    assert str(env_dir) in location and str(ROOT) not in location
    assert svg == "<svg"
    assert translations == ["3cb86418"] * 2  # the .qm files' magic: the window's translations
    data = tmp_path / "data"
    out = subprocess.run([str(env_dir / "bin" / "errands"), "add", "--data-dir", str(data), "--title",
                          "From the wheel", "--command", "true", "--schedule", "every:1h", "--json"],
                         check=True, capture_output=True, text=True, cwd=tmp_path, env=env)
    assert json.loads(out.stdout)["title"] == "From the wheel"
    assert (data / "errands.sqlite3").exists()


@pytest.mark.catalogue_free
def test_every_package_of_the_source_is_in_the_wheel() -> None:
    """A package left out of pyproject's list is missing from an installed Errands (the
    mail package once was), and only the features that import it fail."""
    import tomllib
    root = Path(__file__).resolve().parent.parent
    listed = set(tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(p.parent.relative_to(root / "desktop").parts)
             for p in (root / "desktop" / "errands").rglob("__init__.py")}
    assert found - listed == set()
