"""Roles outside the catalog: who may have the server read local files, index, ingest,
delete from the indexes and reconfigure it. A chat user (viewer) asks questions; only
trusted callers make the server read the owner's files or change shared state."""

from __future__ import annotations

import pytest

from tests.catalog_helpers import ADMIN, BLESSED, VIEWER, call
from video_research.tools import dispatch

# Tools outside the catalog's roles table (tests/tools/test_roles.py) and the role each
# needs (viewer when not listed).
REQUIRED = {
    "infra_cache": "admin",
    "infra_configure": "admin",
    "knowledge_ingest": "blessed",
    "knowledge_reembed": "admin",
    "index_channel_transcripts": "blessed",
    "index_transcript_files": "blessed",
    "index_media_files": "blessed",
    "delete_indexed_video": "admin",
    "name_speaker": "blessed",
    "document_ingest": "blessed",
    "document_delete": "admin",
    # a Deep Research task costs dollars and runs for minutes
    "research_web": "blessed",
    "research_web_followup": "blessed",
    "research_web_cancel": "blessed",
}


def test_writes_outside_the_catalog_need_more_than_viewer():
    for name, spec in dispatch.TOOLS.items():
        if spec.toolset in {"catalog", "playlists", "queue", "marathons", "admin"}:
            continue  # tests/tools/test_roles.py checks these against the roles table
        assert spec.role == REQUIRED.get(name, "viewer"), name
        if spec.role != "viewer":
            assert spec.audited, f"{name} changes shared state: it must be audited"
            assert f"Requires {spec.role}." in spec.description, name


@pytest.fixture
def files(tmp_path):
    (tmp_path / "clips").mkdir()
    (tmp_path / "clips" / "talk.mp4").write_bytes(b"\0" * 64)
    (tmp_path / "notes.txt").write_text("The owner's private notes.")
    return tmp_path


def _file_calls(root):
    return [
        ("video_analyze", {"file_path": str(root / "clips" / "talk.mp4")}),
        ("video_create_session", {"file_path": str(root / "clips" / "talk.mp4")}),
        ("video_batch_analyze", {"directory": str(root / "clips")}),
        ("content_analyze", {"file_path": str(root / "notes.txt")}),
        ("content_batch_analyze", {"file_paths": [str(root / "notes.txt")]}),
        ("content_batch_analyze", {"directory": str(root)}),
        (
            "research_document",
            {"question": "What is noted?", "file_paths": [str(root / "notes.txt")]},
        ),
        ("media_frames", {"path": str(root / "clips" / "talk.mp4")}),
        ("media_contact_sheet", {"path": str(root / "clips" / "talk.mp4")}),
        ("media_scenes", {"path": str(root / "clips" / "talk.mp4")}),
        ("media_screen_text", {"path": str(root / "clips" / "talk.mp4"), "index": True}),
    ]


async def test_a_viewer_cannot_have_the_server_read_local_files(files, configure):
    configure(GEMINI_API_KEY="test-key-never-sent")  # so no call stops earlier
    for tool, arguments in _file_calls(files):
        outcome = await call(tool, arguments, VIEWER)
        assert outcome.error is not None, tool
        assert outcome.error.category == "forbidden", (tool, outcome.error)
        assert "'blessed'" in outcome.error.error
        assert "private notes" not in str(outcome.error)


@pytest.mark.parametrize("caller", [BLESSED, ADMIN], ids=["blessed", "admin"])
async def test_trusted_callers_get_past_the_file_gate(files, caller):
    # No Gemini key here: the calls stop at configuration, not at the role check.
    for tool, arguments in _file_calls(files):
        outcome = await call(tool, arguments, caller)
        category = outcome.error.category if outcome.error else None
        assert category != "forbidden", (tool, outcome.error)


async def test_a_viewer_may_still_analyse_a_youtube_url():
    outcome = await call(
        "video_analyze", {"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ"}, VIEWER
    )
    assert outcome.error is not None and outcome.error.category != "forbidden"
