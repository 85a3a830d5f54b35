"""``python -m bot.replay FILE|-``: check a pulka record and print its sheet.

Prints the JSON of docs/record-format.md ("python -m bot.replay"), or with ``--text`` the
same sheet for people; ``--analyse`` adds each played deal's analysis to the JSON;
``--hint`` prints instead what the computer player would do for the seat on turn in the
record's unfinished last deal, as one move of the record. A bad
record exits with status 2 and one line on standard error naming the deal and the move;
nothing is printed on standard output then. Every
other input or output failure (an unreadable file, a record nested too deeply, numbers
beyond what a sheet holds, a picture or output that cannot be written) is also one line
and status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from bot.preferans.game import Game
from bot.preferans.record import RecordError
from bot.preferans.robot.hints import hint_action
from bot.preferans.scoring import Sheet, json_number
from bot.preferans.views import seat_view
from bot.render.sheet_text import sheet_text

__all__ = ["main", "replay_json", "load_game", "hint_move"]


def load_game(text: str) -> Game:
    """Parse and check a record; raises :class:`RecordError` with one precise line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"record: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise RecordError(f"record: {_TOO_DEEP}") from None
    except ValueError:  # an integer longer than Python converts (sys.get_int_max_str_digits)
        limit = sys.get_int_max_str_digits()
        raise RecordError(
            f"record: not valid JSON (a number of more than {limit} digits)"
        ) from None
    try:
        return Game.from_record(data)
    except RecursionError:
        raise RecordError(f"record: {_TOO_DEEP}") from None


_TOO_DEEP = "nested too deeply to be a pulka record"


_LINE_LIMIT = 300
"""Characters of an error line kept: a record can quote a huge value back."""


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    line = text.splitlines()[0] if text.strip() else type(exc).__name__
    return line if len(line) <= _LINE_LIMIT else line[: _LINE_LIMIT - 1] + "…"


def _sheet_fields(sheet: Sheet) -> dict[str, Any]:
    data = sheet.to_json()
    return {"pulka": data["pulka"], "gora": data["gora"], "whists": data["whists"]}


def replay_json(game: Game, *, analyse: bool = False) -> dict[str, Any]:
    """The replay output document for ``game``; with ``analyse`` each deal played card by
    card also gets its ``analysis`` (best play and the cards that changed its value)."""
    if analyse:  # the solver builds its tables on import (~0.3 s): only for --analyse
        from bot.preferans.analysis import analyse as analyse_deal
    deals = []
    for finished in game.finished_deals:
        tricks = finished.outcome.tricks
        entry: dict[str, Any] = {"tricks": list(tricks) if tricks is not None else None}
        entry |= _sheet_fields(finished.sheet)
        if analyse and finished.deal is not None:
            analysis = analyse_deal(finished.deal)
            if analysis is not None:
                entry["analysis"] = analysis.to_json()
        deals.append(entry)
    settlement = game.settlement()
    return {
        "players": list(game.names),
        "deals": deals,
        **_sheet_fields(game.sheet),
        "finished": game.finished,
        "settlement": None if settlement is None else [json_number(v) for v in settlement],
    }


class _Failure(Exception):
    """A failure to report in one line on standard error (exit status 2)."""


def hint_move(game: Game) -> dict[str, Any]:
    """What the strongest computer player would do for the seat on turn in the record's
    unfinished last deal, as one move of the record, decided from that seat's view only
    (a fixed seed: the same record gives the same hint)."""
    deal = game.current
    actor = None if deal is None else deal.actor
    if deal is None or actor is None:
        raise _Failure("--hint: the record's last deal is over; nobody is on turn")
    return hint_action(seat_view(deal, actor)).to_json()


def _read_input(name: str) -> str:
    try:
        if name == "-":
            stdin = sys.stdin
            if stdin is None:
                raise _Failure("record: there is no standard input to read")
            buffer = getattr(stdin, "buffer", None)
            raw = buffer.read() if buffer is not None else stdin.read()
            return raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
        with open(name, encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise _Failure(f"record: cannot read {name}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        shown = "standard input" if name == "-" else name
        raise _Failure(f"record: {shown} is not UTF-8 text") from None
    except ValueError as exc:  # a file name with a NUL byte
        raise _Failure(f"record: cannot read {name!r}: {_first_line(exc)}") from None


def _write_png(game: Game, path: str, lang: str) -> None:
    try:
        from bot.render.picture.draw import render_png
    except ImportError as exc:  # Pillow missing
        raise _Failure(f"--png needs Pillow: {exc}") from None
    data = render_png(game, lang=lang)
    try:
        with open(path, "wb") as fh:
            fh.write(data)
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else _first_line(exc)
        raise _Failure(f"--png: cannot write {path}: {why}") from None


def _write_output(text: str) -> None:
    """Write ``text`` (UTF-8) to standard output and flush it, or fail in one line."""
    out = sys.stdout
    if out is None:
        raise _Failure("output: there is no standard output to write to")
    try:
        buffer = getattr(out, "buffer", None)
        if buffer is not None:
            out.flush()
            buffer.write(text.encode("utf-8"))
            buffer.flush()
        else:
            out.write(text)
            out.flush()
    except OSError as exc:
        _drop_stdout(out)
        raise _Failure(f"output: cannot write: {exc.strerror or exc}") from None


def _drop_stdout(out: Any) -> None:
    """Point standard output at the null device, so that the interpreter's own flush at
    exit does not fail a second time with a traceback (the unwritten output is lost)."""
    try:
        fd = out.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m bot.replay",
        description="Check a preferans-record/1 file and print its sheet.",
    )
    parser.add_argument("file", help="the record file, or - for standard input")
    parser.add_argument(
        "--text", action="store_true", help="print a readable sheet instead of JSON"
    )
    parser.add_argument("--lang", default="ru", choices=("ru", "en"), help="language of --text")
    parser.add_argument("--png", metavar="OUT", help="also draw the sheet as a PNG picture")
    parser.add_argument(
        "--analyse",
        action="store_true",
        help="add each played deal's analysis: best play, and the cards that changed it",
    )
    parser.add_argument(
        "--hint",
        action="store_true",
        help="print what the computer player would do for the seat on turn in the "
        "unfinished last deal, as one move of the record",
    )
    args = parser.parse_args(argv)
    try:
        if args.analyse and args.text:
            raise _Failure("--analyse: only with the JSON output, not with --text")
        if args.hint and (args.text or args.analyse or args.png is not None):
            raise _Failure("--hint: alone, not with --text, --analyse or --png")
        game = load_game(_read_input(args.file))
        if args.hint:
            _write_output(json.dumps(hint_move(game), ensure_ascii=False) + "\n")
            return 0
        if args.png is not None:
            if not args.png.strip():
                raise _Failure("--png: name the file to write (an empty name was given)")
            _write_png(game, args.png, args.lang)
        if args.text:
            text = sheet_text(game, lang=args.lang) + "\n"
        else:
            document = replay_json(game, analyse=args.analyse)
            text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
        _write_output(text)
    except (RecordError, _Failure) as exc:
        print(_first_line(exc), file=sys.stderr)
        return 2
    except RecursionError:
        print(f"record: {_TOO_DEEP}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - never a traceback: one line, as promised
        why = f"{type(exc).__name__}: {_first_line(exc)}"
        print(f"record: cannot be checked ({why})", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
