"""``errands events``: the engine's change notices. Only the engine answers it, so it
imports the channel alone (no database layer): a status bar may call it often."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from ..engine.control import connect, request
from ..errors import Conflict
from .data_folder import _dir
from .routing import engine_address


def _notice_line(notice: dict[str, Any]) -> str:
    states: dict[str, int] = {}
    for state in notice.get("run_states", {}).values():
        states[state] = states.get(state, 0) + 1
    parts = [f"#{notice['revision']}"]
    if notice.get("engine_state"):
        parts.append(f"engine {notice['engine_state']}")
    if states:
        parts.append("runs: " + ", ".join(f"{n} {s}" for s, n in sorted(states.items())))
    if notice.get("automations"):
        parts.append(f"{len(notice['automations'])} automation(s) changed")
    if notice.get("deleted"):
        parts.append(f"{len(notice['deleted'])} deleted")
    for flag, words in (("attention", "attention"), ("parked", "parked runs"),
                        ("settings", "settings")):
        if notice.get(flag):
            parts.append(words)
    return " · ".join(parts)


async def _follow(address: str, args: argparse.Namespace) -> int:
    as_json = getattr(args, "json", False)
    if not args.follow:
        now = await request(address, "ping", {}, timeout=10.0, data_dir=_dir(args))
        print(json.dumps(now) if as_json else
              f"engine epoch {now['epoch']} at revision {now['revision']} "
              f"(hosted by {now['role']})")
        return 0
    connection = await connect(address, timeout=10.0, data_dir=_dir(args))
    try:
        async with asyncio.timeout(10.0):
            first = await connection.call("subscribe")
        # on standard error in either mode: a script reading the JSON lines can wait for it
        # to know that no later change will be missed
        print(f"Following the engine (epoch {first['epoch']}, revision "
              f"{first['revision']}); Ctrl-C to stop.", file=sys.stderr, flush=True)
        async for notice in connection.notices():
            print(json.dumps(notice) if as_json else _notice_line(notice), flush=True)
        if not as_json:
            print("The engine stopped.", file=sys.stderr)
        return 0
    finally:
        await connection.aclose()


def events(args: argparse.Namespace) -> int:
    address = engine_address(_dir(args))
    if address is None:
        raise Conflict("no_engine", "no engine is running on this data folder, so nothing "
                       "changes; start one with 'errands serve' (or the app)")
    try:
        return asyncio.run(_follow(address, args))
    except KeyboardInterrupt:
        return 0


