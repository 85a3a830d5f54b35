"""The rules engine (bot/preferans) is pure: standard library only, no global randomness."""

from __future__ import annotations

import ast
import random
import sys
from pathlib import Path

import pytest

import bot.preferans
from bot.preferans.deal import Deal, DealSettings
from bot.preferans.seats import Seat
from bot.preferans.views import public_view, seat_view

PACKAGE = "bot.preferans"
ROOT = Path(bot.preferans.__file__).resolve().parent
MODULES = sorted(ROOT.rglob("*.py"))


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts[:-1]) if rel.name == "__init__" else list(rel.parts)
    return ".".join([PACKAGE, *parts])


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = _module_name(path)
    package = module if _is_package(path) else module.rpartition(".")[0]
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                up = node.level - 1
                if up > len(base):
                    out.append((node.lineno, "." * node.level + (node.module or "")))
                    continue
                base = base[: len(base) - up] if up else base
                name = ".".join([*base, *([node.module] if node.module else [])])
                if node.module is None:
                    out.extend((node.lineno, f"{name}.{a.name}") for a in node.names)
                else:
                    out.append((node.lineno, name))
            else:
                out.append((node.lineno, node.module or ""))
    return out


def _allowed(name: str) -> bool:
    if name == PACKAGE or name.startswith(PACKAGE + "."):
        return True
    top = name.split(".")[0]
    return bool(top) and top in sys.stdlib_module_names


def test_engine_modules_exist() -> None:
    names = {p.name for p in MODULES}
    assert {"cards.py", "contracts.py", "actions.py", "deal.py", "views.py"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_engine_imports_only_the_standard_library(path: Path) -> None:
    bad = [(line, name) for line, name in _imports(path) if not _allowed(name)]
    assert not bad, f"{path.name} imports outside the standard library: {bad}"


def test_the_import_check_catches_forbidden_imports() -> None:
    forbidden = (
        "telegram",
        "aiosqlite",
        "storage",
        "storage.db",
        "bot",
        "bot.handlers",
        "bot.replay",
        "hypothesis",
        "..storage",
    )
    for name in forbidden:
        assert not _allowed(name), name
    for name in ("random", "dataclasses", "collections.abc", "bot.preferans.cards"):
        assert _allowed(name), name


def _global_random_uses(source: str) -> list[tuple[int, str]]:
    """Uses of the ``random`` module other than building a ``random.Random``."""
    tree = ast.parse(source)
    random_aliases = {"random"}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "random" and alias.asname:
                    random_aliases.add(alias.asname)
        elif isinstance(node, ast.ImportFrom) and node.module == "random" and not node.level:
            for alias in node.names:
                if alias.name not in {"Random"}:
                    found.append((node.lineno, f"from random import {alias.name}"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in random_aliases
            and node.attr != "Random"
        ):
            found.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_engine_uses_no_global_random_state(path: Path) -> None:
    uses = _global_random_uses(path.read_text(encoding="utf-8"))
    assert not uses, f"{path.name} uses the global random state: {uses}"


@pytest.mark.parametrize(
    "source",
    [
        "import random\nrandom.shuffle(x)",
        "import random\ny = random.choice(x)",
        "import random as r\nr.seed(1)",
        "from random import shuffle",
        "from random import randint as ri",
        "import random\nf = random.random",
    ],
)
def test_the_random_check_catches_global_state(source: str) -> None:
    assert _global_random_uses(source)


def test_the_random_check_allows_random_instances() -> None:
    source = (
        "import random\n"
        "def deal(rng: random.Random) -> None:\n"
        "    rng.shuffle(x)\n"
        "r = random.Random(5)\n"
        "from random import Random\n"
    )
    assert _global_random_uses(source) == []


def test_playing_deals_leaves_the_global_random_state_alone() -> None:
    random.seed(12345)
    state = random.getstate()
    for players in (3, 4):
        rng = random.Random(players)
        deal = Deal.new(DealSettings(players=players), Seat(0), rng)
        while not deal.is_over:
            public_view(deal)
            for s in range(players):
                seat_view(deal, Seat(s))
            deal.apply(rng.choice(deal.legal_actions()))
        deal.outcome()
        Deal.from_json(deal.settings, deal.to_json())
        deal.replay()
    assert random.getstate() == state


def test_a_deal_keeps_no_view_for_its_callers() -> None:
    """A view is built from the deal each time it is asked for: a caller that wants one
    kept keeps it itself (bot/core/viewcache.py). A seat view uses the public view it is
    given."""
    deal = Deal.new(DealSettings(players=3), Seat(0), random.Random(1))
    first, second = public_view(deal), public_view(deal)
    assert first == second and first is not second
    view = seat_view(deal, Seat(1), first)
    assert view.public is first and view == seat_view(deal, Seat(1))
