"""The Automations sidebar: list model over Summary rows, filter proxy, delegate, widget."""

from .delegate import AutomationDelegate
from .model import AutomationListModel, Roles
from .proxy import AutomationFilterProxy
from .view import AutomationSidebar

__all__ = ["AutomationDelegate", "AutomationFilterProxy", "AutomationListModel",
           "AutomationSidebar", "Roles"]
