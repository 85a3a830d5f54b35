"""``python -m bot.replay`` never tracebacks: every input and output failure is one line on
standard error and exit status 2, with nothing on standard output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.preferans.record import START_LIMIT
from bot.replay import main
from tests.engine.replay_run import replay

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "tests" / "records" / "example.json"


def example() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    return data


def with_start(value: str) -> str:
    """The example record with ``value`` (raw JSON text) as seat 0's pulka in ``start``."""
    data = example()
    data["start"] = {"pulka": [0, 0, 0], "gora": [0, 0, 0], "whists": [[0, 0, 0]] * 3}
    return json.dumps(data).replace('"pulka": [0, 0, 0]', f'"pulka": [{value}, 0, 0]', 1)


def one_line(err: str) -> str:
    """The single error line (no traceback, nothing else)."""
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    return err.strip()


def call(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``main`` in-process; it must fail with status 2 and one line; return the line."""
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return one_line(captured.err)


# ---------------------------------------------------------------- as a process


def test_output_to_a_full_device_is_one_line_as_a_process() -> None:
    """Also at the interpreter's exit: its own flush of the unwritten output does not fail
    a second time with a traceback."""
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "bot.replay", str(EXAMPLE)],
            stdout=full,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            timeout=60,
        )
    assert done.returncode == 2
    assert one_line(done.stderr.decode()) == "output: cannot write: No space left on device"


# ---------------------------------------------------------------- in-process (replay_run)


def test_nesting_2000_deep_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 2000 + "]" * 2000, encoding="utf-8")
    done = replay([str(path)])
    assert done.returncode == 2 and done.stdout == ""
    assert one_line(done.stderr) == "record: nested too deeply to be a pulka record"


def test_invalid_utf8_on_standard_input_is_one_line() -> None:
    done = replay(["-"], stdin=b'{"format": "\xff\xfe"}')
    assert done.returncode == 2 and done.stdout == ""
    assert one_line(done.stderr) == "record: standard input is not UTF-8 text"


def test_infinity_in_start_on_standard_input() -> None:
    done = replay(["-"], stdin=with_start("Infinity").encode())
    assert done.returncode == 2 and done.stdout == ""
    line = one_line(done.stderr)
    assert line == "start: pulka must hold finite numbers, not inf"


def test_a_good_record_still_replays() -> None:
    done = replay([str(EXAMPLE)])
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)["players"] == ["Anna", "Boris", "Vera"]


def test_nesting_quoted_back_in_an_error_stays_one_short_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = example()
    data["format"] = json.loads("[" * 900 + "]" * 900)
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    line = call([str(path)], capsys)
    assert line.startswith("record: 'format' must be") and len(line) <= 300


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Infinity", "start: pulka must hold finite numbers, not inf"),
        ("-Infinity", "start: pulka must hold finite numbers, not -inf"),
        ("NaN", "start: pulka must hold finite numbers, not nan"),
        (
            "1e308",
            f"start: pulka must hold numbers from -{START_LIMIT} to {START_LIMIT} "
            "(what a sheet can hold), not a number of more than 24 digits",
        ),
        (
            "-1000000000.5",
            f"start: pulka must hold numbers from -{START_LIMIT} to {START_LIMIT} "
            "(what a sheet can hold), not -1000000000.5",
        ),
        (
            "9" * 4000,
            f"start: pulka must hold numbers from -{START_LIMIT} to {START_LIMIT} "
            "(what a sheet can hold), not a number of more than 24 digits",
        ),
        ("9" * 5000, "record: not valid JSON (a number of more than 4300 digits)"),
    ],
)
def test_numbers_in_start_are_bounded(
    value: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "start.json"
    path.write_text(with_start(value), encoding="utf-8")
    assert call([str(path)], capsys) == expected


def test_numbers_at_the_bound_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "start.json"
    path.write_text(with_start(str(START_LIMIT)), encoding="utf-8")
    assert main([str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["deals"][0]["pulka"][0] >= START_LIMIT


def test_png_to_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "no" / "such" / "sheet.png"
    line = call([str(EXAMPLE), "--png", str(target)], capsys)
    assert line == f"--png: cannot write {target}: No such file or directory"
    assert not target.parent.exists()


def test_png_to_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = call([str(EXAMPLE), "--png", str(tmp_path)], capsys)
    assert line == f"--png: cannot write {tmp_path}: Is a directory"


@pytest.mark.parametrize("name", ["", "  "])
def test_png_to_an_empty_name(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    line = call([str(EXAMPLE), "--png", name], capsys)
    assert line == "--png: name the file to write (an empty name was given)"


def test_png_to_a_full_device(capsys: pytest.CaptureFixture[str]) -> None:
    line = call([str(EXAMPLE), "--png", "/dev/full"], capsys)
    assert line == "--png: cannot write /dev/full: No space left on device"


def test_png_that_can_be_written_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "sheet.png"
    assert main([str(EXAMPLE), "--png", str(target)]) == 0
    assert target.read_bytes().startswith(b"\x89PNG")
    capsys.readouterr()


@pytest.mark.parametrize("extra", [[], ["--text"]])
def test_output_to_a_full_device_in_process(
    extra: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with open("/dev/full", "w", encoding="utf-8") as full:
        monkeypatch.setattr(sys, "stdout", full)
        assert main([*extra, str(EXAMPLE)]) == 2
    err = capsys.readouterr().err
    assert one_line(err) == "output: cannot write: No space left on device"


def test_a_directory_is_not_readable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert call([str(tmp_path)], capsys) == f"record: cannot read {tmp_path}: Is a directory"


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nothing.json"
    assert call([str(path)], capsys) == f"record: cannot read {path}: No such file or directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_a_file_without_read_permission(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "secret.json"
    path.write_text("{}", encoding="utf-8")
    path.chmod(0)
    assert call([str(path)], capsys) == f"record: cannot read {path}: Permission denied"


def test_a_file_name_with_a_nul_byte(capsys: pytest.CaptureFixture[str]) -> None:
    line = call(["bad\x00name.json"], capsys)
    assert line.startswith("record: cannot read 'bad\\x00name.json'")


def test_invalid_utf8_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"players": ["Jos\xe9"]}')
    assert call([str(path)], capsys) == f"record: {path} is not UTF-8 text"


def test_no_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    assert call(["-"], capsys) == "record: there is no standard input to read"
