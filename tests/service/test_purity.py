"""The core knows nothing of Telegram, of button encodings or of the adapter."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = sorted((Path(__file__).parents[2] / "bot" / "core").glob("*.py"))
FORBIDDEN = ("telegram", "bot.telegram", "bot.render", "bot.app", "bot.http")


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.append(node.module)
    return names


def _forbidden(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FORBIDDEN)


def test_the_core_exists() -> None:
    assert {"service.py", "model.py", "effects.py"} <= {p.name for p in CORE}


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.name)
def test_the_core_imports_no_telegram_and_no_button_encoding(path: Path) -> None:
    bad = [n for n in _imports(path) if _forbidden(n)]
    assert not bad, f"{path.name} imports {bad}"


def test_the_check_catches_forbidden_imports() -> None:
    assert _forbidden("telegram.ext") and _forbidden("bot.render.callbacks")
    assert not _forbidden("bot.preferans.views") and not _forbidden("telegramx")


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.name)
def test_the_core_keeps_no_telegram_message(path: Path) -> None:
    """Which message shows what is the Telegram side's (bot/telegram/shown.py): no message
    id, no kept message in the core's model, its effects or its service."""
    names = {
        n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else n.arg
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(n, ast.Name | ast.Attribute | ast.arg)
    }
    kept = {"message_id", "Slot", "Messages", "messages", "sheet_message", "table_slot"}
    kept |= {"hand_slots", "message_sent", "sheet_sent", "reminder_sent", "buttons_posted"}
    assert not names & kept, f"{path.name} names {sorted(names & kept)}"


def test_only_the_core_locks_and_saves_tables() -> None:
    root = Path(__file__).parents[2]
    found = []
    for path in sorted((root / "bot").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for needle in (".lock(", ".save("):
            if needle in text and path.parent.name != "core":
                found.append(f"{path.relative_to(root)}: {needle}")
    assert not found, found


def test_storage_imports_nothing_from_the_bot() -> None:
    root = Path(__file__).parents[2] / "storage"
    bad = [
        f"{path.name}: {name}"
        for path in sorted(root.glob("*.py"))
        for name in _imports(path)
        if name == "bot" or name.startswith("bot.")
    ]
    assert not bad, bad
