"""Telegram's HTML parse mode, the one the bot sends: plain text and entities, or tdlib's
"can't parse entities" error with its byte offset. Entity offsets count UTF-16 units."""

from __future__ import annotations

import re

from .model import JSONDict

_KINDS = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic", "u": "underline",
    "ins": "underline", "s": "strikethrough", "strike": "strikethrough",
    "del": "strikethrough", "tg-spoiler": "spoiler", "span": "spoiler", "code": "code",
    "pre": "pre", "blockquote": "blockquote", "a": "text_link",
}  # fmt: skip
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_MARKUP = re.compile(
    r"<(/?)([^\s>]*)([^>]*)>|&(?:(lt|gt|amp|quot)|#x([0-9a-fA-F]{1,6})|#([0-9]{1,7}));|[<&]"
)
_ATTRIBUTE = re.compile(r"""\s*([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))""")
# What Telegram finds by itself in any text (it also finds bare domains, e-mails, cashtags).
_AUTO = [
    ("bot_command", re.compile(r"(?<![\w/<>])/\w{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/])", re.A)),
    ("mention", re.compile(r"(?<![\w@/])@[A-Za-z0-9_]{3,32}(?![\w@])")),
    ("url", re.compile(r"(?<![\w@/])(?:https?|tg)://[^\s<>\"]+[^\s<>\".,;:!?)\]'}]")),
]  # fmt: skip
_BLANK = " \t\r\n\x0b\x0c"


class EntityParseError(Exception):
    """The markup cannot be parsed; ``str(exc)`` is tdlib's message."""


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units, as Telegram counts."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class _ByteOffset:
    """Where a piece of markup starts, in bytes of UTF-8 as tdlib reports (counted only when
    an error names it)."""

    def __init__(self, text: str, index: int) -> None:
        self.text, self.index = text, index

    def __str__(self) -> str:
        return str(len(self.text[: self.index].encode("utf-8", "surrogatepass")))


def parse_html(text: str) -> tuple[str, list[JSONDict]]:
    """Telegram-HTML into (plain text, entities). A raw ``&`` that starts no entity is refused,
    as the Bot API documentation demands (tdlib would keep it)."""
    out: list[str] = []
    entities: list[JSONDict] = []
    open_tags: list[tuple[str, str, int]] = []  # tag, link, UTF-16 offset
    u16 = 0
    last = 0
    for m in _MARKUP.finditer(text):
        if m.start() > last:
            out.append(text[last : m.start()])
            u16 += utf16_len(out[-1])
        last = m.end()
        at = _ByteOffset(text, m.start())
        slash, tag, attributes, named, hexa, decimal = m.groups()
        if named is not None or hexa is not None or decimal is not None:
            code = int(hexa, 16) if hexa is not None else int(decimal or "0")
            char = _NAMED[named] if named is not None else chr(code) if 0 < code < 0x10FFFF else ""
            if not char:
                raise EntityParseError(f'Character "&" at byte offset {at} must be escaped')
            out.append(char)
            u16 += utf16_len(char)
        elif tag is None:
            if m.group() == "&":
                raise EntityParseError(f'Character "&" at byte offset {at} must be escaped')
            raise EntityParseError(f"Unclosed start tag at byte offset {at}")
        elif not slash:
            tag = tag.lower()
            if tag not in _KINDS:
                raise EntityParseError(f'Unsupported start tag "{tag}" at byte offset {at}')
            found = {a.group(1).lower(): a.group(2) or a.group(3) or a.group(4) or "" for a in
                     _ATTRIBUTE.finditer(attributes)}  # fmt: skip
            if tag == "span" and found.get("class") != "tg-spoiler":
                raise EntityParseError(
                    f'Tag "span" must have class "tg-spoiler" at byte offset {at}'
                )
            open_tags.append((tag, found.get("href", ""), u16))
        else:
            if not open_tags:
                raise EntityParseError(f"Unexpected end tag at byte offset {at}")
            opened, link, start = open_tags.pop()
            if tag and tag.lower() != opened:
                raise EntityParseError(
                    f'Unmatched end tag at byte offset {at}, expected "</{opened}>", '
                    f'found "</{tag.lower()}>"'
                )
            if u16 > start:
                entity: JSONDict = {"offset": start, "length": u16 - start, "type": _KINDS[opened]}
                if opened == "a":
                    entity["url"] = link
                if opened != "a" or link:
                    entities.append(entity)
    if open_tags:
        raise EntityParseError(f"Can't find end tag corresponding to start tag {open_tags[-1][0]}")
    out.append(text[last:])
    return "".join(out), entities


def finish(text: str, entities: list[JSONDict]) -> tuple[str, list[JSONDict]]:
    """Trim the text as Telegram does (entities clipped to what is left), then add the
    entities it detects itself and order them by offset, longer first."""
    stripped = text.strip(_BLANK)
    if stripped != text:
        left = utf16_len(text[: len(text) - len(text.lstrip(_BLANK))])
        total = utf16_len(stripped)
        clipped = []
        for entity in entities:
            start = max(0, entity["offset"] - left)
            end = min(total, entity["offset"] + entity["length"] - left)
            if end > start:
                clipped.append({**entity, "offset": start, "length": end - start})
        text, entities = stripped, clipped
    taken = [(e["offset"], e["offset"] + e["length"]) for e in entities if e["type"] in
             ("code", "pre", "text_link")]  # fmt: skip
    for kind, pattern in _AUTO:
        for m in pattern.finditer(text):
            start = utf16_len(text[: m.start()])
            end = start + utf16_len(m.group())
            if not any(s < end and start < e for s, e in taken):
                entities = [*entities, {"offset": start, "length": end - start, "type": kind}]
                taken.append((start, end))
    return text, sorted(entities, key=lambda e: (e["offset"], -e["length"]))
