"""Which paths a script may read and change: its automation's folder (``workdir``), and
elsewhere only where a rule allows it.

The rules are the automation's ``permissions.rules`` and the user's global rules, as for an
agent's tools: ``read_file``/``list_files`` (or the effect ``read``) govern reads,
``write_file``/``edit_file`` (or ``write``) govern changes; a pattern is matched against
the absolute path with its links resolved (and, inside the folder, also the path relative to
it). A global deny wins; otherwise the automation's last matching rule, then the user's. A
script cannot ask, so ``ask`` refuses, naming the rule. Links are resolved before any
check: a link inside the folder pointing out of it is outside.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Sequence

Access = Literal["read", "write"]
TOOLS: dict[Access, tuple[str, ...]] = {"read": ("read_file", "list_files", "read", "*"),
                                        "write": ("write_file", "edit_file", "write", "*")}


class Refused(Exception):
    """A path a script may not use; the message says why and what would allow it."""


@dataclass(frozen=True)
class Scope:
    folder: str | None                      # the automation's folder, links resolved
    rules: tuple[tuple[str, str, str], ...] = ()          # (tool, pattern, action)
    global_rules: tuple[tuple[str, str, str], ...] = ()

    @classmethod
    def of(cls, folder: str | None, rules: Sequence[Any] = (),
           global_rules: Sequence[Any] = ()) -> "Scope":
        def plain(items: Sequence[Any]) -> tuple[tuple[str, str, str], ...]:
            out = []
            for r in items:
                if isinstance(r, dict):
                    out.append((str(r.get("tool")), str(r.get("pattern") or "*"),
                                str(r.get("action"))))
                else:
                    out.append((r.tool, r.pattern or "*", r.action))
            return tuple(out)
        return cls(os.path.realpath(folder) if folder else None, plain(rules),
                   plain(global_rules))

    def to_dict(self) -> dict[str, Any]:
        return {"folder": self.folder, "rules": [list(r) for r in self.rules],
                "global_rules": [list(r) for r in self.global_rules]}

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> "Scope":
        return cls(doc.get("folder"), tuple(tuple(r) for r in doc.get("rules", ())),  # type: ignore[misc]
                   tuple(tuple(r) for r in doc.get("global_rules", ())))  # type: ignore[misc]

    def resolve(self, path: object) -> Path:
        """``path`` (absolute, or relative to the folder) with its links resolved."""
        if not isinstance(path, str) or not path or "\0" in path:
            raise Refused(f"not a path: {str(path)[:80]!r}; expected a file name relative to "
                          "the automation's folder, or an absolute path")
        if not os.path.isabs(path):
            if self.folder is None:
                raise Refused(f"{path!r} is relative, and this automation has no folder; give "
                              "it a folder or use an absolute path")
            path = os.path.join(self.folder, path)
        return Path(os.path.realpath(path))

    def inside(self, path: Path) -> bool:
        return self.folder is not None and (str(path) == self.folder or str(path).startswith(
            self.folder.rstrip(os.sep) + os.sep))

    def check(self, path: Path, access: Access, *, listing: bool = False,
              given: object = None) -> None:
        """Raise :class:`Refused` unless a script may ``access`` ``path`` (resolved); a
        folder being listed also matches a pattern for what is in it (``/x/*``). A refusal
        names the path as ``given`` (where a link leads is not the script's to learn)."""
        said = str(given) if isinstance(given, str) else str(path)
        texts = [str(path)]
        if self.inside(path):
            texts.append(os.path.relpath(path, self.folder))
        if listing:
            texts += [t.rstrip(os.sep) + os.sep for t in texts]
        tools = TOOLS[access]

        def last(rules: tuple[tuple[str, str, str], ...]) -> tuple[int, tuple[str, str, str]] | None:
            for i in range(len(rules) - 1, -1, -1):
                tool, pattern, _ = rules[i]
                if tool in tools and (pattern == "*" or any(
                        fnmatch.fnmatchcase(t, pattern) for t in texts)):
                    return i, rules[i]
            return None

        def named(whose: str, found: tuple[int, tuple[str, str, str]]) -> str:
            i, (tool, pattern, action) = found
            return f'{whose} rule {i + 1} ({tool} "{pattern}": {action})'

        g = last(self.global_rules)
        if g is not None and g[1][2] == "deny":
            raise Refused(f"{said} is denied by {named('your', g)}")
        found = last(self.rules)
        decided = (found, "this automation's") if found is not None else (g, "your")
        if decided[0] is not None:
            action = decided[0][1][2]
            if action == "allow":
                return
            if action == "deny":
                raise Refused(f"{said} is denied by {named(decided[1], decided[0])}")
            raise Refused(f"{said} needs asking ({named(decided[1], decided[0])}), and a "
                          "script cannot ask; make the rule allow")
        if self.inside(path):
            return
        verb = "read" if access == "read" else "change"
        tool = "read_file" if access == "read" else "write_file"
        plain = said if os.path.isabs(said) or self.folder is None else \
            os.path.join(self.folder, said)
        if os.path.normpath(plain) == str(path):   # (no link on the way: nothing to hide)
            base = str(path if listing else path.parent).rstrip(os.sep)
            like = f'{{"tool": "{tool}", "pattern": "{base}/*", "action": "allow"}}'
        else:
            like = f'{{"tool": "{tool}", "pattern": "/that/folder/*", "action": "allow"}}'
        raise Refused(f"{said} is outside the automation's folder; a script may {verb} "
                      f"there only where a rule allows it, like {like}")
