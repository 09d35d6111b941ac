"""The data folder's own folders: made private, and never refused for a race."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from errands.paths import private_dir

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough


def test_missing_folders_are_made_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        private_dir(tmp_path / "a" / "b")
    finally:
        os.umask(old)
    for folder in (tmp_path / "a", tmp_path / "a" / "b"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_folder_made_meanwhile_by_another_thread_is_no_error(tmp_path: Path) -> None:
    """The timer readies a run's workspace on a worker while the run, started at once,
    makes it too: the folder appearing between two looks is what was wanted."""
    target = tmp_path / "workspaces" / "one"
    looked: list[str] = []

    class Racing(type(tmp_path)):  # type: ignore[misc]
        def is_dir(self) -> bool:  # type: ignore[override]
            if str(self) == str(target) and not looked:
                looked.append(str(self))
                os.makedirs(self)  # the other thread, right after this look
                return False
            return super().is_dir()

    private_dir(Racing(target))
    assert target.is_dir() and looked


def test_a_file_where_a_folder_belongs_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("not a folder")
    with pytest.raises(FileExistsError):
        private_dir(tmp_path / "a" / "b")
    with pytest.raises(FileExistsError):
        private_dir(tmp_path / "a")
