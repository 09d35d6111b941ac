"""The window's language: Qt translators for Errands' own words (``errands_<lang>.qm``,
shipped in ``errands.resources`` under ``i18n/``) and Qt's (``qtbase_<lang>.qm`` from
PySide6), and the default ``QLocale`` that month and day names and numbers follow.

The language is the one chosen in Settings (``language`` in the app's settings: ``""``
follows the system, ``"en"``, ``"de"``, ``"zh_CN"``). Installed once, before the window is
built; a new choice applies at the next start (the Settings dialog says so). The command
line speaks English.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack
from importlib.resources import as_file

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from ..resources_access import resource

log = logging.getLogger(__name__)

# (code, the language's own name): the languages there are translations for, besides English
LANGUAGES = (("de", "Deutsch"), ("zh_CN", "简体中文"))
CODES = ("en", *(code for code, _name in LANGUAGES))

_installed: list[QTranslator] = []


def resolve(choice: str, system: QLocale | None = None) -> str:
    """The language code a choice stands for: ``"en"``, ``"de"`` or ``"zh_CN"``. ``""``
    (the system's) becomes the system's language when there are words for it, else
    English."""
    if choice in CODES:
        return choice
    system = system or QLocale.system()
    if system.language() == QLocale.Language.German:
        return "de"
    if system.language() == QLocale.Language.Chinese and \
            system.script() != QLocale.Script.TraditionalChineseScript:
        return "zh_CN"
    return "en"


def locale_for(code: str, system: QLocale | None = None) -> QLocale:
    """The locale dates and numbers follow: the system's when it speaks the chosen language
    (de_AT stays de_AT), else the language's usual one; English where the system has no
    language (the C locale)."""
    system = system or QLocale.system()
    wanted = {"en": QLocale.Language.English, "de": QLocale.Language.German,
              "zh_CN": QLocale.Language.Chinese}[code]
    if system.language() == wanted and (code != "zh_CN" or system.script()
                                        != QLocale.Script.TraditionalChineseScript):
        return system
    return QLocale({"en": "en_US", "de": "de_DE", "zh_CN": "zh_CN"}[code])


def qm_name(code: str) -> str:
    return f"errands_{code}.qm"


def install(app: QCoreApplication | None = None, choice: str = "") -> str:
    """Install the translators for ``choice`` (replacing any installed before) and set the
    default locale; the language code now in use."""
    app = app or QCoreApplication.instance()
    assert app is not None, "create the QApplication first"
    uninstall(app)
    code = resolve(choice)
    QLocale.setDefault(locale_for(code))
    own = QTranslator(app)  # English too: its "%n …" strings' singulars
    with ExitStack() as stack:
        path = stack.enter_context(as_file(resource("i18n", qm_name(code))))
        if own.load(str(path)):
            app.installTranslator(own)
            _installed.append(own)
        else:
            log.warning("no translations for %s at %s", code, path)
    if code == "en":
        return code
    qt = QTranslator(app)
    if qt.load(f"qtbase_{code}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
        _installed.append(qt)
    return code


def uninstall(app: QCoreApplication | None = None) -> None:
    """Back to English words and the system's locale (tests switch languages)."""
    app = app or QCoreApplication.instance()
    while _installed:
        translator = _installed.pop()
        if app is not None:
            app.removeTranslator(translator)
    QLocale.setDefault(locale_for(resolve("")))
