"""Property tests of the control channel's request handling, with the generators of
``fuzz/fuzz_channel.py``: whatever a client sends, the answer is ok or a refusal naming
its field, never ``internal``/``database``, never a logged traceback, always quick."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_PATH = Path(__file__).resolve().parents[1] / "fuzz" / "fuzz_channel.py"
_spec = importlib.util.spec_from_file_location("fuzz_channel", _PATH)
assert _spec is not None and _spec.loader is not None
fuzz: Any = importlib.util.module_from_spec(_spec)
sys.modules["fuzz_channel"] = fuzz
_spec.loader.exec_module(fuzz)


@pytest.fixture
def target() -> Iterator[Any]:
    hosted = fuzz.Target()
    try:
        yield hosted
    finally:
        hosted.close()


@pytest.mark.parametrize(("count", "share", "seed"), [(600, 0.0, 7), (80, 1.0, 11)],
                         ids=["handler", "socket"])
def test_odd_requests_are_answered_or_refused_never_internal(target: Any, count: int,
                                                             share: float, seed: int) -> None:
    fuzz.run(target, count, seed, socket_share=share)
    assert target.findings.failures == []
    assert sum(target.findings.counts.values()) == count
    assert target.findings.counts["invalid_input"] > count // 3  # most of it is refused
    assert target.findings.counts["ok"] > 0  # and some of it is fine


def test_the_fuzz_script_reports_and_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert fuzz.main(["--count", "150", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "150 requests" in out and "internal errors: 0" in out
