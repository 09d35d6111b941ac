"""Build the PyInstaller bundle and smoke-test the built program (slow, opt-in).

    ERRANDS_BUNDLE_SMOKE=1 python3 dev.py test tests/test_bundle_smoke.py

runs ``packaging/build.py`` (1 to 2 minutes on a 2-core machine, PyInstaller
installed into .venv first if missing) and then ``packaging/smoke.py`` (about 10 to 20 s):
``--version``, ``add`` + ``list``, ``serve`` answering ``run-now --wait`` and stopping on
SIGTERM, and the app offscreen stopping on SIGTERM. ``.ci/run`` does not set the variable:
see the "Install" section of README.md for why and for the measured times.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Decided at import: the autouse fixtures in conftest.py clear ERRANDS_* for each test.
pytestmark = pytest.mark.skipif(
    os.environ.get("ERRANDS_BUNDLE_SMOKE") != "1",
    reason="builds the PyInstaller bundle (over a minute); set ERRANDS_BUNDLE_SMOKE=1 to run")


def test_bundle_builds_and_passes_its_smoke_test() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRANDS_")}
    build = subprocess.run([sys.executable, str(ROOT / "packaging" / "build.py")], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=1200)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-5000:]
    print(build.stdout)
    smoke = subprocess.run([sys.executable, str(ROOT / "packaging" / "smoke.py")], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=600)
    print(smoke.stdout)
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
