"""Re-ingesting a document keeps what the call leaves out (its tags, the type it was read
as); a field that is given, an empty list included, replaces the stored value."""

from __future__ import annotations

import pytest

from tests.fixtures.documents import call_tool

pytestmark = pytest.mark.slow


def _note(tmp_path, text="# Tides\n\nThe Rance barrage opened in 1966.\n"):
    note = tmp_path / "notes" / "tides.md"
    note.parent.mkdir(exist_ok=True)
    note.write_text(text)
    return note


async def _tags(path) -> list[str]:
    listed = await call_tool("document_list", {})
    (document,) = [d for d in listed["documents"] if d["source_path"] == str(path)]
    return document["tags"]


async def test_tags_left_out_are_kept_and_found_by_their_filter(tmp_path):
    note = _note(tmp_path)
    first = await call_tool("document_ingest", {"path": str(note), "tags": ["energy", "tides"]})
    assert first["ingested"] == 1
    note.write_text(note.read_text() + "\nIt makes 240 MW.\n")  # changed: read again
    again = await call_tool("document_ingest", {"path": str(note)})
    assert again["updated"] == 1
    assert await _tags(note) == ["energy", "tides"]
    hits = await call_tool(
        "document_search", {"query": "Rance barrage", "filters": {"tags": ["tides"]}}
    )
    assert hits["results"], "the tag filter still finds the document"
    unchanged = await call_tool("document_ingest", {"path": str(note)})
    assert unchanged["unchanged"] == 1


async def test_tags_given_replace_and_an_empty_list_clears(tmp_path):
    note = _note(tmp_path)
    await call_tool("document_ingest", {"path": str(note), "tags": ["energy"]})
    replaced = await call_tool("document_ingest", {"path": str(note), "tags": ["ocean"]})
    assert replaced["updated"] == 1 and await _tags(note) == ["ocean"]
    cleared = await call_tool("document_ingest", {"path": str(note), "tags": []})
    assert cleared["updated"] == 1 and await _tags(note) == []


async def test_the_type_a_document_was_read_as_is_kept(tmp_path):
    note = _note(tmp_path)
    await call_tool("document_ingest", {"path": str(note), "document_type": "text"})
    note.write_text(note.read_text() + "\nMore.\n")
    again = await call_tool("document_ingest", {"path": str(note)})
    assert again["files"][0]["document_type"] == "text"
