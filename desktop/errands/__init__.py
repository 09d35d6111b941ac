"""Errands: automations that run while the app is open."""

__version__ = "0.1.0"
