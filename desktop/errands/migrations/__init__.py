"""Alembic migrations, shipped inside the package so an installed wheel can migrate."""

from pathlib import Path

SCRIPT_LOCATION = Path(__file__).resolve().parent
HEAD = "0012"
KNOWN_REVISIONS = frozenset({"0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008", "0009", "0010", "0011", "0012"})
