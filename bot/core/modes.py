"""The choices of a table's settings and of a player's own, as enums whose values are the
strings stored since the first version (saved tables and users' rows read as they are)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["SheetMode", "RobotPace", "RankStyle", "NotifyMode"]


class SheetMode(StrEnum):
    """How the group gets the pulka sheet: a picture, the monospace text, or both."""

    PICTURE = "picture"
    TEXT = "text"
    BOTH = "both"


class RobotPace(StrEnum):
    """How long computer players pause before they act."""

    NORMAL = "normal"
    FAST = "fast"


class RankStyle(StrEnum):
    """How card ranks are written: J Q K A, or В Д К Т (валет, дама, король, туз)."""

    LATIN = "latin"
    RUSSIAN = "russian"


class NotifyMode(StrEnum):
    """A player's turn notifications: when he is away (the turn passes to him and he has not
    acted for a while, or his time runs out: «когда я не смотрю», stored as ``always``), only
    the reminder before his time runs out, or none."""

    ALWAYS = "always"
    SLOW = "slow"
    NEVER = "never"
