"""Russian and English texts; ``t(lang, key, **values)`` picks one, Russian by default."""

from __future__ import annotations

from typing import Any

__all__ = ["t", "LANGS", "lang_of"]

LANGS = ("ru", "en")

_TEXTS: dict[str, dict[str, str]] = {
    "ru": {},
    "en": {},
}


def register(key: str, ru: str, en: str) -> None:
    """Add one text in both languages (modules register the texts they use)."""
    _TEXTS["ru"][key] = ru
    _TEXTS["en"][key] = en


def t(lang: str, key: str, **values: Any) -> str:
    """The text ``key`` in ``lang`` (falls back to Russian), formatted with ``values``."""
    table = _TEXTS.get(lang) or _TEXTS["ru"]
    text = table.get(key)
    if text is None:
        text = _TEXTS["ru"][key]
    return text.format(**values) if values else text


def lang_of(code: str | None) -> str:
    """Our language for a Telegram ``language_code``: English for ``en*``, else Russian."""
    return "en" if code and code.lower().startswith("en") else "ru"


for _key, _ru, _en in (
    ("sheet.player", "Игрок", "Player"),
    ("sheet.pulka", "Пуля", "Pulka"),
    ("sheet.gora", "Гора", "Gora"),
    ("sheet.whists_on", "Висты на {name}", "Whists on {name}"),
    ("sheet.result", "Итог", "Result"),
    (
        "sheet.title",
        "{convention}, пуля до {size}, сдач: {deals}",
        "{convention}, pulka to {size}, deals: {deals}",
    ),
    ("sheet.finished", "Пулька закрыта.", "The pulka is closed."),
    ("sheet.stopped", "Игра остановлена досрочно.", "The game was stopped early."),
    ("sheet.settlement", "Расчёт (в вистах):", "Settlement (whists):"),
):
    register(_key, _ru, _en)


# ---------------------------------------------------------------------- the Telegram layer

for _key, _ru, _en in (
    # cards and contracts
    ("nt", "БК", "NT"),
    ("misere", "мизер", "misère"),
    ("pass", "пас", "pass"),
    ("here", "здесь", "here"),
    # commands and help
    ("cmd.newgame", "открыть стол (в группе)", "open a table (in a group)"),
    ("cmd.pulka", "пулька: текущий счёт", "the pulka: current score"),
    ("cmd.stop", "голосовать за остановку игры", "vote to stop the game"),
    ("cmd.rules", "правила записи выбранной конвенции", "scoring of the chosen convention"),
    ("cmd.help", "как играть с ботом", "how to play with the bot"),
    ("cmd.start", "разрешить боту писать вам", "let the bot write to you"),
    (
        "help",
        "🃏 <b>Преферанс</b>\n"
        "/newgame — открыть стол в группе; садитесь кнопкой «Сесть».\n"
        "Карты приходят в личные сообщения: там же все ходы кнопками, группу можно не открывать.\n"
        "В группе — общий стол, итоги сдач и пулька.\n"
        "/pulka — пулька, /rules — правила записи, /stop — голосовать за остановку.\n"
        "/history — последние игры, /stats — статистика, /top — лучшие игроки, "
        "/export — запись пульки файлом.\n"
        "Чтобы сесть, бот должен писать вам: нажмите Start в личке бота (кнопка «Сесть» "
        "сама откроет её).",
        "🃏 <b>Preferans</b>\n"
        "/newgame — open a table in a group; take a seat with «Sit down».\n"
        "Your cards come to your private chat with the bot, and every move is a button there: "
        "you never need to open the group.\n"
        "The group shows the table, deal results and the pulka.\n"
        "/pulka — the sheet, /rules — scoring, /stop — vote to stop.\n"
        "/history — last games, /stats — statistics, /top — best players, "
        "/export — the pulka record as a file.\n"
        "To sit down the bot must be able to write to you: press Start in the bot's chat "
        "(«Sit down» opens it for you).",
    ),
    (
        "start.private",
        "Привет! Теперь я могу присылать вам карты. Откройте стол в группе командой /newgame.",
        "Hi! Now I can send you your cards. Open a table in a group with /newgame.",
    ),
    (
        "start.seated",
        "Вы сели за стол в «{title}», место {seat}.",
        "You sat down at the table in «{title}», seat {seat}.",
    ),
    (
        "start.took",
        "Вы заняли место {seat} за столом в «{title}».",
        "You took seat {seat} at the table in «{title}».",
    ),
    ("only_group", "Эта команда работает в группе.", "This command works in a group."),
    (
        "no_table",
        "В этом чате нет игры. Откройте стол: /newgame",
        "No game in this chat. Open a table: /newgame",
    ),
    ("table_exists", "В этой группе уже есть стол ↑", "This group already has a table ↑"),
    # lobby
    ("lobby.title", "🃏 <b>Новая пулька</b>", "🃏 <b>New pulka</b>"),
    (
        "lobby.conf",
        "{convention}, пуля до {pulka}, игроков: {players}, ход: {turn}",
        "{convention}, pulka to {pulka}, players: {players}, turn: {turn}",
    ),
    ("lobby.seats", "Места:", "Seats:"),
    ("lobby.free", "свободно", "free"),
    (
        "lobby.hint",
        "Нажмите «Сесть». Игра начнётся, когда все места заняты и кто-то нажмёт «Начать».",
        "Press «Sit down». The game starts when every seat is taken and someone presses «Start».",
    ),
    (
        "lobby.expired",
        "⌛ Стол закрыт: игру так и не начали.",
        "⌛ Table closed: nobody started it.",
    ),
    ("lobby.cancelled", "✖️ Стол закрыт.", "✖️ Table closed."),
    ("lobby.started", "▶️ Игра началась!", "▶️ The game has started!"),
    ("btn.sit", "🪑 Сесть", "🪑 Sit down"),
    ("btn.stand", "🚶 Встать", "🚶 Stand up"),
    ("btn.start", "▶️ Начать", "▶️ Start"),
    ("btn.settings", "⚙️ Настройки", "⚙️ Settings"),
    ("btn.cancel", "✖️ Закрыть стол", "✖️ Close table"),
    ("btn.back", "✅ Готово", "✅ Done"),
    ("btn.vote_stop", "🛑 Остановить игру", "🛑 Stop the game"),
    ("btn.take", "🪑 Занять место {seat}", "🪑 Take seat {seat}"),
    ("turn.off", "без ограничения", "unlimited"),
    ("turn.sec", "{n} с", "{n} s"),
    ("set.players", "Игроков: {v}", "Players: {v}"),
    ("set.pulka", "Пуля: {v}", "Pulka: {v}"),
    ("set.turn_time", "Ход: {v}", "Turn: {v}"),
    ("set.jumps", "Прыжки: {v}", "Jumps: {v}"),
    ("set.ten_checked", "10: {v}", "10: {v}"),
    ("set.ten.yes", "без вистов", "not whisted"),
    ("set.ten.no", "вистуется", "whisted"),
    ("set.stalingrad", "Сталинград: {v}", "Stalingrad: {v}"),
    ("set.half_whist", "Полвиста: {v}", "Half-whist: {v}"),
    ("set.whist_type", "Висты: {v}", "Whists: {v}"),
    ("set.greedy", "жлобские", "greedy"),
    ("set.gentleman", "джентльменские", "gentleman"),
    ("set.raspasy_exit", "Выход с распасов: {v}", "All-pass exit: {v}"),
    ("set.lang", "Язык группы: {v}", "Group language: {v}"),
    ("set.sheet", "Пулька: {v}", "Sheet: {v}"),
    ("set.sheet.picture", "картинка", "picture"),
    ("set.sheet.text", "текст", "text"),
    ("set.sheet.both", "картинка и текст", "picture + text"),
    ("yes", "да", "yes"),
    ("no", "нет", "no"),
    ("set.options", "Опции: {v}", "Options: {v}"),
    # rejections (alerts)
    ("err.stale", "Это устаревшее сообщение.", "This message is out of date."),
    ("err.not_seated", "Вы не сидите за этим столом.", "You are not seated at this table."),
    ("err.not_turn", "Сейчас не ваш ход.", "It is not your turn."),
    ("err.illegal", "Так сейчас нельзя.", "That is not allowed now."),
    (
        "err.owner_only",
        "Настройки меняет тот, кто открыл стол.",
        "Only the player who opened the table changes the settings.",
    ),
    ("err.full", "Все места заняты.", "Every seat is taken."),
    ("err.already", "Вы уже сидите за столом.", "You are already seated."),
    ("err.not_full", "Ещё не все места заняты.", "Not every seat is taken yet."),
    ("err.no_seat", "Это место уже не свободно.", "This seat is not free any more."),
    ("err.pick_two", "Отметьте ровно две карты.", "Mark exactly two cards."),
    (
        "err.open_bot",
        "Откройте бота и нажмите Start — вы сядете автоматически.",
        "Open the bot and press Start — you will be seated automatically.",
    ),
    ("ok.seated", "Вы за столом, место {seat}.", "You are seated, seat {seat}."),
    ("ok.voted", "Голос учтён.", "Vote counted."),
    ("ok.already", "✓ Уже сделано.", "✓ Already done."),
    # the table
    (
        "deal.title",
        "🃏 <b>Сдача {n}</b> · {convention}, пуля до {pulka}",
        "🃏 <b>Deal {n}</b> · {convention}, pulka to {pulka}",
    ),
    ("deal.dealer", "сдаёт", "deals"),
    ("deal.sits_out", "сдаёт, на прикупе", "deals, sits out"),
    ("deal.auction", "Торговля", "Auction"),
    ("deal.talon", "Прикуп", "Talon"),
    ("deal.contract", "Игра: {contract} — {name}", "Contract: {contract} — {name}"),
    ("deal.bid", "Торг выиграл {name}: {contract}", "{name} won the auction: {contract}"),
    ("deal.allpass", "Распасы", "All-pass"),
    ("deal.whists", "Висты", "Whists"),
    ("whist.whist", "вист", "whist"),
    ("whist.pass", "пас", "pass"),
    ("whist.half", "полвиста", "half-whist"),
    ("whist.return", "вернул вист", "returned the whist"),
    ("whist.let", "оставил полвиста", "let the half-whist stand"),
    ("defence.open", "в открытую (лёжа)", "open (face up)"),
    ("defence.closed", "в закрытую (стоя)", "closed"),
    ("deal.defence", "Защита: {v}", "Defence: {v}"),
    ("deal.open_hand", "Карты игрока {name}:", "{name}'s cards:"),
    ("deal.trick", "Взятка {n}", "Trick {n}"),
    ("deal.last_trick", "Прошлая взятка", "Last trick"),
    ("deal.took", "берёт {name}", "{name} takes"),
    ("deal.talon_card", "прикуп", "talon"),
    ("deal.tricks", "Взятки", "Tricks"),
    ("deal.done", "Сдача окончена.", "The deal is over."),
    ("act.auction", "торгуется {name}", "{name} to bid"),
    ("act.discard", "{name} берёт прикуп и сносит", "{name} takes the talon and discards"),
    ("act.contract", "{name} заказывает игру", "{name} names the contract"),
    ("act.whist", "{name}: вист или пас", "{name}: whist or pass"),
    ("act.defence", "{name}: играть в открытую или в закрытую", "{name}: open or closed"),
    ("act.play", "ходит {name}", "{name} to play"),
    ("act.play_for", "ходит {name} (за игрока {other})", "{name} to play (for {other})"),
    ("act.deadline", "⏳ на ход {n} с", "⏳ {n} s to move"),
    # the private hand message
    ("hand.title", "🃏 <b>Сдача {n}</b> · {title}", "🃏 <b>Deal {n}</b> · {title}"),
    ("hand.yours", "Ваши карты:", "Your cards:"),
    ("hand.none", "Вы сдаёте и в этой сдаче не играете.", "You are dealing and sit this deal out."),
    ("hand.discard", "Ваш снос: {cards}", "Your discard: {cards}"),
    ("hand.controlled", "Вы ходите и картами игрока {name}:", "You also play for {name}:"),
    ("hand.your_turn", "👉 <b>Ваш ход</b>", "👉 <b>Your turn</b>"),
    ("hand.bid", "👉 <b>Ваше слово</b>: торгуйтесь или пас", "👉 <b>Your call</b>: bid or pass"),
    (
        "hand.discard_prompt",
        "👉 <b>Снесите две карты</b>: отметьте их и подтвердите",
        "👉 <b>Discard two cards</b>: mark them and confirm",
    ),
    ("hand.contract_prompt", "👉 <b>Заказывайте игру</b>", "👉 <b>Name the contract</b>"),
    ("hand.whist_prompt", "👉 <b>Вист или пас?</b>", "👉 <b>Whist or pass?</b>"),
    (
        "hand.defence_prompt",
        "👉 <b>Как играть: в открытую или в закрытую?</b>",
        "👉 <b>Play open or closed?</b>",
    ),
    ("hand.play_prompt", "👉 <b>Ваш ход</b>: выберите карту", "👉 <b>Your turn</b>: play a card"),
    (
        "hand.play_for",
        "👉 <b>Ход картами игрока {name}</b>: выберите карту",
        "👉 <b>Play for {name}</b>: choose a card",
    ),
    ("hand.auto", "⏰ Время вышло, за вас: {what}", "⏰ Time is up, played for you: {what}"),
    ("act.discarded", "снос {cards}", "discard {cards}"),
    ("btn.pass", "Пас", "Pass"),
    ("btn.misere", "Мизер", "Misère"),
    ("btn.here", "Здесь {c}", "Here {c}"),
    ("btn.discard", "Снести {cards}", "Discard {cards}"),
    ("btn.whist", "Вист", "Whist"),
    ("btn.wpass", "Пас", "Pass"),
    ("btn.half", "Полвиста", "Half-whist"),
    ("btn.return", "Вернуть вист", "Return the whist"),
    ("btn.let", "Оставить полвиста", "Let it stand"),
    ("btn.open", "В открытую", "Open"),
    ("btn.closed", "В закрытую", "Closed"),
    ("remind", "⏰ {name}, ваш ход: осталось {n} с.", "⏰ {name}, your turn: {n} s left."),
    # results
    (
        "res.allpass",
        "Сдача {n}: распасы, взятки: {tricks}.",
        "Deal {n}: all-pass, tricks: {tricks}.",
    ),
    ("res.misere_made", "Сдача {n}: {name} сыграл мизер.", "Deal {n}: {name} made the misère."),
    (
        "res.misere_fail",
        "Сдача {n}: {name} не сыграл мизер: взяток {k}.",
        "Deal {n}: {name} failed the misère: {k} tricks.",
    ),
    (
        "res.made",
        "Сдача {n}: {name} сыграл {contract} ({k} взяток).",
        "Deal {n}: {name} made {contract} ({k} tricks).",
    ),
    (
        "res.failed",
        "Сдача {n}: {name} без {u} на {contract} ({k} взяток).",
        "Deal {n}: {name} went down {u} on {contract} ({k} tricks).",
    ),
    (
        "res.unplayed",
        "Сдача {n}: {name} — {contract}, {why}, игра засчитана.",
        "Deal {n}: {name} — {contract}, {why}, counted as made.",
    ),
    ("res.why.pass", "оба спасовали", "both defenders passed"),
    ("res.why.half", "полвиста ({who})", "half-whist ({who})"),
    ("res.why.ten", "десятерная без вистов", "the ten is not whisted"),
    ("res.pulka", "Пулька:", "Pulka:"),
    (
        "res.over",
        "🏁 <b>Игра окончена.</b> Расчёт в вистах:",
        "🏁 <b>Game over.</b> Settlement in whists:",
    ),
    (
        "res.stopped",
        "🛑 <b>Игра остановлена.</b> Расчёт в вистах:",
        "🛑 <b>Game stopped.</b> Settlement in whists:",
    ),
    # stop and replacement
    (
        "stop.vote",
        "🛑 {name} за остановку игры ({votes} из {need}). Остальные: /stop или кнопка.",
        "🛑 {name} votes to stop the game ({votes} of {need}). Others: /stop or the button.",
    ),
    ("stop.not_playing", "Сейчас нет игры, которую можно остановить.", "There is no game to stop."),
    ("timeout.note", "⏰ {name} не успел(а): {what}", "⏰ {name} ran out of time: {what}"),
    (
        "timeout.replace",
        "⏰ {name} пропускает ходы. Его место может занять другой игрок "
        "(Кодекс 3.1.2) — или проголосуйте за остановку: /stop",
        "⏰ {name} keeps missing turns. Another player may take the seat (Кодекс 3.1.2) — "
        "or vote to stop: /stop",
    ),
    ("replaced", "🪑 {new} занимает место {old}.", "🪑 {new} takes {old}'s seat."),
    (
        "blocked",
        "⚠️ {name} заблокировал(а) бота и не получает карты. Откройте бота и нажмите Start.",
        "⚠️ {name} has blocked the bot and gets no cards. Open the bot and press Start.",
    ),
    ("err.not_replaceable", "Это место нельзя занять.", "This seat cannot be taken."),
    # rules
    ("rules.head", "<b>{convention}</b>, пуля до {pulka}", "<b>{convention}</b>, pulka to {pulka}"),
    (
        "rules.prices",
        "Цена игры: 6 → 2, 7 → 4, 8 → 6, 9 → 8, 10 → 10, мизер → 10.",
        "Game prices: 6 → 2, 7 → 4, 8 → 6, 9 → 8, 10 → 10, misère → 10.",
    ),
    (
        "rules.sochi",
        "Вист — цена игры за взятку; недобор — цена за взятку в гору, "
        "висты жлобские, ответственность полная. Распасы: 1-2-3 в гору за взятку. "
        "Игра до закрытия всех пуль, с помощью.",
        "A whist is the game's price per trick; each missing trick costs the price in gora; "
        "greedy whists, full responsibility. All-pass: 1-2-3 per trick to gora. "
        "Play until every pulka is closed, with help.",
    ),
    (
        "rules.leningrad",
        "Вист — удвоенная цена за взятку; недобор — удвоенная цена за взятку "
        "(мизер — 20), висты джентльменские, полуответственность. Распасы: 2-4-6 в гору. "
        "Игра до суммы пуль = размер × игроков.",
        "A whist is twice the price per trick; each missing trick costs twice the price "
        "(misère 20); gentleman whists, half responsibility. All-pass: 2-4-6 to gora. "
        "Play until the pulkas sum to size × players.",
    ),
    (
        "rules.rostov",
        "Вист — цена игры за взятку; за недобор висты по 10; висты "
        "джентльменские. Распасы без прикупа: по 5 вистов за взятку пишут игроки с меньшим числом "
        "взяток. Игра до закрытия всех пуль.",
        "A whist is the game's price per trick; 10 whists per missing trick; gentleman whists. "
        "All-pass without the talon: 5 whists per trick, written by the players with the fewest "
        "tricks. Play until every pulka is closed.",
    ),
    ("rules.options", "Опции стола: {v}", "Table options: {v}"),
    # /rules from the convention's data (bot.preferans.policy.rules_numbers)
    (
        "rules.price_list",
        "Цена игры: {prices}, мизер → {misere}.",
        "Game prices: {prices}, misère → {misere}.",
    ),
    (
        "rules.whist_line",
        "Вист — цена игры{times} за взятку; висты {whist_type}, {responsibility}.",
        "A whist is the game's price{times} per trick; {whist_type} whists, {responsibility}.",
    ),
    ("rules.resp.full", "ответственность полная", "full responsibility"),
    ("rules.resp.half", "полуответственность", "half responsibility"),
    (
        "rules.penalty_line",
        "Недобор — цена игры{times} за взятку в гору; мизер — {misere} за взятку.",
        "Each missing trick costs the price{times} in gora; a misère {misere} per trick.",
    ),
    (
        "rules.consolation_flat",
        "За недобор вистующие пишут по {n} вистов за взятку.",
        "Whisters write {n} whists per missing trick.",
    ),
    (
        "rules.allpass_gora",
        "Распасы: {prices} в гору за взятку.",
        "All-pass: {prices} per trick to gora.",
    ),
    (
        "rules.allpass_whists",
        "Распасы без прикупа: по {prices} вистов за взятку пишут игроки с меньшим числом взяток.",
        "All-pass without the talon: {prices} whists per trick, written by the players with "
        "the fewest tricks.",
    ),
    ("rules.end_closed", "Игра до закрытия всех пуль.", "Play until every pulka is closed."),
    (
        "rules.end_closed_help",
        "Игра до закрытия всех пуль, с помощью.",
        "Play until every pulka is closed, with help.",
    ),
    (
        "rules.end_sum",
        "Игра до суммы пуль {total} (размер × игроков).",
        "Play until the pulkas sum to {total} (size × players).",
    ),
    ("opt.jumps", "прыжки", "jumps"),
    ("opt.ten_checked", "10 без вистов", "the ten not whisted"),
    ("opt.stalingrad", "сталинград", "stalingrad"),
    ("opt.no_half", "без полвиста", "no half-whist"),
    ("opt.exit", "выход с распасов {v}", "all-pass exit {v}"),
):
    register(_key, _ru, _en)
