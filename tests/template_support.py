"""Shared by the template tests (loader and wizard): a web page on loopback for the page
watcher, and waiting for a created automation's first run."""

from __future__ import annotations

import asyncio
import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from errands.engine.api import Api
from errands.errors import Conflict


@pytest.fixture(scope="module")
def page() -> Iterator[str]:
    """A web page on loopback for the page watcher."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = b"<html><body><h1>Prices</h1><p>Widget: 12 EUR</p></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/prices"
    finally:
        server.shutdown()
        server.server_close()


async def first_run(api: Api, automation_id: str) -> Any:
    """Run it now, or (an interval fires when created) wait for the run already going."""
    try:
        return (await api.run_now(automation_id, wait=True)).value
    except Conflict:
        for _ in range(300):
            runs, _cursor = (await api.runs(automation_id)).value
            if runs and runs[0].state not in ("queued", "scheduled", "running"):
                return runs[0]
            await asyncio.sleep(0.05)
        raise
