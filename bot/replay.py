"""``python -m bot.replay FILE|-``: check a pulka record and print its sheet.

Prints the JSON of docs/record-format.md ("python -m bot.replay"), or with ``--text`` the
same sheet for people. A bad record exits with status 2 and one line on standard
error naming the deal and the move; nothing is printed on standard output then.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bot.preferans.game import Game
from bot.preferans.record import RecordError
from bot.preferans.scoring import Sheet, json_number
from bot.render.sheet_text import sheet_text

__all__ = ["main", "replay_json", "load_game"]


def load_game(text: str) -> Game:
    """Parse and check a record; raises :class:`RecordError` with one precise line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"record: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    return Game.from_record(data)


def _sheet_fields(sheet: Sheet) -> dict[str, Any]:
    data = sheet.to_json()
    return {"pulka": data["pulka"], "gora": data["gora"], "whists": data["whists"]}


def replay_json(game: Game) -> dict[str, Any]:
    """The replay output document for ``game``."""
    deals = []
    for finished in game.finished_deals:
        tricks = finished.outcome.tricks
        deals.append(
            {"tricks": list(tricks) if tricks is not None else None} | _sheet_fields(finished.sheet)
        )
    settlement = game.settlement()
    return {
        "players": list(game.names),
        "deals": deals,
        **_sheet_fields(game.sheet),
        "finished": game.finished,
        "settlement": None if settlement is None else [json_number(v) for v in settlement],
    }


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
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as exc:
        print(f"record: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"record: {args.file} is not UTF-8 text", file=sys.stderr)
        return 2
    try:
        game = load_game(text)
    except RecordError as exc:
        print(str(exc).splitlines()[0] if str(exc) else "record: invalid", file=sys.stderr)
        return 2
    if args.png:
        try:
            from bot.render.picture.draw import render_png
        except ImportError as exc:  # Pillow missing
            print(f"--png needs Pillow: {exc}", file=sys.stderr)
            return 2
        with open(args.png, "wb") as fh:
            fh.write(render_png(game, lang=args.lang))
    if args.text:
        sys.stdout.write(sheet_text(game, lang=args.lang) + "\n")
    else:
        json.dump(replay_json(game), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
