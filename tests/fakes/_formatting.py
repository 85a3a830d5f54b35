"""Text formatting as Telegram does it: HTML / MarkdownV2 / Markdown parsing and auto-entities.

The HTML and Markdown parsers follow tdlib's ``parse_html`` / ``parse_markdown_v2`` /
``parse_markdown`` (td/telegram/MessageEntity.cpp) closely, including their error texts and
byte offsets (offsets are in bytes of the UTF-8 encoded text, as Telegram reports them).
Entity offsets and lengths are in UTF-16 code units, as in the Bot API.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Mapping
from typing import Any

JSONDict = dict[str, Any]

WHITESPACE = " \t\r\n\x0b\x0c"

_HTML_TAGS = frozenset(
    {
        "a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins",
        "tg-spoiler", "tg-emoji", "span", "pre", "code", "blockquote",
    }
)  # fmt: skip

# Sort priority of entity types (tdlib's MessageEntity::get_type_priority).
_PRIORITY = {
    "mention": 50, "hashtag": 50, "bot_command": 50, "url": 50, "email": 50, "bold": 90,
    "italic": 91, "code": 20, "pre": 11, "text_link": 49, "text_mention": 49, "cashtag": 50,
    "phone_number": 50, "underline": 92, "strikethrough": 93, "blockquote": 0,
    "expandable_blockquote": 0, "spoiler": 94, "custom_emoji": 99,
}  # fmt: skip


class EntityParseError(Exception):
    """The text could not be parsed; ``str(exc)`` is tdlib's message."""


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def _u16_step(byte: int) -> int:
    """UTF-16 units contributed by a UTF-8 byte (0 for continuation bytes)."""
    if byte & 0xC0 == 0x80:
        return 0
    return 2 if byte >= 0xF0 else 1


def _u16_of_utf8(chunk: bytes) -> int:
    """UTF-16 units of a run of whole UTF-8 characters (the sum of :func:`_u16_step`)."""
    if chunk.isascii():
        return len(chunk)
    return utf16_len(chunk.decode("utf-8", "surrogatepass"))


_HTML_SPECIAL = re.compile(rb"[<&]")
_COMMON_ENTITY = re.compile(rb"&(lt|gt|amp|quot);")
_COMMON_CODES = {b"lt": 60, b"gt": 62, b"amp": 38, b"quot": 34}
_TAG_STOP = re.compile(rb"[ \t\r\n\x0b\x0c>]")
_SPACES = re.compile(rb"[ \t\r\n\x0b\x0c]*")


def _tag_name_end(data: bytes, i: int, n: int) -> int:
    """Position of the first space or ">" at or after ``i`` (``n`` if none)."""
    stop = _TAG_STOP.search(data, i, n)
    return stop.start() if stop is not None else n


_HTML_SIMPLE = {
    "i": "italic", "em": "italic", "b": "bold", "strong": "bold",
    "s": "strikethrough", "strike": "strikethrough", "del": "strikethrough",
    "u": "underline", "ins": "underline", "tg-spoiler": "spoiler", "span": "spoiler",
}  # fmt: skip


def _is_space(byte: int) -> bool:
    return byte in b" \t\r\n\x0b\x0c"


def _is_alnum(byte: int) -> bool:
    return 48 <= byte <= 57 or 65 <= byte <= 90 or 97 <= byte <= 122


def _decode_html_entity(data: bytes, pos: int) -> tuple[int, int]:
    """Decode ``&...;`` at ``pos``; return (code point or 0, position after it)."""
    end = pos + 1
    res = 0
    if data[end] == ord("#"):
        end += 1
        if data[end] == ord("x"):
            end += 1
            while chr(data[end]) in "0123456789abcdefABCDEF" and data[end] != 0:
                res = res * 16 + int(chr(data[end]), 16)
                end += 1
        else:
            while 48 <= data[end] <= 57:
                res = res * 10 + data[end] - 48
                end += 1
        if res == 0 or res >= 0x10FFFF or end - pos >= 10:
            return 0, pos
    else:
        while 65 <= data[end] <= 90 or 97 <= data[end] <= 122:
            end += 1
        name = data[pos + 1 : end]
        res = {b"lt": 60, b"gt": 62, b"amp": 38, b"quot": 34}.get(name, 0)
        if res == 0:
            return 0, pos
    if data[end] == ord(";"):
        end += 1
    return res, end


def check_link(url: str) -> str | None:
    """Return the normalised link Telegram would keep for a text_link, or None if invalid."""
    url = url.strip()
    if not url or any(ch.isspace() for ch in url):
        return None
    low = url.lower()
    if low.startswith(("tg:", "ton:")):
        return url
    if "://" not in url:
        url = "http://" + url
        low = url.lower()
    scheme, _, rest = low.partition("://")
    if scheme not in ("http", "https", "ftp"):
        return None
    host = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0].rsplit("@", 1)[-1]
    host = host.split(":", 1)[0]
    if not host or "." not in host and host != "localhost":
        return None
    return url


def _mention_user(url: str) -> int | None:
    m = re.fullmatch(r"tg://user\?id=(\d+)", url.strip())
    return int(m.group(1)) if m else None


def _finish_link(
    entities: list[JSONDict], offset: int, length: int, url: str, users: Mapping[int, JSONDict]
) -> None:
    user_id = _mention_user(url)
    if user_id is not None:
        if user_id in users:
            entities.append(
                {"offset": offset, "length": length, "type": "text_mention", "user": users[user_id]}
            )
        return
    checked = check_link(url)
    if checked:
        entities.append({"offset": offset, "length": length, "type": "text_link", "url": checked})


# The plain markup bots send: tags without attributes, "&lt;"-style and numeric entities with
# their ";". Anything else ("<" or "&" starting something other) leaves it to the full parser.
_PLAIN_MARKUP = re.compile(
    r"<(/?)([a-z][a-z-]*)>|&(?:(lt|gt|amp|quot)|#x([0-9a-fA-F]{1,6})|#([0-9]{1,7}));|[<&]"
)
_PLAIN_TAGS = {tag: kind for tag, kind in _HTML_SIMPLE.items() if tag != "span"}
_PLAIN_TAGS.update(pre="pre", code="code", blockquote="blockquote")
_PLAIN_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_SURROGATE = re.compile("[\ud800-\udfff]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _parse_plain_html(text: str) -> tuple[str, list[JSONDict]] | None:
    """:func:`parse_html` of a text that uses only the plain markup (None for any other).

    Works on the str with regular expressions instead of byte by byte, and gives exactly what
    the full parser gives such a text: these tags and entities mean the same there (a tag
    without attributes has no argument, so code never gets a language nor merges with pre),
    and nothing here can fail, so no error text or byte offset is needed. A text with a lone
    surrogate goes to the full parser too (it cannot be encoded to UTF-8 there either)."""
    if _SURROGATE.search(text) is not None:
        return None
    pieces: list[str] = []
    entities: list[JSONDict] = []
    nested: list[tuple[str, int]] = []  # tag, offset in code points of the output
    pos = 0
    last = 0
    for m in _PLAIN_MARKUP.finditer(text):
        start = m.start()
        if start > last:
            pieces.append(text[last:start])
            pos += start - last
        last = m.end()
        slash, tag, named, hexa, decimal = m.groups()
        if tag is not None:
            if not slash:
                if tag not in _PLAIN_TAGS:
                    return None
                nested.append((tag, pos))
                continue
            if not nested or nested[-1][0] != tag:
                return None
            begin = nested.pop()[1]
            if pos > begin:
                entities.append({"offset": begin, "length": pos - begin, "type": _PLAIN_TAGS[tag]})
        elif named is not None:
            pieces.append(_PLAIN_NAMED[named])
            pos += 1
        elif hexa is not None or decimal is not None:
            code = int(hexa, 16) if hexa is not None else int(decimal)
            if code == 0 or code >= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                return None  # (_decode_html_entity refuses these: a raw "&")
            pieces.append(chr(code))
            pos += 1
        else:
            return None
    if nested:
        return None
    pieces.append(text[last:])
    plain = "".join(pieces)
    if entities:
        astral = [m.start() for m in _ASTRAL.finditer(plain)]
        if astral:  # code points -> UTF-16 units: each astral character before counts twice
            for ent in entities:
                end = ent["offset"] + ent["length"]
                ent["offset"] += bisect_left(astral, ent["offset"])
                ent["length"] = end + bisect_left(astral, end) - ent["offset"]
    return plain, sort_entities(entities)


def parse_html(
    text: str, *, strict: bool = False, users: Mapping[int, JSONDict] | None = None
) -> tuple[str, list[JSONDict]]:
    """Parse Telegram-HTML into (plain text, entities).

    With ``strict`` a raw ``&`` that does not start a known HTML entity is rejected, as the Bot
    API documentation demands (real Telegram silently keeps such an ``&``).
    """
    plain = _parse_plain_html(text)
    if plain is not None:
        return plain
    return _parse_html_bytes(text, strict=strict, users=users)


def _parse_html_bytes(
    text: str, *, strict: bool = False, users: Mapping[int, JSONDict] | None = None
) -> tuple[str, list[JSONDict]]:
    """:func:`parse_html` byte by byte, as tdlib does: every tag, attribute and error."""
    users = {} if users is None else users  # (not `or`: a lazy mapping stays unbuilt)
    data = text.encode("utf-8") + b"\0\0\0"
    n = len(data) - 3
    out = bytearray()
    entities: list[JSONDict] = []
    nested: list[tuple[str, str, int, int]] = []  # tag, argument, utf16 offset, out position
    u16 = 0
    i = 0
    while i < n:
        c = data[i]
        if c != 60 and c != 38:  # plain text, copied whole up to the next "<" or "&"
            special = _HTML_SPECIAL.search(data, i, n)
            stop = special.start() if special is not None else n
            chunk = data[i:stop]
            out += chunk
            u16 += _u16_of_utf8(chunk)
            i = stop
            continue
        if c == ord("&"):
            common = _COMMON_ENTITY.match(data, i, n)
            if common is not None:  # what _decode_html_entity gives these, without its loops
                out.append(_COMMON_CODES[common.group(1)])
                u16 += 1
                i = common.end()
                continue
            code, after = _decode_html_entity(data, i)
            if code:
                out += chr(code).encode("utf-8", "surrogatepass")
                u16 += 2 if code > 0xFFFF else 1
                i = after
                continue
            if strict:
                raise EntityParseError(
                    f'Character "&" at byte offset {i} must be escaped as "&amp;" '
                    "(strict mode of the fake; real Telegram keeps it as is)"
                )
            u16 += 1  # a raw "&" kept as text, as tdlib does
            out.append(c)
            i += 1
            continue
        begin = i
        i += 1
        if data[i] != ord("/"):
            i = _tag_name_end(data, i, n)
            if i >= n:
                raise EntityParseError(f"Unclosed start tag at byte offset {begin}")
            tag = data[begin + 1 : i].decode("utf-8", "replace").lower()
            if tag not in _HTML_TAGS:
                raise EntityParseError(f'Unsupported start tag "{tag}" at byte offset {begin}')
            argument = ""
            while data[i] != ord(">"):
                while i < n and _is_space(data[i]):
                    i += 1
                if data[i] == ord(">"):
                    break
                if i >= n:
                    raise EntityParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
                attr_begin = i
                while (
                    i < n and not _is_space(data[i]) and data[i] != ord("=") and data[i] != ord(">")
                ):
                    i += 1
                attr = data[attr_begin:i].decode("utf-8", "replace")
                if not attr:
                    raise EntityParseError(
                        f'Empty attribute name in the tag "{tag}" at byte offset {begin}'
                    )
                while i < n and _is_space(data[i]):
                    i += 1
                if data[i] != ord("="):
                    if tag == "blockquote" and attr == "expandable":
                        argument = "expandable"
                        continue
                    raise EntityParseError(
                        "Expected equal sign in declaration of an attribute of the tag "
                        f'"{tag}" at byte offset {begin}'
                    )
                i += 1
                while i < n and _is_space(data[i]):
                    i += 1
                if i >= n:
                    raise EntityParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
                if data[i] not in (ord("'"), ord('"')):
                    token_begin = i
                    while i < n and (_is_alnum(data[i]) or data[i] in (ord("."), ord("-"))):
                        i += 1
                    value = data[token_begin:i].decode("utf-8", "replace").lower()
                    if not _is_space(data[i]) and data[i] != ord(">"):
                        raise EntityParseError(
                            f"Unexpected end of name token at byte offset {token_begin}"
                        )
                else:
                    end_char = data[i]
                    i += 1
                    val = bytearray()
                    while i < n and data[i] != end_char:
                        if data[i] == ord("&"):
                            code, after = _decode_html_entity(data, i)
                            if code:
                                val += chr(code).encode("utf-8", "surrogatepass")
                                i = after
                                continue
                        val.append(data[i])
                        i += 1
                    if data[i] == end_char:
                        i += 1
                    value = val.decode("utf-8", "replace")
                if i >= n:
                    raise EntityParseError(f"Unclosed start tag at byte offset {begin}")
                if tag == "a" and attr == "href":
                    argument = value
                elif tag == "code" and attr == "class" and value.startswith("language-"):
                    argument = value[9:]
                elif tag == "span" and attr == "class" and value.startswith("tg-"):
                    argument = value[3:]
                elif tag == "tg-emoji" and attr == "emoji-id":
                    argument = value
            if tag == "span" and argument != "spoiler":
                raise EntityParseError(
                    f'Tag "span" must have class "tg-spoiler" at byte offset {begin}'
                )
            nested.append((tag, argument, u16, len(out)))
            i += 1
            continue
        # end tag
        if not nested:
            raise EntityParseError(f"Unexpected end tag at byte offset {begin}")
        i = _tag_name_end(data, i, n)
        end_tag = data[begin + 2 : i].decode("utf-8", "replace").lower()
        i = _SPACES.match(data, i, n).end()  # type: ignore[union-attr]
        if data[i] != ord(">"):
            raise EntityParseError(f"Unclosed end tag at byte offset {begin}")
        tag, argument, start, out_pos = nested[-1]
        if end_tag and end_tag != tag:
            raise EntityParseError(
                f'Unmatched end tag at byte offset {begin}, expected "</{tag}>", '
                f'found "</{end_tag}>"'
            )
        if u16 > start:
            length = u16 - start
            if tag in _HTML_SIMPLE:
                entities.append({"offset": start, "length": length, "type": _HTML_SIMPLE[tag]})
            elif tag == "tg-emoji":
                if not argument.isdigit() or int(argument) == 0:
                    raise EntityParseError("Invalid custom emoji identifier specified")
                entities.append(
                    {
                        "offset": start,
                        "length": length,
                        "type": "custom_emoji",
                        "custom_emoji_id": argument,
                    }
                )
            elif tag == "a":
                url = argument or bytes(out[out_pos:]).decode("utf-8", "replace")
                _finish_link(entities, start, length, url, users)
            elif tag == "pre":
                last = entities[-1] if entities else None
                if (
                    last is not None
                    and last["type"] == "code"
                    and (last["offset"], last["length"]) == (start, length)
                    and last.get("language")
                ):
                    last["type"] = "pre"
                else:
                    entities.append({"offset": start, "length": length, "type": "pre"})
            elif tag == "code":
                last = entities[-1] if entities else None
                if (
                    last is not None
                    and last["type"] == "pre"
                    and (last["offset"], last["length"]) == (start, length)
                    and argument
                ):
                    last["language"] = argument
                else:
                    ent: JSONDict = {"offset": start, "length": length, "type": "code"}
                    if argument:
                        ent["language"] = argument
                    entities.append(ent)
            elif tag == "blockquote":
                kind = "expandable_blockquote" if argument == "expandable" else "blockquote"
                entities.append({"offset": start, "length": length, "type": kind})
        nested.pop()
        i += 1
    if nested:
        raise EntityParseError(f"Can't find end tag corresponding to start tag {nested[-1][0]}")
    for ent in entities:
        if ent["type"] == "code":
            ent.pop("language", None)
    return bytes(out).decode("utf-8", "surrogatepass"), sort_entities(entities)


_MDV2_NAMES = {
    "bold": "Bold", "italic": "Italic", "underline": "Underline",
    "strikethrough": "Strikethrough", "spoiler": "Spoiler", "code": "Code", "pre": "Pre",
    "pre_code": "PreCode", "text_link": "TextUrl", "custom_emoji": "CustomEmoji",
    "blockquote": "BlockQuote",
}  # fmt: skip


def _reserved(ch: int) -> EntityParseError:
    return EntityParseError(
        f"Character '{chr(ch)}' is reserved and must be escaped with the preceding '\\'"
    )


def parse_markdown_v2(
    text: str, *, users: Mapping[int, JSONDict] | None = None
) -> tuple[str, list[JSONDict]]:
    """Parse MarkdownV2 into (plain text, entities) like tdlib's ``parse_markdown_v2``."""
    users = {} if users is None else users  # (not `or`: a lazy mapping stays unbuilt)
    data = text.encode("utf-8") + b"\0\0\0\0"
    n = len(data) - 4
    out = bytearray()
    entities: list[JSONDict] = []
    # [type, argument, utf16 offset, byte offset in source, out position]
    nested: list[list[Any]] = []
    u16 = 0
    have_quote = False
    i = 0
    while i < n:
        c = data[i]
        if c == ord("\\") and 0 < data[i + 1] <= 126:
            i += 1
            u16 += 1
            out.append(data[i])
            i += 1
            continue
        reserved = b"_*[]()~`>#+-=|{}.!\n"
        if nested and nested[-1][0] in ("code", "pre", "pre_code"):
            reserved = b"`"
        if c not in reserved:
            u16 += _u16_step(c)
            out.append(c)
            i += 1
            continue
        is_end = False
        if nested:
            top = nested[-1][0]
            if have_quote and c == ord("\n") and (i + 1 == n or data[i + 1] != ord(">")):
                is_end = True
            elif top == "bold":
                is_end = c == ord("*")
            elif top == "italic":
                is_end = c == ord("_") and data[i + 1] != ord("_")
            elif top == "code":
                is_end = c == ord("`")
            elif top in ("pre", "pre_code"):
                is_end = c == ord("`") and data[i + 1] == ord("`") and data[i + 2] == ord("`")
            elif top in ("text_link", "custom_emoji"):
                is_end = c == ord("]")
            elif top == "underline":
                is_end = c == ord("_") and data[i + 1] == ord("_")
            elif top == "strikethrough":
                is_end = c == ord("~")
            elif top == "spoiler":
                is_end = c == ord("|") and data[i + 1] == ord("|")
        if not is_end:
            kind: str | None
            argument = ""
            byte_offset = i
            if c == ord("_"):
                if data[i + 1] == ord("_"):
                    kind = "underline"
                    i += 1
                else:
                    kind = "italic"
            elif c == ord("*"):
                kind = "bold"
            elif c == ord("~"):
                kind = "strikethrough"
            elif c == ord("|"):
                if data[i + 1] != ord("|"):
                    raise _reserved(c)
                i += 1
                kind = "spoiler"
            elif c == ord("["):
                kind = "text_link"
            elif c == ord("`"):
                if data[i + 1] == ord("`") and data[i + 2] == ord("`"):
                    i += 3
                    kind = "pre"
                    lang_end = i
                    while lang_end < n and not _is_space(data[lang_end]) and data[lang_end] != 96:
                        lang_end += 1
                    if i != lang_end and lang_end < n and data[lang_end] != ord("`"):
                        kind = "pre_code"
                        argument = data[i:lang_end].decode("utf-8", "replace")
                        i = lang_end
                    if data[i] in (ord("\n"), ord("\r")):
                        if data[i + 1] in (ord("\n"), ord("\r")) and data[i] != data[i + 1]:
                            i += 2
                        else:
                            i += 1
                    i -= 1
                else:
                    kind = "code"
            elif c == ord("!"):
                if data[i + 1] != ord("["):
                    raise _reserved(c)
                i += 1
                kind = "custom_emoji"
            elif c == ord("\n"):
                u16 += 1
                out.append(c)
                kind = None
                if i + 1 < n and data[i + 1] == ord(">"):
                    i += 1
                    if not have_quote:
                        kind = "blockquote"
                        have_quote = True
            elif c == ord(">"):
                if i != 0:
                    raise _reserved(c)
                kind = "blockquote"
                have_quote = True
            else:
                raise _reserved(c)
            if kind is not None:
                nested.append([kind, argument, u16, byte_offset, len(out)])
            i += 1
            continue
        kind, argument, start, byte_offset, out_pos = nested[-1]
        if c == ord("\n") and kind != "blockquote":
            raise EntityParseError(
                f"Can't find end of {_MDV2_NAMES[kind]} entity at byte offset {byte_offset}"
            )
        skip = u16 == start
        link: str | None = None
        if kind in ("underline", "spoiler"):
            i += 1
        elif kind in ("pre", "pre_code"):
            i += 2
        elif kind in ("text_link", "custom_emoji"):
            if data[i + 1] != ord("("):
                if kind == "custom_emoji":
                    raise EntityParseError("Custom emoji entity must contain a tg://emoji URL")
                link = bytes(out[out_pos:]).decode("utf-8", "replace")
            else:
                i += 2
                url_begin = i
                url = bytearray()
                while i < n and data[i] != ord(")"):
                    if data[i] == ord("\\") and 0 < data[i + 1] <= 126:
                        url.append(data[i + 1])
                        i += 2
                        continue
                    url.append(data[i])
                    i += 1
                if data[i] != ord(")"):
                    what = "a custom emoji URL" if kind == "custom_emoji" else "a URL"
                    raise EntityParseError(f"Can't find end of {what} at byte offset {url_begin}")
                link = url.decode("utf-8", "replace")
        elif kind == "blockquote":
            have_quote = False
            out.append(c)
            u16 += 1
        if not skip:
            length = u16 - start
            if kind == "text_link":
                _finish_link(entities, start, length, link or "", users)
            elif kind == "custom_emoji":
                m = re.fullmatch(r"tg://emoji\?id=(\d+)", link or "")
                if not m:
                    raise EntityParseError("Invalid custom emoji URL specified")
                entities.append(
                    {
                        "offset": start,
                        "length": length,
                        "type": "custom_emoji",
                        "custom_emoji_id": m.group(1),
                    }
                )
            elif kind == "pre_code":
                entities.append(
                    {"offset": start, "length": length, "type": "pre", "language": argument}
                )
            else:
                entities.append({"offset": start, "length": length, "type": kind})
        nested.pop()
        i += 1
    if have_quote and nested and nested[-1][0] == "blockquote":
        start = nested[-1][2]
        if u16 != start:
            entities.append({"offset": start, "length": u16 - start, "type": "blockquote"})
        nested.pop()
    if nested:
        kind, _, _, byte_offset, _ = nested[-1]
        raise EntityParseError(
            f"Can't find end of {_MDV2_NAMES[kind]} entity at byte offset {byte_offset}"
        )
    return bytes(out).decode("utf-8", "surrogatepass"), sort_entities(entities)


def parse_markdown(
    text: str, *, users: Mapping[int, JSONDict] | None = None
) -> tuple[str, list[JSONDict]]:
    """Parse legacy Markdown into (plain text, entities) like tdlib's ``parse_markdown``."""
    users = {} if users is None else users  # (not `or`: a lazy mapping stays unbuilt)
    data = text.encode("utf-8") + b"\0\0\0"
    n = len(data) - 3
    out = bytearray()
    entities: list[JSONDict] = []
    u16 = 0
    i = 0
    while i < n:
        c = data[i]
        if c == ord("\\") and data[i + 1] in b"_*`[":
            i += 1
            out.append(data[i])
            u16 += 1
            i += 1
            continue
        if c not in b"_*`[":
            u16 += _u16_step(c)
            out.append(c)
            i += 1
            continue
        begin = i
        end_char = ord("]") if c == ord("[") else c
        is_pre = False
        i += 1
        language = ""
        if c == ord("`") and data[i] == ord("`") and data[i + 1] == ord("`"):
            i += 2
            is_pre = True
            lang_end = i
            while lang_end < n and not _is_space(data[lang_end]) and data[lang_end] != ord("`"):
                lang_end += 1
            if i != lang_end and lang_end < n and data[lang_end] != ord("`"):
                language = data[i:lang_end].decode("utf-8", "replace")
                i = lang_end
            if data[i] in (ord("\n"), ord("\r")):
                if data[i + 1] in (ord("\n"), ord("\r")) and data[i] != data[i + 1]:
                    i += 2
                else:
                    i += 1
        start = u16
        out_pos = len(out)
        while i < n and (
            data[i] != end_char
            or (is_pre and not (data[i + 1] == ord("`") and data[i + 2] == ord("`")))
        ):
            u16 += _u16_step(data[i])
            out.append(data[i])
            i += 1
        if i == n:
            raise EntityParseError(f"Can't find end of the entity starting at byte offset {begin}")
        if start != u16:
            length = u16 - start
            if c == ord("_"):
                entities.append({"offset": start, "length": length, "type": "italic"})
            elif c == ord("*"):
                entities.append({"offset": start, "length": length, "type": "bold"})
            elif c == ord("["):
                if data[i + 1] != ord("("):
                    url = bytes(out[out_pos:]).decode("utf-8", "replace")
                else:
                    i += 2
                    url_bytes = bytearray()
                    while i < n and data[i] != ord(")"):
                        url_bytes.append(data[i])
                        i += 1
                    url = url_bytes.decode("utf-8", "replace")
                _finish_link(entities, start, length, url, users)
            elif is_pre:
                ent: JSONDict = {"offset": start, "length": length, "type": "pre"}
                if language:
                    ent["language"] = language
                entities.append(ent)
            else:
                entities.append({"offset": start, "length": length, "type": "code"})
        if is_pre:
            i += 2
        i += 1
    return bytes(out).decode("utf-8", "surrogatepass"), sort_entities(entities)


def sort_entities(entities: list[JSONDict]) -> list[JSONDict]:
    """Order entities like Telegram: by offset, longer first, then by type priority."""
    return sorted(entities, key=lambda e: (e["offset"], -e["length"], _PRIORITY.get(e["type"], 50)))


# (kind, what every match contains, pattern): a text without it is not searched.
_AUTO_PATTERNS: list[tuple[str, str, re.Pattern[str]]] = [
    ("url", "://", re.compile(r"(?<![\w@/])(?:https?|tg)://[^\s<>\"]+[^\s<>\".,;:!?)\]'}]")),
    (
        "email",
        "@",
        re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),
    ),
    (
        "bot_command",
        "/",
        re.compile(r"(?<![\w/<>])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/])"),
    ),
    ("mention", "@", re.compile(r"(?<![\w@/])@[A-Za-z0-9_]{3,32}(?![\w@])")),
    ("hashtag", "#", re.compile(r"(?<![\w#&])#(?=\w*[^\W\d_])\w{1,256}")),
    ("cashtag", "$", re.compile(r"(?<![\w$])\$[A-Z]{1,8}(?![\w$])")),
]


def find_auto_entities(text: str, existing: list[JSONDict]) -> list[JSONDict]:
    """Entities Telegram detects by itself (commands, mentions, hashtags, explicit URLs...).

    Detected entities never overlap explicit code/pre/text_link ones or each other. URLs are only
    detected with an explicit scheme (real Telegram also detects bare domains like t.me/x).
    """
    blocked: list[tuple[int, int]] = [
        (e["offset"], e["offset"] + e["length"])
        for e in existing
        if e["type"] in ("code", "pre", "text_link", "text_mention", "custom_emoji")
    ]
    found: list[JSONDict] = []
    # Code point index -> UTF-16 offset: the same number unless the text has astral characters.
    bmp_only = utf16_len(text) == len(text)
    for kind, needle, pattern in _AUTO_PATTERNS:
        if needle not in text:
            continue
        for m in pattern.finditer(text):
            if bmp_only:
                start, end = m.start(), m.end()
            else:
                start = utf16_len(text[: m.start()])
                end = start + utf16_len(m.group())
            if any(s < end and start < e for s, e in blocked):
                continue
            found.append({"offset": start, "length": end - start, "type": kind})
            blocked.append((start, end))
    return found


def trim_text(text: str, entities: list[JSONDict]) -> tuple[str, list[JSONDict]]:
    """Strip leading/trailing whitespace like Telegram, clipping entities to what remains."""
    stripped = text.strip(WHITESPACE)
    if stripped == text:
        return text, entities
    left = utf16_len(text[: len(text) - len(text.lstrip(WHITESPACE))])
    total = utf16_len(stripped)
    result: list[JSONDict] = []
    for ent in entities:
        start = max(0, ent["offset"] - left)
        end = min(total, ent["offset"] + ent["length"] - left)
        if end > start:
            result.append({**ent, "offset": start, "length": end - start})
    return stripped, result


def format_text(
    text: str,
    parse_mode: str | None,
    explicit_entities: list[JSONDict] | None,
    *,
    strict_html: bool,
    users: Mapping[int, JSONDict] | None = None,
) -> tuple[str, list[JSONDict]]:
    """Turn the text as sent into (text, entities) as Telegram stores it.

    Raises EntityParseError for markup errors and ValueError("unsupported parse_mode").
    """
    if explicit_entities is not None:
        total = utf16_len(text)
        entities = []
        for ent in explicit_entities:
            start, length = int(ent.get("offset", 0)), int(ent.get("length", 0))
            if length <= 0 or start < 0 or start >= total:
                continue
            entities.append({**ent, "length": min(length, total - start)})
        plain = text
    else:
        mode = (parse_mode or "").lower()
        if mode == "":
            plain, entities = text, []
        elif mode == "html":
            plain, entities = parse_html(text, strict=strict_html, users=users)
        elif mode == "markdownv2":
            plain, entities = parse_markdown_v2(text, users=users)
        elif mode == "markdown":
            plain, entities = parse_markdown(text, users=users)
        else:
            raise ValueError("unsupported parse_mode")
    plain, entities = trim_text(plain, entities)
    entities = entities + find_auto_entities(plain, entities)
    return plain, sort_entities(entities)
