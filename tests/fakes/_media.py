"""Uploaded files: image dimensions from raw bytes, multipart/form-data bodies."""

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
    """Return (width, height) of a PNG, JPEG, GIF, WebP or BMP image, or None if not an image."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return (width, height) if width and height else None
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return (width, height) if width and height else None
    if data[:2] == b"BM" and len(data) >= 26:
        width, height = struct.unpack("<ii", data[18:26])
        return (abs(width), abs(height)) if width and height else None
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
        chunk = data[12:16]
        if chunk == b"VP8 ":
            width, height = struct.unpack("<HH", data[26:30])
            return width & 0x3FFF, height & 0x3FFF
        if chunk == b"VP8L":
            bits = int.from_bytes(data[21:25], "little")
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if chunk == b"VP8X":
            width = int.from_bytes(data[24:27], "little") + 1
            height = int.from_bytes(data[27:30], "little") + 1
            return width, height
        return None
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return (width, height) if width and height else None
        i += 2 + length
    return None


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
