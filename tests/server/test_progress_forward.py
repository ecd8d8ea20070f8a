"""Progress that only goes forward, as the real MCP client receives it over stdio: for every
tool that reports progress, called directly, through `tool_call`, and several at once
(batches of calls in one session, and the Gemini Batch API job of content_batch_analyze),
the values for one progress token strictly increase and `total`, once given, never
shrinks nor disappears (issue 62 saw `0.0196/2.0` then `0.0/None "tool_call: started"`).

The tools: every handler that calls `report_progress` (grep), each with a small input
made here, plus the server's own "started" report that any call running past
START_PROGRESS_DELAY gets. The Gemini tools run against the Gemini stub on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from tests.helpers import mcp_client, tool_json

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
SHORT_VIDEO = FIXTURES / "partial" / "lecture_front_25.mp4"  # 3.6 s of video and speech


class Heard:
    """A progress callback per call: what one progress token received."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.events: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, done: float, total: float | None, message: str | None) -> None:
        self.events.append((done, total, message))

    def check(self) -> None:
        values = [done for done, _, _ in self.events]
        assert all(b > a for a, b in zip(values, values[1:], strict=False)), (
            self.label,
            self.events,
        )
        totals = [total for _, total, _ in self.events]
        for before, after in zip(totals, totals[1:], strict=False):
            if before is not None:
                assert after is not None and after >= before, (self.label, self.events)


def _inputs(root: Path) -> dict[str, dict]:
    """A small input for each tool that reports progress."""
    video = root / "lecture.mp4"
    shutil.copyfile(SHORT_VIDEO, video)
    talks = root / "talks"
    talks.mkdir()
    shutil.copyfile(SHORT_VIDEO, talks / "talk.mp4")
    captions = root / "captions"
    captions.mkdir()
    shutil.copyfile(FIXTURES / "clips_joined.en.vtt", captions / "clips_joined.en.vtt")
    notes = root / "notes"
    notes.mkdir()
    for n, text in enumerate(["Tides follow the Moon.", "Remote work grew in 2025."]):
        (notes / f"note{n}.md").write_text(f"# Note {n}\n\n{text}\n", encoding="utf-8")
    clips = root / "clips"
    clips.mkdir()
    for name in ("one.mp4", "two.mp4"):
        (clips / name).write_bytes(name.encode() + bytes(512))
    return {
        "media_frames": {"path": str(video), "count": 2},
        "media_contact_sheet": {"path": str(video), "count": 2},
        "media_scenes": {"path": str(video)},
        "media_screen_text": {"path": str(video), "sample_seconds": 5, "index": True},
        "index_media_files": {"paths": [str(talks)], "force_reindex": True, "screen_text": False},
        "index_transcript_files": {"path": str(captions), "force_reindex": True},
        "document_ingest": {"paths": [str(notes / "note0.md"), str(notes / "note1.md")]},
        "knowledge_reembed": {},
        "video_batch_analyze": {"directory": str(clips)},
        "content_batch_analyze": {"directory": str(notes), "delivery": "batch"},
        "research_deep": {"topic": "Is remote work here to stay?", "scope": "quick"},
    }


async def _call(session, tool: str, arguments: dict, how: str) -> Heard:
    heard = Heard(f"{tool} {how}")
    if how == "direct":
        result = await session.call_tool(tool, arguments, progress_callback=heard)
    else:
        result = await session.call_tool(
            "tool_call", {"name": tool, "arguments": arguments}, progress_callback=heard
        )
    assert not result.is_error, (tool, how, tool_json(result))
    return heard


async def test_progress_only_goes_forward_for_every_tool(gemini_env, tmp_path):
    inputs = _inputs(tmp_path)
    heard: list[Heard] = []
    # tool_call listed; the Batch API job polled often (the stub answers at once)
    env = {
        **gemini_env,
        "VIDEO_RESEARCH_DYNAMIC_TOOLSETS": "on",
        "GEMINI_BATCH_POLL_INTERVAL": "0.3",
    }
    async with mcp_client(env) as session:
        for how in ("direct", "tool_call"):
            for tool, arguments in inputs.items():
                heard.append(await _call(session, tool, arguments, how))
        # several calls at once in one session, each with its own token
        together = ["media_scenes", "index_transcript_files", "document_ingest", "media_frames"]
        heard += await asyncio.gather(
            *(_call(session, tool, inputs[tool], "together") for tool in together)
        )
    for one in heard:
        one.check()
    quiet = [one.label for one in heard if not one.events]
    # a call that ends within START_PROGRESS_DELAY may say nothing; most say something
    assert len(quiet) <= len(heard) // 3, quiet
    for name in ("index_media_files", "media_screen_text", "content_batch_analyze"):
        for how in ("direct", "tool_call"):
            said = next(one for one in heard if one.label == f"{name} {how}")
            assert said.events, said.label
