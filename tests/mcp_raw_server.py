"""A hostile MCP server over stdio, speaking raw JSON-RPC (no SDK): what the official
server would never send. ``MODE`` in the environment picks the behaviour:

- ``badschema``: tools whose input schemas the SDK accepts but are not the usual shapes;
- ``invalid``: tools whose input schemas the SDK refuses (the whole list is unreadable);
- ``child``: starts ``sleep 3600`` in its own process group, writing both pids to
  ``PIDFILE``, and exits when its input ends (leaving the child behind);
- ``slowstart``: sleeps ``SLEEP`` seconds before answering anything.

Every call answers ``ok`` with its arguments.
"""

import json
import os
import subprocess
import sys
import time

MODE = os.environ.get("MODE", "")


def send(obj: object) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def tools() -> list[dict[str, object]]:
    if MODE == "invalid":
        return [{"name": "t1", "inputSchema": {"type": "object", "properties": {"a": "string"}}},
                {"name": "t2", "inputSchema": {"type": "object", "properties": "zzz"}},
                {"name": "t3", "inputSchema": {"type": "object", "required": 5}}]
    if MODE == "badschema":
        return [{"name": "t4", "inputSchema": {"type": "object", "examples": {"x": 1},
                                               "required": ["q"]}},
                {"name": "t5", "inputSchema": {"type": "object", "properties": {
                    "a": {"type": "array", "items": "x"}}}},
                {"name": "t8", "inputSchema": {"type": "object", "required": ["q"],
                                               "properties": {"q": True}}},
                {"name": "t9", "inputSchema": {"type": "object", "examples": 5}}]
    return [{"name": "echo", "inputSchema": {"type": "object"}}]


if MODE == "slowstart":
    time.sleep(float(os.environ.get("SLEEP", "5")))
if MODE == "child":
    child = subprocess.Popen(["sleep", "3600"])
    with open(os.environ["PIDFILE"], "w") as f:
        f.write(f"{os.getpid()} {child.pid}\n")
for line in sys.stdin:
    msg = json.loads(line)
    mid, method = msg.get("id"), msg.get("method")
    if mid is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}}, "serverInfo": {"name": "raw", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": tools()}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": mid, "result": {"content": [
            {"type": "text", "text": "ok " + json.dumps(msg["params"].get("arguments"))}]}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "nope"}})
