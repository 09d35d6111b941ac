"""An installed wheel (not the editable checkout) finds its migrations and resources."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_installs_and_runs_outside_the_checkout(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "uv", "build", "--wheel", "--out-dir", str(dist), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    wheel = next(dist.glob("errands-*.whl"))
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    # Borrow the dependencies from this environment without its editable Errands finder:
    # a plain .pth line adds the folder to sys.path but runs none of the .pth files inside it.
    site = Path(subprocess.check_output([str(py), "-c", "import sysconfig;"
                                         "print(sysconfig.get_paths()['purelib'])"], text=True).strip())
    (site / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "uv", "pip", "install", "--no-deps", "--python", str(py),
                    str(wheel)], check=True, capture_output=True, timeout=300)
    where = subprocess.check_output(
        [str(py), "-c", "import errands, errands.resources_access as r; print(errands.__file__);"
         "print(r.resource('icons', 'errands.svg').read_text()[:4])"], text=True, cwd=tmp_path)
    location, svg = where.split()
    assert str(env_dir) in location and str(ROOT) not in location
    assert svg == "<svg"
    data = tmp_path / "data"
    out = subprocess.run([str(env_dir / "bin" / "errands"), "add", "--data-dir", str(data), "--title",
                          "From the wheel", "--command", "true", "--schedule", "every:1h", "--json"],
                         check=True, capture_output=True, text=True, cwd=tmp_path)
    assert json.loads(out.stdout)["title"] == "From the wheel"
    assert (data / "errands.sqlite3").exists()
