"""Why a change to a table did not happen: every refusal the core raises, in one place.

A press or command that changes nothing raises :class:`Rejected` (``key`` names the
answer's text in the catalogues); nothing of the table changed when it is raised.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .effects import Effects

__all__ = ["Rejected", "AlreadyDone", "NotSaved", "PartlySaved", "Redo"]

Redo = Callable[[], "Awaitable[Effects]"]
"""Applies again what could not be saved."""


class Rejected(Exception):
    """A press or command that changes nothing; ``key`` is the text of the answer."""

    alert = True
    """Whether the answer is an alert (a pop-up) rather than a short notice."""

    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


class AlreadyDone(Rejected):
    """The same press was already applied (its answer was lost, e.g. in a restart)."""

    alert = False

    def __init__(self) -> None:
        super().__init__("ok.already")


class NotSaved(Rejected):
    """The change could not be saved, so it was undone: press again."""

    def __init__(self) -> None:
        super().__init__("err.not_saved")


class PartlySaved(NotSaved):
    """A chat's event (the bot removed or added, a group migrated, the bot blocked) that
    nobody pressed, so nobody can press again: what was saved has its ``effects`` to show,
    the rest was undone and ``redo`` applies it again (the caller decides when)."""

    def __init__(self, effects: Effects, redo: Redo) -> None:
        super().__init__()
        self.effects = effects
        self.redo = redo
