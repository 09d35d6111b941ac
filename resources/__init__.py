"""Icons, templates and styles, installed as the package ``errands.resources``."""
