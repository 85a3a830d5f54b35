"""``python -m bot.replay`` run in-process: its ``main(argv)`` with standard input, output
and error of its own, as a subprocess would have them (UTF-8 bytes underneath).

Starting an interpreter costs ~0.5 s of CPU per run; the tests that only check what the
command prints call it so. A few tests still run the real ``python -m bot.replay``: what
only a process shows (the module runs as ``-m``, the exit status, output to a full device
flushed at the interpreter's exit).
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass
from unittest import mock

from bot.replay import main

__all__ = ["Replayed", "replay"]


@dataclass(frozen=True)
class Replayed:
    """What the command did: exit status, standard output and standard error."""

    returncode: int
    stdout: str
    stderr: str


def replay(args: list[str], stdin: bytes | str = b"") -> Replayed:
    """Run ``python -m bot.replay ARGS`` in this process with ``stdin`` as standard input."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    inp, out, err = (io.BytesIO(b) for b in (data, b"", b""))
    stdin_, stdout, stderr = (
        io.TextIOWrapper(raw, encoding="utf-8", write_through=True) for raw in (inp, out, err)
    )
    with mock.patch.multiple(sys, stdin=stdin_, stdout=stdout, stderr=stderr):
        code = main(args)
    return Replayed(code, out.getvalue().decode("utf-8"), err.getvalue().decode("utf-8"))
