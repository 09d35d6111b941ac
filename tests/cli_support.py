"""The ``errands`` command line in a test: through ``errands.cli.main`` in the test's own
process (its contract: arguments, output, exit codes, at a few milliseconds a call instead
of half a second), or as a real subprocess of the installed console script where being a
process matters."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from pg_support import handed_on

ERROR_KEYS = {"code", "field", "message", "expected", "example"}


@dataclass
class Result:
    argv: list[str]
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def error(self) -> dict[str, Any]:
        """The ``--json`` error document on stderr (and nothing on stdout)."""
        assert self.out == "", self.out
        doc = json.loads(self.err)
        assert set(doc) == {"error"}
        assert ERROR_KEYS <= set(doc["error"]) <= ERROR_KEYS | {"words", "reason", "values"}
        return doc["error"]

    # (the names of ``subprocess.CompletedProcess``, for helpers written against it)
    @property
    def returncode(self) -> int:
        return self.code

    @property
    def stdout(self) -> str:
        return self.out

    @property
    def stderr(self) -> str:
        return self.err

    def __str__(self) -> str:
        return f"errands {' '.join(self.argv)} -> {self.code}\nstdout: {self.out}\nstderr: {self.err}"



_ONE_AT_A_TIME = threading.Lock()  # (standard streams, environment and folder are global)


ERRANDS = Path(sys.executable).parent / "errands"


def errands(argv: Sequence[str], env: dict[str, str], *, stdin: str | None = None,
            cwd: Path | None = None, process: bool = False, timeout: float = 120) -> Result:
    """``errands ARGV`` with exactly ``env``: in this process where it behaves as in its
    own, else (or with ``process``) as a real subprocess of the console script."""
    argv = [str(a) for a in argv]
    env = handed_on(env)  # (and the PostgreSQL pass's catalogue)
    if process or not in_process_fits(argv):
        proc = subprocess.run([str(ERRANDS), *argv], input=stdin, capture_output=True,
                              text=True, env=env, cwd=cwd, timeout=timeout)
        return Result(argv, proc.returncode, proc.stdout, proc.stderr)
    return run_in_process(argv, env, stdin, cwd or Path.cwd())


def in_process_fits(argv: Sequence[str]) -> bool:
    """Whether an invocation behaves in this process as in its own: not the engine's
    long-running host nor a follow (both end by a signal)."""
    return bool(argv) and argv[0] != "serve" and not {"--follow", "-f"} & set(argv)


def _keyring_as(backend: str | None) -> Any:
    """The keyring a process with ``PYTHON_KEYRING_BACKEND=backend`` would use, set for
    this call; returns the one to put back (None: nothing was changed)."""
    if not backend:
        return None
    import keyring
    import keyring.core

    saved = keyring.get_keyring()
    keyring.set_keyring(keyring.core.load_keyring(backend))
    return saved


def run_in_process(argv: list[str], env: dict[str, str], stdin: str | None,
                   cwd: Path) -> Result:
    """``errands ARGV`` through ``errands.cli.main`` with its own environment, folder, input
    and output, everything put back after (the invocations of ``Cli.many`` take turns)."""
    from errands import store as stores
    from errands.cli import main

    opened: list[Any] = []  # what a process's exit would close (the CLI leaves that to it)
    make = stores.Store.__init__

    def recorded(self: Any, *args: Any, **kwargs: Any) -> None:
        make(self, *args, **kwargs)
        opened.append(self)

    with _ONE_AT_A_TIME:
        saved_env, saved_cwd, saved_stdin = dict(os.environ), os.getcwd(), sys.stdin
        saved_ring = _keyring_as(env.get("PYTHON_KEYRING_BACKEND"))
        stores.Store.__init__ = recorded  # type: ignore[method-assign]
        stores.DEFINITIONS.clear()  # (a process of its own starts with none parsed)
        out, err = io.StringIO(), io.StringIO()
        os.environ.clear()
        os.environ.update(env)
        time.tzset()
        os.chdir(cwd)
        sys.stdin = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
        try:
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = main(argv)
                except SystemExit as exc:  # (argparse's --help)
                    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None
                                                                        else 1)
        finally:
            if saved_ring is not None:
                import keyring
                keyring.set_keyring(saved_ring)
            stores.Store.__init__ = make  # type: ignore[method-assign]
            for store in opened:
                store.close()
            sys.stdin = saved_stdin
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
            time.tzset()
    return Result(argv, code, out.getvalue(), err.getvalue())
