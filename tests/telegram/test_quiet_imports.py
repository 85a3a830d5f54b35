"""Importing the bot's modules changes no global state: logging and the warning filters
are set up at the start (``main()``, ``post_init``), never at import."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

from telegram.warnings import PTBUserWarning

from bot.telegram.edits import ADVICE
from tests.bot_helpers import running_bot

ROOT = Path(__file__).resolve().parents[2]

PROBE = r"""
import ast, importlib, logging, pathlib, sys, warnings

files = sorted(p for root in ("bot", "storage") for p in pathlib.Path(root).rglob("*.py"))
ours = [".".join(p.with_suffix("").parts).removesuffix(".__init__") for p in files]
# the libraries first: what they do at import is theirs
for path in files:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found = [node.module or ""]
        else:
            continue
        for lib in found:
            if lib.split(".")[0] not in ("bot", "storage"):
                try:
                    importlib.import_module(lib)
                except ImportError:
                    pass


def state():
    loggers = {
        name: (lg.level, list(lg.handlers), lg.disabled, lg.propagate)
        for name, lg in logging.Logger.manager.loggerDict.items()
        if isinstance(lg, logging.Logger)
    }
    root = logging.getLogger()
    return (
        list(warnings.filters), root.level, list(root.handlers), logging.root.manager.disable,
        loggers,
    )


before = state()
for name in ours:
    importlib.import_module(name)
after = state()
new = {k: v for k, v in after[4].items() if k not in before[4]}
configured = sorted(k for k, v in new.items() if v != (logging.NOTSET, [], False, True))
kept = {k: v for k, v in after[4].items() if k in before[4]}
print(len(ours))
assert after[:4] == before[:4], [x for x in after[0] if x not in before[0]]
assert kept == before[4], sorted(k for k in kept if kept[k] != before[4][k])
assert not configured, configured
"""


def test_importing_every_module_leaves_logging_and_warnings_alone() -> None:
    run = subprocess.run(
        [sys.executable, "-W", "default", "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert int(run.stdout) > 100  # every module was imported


async def test_the_start_silences_the_typed_method_advice(tmp_path: Path) -> None:
    ours = ("ignore", ADVICE, PTBUserWarning)
    assert [f for f in warnings.filters if (f[0], f[1] and f[1].pattern, f[2]) == ours] == []
    async with running_bot(tmp_path):
        silenced = [f for f in warnings.filters if (f[0], f[1] and f[1].pattern, f[2]) == ours]
        assert len(silenced) == 1


LEAN_PROBE = r"""
import sys
from bot.app import build_application
from bot.config import Config
from storage import check_schema, check_target, lock_target

target = sys.argv[1]
check_target(target)
lock_target(target).release()
check_schema(target)
build_application(Config(token="123:abc", database_path=target))
print(sorted(m for m in sys.modules if m.startswith(("asyncpg", "bot.webapp", "aiohttp.web"))))
"""


def test_a_bot_on_sqlite_without_the_mini_app_imports_neither_asyncpg_nor_a_web_server(
    tmp_path: Path,
) -> None:
    """What only PostgreSQL or the Mini App needs is imported with them: asyncpg costs
    every bot ~4.5 MB of memory and the Mini App's server ~3 MB."""
    db = tmp_path / "bot.sqlite3"
    run = subprocess.run(
        [sys.executable, "-c", LEAN_PROBE, str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "[]"
