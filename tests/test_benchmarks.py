"""The benchmarks (tests/perf/, run by hand) still import and parse their arguments.

Each runs as ``python tests/perf/X.py --help`` would, all in one child process (the bot is
imported once: ~1.3 s of CPU in all, against ~3.7 s for a process each), so that a
function renamed in bot/ fails here rather than in the next measurement. ``mypy tests``
checks the rest, the imports inside the benchmarks' functions included. This module is
the child's script too, so it imports the standard library only (run from tests/, it would
find ``telegram`` in tests/telegram/).
"""

from __future__ import annotations

import contextlib
import io
import os
import runpy
import subprocess
import sys
import traceback
from pathlib import Path

PERF = Path(__file__).resolve().parent / "perf"
IMPORTED_ONLY = frozenset({"baseline_bot.py"})
"""Scripts with no arguments: bot_load.py starts them with their settings in the
environment, so they are only imported here."""


def test_every_benchmark_imports_and_parses_its_arguments() -> None:
    scripts = sorted(PERF.glob("*.py"))
    assert "bot_load.py" in {p.name for p in scripts}
    child = subprocess.run(
        [sys.executable, __file__, *map(str, scripts)],
        capture_output=True,
        text=True,
        timeout=300,  # bounds a hang only
        check=False,
    )
    assert child.stdout.splitlines() == [f"{p.name}: ok" for p in scripts], child.stderr
    assert child.returncode == 0, child.stderr


def check(path: str) -> str:
    """``ok`` if ``path --help`` printed its usage and exited 0, else what happened."""
    name = os.path.basename(path)
    sys.argv = [path, "--help"]
    sys.path[0] = os.path.dirname(path)  # what ``python path`` puts first
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name=name if name in IMPORTED_ONLY else "__main__")
    except SystemExit as end:
        usage = out.getvalue().startswith(f"usage: {name}")
        return "ok" if end.code == 0 and usage else f"exit {end.code}: {out.getvalue()[:200]!r}"
    except Exception as error:  # the test shows it, with the traceback
        traceback.print_exc()
        return f"{type(error).__name__}: {error}"
    return "ok" if name in IMPORTED_ONLY else "no exit after --help"


if __name__ == "__main__":
    for script in sys.argv[1:]:
        print(f"{os.path.basename(script)}: {check(script)}", flush=True)
