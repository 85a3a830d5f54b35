"""Users: names, languages, and whether the bot may write to them privately."""

from __future__ import annotations

import time
from functools import partial

from .connection import Database, Tx
from .rows import UserRow

__all__ = ["UserStore"]


class UserStore(Database):
    """The ``users`` table."""

    async def save_user(
        self, user_id: int, name: str, lang: str, private_ok: bool | None = None
    ) -> None:
        """Remember a user's name and language; ``private_ok`` when known."""
        await self._commit(
            partial(self._save_user, user_id=user_id, name=name, lang=lang, private_ok=private_ok)
        )

    @staticmethod
    def _save_user(tx: Tx, user_id: int, name: str, lang: str, private_ok: bool | None) -> None:
        now = time.time()
        if private_ok is None:
            tx.execute(
                "INSERT INTO users (user_id, name, lang, private_ok, updated_at) "
                "VALUES (?, ?, ?, 0, ?) ON CONFLICT (user_id) DO UPDATE SET "
                "name = excluded.name, lang = excluded.lang, updated_at = excluded.updated_at",
                (user_id, name, lang, now),
            )
        else:
            tx.execute(
                "INSERT INTO users (user_id, name, lang, private_ok, updated_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "
                "name = excluded.name, lang = excluded.lang, "
                "private_ok = excluded.private_ok, updated_at = excluded.updated_at",
                (user_id, name, lang, int(private_ok), now),
            )

    async def set_private_ok(self, user_id: int, ok: bool) -> None:
        await self._commit(
            lambda tx: tx.execute(
                "UPDATE users SET private_ok = ?, updated_at = ? WHERE user_id = ?",
                (int(ok), time.time(), user_id),
            )
        )

    async def notify_mode(self, user_id: int) -> str:
        """The user's turn-notification setting ('always' for a user we do not know)."""
        sql = "SELECT notify FROM users WHERE user_id = ?"
        row = await self.fetchone(sql, (user_id,))
        return str(row[0]) if row is not None else "always"

    async def set_notify_mode(self, user_id: int, mode: str) -> None:
        """Store the user's turn-notification setting ('always', 'slow' or 'never')."""
        await self._commit(
            lambda tx: tx.execute(
                "UPDATE users SET notify = ?, updated_at = ? WHERE user_id = ?",
                (mode, time.time(), user_id),
            )
        )

    async def card_ranks(self, user_id: int) -> str:
        """How the user's cards are written ('latin' for a user we do not know)."""
        sql = "SELECT ranks FROM users WHERE user_id = ?"
        row = await self.fetchone(sql, (user_id,))
        return str(row[0]) if row is not None else "latin"

    async def set_card_ranks(self, user_id: int, ranks: str) -> None:
        """Store how the user's cards are written ('latin' J Q K A or 'russian' В Д К Т)."""
        await self._commit(
            lambda tx: tx.execute(
                "UPDATE users SET ranks = ?, updated_at = ? WHERE user_id = ?",
                (ranks, time.time(), user_id),
            )
        )

    async def autoplay(self, user_id: int) -> bool:
        """Whether the user's forced cards play themselves (on for a user we do not know)."""
        sql = "SELECT autoplay FROM users WHERE user_id = ?"
        row = await self.fetchone(sql, (user_id,))
        return bool(row[0]) if row is not None else True

    async def set_autoplay(self, user_id: int, on: bool) -> None:
        """Store whether the user's forced cards play themselves."""
        await self._commit(
            lambda tx: tx.execute(
                "UPDATE users SET autoplay = ?, updated_at = ? WHERE user_id = ?",
                (int(on), time.time(), user_id),
            )
        )

    async def user(self, user_id: int) -> UserRow | None:
        row = await self.fetchone(
            "SELECT user_id, name, lang, private_ok FROM users WHERE user_id = ?", (user_id,)
        )
        if row is None:
            return None
        return UserRow(int(row[0]), str(row[1]), str(row[2]), bool(row[3]))
