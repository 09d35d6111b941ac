"""Dialogs the window opens: the create/edit form with its schedule picker, settings."""
