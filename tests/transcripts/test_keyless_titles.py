"""Titles and channels of YouTube videos without a Data API key: YouTube's oEmbed (a local
stub on 127.0.0.1 here, let through the URL policy by its allowlist), cached; or an
indexed yt-dlp .info.json sidecar. A hit then never shows a bare ID for a title."""

from __future__ import annotations

import json

import pytest

from tests.calls import call_ok
from tests.stubs.base import Status

VIDEO_ID = "D-lhorsDlUQ"
TITLE = "What are Actions on Google (Assistant on Air)"
CHANNEL = "Google Developers"

VTT = "WEBVTT\n\n00:00:05.000 --> 00:00:09.000\nActions let people talk to your app.\n"


@pytest.fixture
def oembed(youtube_server, configure):
    """The YouTube stub as the oEmbed endpoint, with no Data API key set."""
    youtube_server.reset()
    configure(
        YOUTUBE_API_KEY=None,
        GEMINI_API_KEY=None,
        YOUTUBE_OEMBED_URL=youtube_server.oembed_url,
        VIDEO_RESEARCH_URL_ALLOWLIST="127.0.0.1",
        GEMINI_RETRY_BASE_DELAY="0.01",
    )
    return youtube_server


def asked(stub) -> list:
    return [r for r in stub.requests if r.route == "oembed"]


async def test_titles_come_from_oembed_without_a_key(oembed, tmp_path):
    talk = tmp_path / f"{VIDEO_ID}.en.vtt"
    talk.write_text(VTT)
    indexed = await call_ok("index_transcript_files", {"path": str(talk)})
    (video,) = indexed["batch"]["indexed"]
    assert video["video_title"] == TITLE
    assert any("oEmbed" in note for note in indexed["batch"]["notes"])
    (request,) = asked(oembed)
    assert request.query == {"url": f"https://www.youtube.com/watch?v={VIDEO_ID}", "format": "json"}

    hit = (await call_ok("knowledge_search", {"query": "talk to your app"}))["results"][0]
    assert hit["label"] == f"{TITLE} at 0:05" and hit["properties"]["channel_title"] == CHANNEL

    # Indexed again: the cached answer, no second request.
    await call_ok("index_transcript_files", {"path": str(talk), "force_reindex": True})
    assert len(asked(oembed)) == 1


async def test_oembed_is_retried_and_unknown_videos_stay_untitled(oembed, tmp_path):
    oembed.enqueue("oembed", Status(503, {"error": "busy"}))
    known = tmp_path / f"{VIDEO_ID}.vtt"
    known.write_text(VTT)
    unknown = tmp_path / "aaaaaaaaaaa.vtt"
    unknown.write_text(VTT)
    indexed = await call_ok("index_transcript_files", {"path": str(tmp_path)})
    titles = {v["video_id"]: v["video_title"] for v in indexed["batch"]["indexed"]}
    assert titles == {VIDEO_ID: TITLE, "aaaaaaaaaaa": ""}
    assert any("1 video(s) got no title" in note for note in indexed["batch"]["notes"])
    assert len(asked(oembed)) == 3, "503 retried once, the unknown video asked once"


async def test_an_unreachable_oembed_is_given_up_on_at_once(oembed, configure, tmp_path):
    """Every attempt for the first video fails: the rest of the folder is not asked."""
    from video_research.clients.youtube_oembed import OEMBED_CONCURRENCY

    configure(GEMINI_RETRY_MAX_ATTEMPTS="2")
    oembed.enqueue("oembed", *[Status(503, {"error": "down"})] * 40)
    for n in range(12):
        (tmp_path / f"{VIDEO_ID[:-2]}{n:02d}.vtt").write_text(VTT)
    indexed = await call_ok("index_transcript_files", {"path": str(tmp_path)})
    assert len(indexed["batch"]["indexed"]) == 12
    assert any("12 video(s) got no title" in note for note in indexed["batch"]["notes"])
    assert len(asked(oembed)) <= 2 * OEMBED_CONCURRENCY < 2 * 12


async def test_a_sidecar_title_wins_and_oembed_is_not_asked(oembed, tmp_path):
    talk = tmp_path / f"{VIDEO_ID}.en.vtt"
    talk.write_text(VTT)
    sidecar = {
        "id": VIDEO_ID,
        "title": "The sidecar's title",
        "channel": "Sidecar channel",
        "channel_id": "UC_x5XG1OV2P6uZZ5FSM9Ttw",
        "webpage_url": f"https://www.youtube.com/watch?v={VIDEO_ID}",
        "extractor": "youtube",
        "upload_date": "20240501",
    }
    (tmp_path / f"{VIDEO_ID}.info.json").write_text(json.dumps(sidecar))
    indexed = await call_ok("index_transcript_files", {"path": str(talk)})
    assert indexed["batch"]["indexed"][0]["video_title"] == "The sidecar's title"
    assert asked(oembed) == []

    # The same video's transcript indexed later from elsewhere keeps the indexed title.
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / f"{VIDEO_ID}.srt").write_text("1\n00:00:01,000 --> 00:00:02,000\nHello again.\n")
    again = await call_ok("index_transcript_files", {"path": str(other / f"{VIDEO_ID}.srt")})
    assert again["batch"]["indexed"][0]["video_title"] == "The sidecar's title"
    assert asked(oembed) == []


async def test_the_url_policy_guards_the_oembed_url(oembed, configure, tmp_path):
    """Without the allowlist a loopback oEmbed URL is refused: the video stays untitled, nothing is sent."""
    configure(VIDEO_RESEARCH_URL_ALLOWLIST=None)
    talk = tmp_path / f"{VIDEO_ID}.vtt"
    talk.write_text(VTT)
    indexed = await call_ok("index_transcript_files", {"path": str(talk)})
    assert indexed["batch"]["indexed"][0]["video_title"] == ""
    assert asked(oembed) == []


async def test_no_id_for_a_title(configure, tmp_path):
    """A file named after its video ID and language gets no title made of its name."""
    configure(YOUTUBE_OEMBED_URL="")
    talk = tmp_path / f"{VIDEO_ID}.en.vtt"
    talk.write_text(VTT)
    indexed = await call_ok("index_transcript_files", {"path": str(talk)})
    assert indexed["batch"]["indexed"][0]["video_title"] == ""
