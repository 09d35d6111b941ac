"""requirements.lock: what CI tests is what a fresh install gets. The lock satisfies every
requirement pyproject.toml states (so it is not stale), bounds every library whose
behaviour Errands depends on, and the environment running these tests was installed from it
(``python3 dev.py test``), except under ``dev.py test --latest``, which tests the newest."""

from __future__ import annotations

import importlib.metadata
import os
import tomllib
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
# Installed by the environment itself, or Errands: not locked.
UNLOCKED = {"errands", "pip", "setuptools", "wheel"}


def _pins() -> dict[str, Version]:
    """The lock's pins that apply to this interpreter and platform."""
    pins: dict[str, Version] = {}
    for line in LOCK.read_text().splitlines():
        if not line or line.startswith((" ", "#")):
            continue
        pin, _, marker = line.partition(";")
        if marker.strip() and not Marker(marker.strip()).evaluate():
            continue
        name, _, version = pin.strip().partition("==")
        assert version, f"requirements.lock: {line!r} is not a name==version pin"
        pins[canonicalize_name(name)] = Version(version)
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    texts = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        texts += extra
    return [Requirement(t) for t in texts]


def test_the_lock_satisfies_every_requirement_of_pyproject() -> None:
    pins = _pins()
    for requirement in _requirements():
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is required but not locked: python3 dev.py lock"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"the lock pins {name} {pins[name]}, outside {requirement}: python3 dev.py lock")


@pytest.mark.parametrize("name", ["httpx", "sqlalchemy", "alembic", "pyside6-essentials",
                                  "qasync", "keyring", "cron-descriptor", "openai"])
def test_the_libraries_errands_depends_on_have_a_major_bound(name: str) -> None:
    bounded = [r for r in _requirements() if canonicalize_name(r.name) == name]
    assert bounded, name
    for requirement in bounded:
        assert any(s.operator == "<" for s in requirement.specifier), str(requirement)


@pytest.mark.skipif(os.environ.get("ERRANDS_TEST_LATEST") == "1",
                    reason="dev.py test --latest tests the newest releases, not the lock")
def test_this_environment_was_installed_from_the_lock() -> None:
    pins = _pins()
    wrong, unlocked = [], []
    for dist in importlib.metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"])
        if name in UNLOCKED:
            continue
        if name not in pins:
            unlocked.append(name)
        elif Version(dist.version) != pins[name]:
            wrong.append(f"{name} {dist.version} (locked: {pins[name]})")
    assert not wrong and not unlocked, (
        f"not as locked: {wrong}; not in the lock: {unlocked}. Install with python3 dev.py "
        "test (it installs from requirements.lock), or write the lock again: python3 dev.py "
        "lock")
