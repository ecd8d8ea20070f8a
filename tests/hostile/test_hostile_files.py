"""Special files, zip bombs and binary text: hostile files fail on their own, fast.

Every hostile file is made by the test: a FIFO (blocked document_ingest forever), a
character device named `zero.md` (read to 4 GB), `/dev/zero` reached through a link,
zip bombs as .docx and .pptx (a 95 KB .docx ran 600 s at 1.4 GB), and a PNG named
`.txt` (ingested as junk passages). The server runs in a subprocess over stdio, so a
regression hangs the subprocess, which the time limit kills, not the test run.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import time
import zipfile
from pathlib import Path

import anyio
import pytest

from tests.fixtures.documents import make_docx
from tests.helpers import mcp_client, tool_json
from video_research.documents.extract import DocumentType, extract
from video_research.documents.guards import ArchiveLimits, check_text
from video_research.support import paths
from video_research.support.errors import ToolFailure

CALL_SECONDS = 60
"""Each call's limit: far above what a correct server needs, far below a hang."""


def _bomb(path: Path, part: str, unpacked_mb: int, base: Path) -> Path:
    """`base` (a real .docx or .pptx) with `part` replaced by `unpacked_mb` MB of zeros:
    a few KB on disk, DEFLATE packs it about 1000 times."""
    with zipfile.ZipFile(base) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            if info.filename != part:
                out.writestr(info, source.read(info.filename))
        with out.open(part, "w") as handle:
            block = b"<w:t>" + b"0" * (1024 * 1024 - 11) + b"</w:t>\n"
            for _ in range(unpacked_mb):
                handle.write(block)
    return path


def _pptx(path: Path) -> Path:
    from pptx import Presentation

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Slide"
    slide.placeholders[1].text = "A bullet"
    deck.save(str(path))
    return path


def _char_device(path: Path) -> bool:
    """A character device (/dev/zero's numbers) at `path`; False when this user may not."""
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 5))
    except (PermissionError, OSError):
        return False
    return True


@pytest.fixture
def hostile_folder(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder of hostile files beside one good note; {name: what its failure must say}."""
    folder = tmp_path / "hostile"
    folder.mkdir()
    (folder / "good.md").write_text("# Good\n\nLighthouses guide ships along the coast.\n")
    expected = {}
    os.mkfifo(folder / "pipe.md")
    expected["pipe.md"] = "FIFO"
    if _char_device(folder / "zero.md"):
        expected["zero.md"] = "character device"
    os.symlink("/dev/zero", folder / "devzero.md")
    expected["zero"] = "character device"  # shown as /dev/zero, the path it resolves to
    base_docx = make_docx(tmp_path / "base.docx", [(1, "Heading", "A paragraph.")])
    _bomb(folder / "bomb.docx", "word/document.xml", 300, base_docx)
    expected["bomb.docx"] = "unpack to"  # 300 MB, over the 200 MB total
    _bomb(folder / "ratio.docx", "word/document.xml", 20, base_docx)
    expected["ratio.docx"] = "times its packed size"  # 20 MB, but ~1000x
    _bomb(folder / "slides.pptx", "ppt/slides/slide1.xml", 20, _pptx(tmp_path / "base.pptx"))
    expected["slides.pptx"] = "times its packed size"
    (folder / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(4096))
    expected["image.txt"] = "PNG image"
    (folder / "noise.txt").write_bytes(bytes(range(256)) * 64)
    expected["noise.txt"] = "binary data"
    return folder, expected


async def test_hostile_files_fail_alone_and_fast(server_env, hostile_folder, tmp_path):
    folder, expected = hostile_folder
    env = {**server_env, "VIDEO_RESEARCH_FILE_ROOTS": f"{tmp_path},/dev"}
    async with mcp_client(env) as session:
        started = time.monotonic()
        with anyio.fail_after(CALL_SECONDS):
            result = await session.call_tool("document_ingest", {"path": str(folder)})
        assert not result.is_error, tool_json(result)
        data = result.structured_content
        items = {Path(item["path"]).name: item for item in data["files"]}
        assert items["good.md"]["status"] == "ingested"
        for name, reason in expected.items():
            assert items[name]["status"] == "failed", items[name]
            assert reason in items[name]["error"]["error"], (name, items[name]["error"])
        assert data["ingested"] == 1 and data["failed"] == len(expected)
        assert time.monotonic() - started < CALL_SECONDS

        # an explicit FIFO is a failed item, not "ok, no files"
        with anyio.fail_after(CALL_SECONDS):
            alone = await session.call_tool("document_ingest", {"path": str(folder / "pipe.md")})
        assert alone.is_error, "a batch whose one file failed is an error"
        error = tool_json(alone)["details"]["failed"][0]
        assert error["category"] == "unsupported_format" and "FIFO" in error["error"]

        # the server still answers: nothing is stuck behind the FIFO
        with anyio.fail_after(CALL_SECONDS):
            listed = await session.call_tool("document_list", {})
        assert [d["file_name"] for d in listed.structured_content["documents"]] == ["good.md"]


async def test_special_files_in_every_file_reading_tool(gemini_env, tmp_path):
    """Transcripts, the catalog import and a video batch refuse a FIFO per item too."""
    captions = tmp_path / "captions"
    captions.mkdir()
    os.mkfifo(captions / "stuck.vtt")
    clips = tmp_path / "clips"
    clips.mkdir()
    os.mkfifo(clips / "stuck.mp4")
    os.mkfifo(tmp_path / "videos.csv")
    async with mcp_client(gemini_env) as session:
        with anyio.fail_after(CALL_SECONDS):
            indexed = await session.call_tool(
                "index_transcript_files", {"path": str(captions), "fetch_metadata": False}
            )
        assert indexed.is_error, "its only file failed"
        failed = tool_json(indexed)["details"]["failed"]
        assert len(failed) == 1 and "FIFO" in failed[0]["error"], failed

        with anyio.fail_after(CALL_SECONDS):
            imported = await session.call_tool(
                "catalog_import", {"file_path": str(tmp_path / "videos.csv")}
            )
        assert tool_json(imported)["category"] == "unsupported_format"
        assert "FIFO" in tool_json(imported)["error"]

        with anyio.fail_after(CALL_SECONDS):
            batch = await session.call_tool("video_batch_analyze", {"directory": str(clips)})
        items = tool_json(batch)["details"]["failed"]
        assert [Path(i["item"]).name for i in items] == ["stuck.mp4"]
        assert "FIFO" in items[0]["error"]


def test_open_regular_refuses_a_fifo_swapped_in_after_the_check(tmp_path, monkeypatch):
    """The check before the open can race with a swap; the open itself (O_NONBLOCK, then
    fstat) still refuses the FIFO and never blocks."""
    fifo = tmp_path / "swapped.md"
    os.mkfifo(fifo)
    monkeypatch.setattr(paths, "check_regular", lambda path: None)  # lose the race
    with pytest.raises(paths.NotRegularFile, match="FIFO"):
        paths.open_regular(fifo)


def test_read_regular_stops_at_the_limit(tmp_path):
    big = tmp_path / "big.md"
    big.write_bytes(b"x" * 5000)
    with pytest.raises(ToolFailure, match="larger than 4,096 bytes"):
        paths.read_regular(big, 4096)
    assert paths.read_regular(big, 5000) == b"x" * 5000


def test_a_part_whose_declared_size_lies_is_read_no_further(tmp_path):
    """Sizes that lie: the directory declares 1 KB for a part that inflates to 50 MB. The
    ratio check believes the directory; zipfile stops reading the part at its declared
    size (and then fails its CRC), so the file fails alone, quickly and in little memory."""
    base = make_docx(tmp_path / "base.docx", [(1, "Heading", "A paragraph.")])
    real = _bomb(tmp_path / "real.docx", "word/document.xml", 50, base).read_bytes()
    member = zipfile.ZipFile(io.BytesIO(real)).getinfo("word/document.xml")
    lying = bytearray(real)
    declared = (1024).to_bytes(4, "little")
    lying[member.header_offset + 22 : member.header_offset + 26] = declared  # local header
    central = _central_entry(real, "word/document.xml")
    lying[central + 24 : central + 28] = declared  # central directory entry
    assert zipfile.ZipFile(io.BytesIO(bytes(lying))).getinfo("word/document.xml").file_size == 1024
    started = time.monotonic()
    with pytest.raises(ToolFailure) as failure:
        extract(bytes(lying), DocumentType.DOCX, "lying.docx", limits=ArchiveLimits())
    assert time.monotonic() - started < 10
    assert "lying.docx" in str(failure.value)


def _central_entry(data: bytes, name: str) -> int:
    """Offset of `name`'s entry in the ZIP's central directory."""
    offset = zipfile.ZipFile(io.BytesIO(data)).start_dir
    while data[offset : offset + 4] == b"PK\x01\x02":
        lengths = [
            int.from_bytes(data[offset + i : offset + i + 2], "little") for i in (28, 30, 32)
        ]
        if data[offset + 46 : offset + 46 + lengths[0]] == name.encode():
            return offset
        offset += 46 + sum(lengths)
    raise AssertionError(f"{name} not in the central directory")


@pytest.mark.parametrize(
    "data,ok",
    [
        (b"plain text\n\twith a tab and \x1b[1mbold\x1b[0m\n", True),
        ("caf\u00e9 na\u00efve".encode("latin-1"), True),
        ("\ufeffUTF-16 text".encode("utf-16"), True),
        (b"", True),
        (b"%PDF-1.7\n...", False),
        (b"PK\x03\x04" + b"\x00" * 100, False),
        (b"text with a NUL\x00 inside", False),
    ],
)
def test_binary_data_named_as_text_is_refused(data, ok):
    if ok:
        check_text(data, "notes.txt")
    else:
        with pytest.raises(ToolFailure, match="not plain text"):
            check_text(data, "notes.txt")


@pytest.mark.skipif(sys.platform != "linux", reason="needs Linux special files")
def test_is_listed_file_lists_special_files_but_not_folders(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("x")
    assert paths.is_listed_file(tmp_path / "pipe") and paths.is_listed_file(tmp_path / "file")
    assert not paths.is_listed_file(tmp_path / "folder")
    assert not paths.is_listed_file(tmp_path / "missing")
