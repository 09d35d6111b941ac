"""What each MCP client's configuration needs to start ``errands mcp``; nothing is written
into any client's files (the person pastes it, or runs the command shown)."""

from __future__ import annotations

import json
import shlex
from typing import Any

WHERE = {
    "claude-code": "run this once (it adds Errands to Claude Code's MCP servers):",
    "codex": "add this to ~/.codex/config.toml:",
    "goose": "add this to ~/.config/goose/config.yaml under extensions:",
    "cursor": "add this to ~/.cursor/mcp.json (or .cursor/mcp.json in a project):",
}


def snippet(client: str, program: list[str], extra: list[str]) -> dict[str, Any]:
    """``{"client", "command", "args", "where", "text"}``: the text to paste."""
    command, args = program[0], [*program[1:], "mcp", *extra]
    if client == "claude-code":
        body = shlex.join(["claude", "mcp", "add", "errands", "--", command, *args])
    elif client == "codex":
        body = ("[mcp_servers.errands]\n"
                f"command = {json.dumps(command)}\n"
                f"args = {json.dumps(args)}")
    elif client == "goose":
        body = ("  errands:\n"
                "    name: errands\n"
                "    type: stdio\n"
                f"    cmd: {json.dumps(command)}\n"
                f"    args: {json.dumps(args)}\n"
                "    enabled: true\n"
                "    timeout: 300")
    else:
        body = json.dumps({"mcpServers": {"errands": {"command": command, "args": args}}},
                          indent=2)
    return {"client": client, "command": command, "args": args, "where": WHERE[client],
            "text": f"{WHERE[client]}\n\n{body}\n"}
