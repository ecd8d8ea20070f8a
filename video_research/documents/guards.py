"""Guards for hostile document files, run on a file's bytes before any reader sees them.

- ZIP-based documents (DOCX, PPTX) are checked from the archive's directory alone: the
  total they would unpack to, the ratio of unpacked to packed size (of the archive and of
  each large part) and the number of parts. A 95 KB zip bomb used to unpack to ~100 MB of
  XML and run for ten minutes at 1.4 GB; now it is refused in milliseconds.
- Text types (plain text, Markdown, HTML) are sniffed for binary data: a PNG or a ZIP
  named `.txt` used to be indexed as junk passages.

Both raise invalid_input naming the file, so a batch reports them per file.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from video_research.support.errors import invalid_input
from video_research.support.services import current_settings


@dataclass(frozen=True)
class ArchiveLimits:
    """How far a ZIP-based document (DOCX, PPTX) may unpack: checked on the archive's
    directory before any part is read (DOCUMENTS_MAX_UNPACKED_MB,
    DOCUMENTS_MAX_COMPRESSION_RATIO)."""

    max_unpacked_bytes: int = 200 * 1024 * 1024
    max_ratio: float = 100.0
    max_members: int = 10_000
    ratio_floor_bytes: int = 1024 * 1024
    """Parts smaller than this are not held to the ratio (a tiny XML part packs well)."""

    @classmethod
    def from_settings(cls) -> ArchiveLimits:
        settings = current_settings()
        return cls(
            max_unpacked_bytes=int(settings.documents_max_unpacked_mb * 1024 * 1024),
            max_ratio=settings.documents_max_compression_ratio,
        )


def check_archive(data: bytes, name: str, limits: ArchiveLimits) -> None:
    """Refuse a ZIP that would unpack past `limits` (a zip bomb), from its directory alone.

    The declared sizes are what readers are held to: Python's zipfile, which every
    Office reader here unpacks through, stops a part at its declared size (and fails
    its CRC check), so a part whose sizes lie cannot unpack further than declared.
    """
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise invalid_input(
            f"{name} could not be read as a ZIP container ({exc}): corrupt or mislabelled.",
            hint="Open and re-save it, or pass the right document_type.",
        ) from None
    hint = (
        "Zip bombs are refused. If this is a genuine document, raise "
        "DOCUMENTS_MAX_UNPACKED_MB / DOCUMENTS_MAX_COMPRESSION_RATIO, or split it."
    )
    if len(members) > limits.max_members:
        raise invalid_input(
            f"{name} holds {len(members):,} parts, more than {limits.max_members:,}.", hint=hint
        )
    total = sum(member.file_size for member in members)
    if total > limits.max_unpacked_bytes:
        raise invalid_input(
            f"{name} would unpack to {total / 1024 / 1024:,.1f} MB, over the "
            f"{limits.max_unpacked_bytes / 1024 / 1024:g} MB limit.",
            hint=hint,
        )
    for member in members:
        if member.file_size > limits.ratio_floor_bytes and (
            member.file_size > limits.max_ratio * max(member.compress_size, 1)
        ):
            raise invalid_input(
                f"{name}: its part {member.filename[:100]!r} unpacks "
                f"{member.file_size / max(member.compress_size, 1):,.0f} times its packed size "
                f"({member.file_size / 1024 / 1024:,.1f} MB), over the "
                f"{limits.max_ratio:g}x limit.",
                hint=hint,
            )
    if total > limits.ratio_floor_bytes and total > limits.max_ratio * max(len(data), 1):
        raise invalid_input(
            f"{name} unpacks {total / max(len(data), 1):,.0f} times its size, over the "
            f"{limits.max_ratio:g}x limit.",
            hint=hint,
        )


_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "a PDF"),
    (b"PK\x03\x04", "a ZIP archive (or an Office file)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old binary Office file"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x7fELF", "an executable"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"SQLite format 3\x00", "an SQLite database"),
)
_TEXT_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
_BINARY_BYTES = bytes([*range(0x00, 0x09), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
"""Control bytes no text file holds (tab, line breaks, form feed and ESC are allowed)."""
_SNIFF_BYTES = 64 * 1024
_MAX_BINARY_SHARE = 0.05


def check_text(data: bytes, name: str, label: str = "plain text") -> None:
    """Refuse binary data given as a text type (a PNG renamed .txt): it would be indexed as
    junk passages. Judged on the first 64 KB: a known binary signature, a NUL byte, or more
    than 5% control bytes. UTF-16 text (it has a byte order mark) is text."""
    head = data[:_SNIFF_BYTES]
    if not head or head.startswith(_TEXT_BOMS):
        return
    what = next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)
    if what is None:
        binary = len(head) - len(head.translate(None, _BINARY_BYTES))
        if b"\x00" not in head and binary <= _MAX_BINARY_SHARE * len(head):
            return
        what = "binary data"
    raise invalid_input(
        f"{name} is {what}, not {label}: nothing in it can be indexed as passages.",
        hint="Ingest the original document (PDF, DOCX, PPTX, HTML, Markdown or text), or "
        "pass the right document_type.",
    )
