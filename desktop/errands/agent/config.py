"""The provider configuration in force: the settings (URL, model, timeout) and the key.

One place assembles it, so the CLI's ``provider test`` and an agent run see the same
provider. An automation's own model is applied by the caller (``Provider.complete``'s
``model``), not here.
"""

from __future__ import annotations

from pathlib import Path

from ..settings import Settings
from .provider import NO_KEY, ProviderConfig, ProviderError
from .secrets import KeyringUnavailable, get_api_key


def load_provider_config(settings: Settings, data_dir: Path) -> ProviderConfig | None:
    """None while the base URL or the model is not configured.

    A setting whose environment override is invalid raises ``InvalidInput`` naming the
    variable; a keyring that exists but cannot be read raises ``ProviderError`` with
    ``no_api_key``, so a run records why it had no key instead of failing as rejected.
    """
    base_url = settings.get("provider_base_url")
    model = settings.get("provider_model")
    if not base_url or not model:
        return None
    try:
        api_key, _ = get_api_key(data_dir)
    except KeyringUnavailable as exc:
        raise ProviderError(NO_KEY, exc.message) from None
    return ProviderConfig(base_url=base_url, model=model,
                          timeout=settings.get("provider_timeout"), api_key=api_key)
