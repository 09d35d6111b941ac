"""Opening the Settings dialog and doing what it asks, without ever blocking the UI loop.

``flow = await open_settings(parent, api, adapter, data_dir, theme)`` reads the settings
on the facade's reader threads and whether the keyring holds a key on a worker thread,
opens the dialog (window-modal, not a nested event loop) and answers its signals:

- Save: each changed engine setting goes through ``api.set_setting``, one at a time; a
  refusal is shown beside its field and the others are still saved (as ``config set``
  would, the engine checks and canonicalizes every value).
- the API key is stored in, or removed from, the keyring on a worker thread
  (:mod:`errands.agent.secrets`: service ``errands``, user name the data folder); it is
  never written to the database, the settings or a log.
- Test runs :func:`errands.agent.check.check_provider` (the checks of ``errands provider
  test``) with the URL and model as typed, the stored key and the timeout in the form.

The app's own choices (theme, language, start at login) are the dialog's signals
(``theme_chosen``, ``language_chosen``, ``autostart_changed``): the owner connects them to
whatever keeps those.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import timedelta
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from ...engine.api import Api
from ...errors import ErrandsError, InvalidInput
from ...settings import SPECS
from ..adapter import Adapter
from ..tasks import Tasks
from .settings import API_KEY, ENGINE_KEYS, SettingsDialog



def _words(exc: ErrandsError) -> str:
    """A refusal in words, without the leading ``field: `` (the place says which field)."""
    text = str(exc)
    field = getattr(exc, "field", "")
    if field and text.startswith(field + ": "):
        text = text[len(field) + 2:]
    return text


def _without_code(detail: str) -> str:
    """A check's detail without its fault code (``unreachable: cannot reach …``)."""
    head, sep, rest = detail.partition(": ")
    return rest if sep and head.replace("_", "").isalpha() and head.islower() else detail


async def read_settings(api: Api, adapter: Adapter | None = None) -> dict[str, str]:
    """Every engine setting's stored text, read off the UI loop."""
    if adapter is not None:
        answer = await adapter.latest("settings-dialog", api.settings)
        if answer is not None:
            return answer.value
    return (await api.settings()).value


async def key_in_keyring(data_dir: Path) -> tuple[bool, str | None]:
    """Whether the keyring holds a key for this data folder, and a problem in words (a
    keyring that exists but cannot be read). The key itself is not kept."""
    from ...agent.secrets import KeyringUnavailable, get_api_key

    try:
        _key, source = await asyncio.to_thread(get_api_key, data_dir)
    except KeyringUnavailable as exc:
        return False, exc.message
    return source == "keyring", None


class SettingsFlow(QObject):
    """Answers one :class:`SettingsDialog`'s signals with the engine and the keyring."""

    finished = Signal()     # the dialog closed and what it started has ended

    def __init__(self, dialog: SettingsDialog, api: Api, data_dir: Path,
                 adapter: Adapter | None = None) -> None:
        super().__init__(dialog)
        self.dialog = dialog
        self.api = api
        self.data_dir = Path(data_dir)
        self.adapter = adapter
        self.tasks = Tasks("a settings action")
        self._key_task: asyncio.Task[Any] | None = None
        self._test_task: asyncio.Task[Any] | None = None
        self.tasks.loop = asyncio.get_running_loop()  # (a click may come between its turns)
        self._done = self.tasks.loop.create_future()
        dialog.save_requested.connect(lambda changes: self._spawn(self.apply(changes)))
        dialog.key_save_requested.connect(self._key_save)
        dialog.key_remove_requested.connect(self._key_remove)
        dialog.test_requested.connect(self._test)
        dialog.server_secret_requested.connect(
            lambda name, url, value: self._spawn(self.store_server_secret(name, url, value)))
        dialog.catalogue_chosen.connect(lambda url: self._spawn(self.choose_catalogue(url)))
        dialog.catalogue_password_requested.connect(
            lambda url, secret: self._spawn(self.store_catalogue_password(url, secret)))
        dialog.finished.connect(lambda _result: self._spawn(self._closing()))

    # ---------------------------------------------------------------- catalogue

    async def choose_catalogue(self, url: str) -> None:
        """The data folder's ``database.url`` (removed for ""), used from the next start."""
        def write() -> None:
            import os

            from ...db.location import saved_url_path
            path = saved_url_path(self.data_dir)
            if not url:
                path.unlink(missing_ok=True)
                return
            self.data_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(url + "\n")

        try:
            await asyncio.to_thread(write)
        except OSError as exc:
            self.dialog.catalogue.show_error(str(exc.strerror or exc))
            return
        self.dialog.catalogue.say(self.tr("Errands uses this catalogue from its next start."))

    async def store_catalogue_password(self, url: str, secret: str) -> None:
        """A shared catalogue's password into the keyring (service errands-database)."""
        def store() -> None:
            import keyring

            from ...db.location import KEYRING_SERVICE, parse_database_url
            keyring.set_password(KEYRING_SERVICE, parse_database_url(url).keyring_user, secret)

        try:
            await asyncio.to_thread(store)
        except Exception as exc:  # no keyring, a locked one
            self.dialog.catalogue.show_error(self.tr("The keyring refused the password: %1")
                                             .replace("%1", str(exc)))
            return
        self.dialog.catalogue.say(self.tr("A password is kept in the keyring."))

    # ------------------------------------------------------------------- saving

    async def apply(self, changes: dict[str, str]) -> dict[str, str]:
        """Store each change through the engine (after a key being stored); a refusal is
        shown beside its field. The canonical texts the engine kept, by key."""
        if self._key_task is not None:
            await asyncio.gather(self._key_task, return_exceptions=True)
        kept: dict[str, str] = {}
        for key in sorted(changes, key=lambda k: ENGINE_KEYS.index(k)
                          if k in ENGINE_KEYS else len(ENGINE_KEYS)):
            try:
                kept[key] = (await self.api.set_setting(key, changes[key])).value
            except InvalidInput as exc:
                field = exc.field if exc.field.startswith(key) else key
                self.dialog.show_field_error(field, _words(exc))
            except ErrandsError as exc:  # the engine stopping, the database busy
                self.dialog.show_field_error(key, _words(exc))
        self.dialog.saved()
        return kept

    # ---------------------------------------------------------------------- key

    def _key_save(self, key: str) -> None:
        self._key_task = self._spawn(self.store_key(key))

    def _key_remove(self) -> None:
        self._key_task = self._spawn(self.remove_key())

    async def store_key(self, key: str) -> bool:
        from ...agent.secrets import KeyringUnavailable, set_api_key

        try:
            await asyncio.to_thread(set_api_key, self.data_dir, key)
        except InvalidInput as exc:  # its words never hold the key
            self.dialog.show_field_error(API_KEY, _words(exc))
            return False
        except KeyringUnavailable as exc:
            self.dialog.show_field_error(API_KEY, exc.message)
            return False
        self.dialog.set_key_stored(True)
        return True

    async def remove_key(self) -> bool:
        from ...agent.secrets import KeyringUnavailable, delete_api_key

        try:
            removed = await asyncio.to_thread(delete_api_key, self.data_dir)
        except KeyringUnavailable as exc:
            self.dialog.show_field_error(API_KEY, exc.message)
            return False
        self.dialog.set_key_stored(False)
        return removed

    async def store_server_secret(self, name: str, url: str, value: str) -> bool:
        """An MCP server's header value into the keyring (never into a setting), bound to
        its URL."""
        import keyring.errors

        from ...tool_servers import set_secret
        try:
            await asyncio.to_thread(set_secret, self.data_dir, name, url, value)
        except InvalidInput as exc:
            self.dialog.servers.show_error("mcp_servers", _words(exc))
            return False
        except keyring.errors.KeyringError as exc:
            self.dialog.servers.show_error("mcp_servers", self.tr(
                "The system keyring could not keep it: {0}").format(str(exc)))
            return False
        self.dialog.servers.show_status(self.tr("The header value of “{0}” is kept in the "
                                                "system keyring.").format(name))
        return True

    # --------------------------------------------------------------------- test

    def _test(self, base_url: str, model: str) -> None:
        if self._test_task is not None:
            self._test_task.cancel()
        self._test_task = self._spawn(self.test(base_url, model))

    async def test(self, base_url: str, model: str) -> bool:
        """The provider checks with the URL and model as typed; the result in words beside
        the Test button."""
        ok, text = await self._check(base_url, model)
        self.dialog.show_test_result(ok, text)
        return ok

    async def _check(self, base_url: str, model: str) -> tuple[bool, str]:
        from ...agent.check import OK, check_provider
        from ...agent.provider import ProviderConfig
        from ...agent.secrets import KeyringUnavailable, get_api_key

        if not base_url or not model:
            return False, self.tr("Give a base URL and a model first.")
        try:
            url = SPECS["provider_base_url"].parse(base_url, "provider_base_url")
            name = SPECS["provider_model"].parse(model, "provider_model")
        except InvalidInput as exc:
            return False, self.tr("Cannot test: {0}").format(str(exc))
        timeout: timedelta
        try:
            timeout = SPECS["provider_timeout"].parse(
                self.dialog.fields["provider_timeout"].text().strip(), "provider_timeout")
        except InvalidInput:
            timeout = SPECS["provider_timeout"].parse(SPECS["provider_timeout"].default, "")
        try:
            api_key, _source = await asyncio.to_thread(get_api_key, self.data_dir)
        except KeyringUnavailable as exc:
            return False, exc.message
        config = ProviderConfig(base_url=url, model=name, timeout=timeout, api_key=api_key)
        checks = await check_provider(config)
        failed = next((c for c in checks if c.status != OK), None)
        if failed is None:
            return True, self.tr("It works: the provider answered, accepted the key, has "
                                 "the model, and the model calls tools.")
        what = {"reachable": self.tr("Unreachable"),
                "key_accepted": self.tr("The key was refused"),
                "model_present": self.tr("The model is not there"),
                "tool_calling": self.tr("The model does not call tools")}
        return False, f"{what.get(failed.check, failed.check)}: {_without_code(failed.detail)}"

    # ---------------------------------------------------------------- lifecycle

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        return self.tasks.spawn(coro)  # type: ignore[return-value]

    async def _closing(self) -> None:
        if self._test_task is not None:
            self._test_task.cancel()  # nobody is there to read its answer
        await self.tasks.idle()
        if not self._done.done():
            self._done.set_result(None)
        self.finished.emit()

    async def wait(self) -> None:
        """Until the dialog closed and the saves it started are done."""
        await asyncio.shield(self._done)


async def open_settings(parent: QWidget | None, api: Api, adapter: Adapter | None,
                        data_dir: Path, theme: str, *, autostart: bool = False,
                        language: str = "") -> SettingsFlow:
    """Read the settings and the key's presence off the UI loop, then open the dialog."""
    from .catalogue_editor import catalogue_info

    values, (stored, problem), catalogue = await asyncio.gather(
        read_settings(api, adapter), key_in_keyring(Path(data_dir)),
        asyncio.to_thread(catalogue_info, Path(data_dir)))
    dialog = SettingsDialog(parent, values=values, key_stored=stored, theme=theme,
                            autostart=autostart, language=language, catalogue=catalogue)
    flow = SettingsFlow(dialog, api, Path(data_dir), adapter)
    if problem is not None:
        dialog.show_field_error(API_KEY, problem)
    dialog.open()
    return flow
