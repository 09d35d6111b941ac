"""How a transcript is stored, and what of it a continuing run replays.

Each stored message is the provider's message plus a few keys of ours, so a run can be
resumed from its transcript alone (after a park, a restart or a crash):

- ``run_id``: the run that wrote it; ``turn``: ``prompt`` (the occurrence's user turn),
  ``reply`` (an attended follow-up), ``step`` (an assistant reply), ``tool`` (a result) or
  ``final`` (the run's answer); ``usage``: [prompt, completion] tokens of a reply;
  ``untrusted``/``changed``/``proposed``: what a tool result brought.

A ``continue`` run replays earlier runs as whole turns (their user turn and final answer),
newest kept within ``max_history_tokens``, with a note when older ones were left out.
"""

from __future__ import annotations

from typing import Any

PROVIDER_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")


def for_provider(message: dict[str, Any]) -> dict[str, Any]:
    """A stored message as the provider wants it: our keys dropped."""
    out = {k: message[k] for k in PROVIDER_KEYS if k in message}
    if out.get("role") == "assistant" and "content" not in out:
        out["content"] = None
    return out


def estimate_tokens(message: dict[str, Any]) -> int:
    """A cheap, provider-independent estimate (about four characters a token)."""
    size = len(str(message.get("content") or ""))
    for call in message.get("tool_calls") or ():
        size += len(str(call))
    return size // 4 + 4


def replay(earlier: list[dict[str, Any]], budget: int) -> tuple[list[dict[str, Any]], int]:
    """Earlier runs as whole turns within ``budget`` tokens, oldest first; and how many
    turns were left out. A run that never answered (it failed) has no turn to replay."""
    turns: list[list[dict[str, Any]]] = []
    asked: dict[str, dict[str, Any]] = {}
    for message in earlier:
        run = message.get("run_id")
        if message.get("turn") in ("prompt", "reply"):
            asked[run] = message
        elif message.get("turn") == "final" and run in asked:
            turns.append([{"role": "user", "content": asked.pop(run).get("content")},
                          {"role": "assistant", "content": message.get("content")}])
    kept: list[list[dict[str, Any]]] = []
    spent = 0
    for turn in reversed(turns):
        cost = sum(estimate_tokens(m) for m in turn)
        if spent + cost > budget:
            break
        kept.append(turn)
        spent += cost
    dropped = len(turns) - len(kept)
    return [m for turn in reversed(kept) for m in turn], dropped
