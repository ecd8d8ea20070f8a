"""video_metadata, video_playlist and the YouTube client: the real googleapiclient against
the Data API stub built from real responses."""

from __future__ import annotations

import pytest

from tests.fixtures.youtube import YOUTUBE_KEY
from tests.helpers import mcp_client, tool_json
from tests.stubs.youtube import BAD_KEY, CHANNEL, PLAYLIST, Close, Status, quota_exceeded
from tests.video.test_video_tools import call
from video_research.clients import youtube
from video_research.clients.youtube import format_duration, parse_duration

VIDEO_URL = "https://www.youtube.com/watch?v=D-lhorsDlUQ"
PLAYLIST_URL = f"https://www.youtube.com/playlist?list={PLAYLIST}"


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("PT0S", 0),
        ("PT21M7S", 1267),
        ("PT1H2M3S", 3723),
        ("PT15.5S", 15),
        ("P1DT2H", 93600),
        ("P0D", 0),
        ("PT1H", 3600),
        ("P1W", 604800),
        ("", None),
        (None, None),
        ("PT", None),
        ("1:02:03", None),
        ("P1Y", None),
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


def test_format_duration():
    assert [format_duration(s) for s in (0, 75, 1267, 3723, None)] == [
        "0:00",
        "1:15",
        "21:07",
        "1:02:03",
        None,
    ]


async def test_video_metadata(youtube_stub):
    outcome = await call("video_metadata", {"url": "https://youtu.be/D-lhorsDlUQ?t=3"})
    assert outcome.error is None, outcome.error
    video = outcome.result
    assert video["title"] == "What are Actions on Google (Assistant on Air)"
    assert video["duration_seconds"] == 1267 and video["duration"] == "21:07"
    assert video["channel_id"] == CHANNEL and video["view_count"] > 0
    assert video["tags"] and video["url"] == VIDEO_URL
    sent = youtube_stub.calls("videos")[-1]
    assert sent.query["id"] == "D-lhorsDlUQ"
    assert set(sent.query["part"].split(",")) == {
        "snippet",
        "contentDetails",
        "statistics",
        "status",
    }
    assert sent.query["key"] == "[set]" and sent.credentials["key"] == YOUTUBE_KEY


async def test_video_metadata_unknown_video(youtube_stub):
    outcome = await call("video_metadata", {"url": "https://youtu.be/AAAAAAAAAAA"})
    assert outcome.error.category == "not_found"


async def test_playlist_pages_until_max_items(youtube_stub):
    outcome = await call("video_playlist", {"url": PLAYLIST_URL, "max_items": 12})
    assert outcome.error is None, outcome.error
    playlist = outcome.result
    assert playlist["returned"] == 12 and playlist["item_count"] == 13
    assert [i["position"] for i in playlist["items"]] == list(range(12))
    pages = youtube_stub.calls("playlistItems")
    assert [p.query.get("pageToken") for p in pages] == [None, "CAoQAA"]
    assert all(p.query["maxResults"] == "50" for p in pages)
    assert all(i["duration_seconds"] for i in playlist["items"])


async def test_playlist_first_page_only_when_enough(youtube_stub):
    outcome = await call("video_playlist", {"url": PLAYLIST_URL, "max_items": 5})
    assert outcome.result["returned"] == 5
    assert len(youtube_stub.calls("playlistItems")) == 1


async def test_playlist_reports_unavailable_videos(youtube_stub):
    outcome = await call("video_playlist", {"url": PLAYLIST_URL, "max_items": 50})
    items = outcome.result["items"]
    assert len(items) == 13
    assert [i["available"] for i in items].count(False) == 1
    assert items[-1]["available"] is False and items[-1]["duration_seconds"] is None


async def test_playlist_bad_urls(youtube_stub):
    no_list = await call("video_playlist", {"url": VIDEO_URL})
    assert no_list.error.category == "invalid_input"
    unknown = await call("video_playlist", {"url": "https://www.youtube.com/playlist?list=PLnope"})
    assert unknown.error.category == "not_found"


async def test_quota_exceeded_is_retryable_with_retry_after(youtube_stub):
    youtube_stub.enqueue("videos", quota_exceeded())
    outcome = await call("video_metadata", {"url": VIDEO_URL})
    error = outcome.error
    assert error.category == "rate_limited" and error.retryable and error.retry_after_seconds
    assert len(youtube_stub.calls("videos")) == 1, "quota errors are not retried"


async def test_invalid_key_is_permission_denied(youtube_stub, configure):
    configure(YOUTUBE_API_KEY=BAD_KEY)
    outcome = await call("video_metadata", {"url": VIDEO_URL})
    assert outcome.error.category == "unauthorized"
    assert "YOUTUBE_API_KEY" in outcome.error.hint


async def test_transient_failures_are_retried(youtube_stub):
    youtube_stub.enqueue(
        "videos", Status(503, {"error": {"code": 503, "message": "backend error"}}), Close()
    )
    outcome = await call("video_metadata", {"url": VIDEO_URL})
    assert outcome.error is None, outcome.error
    assert len(youtube_stub.calls("videos")) == 3


async def test_no_key_is_a_config_error(youtube_stub, configure):
    configure(YOUTUBE_API_KEY=None)
    outcome = await call("video_metadata", {"url": VIDEO_URL})
    assert outcome.error.category == "config_error"
    assert "YOUTUBE_API_KEY" in outcome.error.hint and "GEMINI_API_KEY" in outcome.error.hint


async def test_gemini_key_is_the_fallback(youtube_stub, configure):
    configure(YOUTUBE_API_KEY=None, GEMINI_API_KEY="gemini-key-as-youtube-key")
    assert (await call("video_metadata", {"url": VIDEO_URL})).error is None
    assert youtube_stub.calls("videos")[-1].credentials["key"] == "gemini-key-as-youtube-key"


async def test_spoofed_url(youtube_stub):
    outcome = await call(
        "video_metadata", {"url": "https://youtube.com.evil.com/watch?v=D-lhorsDlUQ"}
    )
    assert outcome.error.category == "invalid_input"
    assert youtube_stub.calls("videos") == []


async def test_list_channel_videos_newest_first(youtube_stub):
    videos = await youtube.list_channel_videos(CHANNEL, 8)
    assert len(videos) == 8
    dates = [v["published_at"] for v in videos]
    assert dates == sorted(dates, reverse=True)
    assert youtube_stub.calls("channels")[-1].query["id"] == CHANNEL


async def test_get_videos_batches_by_fifty(youtube_stub):
    ids = [f"id{i:09d}" for i in range(120)]
    assert await youtube.get_videos(ids) == []
    assert [len(c.query["id"].split(",")) for c in youtube_stub.calls("videos")] == [50, 50, 20]


async def test_tools_over_stdio_and_the_key_stays_out_of_logs(youtube_env, youtube_stub, tmp_path):
    youtube_env["VIDEO_RESEARCH_LOG_LEVEL"] = "DEBUG"
    stderr_path = tmp_path / "server.stderr"
    with stderr_path.open("w") as errlog:
        async with mcp_client(youtube_env, errlog=errlog) as session:
            metadata = await session.call_tool("video_metadata", {"url": VIDEO_URL})
            assert not metadata.is_error, tool_json(metadata)
            playlist = await session.call_tool(
                "video_playlist", {"url": PLAYLIST_URL, "max_items": 3}
            )
            assert not playlist.is_error, tool_json(playlist)
            assert playlist.structured_content["returned"] == 3
    logs = stderr_path.read_text()
    assert "youtube/v3/videos" in logs, "googleapiclient logs its request URLs at DEBUG"
    assert YOUTUBE_KEY not in logs
