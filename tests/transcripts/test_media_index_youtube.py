"""A YouTube video without usable captions: index_media_files asks for its captions, hears
"disabled" or "no transcript", downloads its audio with yt-dlp, transcribes it and indexes
the speech under the video's YouTube ID and links; a video with captions is indexed from
them and its audio is never fetched.

Nothing here leaves 127.0.0.1. One local stub plays youtube.com for both sides:
- captions: youtube-transcript-api, unpatched, through YOUTUBE_TRANSCRIPT_ENDPOINT (the
  watch page, the innertube player answer without captions or with no track);
- audio: our downloader, unchanged, runs yt-dlp with its production options on the page
  YOUTUBE_MEDIA_ENDPOINT names (`/watch?v=ID`); yt-dlp's generic extractor finds the
  <audio> element there and downloads the Ogg file it points at.
What this cannot reach is yt-dlp's YouTube extractor itself (YouTube's player answer,
signatures, format choice): it talks to youtube.com only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import base_env, mcp_client, tool_json
from tests.stubs.youtube_transcripts import StubVideo
from tests.transcripts.test_transcript_tools import call, failures
from video_research.support.services import current_settings

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
AUDIO = (FIXTURES / "speech.ogg").read_bytes()
TRUTH = json.loads((FIXTURES / "speech.json").read_text())


@pytest.fixture
def youtube(transcript_stub, configure):
    """The stub as youtube.com for captions and as the media mirror for yt-dlp."""
    configure(YOUTUBE_MEDIA_ENDPOINT=transcript_stub.base_url)
    return transcript_stub


def _watch(video_id: str) -> str:
    return f"https://www.youtube.com/watch?v={video_id}"


async def test_captions_disabled_the_audio_is_downloaded_transcribed_and_indexed(youtube):
    video_id = "dIsAbLeD_01"
    youtube.videos[video_id] = StubVideo(failure="disabled", audio=AUDIO, title="Garden talk")

    result = await call("index_media_files", {"urls": [_watch(video_id)]})
    batch = result["batch"]
    assert batch["indexed_count"] == 1 and batch["failed"] == [], result
    assert result["transcribed_count"] == 1 and result["speech_model"] == "faster-whisper/base"
    assert batch["indexed"][0]["video_id"] == video_id
    assert any("captions: disabled" in note for note in batch["notes"]), batch["notes"]
    # the captions were asked for first (player answer without captions), then the audio
    assert len(youtube.calls("player")) == 1 and len(youtube.calls("media")) == 1
    assert [r.route for r in youtube.requests].index("player") < [
        r.route for r in youtube.requests
    ].index("media")

    (video,) = (await call("get_indexed_videos", {"source": "speech"}))["videos"]
    assert video["video_id"] == video_id and video["source"] == "speech"
    assert video["speech_model"] == "faster-whisper/base" and video["language"] == "en"

    spoken = TRUTH["sentences"][3]  # "Please remember to water the tomato plants." at 18 s
    top = (await call("semantic_search_transcripts", {"query": "water the tomato plants"}))[
        "results"
    ][0]
    assert top["video_id"] == video_id and abs(top["match_time"] - spoken["start"]) <= 5, top
    assert top["video_url"] == _watch(video_id)
    assert top["timestamp_url"] == f"{_watch(video_id)}&t={int(top['match_time'])}s"
    assert not list((current_settings().cache_dir / "media-downloads").glob("*/*")), "cleaned"

    again = await call("index_media_files", {"urls": [_watch(video_id)]})
    assert again["batch"]["skipped"] == [video_id] and again["transcribed_count"] == 0
    assert len(youtube.calls("media")) == 1, "an indexed video is not downloaded again"


async def test_a_video_with_captions_is_indexed_from_them_and_its_audio_never_fetched(youtube):
    video_id = "cApTiOnS_02"
    youtube.videos[video_id] = StubVideo(
        {"en": ([(3.0, 2.0, "the captions say this first")], False)}, audio=AUDIO
    )
    result = await call("index_media_files", {"urls": [_watch(video_id)]})
    assert result["transcribed_count"] == 0 and result["batch"]["indexed_count"] == 1, result
    assert youtube.calls("media") == [] and youtube.calls("timedtext")
    (video,) = (await call("get_indexed_videos", {}))["videos"]
    assert video["video_id"] == video_id and video["source"] == "youtube"


async def test_no_captions_and_no_audio_fails_alone_saying_both(youtube):
    video_id = "nOaUdIo_003"
    youtube.videos[video_id] = StubVideo(failure="disabled")  # the mirror has no media either
    result = await call("index_media_files", {"urls": [_watch(video_id)]})
    (failed,) = failures(result)
    assert failed["reason"] == "download" and failed["video_id"] == video_id, failed
    assert "(captions: disabled)" in failed["error"]
    # The audio came from the mirror, so the advice is about the mirror, not YouTube cookies.
    assert "YOUTUBE_MEDIA_ENDPOINT" in str(failed) and "COOKIES" not in str(failed), failed
    # its only URL failed, so the call is an error that lists it (nothing transcribed)
    assert result["category"] == "network" and "transcribed_count" not in result


async def test_no_caption_track_then_speech_over_stdio(youtube, tmp_path):
    """The same path through the real MCP client and a spawned server: a video whose
    player answer lists no caption track is transcribed from its downloaded audio."""
    video_id = "nOtRaCkS_04"
    youtube.videos[video_id] = StubVideo({}, audio=AUDIO, title="Travel notes")
    env = base_env(
        tmp_path,
        YOUTUBE_TRANSCRIPT_ENDPOINT=youtube.base_url,
        YOUTUBE_MEDIA_ENDPOINT=youtube.base_url,
        GEMINI_RETRY_BASE_DELAY="0.01",
    )
    async with mcp_client(env) as client:
        indexed = await client.call_tool("index_media_files", {"urls": [_watch(video_id)]})
        assert not indexed.is_error, tool_json(indexed)
        result = indexed.structured_content
        assert result["transcribed_count"] == 1 and result["batch"]["indexed_count"] == 1, result
        assert any("captions: no_transcript" in n for n in result["batch"]["notes"]), result

        spoken = TRUTH["sentences"][4]  # "Our train leaves from platform seven tonight." at 24 s
        found = await client.call_tool(
            "semantic_search_transcripts", {"query": "train leaves from platform seven", "k": 3}
        )
        assert not found.is_error, tool_json(found)
        top = found.structured_content["results"][0]
        assert top["video_id"] == video_id and abs(top["match_time"] - spoken["start"]) <= 5
        assert top["timestamp_url"] == f"{_watch(video_id)}&t={int(top['match_time'])}s", top

        listed = await client.call_tool("get_indexed_videos", {"source": "speech"})
        (video,) = listed.structured_content["videos"]
        assert video["speech_model"] == "faster-whisper/base" and video["language"] == "en"
    assert len(youtube.calls("media")) == 1


async def test_speech_always_transcribes_a_video_that_has_captions(youtube):
    video_id = "aLwAyS_0005"
    youtube.videos[video_id] = StubVideo(
        {"en": ([(3.0, 2.0, "the captions say this first")], False)}, audio=AUDIO
    )
    result = await call("index_media_files", {"urls": [_watch(video_id)], "speech": "always"})
    assert result["transcribed_count"] == 1 and result["batch"]["indexed_count"] == 1, result
    assert youtube.calls("player") == [] and len(youtube.calls("media")) == 1
    (video,) = (await call("get_indexed_videos", {}))["videos"]
    assert video["source"] == "speech" and video["speech_model"] == "faster-whisper/base"
