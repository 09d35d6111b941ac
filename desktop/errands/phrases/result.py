"""The answer of the phrase parser."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ParsedSchedule:
    """What a phrase means: a trigger dict, the task part and how the schedule ends."""

    trigger: dict
    prompt: str | None
    title: str | None
    stop: dict
    warnings: list[str] = field(default_factory=list)
    used: list[str] = field(default_factory=list)      # the words that shaped the schedule
    unused: list[str] = field(default_factory=list)    # date-like words left in the task,
                                                       # each named in a warning
