"""Registries of named classes (element families, deformation bases): one small helper."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from .errors import ModelError

__all__ = ["Registry"]

T = TypeVar("T", bound=type)


class Registry(Generic[T]):
    """Classes registered by name, with the built-in ones imported on first use.

    Parameters
    ----------
    kind : str
        What a name names, in messages ("element", "deformation basis").
    plural : str
        Its plural in the list of known names ("elements", "bases").
    load_builtin : callable
        Imports the modules that register the built-in classes (called before look-ups,
        so a registry exists before its classes load).
    """

    def __init__(self, kind: str, plural: str, load_builtin: Callable[[], None]):
        self.kind, self.plural = kind, plural
        self._load = load_builtin
        self._classes: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Class decorator: make the class available under ``name`` (sets ``cls.name``)."""
        def deco(cls: T) -> T:
            old = self._classes.get(name)
            if old is not None and old is not cls:
                raise ModelError(f"{self.kind} name {name!r} is already registered by {old}")
            cls.name = name
            self._classes[name] = cls
            return cls

        return deco

    def get(self, name: str) -> T:
        """The class registered as ``name``; a :class:`ModelError` lists the known ones."""
        self._load()
        try:
            return self._classes[name]
        except (KeyError, TypeError):
            raise ModelError(f"unknown {self.kind} {name!r}; registered {self.plural}: "
                             f"{', '.join(self.available())}") from None

    def available(self) -> list[str]:
        """Names of every registered class, sorted."""
        self._load()
        return sorted(self._classes)
