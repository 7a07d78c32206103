"""``python -m fem`` is the ``fem`` command."""

from .cli import entry

entry()
