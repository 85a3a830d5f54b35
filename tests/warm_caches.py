"""Fill the bytecode caches once, before pytest-xdist starts its workers.

Each worker imports every test module, and pytest rewrites the asserts of each one (its
introspecting messages) before compiling it: ~4.5 s of CPU per worker on the 2-core machine,
so ~14 s per run with three workers, when nothing is cached yet (a fresh clone, as in CI).
Done here once, in two processes, it costs ~4.5 s of CPU and ~2.5 s of wall, and the workers
then start in ~3.3 s of CPU each instead of ~8 (measured with `pytest --collect-only`).

The rewritten code is written where and as pytest itself writes it (``__pycache__/NAME
.cpython-311-pytest-X.pyc``, stamped with the source's mtime and size), through pytest's
rewrite module. That module is private: if it ever changes shape, the warming is skipped and
the workers simply rewrite as before, which only costs time.
"""

from __future__ import annotations

import ast
import compileall
import os
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def _cached(path: Path) -> Path:
    """Where pytest keeps the rewritten code of the test module ``path``."""
    from _pytest.assertion import rewrite

    return rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)


def _stale(path: Path) -> bool:
    """Whether the test module ``path`` has no cache matching its source."""
    from _pytest.assertion import rewrite

    return rewrite._read_pyc(path, _cached(path)) is None


def _rewrite(path: Path) -> None:
    """Rewrite one test module's asserts and cache the code."""
    from _pytest.assertion import rewrite

    pyc = _cached(path)
    stat = os.stat(path)
    source = path.read_bytes()
    tree = ast.parse(source, filename=str(path))
    # config=None: the rewrite then reads no ini option; the only one it knows
    # (enable_assertion_pass_hook) is off in this project, as with config.
    rewrite.rewrite_asserts(tree, source, str(path), None)
    code = compile(tree, str(path), "exec", dont_inherit=True)
    pyc.parent.mkdir(exist_ok=True)
    partial = pyc.with_name(f"{pyc.name}.{os.getpid()}")
    with open(partial, "wb") as out:
        rewrite._write_pyc_fp(out, stat, code)
    os.replace(partial, pyc)


_REWRITTEN = re.compile(r"(test_[^/]*|conftest)\.py$")
"""Modules that pytest rewrites: compiled the plain way, their caches would go unread."""


def _compile(folder: Path) -> None:
    compileall.compile_dir(folder, quiet=2, rx=_REWRITTEN)


def warm(root: Path, workers: int) -> None:
    """Cache the compiled project and the rewritten test modules under ``root``."""
    try:
        from _pytest.assertion import rewrite

        for name in ("get_cache_dir", "PYC_TAIL", "_read_pyc", "rewrite_asserts", "_write_pyc_fp"):
            getattr(rewrite, name)
    except (ImportError, AttributeError):
        return
    tests = root / "tests"
    modules = sorted(tests.rglob("test_*.py")) + sorted(tests.rglob("conftest.py"))
    folders = [root / name for name in ("bot", "storage", "tests") if (root / name).is_dir()]
    stale = [path for path in modules if _stale(path)]
    if not stale:  # the usual run: no process pool, compileall only looks at the stamps
        for folder in folders:
            _compile(folder)
        return
    with ProcessPoolExecutor(max(1, workers)) as pool:
        jobs = [pool.submit(_rewrite, path) for path in stale]
        jobs += [pool.submit(_compile, folder) for folder in folders]
        for job in jobs:
            try:
                job.result()
            except (OSError, SyntaxError, ValueError, TypeError, AttributeError):
                pass  # that module is rewritten by its worker, as without warming
