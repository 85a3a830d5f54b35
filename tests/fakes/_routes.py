"""Where a Bot API request goes: a file's path or a method, each with its token, and the query."""

from __future__ import annotations

import functools
import re
from urllib.parse import unquote, urlsplit

Route = tuple[tuple[str, str] | None, tuple[str, str] | None, str]
"""``((token, file path) or None, (token, method) or None, query)``."""


@functools.lru_cache(maxsize=256)
def route(target: str, api: re.Pattern[str], file: re.Pattern[str]) -> Route:
    """The :data:`Route` of a URL or request target, by the transport's own patterns (each
    searched in the unquoted path): the same few targets come again on every call."""
    parts = urlsplit(target)
    path = unquote(parts.path)
    file_match = file.search(path)
    api_match = api.search(path)
    return (
        (file_match["token"], file_match["path"]) if file_match is not None else None,
        (api_match["token"], api_match["method"]) if api_match is not None else None,
        parts.query,
    )
