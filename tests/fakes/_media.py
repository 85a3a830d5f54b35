"""Uploaded files: a picture's size, multipart/form-data bodies."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP


@dataclass
class UploadedFile:
    """A file part of a request, as the Bot API server receives it."""

    filename: str | None
    content: bytes
    content_type: str | None = None

    def __repr__(self) -> str:
        return f"UploadedFile({self.filename!r}, {len(self.content)} bytes, {self.content_type!r})"


def image_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` of a PNG, the pictures the bot sends; None for anything else."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR" or len(data) < 24:
        return None
    width, height = struct.unpack(">II", data[16:24])
    return (width, height) if width and height else None


def parse_multipart(body: bytes, content_type: str) -> dict[str, str | UploadedFile]:
    """A multipart/form-data body: text parts as str, file parts as :class:`UploadedFile`."""
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    parts: dict[str, str | UploadedFile] = {}
    for part in message.iter_parts():
        name = str(part.get_param("name", header="content-disposition"))
        content = part.get_payload(decode=True)
        assert isinstance(content, bytes)
        filename = part.get_filename()
        if filename is None:
            parts[name] = content.decode()
        else:
            parts[name] = UploadedFile(filename, content, part.get_content_type())
    return parts
