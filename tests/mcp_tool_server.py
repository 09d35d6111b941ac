"""A small real MCP server over stdio, started by agent-run tests as an automation's tool
server: ``python mcp_tool_server.py [--broken-list | --die-on-start]``.

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


if __name__ == "__main__":
    anyio.run(app.run_stdio_async)
