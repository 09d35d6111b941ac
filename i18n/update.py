#!/usr/bin/env python3
"""Refresh the Qt Linguist sources from the window's code and compile them:
``python3 dev.py i18n`` (which runs this with the project's ``.venv``).

1. ``pyside6-lupdate`` extracts every ``tr()``/``self.tr()``/``QT_TRANSLATE_NOOP`` string of
   ``desktop/errands/app`` into a fresh catalogue per language.
2. The strings it records without a context (the bare ``tr("…")`` and ``QT_TR_NOOP`` of
   ``app/words.py``) are folded into the context ``words``, the one ``words.tr`` translates in.
3. Each string keeps the translation ``i18n/errands_<lang>.ts`` already has for it (same
   context, source and comment); a string no longer in the code is dropped; a new one is
   left ``type="unfinished"`` for a translator (Qt Linguist, or any text editor).
   English (``errands_en.ts``) holds only the "%n …" strings, for their singular ("1
   failure in a row", not "1 failures in a row").
4. ``pyside6-lrelease`` compiles ``resources/i18n/errands_<lang>.qm``, which the wheel ships.

``--check`` changes nothing and exits 1 listing every string without a finished translation
(tests/test_i18n.py does the same).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "desktop" / "errands" / "app"
TS_DIR = ROOT / "i18n"
QM_DIR = ROOT / "resources" / "i18n"
LANGUAGES = ("de", "zh_CN", "en")
PLURALS_ONLY = ("en",)  # English needs only the singular of each "%n …" string
WORDS = "words"  # the context of app/words.py's tr()


def tool(name: str) -> str:
    """pyside6-lupdate / pyside6-lrelease beside the running Python (the .venv's)."""
    here = Path(sys.executable).parent
    for candidate in (here / name, here / f"{name}.exe"):
        if candidate.exists():
            return str(candidate)
    return name


def extract(language: str) -> ET.ElementTree:
    """A fresh catalogue of the code's strings for ``language``, contexts folded."""
    files = sorted(str(p) for p in SOURCES.rglob("*.py"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"errands_{language}.ts"
        plurals = ["-pluralonly"] if language in PLURALS_ONLY else []
        subprocess.run([tool("pyside6-lupdate"), "-silent", "-extensions", "py",
                        "-locations", "none", *plurals, "-target-language", language, *files,
                        "-ts", str(out)], check=True, capture_output=True)
        tree = ET.parse(out)
    fold(tree.getroot())
    return tree


def _key(context: str, message: ET.Element) -> tuple[str, str, str]:
    return context, message.findtext("source") or "", message.findtext("comment") or ""


def fold(root: ET.Element) -> None:
    """Move the context-less messages into ``words`` (one message per key), contexts and
    messages sorted so the file's diff shows only real changes."""
    contexts: dict[str, dict[tuple[str, str, str], ET.Element]] = {}
    for context in root.findall("context"):
        name = context.findtext("name") or WORDS
        for message in context.findall("message"):
            contexts.setdefault(name, {}).setdefault(_key(name, message), message)
        root.remove(context)
    for name in sorted(contexts):
        context = ET.SubElement(root, "context")
        ET.SubElement(context, "name").text = name
        for key in sorted(contexts[name]):
            context.append(contexts[name][key])


def messages(root: ET.Element) -> dict[tuple[str, str, str], ET.Element]:
    return {_key(c.findtext("name") or "", m): m
            for c in root.findall("context") for m in c.findall("message")}


def finished(message: ET.Element) -> bool:
    translation = message.find("translation")
    if translation is None or translation.get("type") in ("unfinished", "vanished",
                                                           "obsolete"):
        return False
    forms = translation.findall("numerusform")
    if message.get("numerus") == "yes":
        return bool(forms) and all((f.text or "").strip() for f in forms)
    return bool((translation.text or "").strip())


def merge(fresh: ET.Element, existing: ET.Element | None) -> None:
    """Copy the existing translations into the fresh catalogue."""
    if existing is None:
        return
    old = messages(existing)
    for key, message in messages(fresh).items():
        before = old.get(key)
        if before is None or before.get("numerus") != message.get("numerus"):
            continue
        message.remove(message.find("translation"))  # type: ignore[arg-type]
        message.append(before.find("translation"))  # type: ignore[arg-type]


def missing(root: ET.Element) -> list[str]:
    """Every string without a finished translation: "context: source"."""
    return [f"{context}: {source}" + (f" ({comment})" if comment else "")
            for (context, source, comment), m in messages(root).items() if not finished(m)]


def write(tree: ET.ElementTree, path: Path) -> None:
    ET.indent(tree, "    ")
    text = ET.tostring(tree.getroot(), encoding="unicode")
    path.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + text + "\n",
                    encoding="utf-8")


def update(language: str) -> list[str]:
    ts = TS_DIR / f"errands_{language}.ts"
    tree = extract(language)
    merge(tree.getroot(), ET.parse(ts).getroot() if ts.exists() else None)
    write(tree, ts)
    QM_DIR.mkdir(parents=True, exist_ok=True)
    subprocess.run([tool("pyside6-lrelease"), "-silent", str(ts), "-qm",
                    str(QM_DIR / f"errands_{language}.qm")], check=True)
    return missing(tree.getroot())


def check(language: str) -> list[str]:
    ts = TS_DIR / f"errands_{language}.ts"
    tree = extract(language)
    merge(tree.getroot(), ET.parse(ts).getroot() if ts.exists() else None)
    return missing(tree.getroot())


def main(argv: list[str]) -> int:
    only_check = "--check" in argv
    status = 0
    for language in LANGUAGES:
        left = check(language) if only_check else update(language)
        print(f"{language}: {len(left)} string(s) without a translation"
              + ("" if only_check else f"; wrote i18n/errands_{language}.ts and "
                 f"resources/i18n/errands_{language}.qm"))
        for line in left:
            print("   ", line)
        status |= bool(left)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
