"""A small real MCP server over stdio, started by agent-run tests as an automation's tool
server: ``python mcp_tool_server.py [--die-on-start]``, or over streamable HTTP on loopback with
``--http PORT TOKEN`` (every request must carry ``Authorization: Bearer TOKEN``).

Tools: ``add`` (two whole numbers), ``remember`` (writes a line to the file named by
``MCP_TEST_LOG``: a change, so a dry run must not call it), ``peek`` (read-only), ``fail``
(answers with an error) and ``crash`` (exits mid-call).
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

if "--die-on-start" in sys.argv:
    print("cannot open the database: permission denied", file=sys.stderr, flush=True)
    sys.exit(3)

app = MCPServer(name="test-tools", version="1.0")


@app.tool(description="Add two whole numbers.")
def add(a: int, b: int) -> str:
    return f"{a} + {b} = {a + b}"


@app.tool(description="Remember a line (appends it to the log).")
def remember(line: str) -> str:
    with open(os.environ["MCP_TEST_LOG"], "a", encoding="utf-8") as f:
        f.write(line + "\n")
    return "remembered"


@app.tool(description="Peek at the log.", annotations=ToolAnnotations(read_only_hint=True))
def peek() -> str:
    try:
        with open(os.environ["MCP_TEST_LOG"], encoding="utf-8") as f:
            return f.read() or "(empty)"
    except FileNotFoundError:
        return "(empty)"


@app.tool(description="Always fails.")
def fail() -> str:
    raise ToolError("the deploy API said 503")


@app.tool(description="Exits mid-call.")
def crash() -> str:
    os._exit(7)


def serve_http(port: int, token: str) -> None:
    import uvicorn
    from starlette.responses import PlainTextResponse

    inner = app.streamable_http_app()

    async def guarded(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization") != f"Bearer {token}".encode():
                await PlainTextResponse("no", status_code=401)(scope, receive, send)
                return
        await inner(scope, receive, send)

    print("listening", flush=True)
    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    if "--http" in sys.argv:
        at = sys.argv.index("--http")
        serve_http(int(sys.argv[at + 1]), sys.argv[at + 2])
    else:
        anyio.run(app.run_stdio_async)
