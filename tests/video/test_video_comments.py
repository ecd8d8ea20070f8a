"""video_comments: the real googleapiclient against the Data API stub's commentThreads
(a real captured page), paging, ordering, replies and the errors a user can act on."""

from __future__ import annotations

import pytest

from tests.stubs.youtube import BAD_KEY, COMMENTS_OFF, quota_exceeded
from tests.video.test_video_tools import call

URL = "https://www.youtube.com/watch?v=F1UP7wRCPH8"


async def test_top_comments_by_relevance(youtube_stub):
    outcome = await call("video_comments", {"url": URL, "max_results": 3})
    assert outcome.error is None, outcome.error
    page = outcome.result
    assert page["video_id"] == "F1UP7wRCPH8" and page["returned"] == 3
    likes = [c["like_count"] for c in page["comments"]]
    assert likes == sorted(likes, reverse=True) and likes[0] == 4
    first = page["comments"][0]
    assert first["author"] == "Andres Jorquera" and first["text"].startswith("Funny that")
    assert first["url"].endswith("&lc=UgysQP-vp089eFP0Stl4AaABAg")
    assert first["author_channel_id"] == "UCzZ87J8wYVpOADFviqyFKhw"
    assert page["next_page_token"]
    sent = youtube_stub.calls("commentThreads")[-1]
    assert sent.query["videoId"] == "F1UP7wRCPH8" and sent.query["order"] == "relevance"
    assert sent.query["maxResults"] == "3" and sent.query["textFormat"] == "plainText"
    assert sent.query["part"] == "snippet"


async def test_time_order_plain_text_replies_and_next_page(youtube_stub):
    outcome = await call("video_comments", {"url": URL, "order": "time", "include_replies": True})
    page = outcome.result
    assert [c["published_at"] for c in page["comments"]] == sorted(
        (c["published_at"] for c in page["comments"]), reverse=True
    )
    assert all("<a " not in c["text"] for c in page["comments"]), "plain text, not HTML"
    with_replies = [c for c in page["comments"] if c["reply_count"]]
    assert with_replies and len(with_replies[0]["replies"]) == 2
    assert youtube_stub.calls("commentThreads")[-1].query["part"] == "snippet,replies"

    nxt = await call("video_comments", {"url": URL, "page_token": page["next_page_token"]})
    assert nxt.result["returned"] == 2 and nxt.result["next_page_token"] is None
    assert youtube_stub.calls("commentThreads")[-1].query["pageToken"] == page["next_page_token"]


async def test_comments_disabled_is_a_category_not_an_empty_page(youtube_stub):
    outcome = await call("video_comments", {"url": f"https://youtu.be/{COMMENTS_OFF}"})
    assert outcome.result is None
    assert outcome.error.category == "forbidden"
    assert outcome.error.retryable is False and "turned off" in outcome.error.error


async def test_unknown_video_quota_and_bad_key(youtube_stub, configure):
    missing = next(iter(youtube_stub.missing))
    gone = await call("video_comments", {"url": f"https://youtu.be/{missing}"})
    assert gone.error.category == "not_found"

    youtube_stub.enqueue("commentThreads", quota_exceeded())
    quota = await call("video_comments", {"url": URL})
    assert quota.error.category == "rate_limited"
    assert quota.error.retryable and quota.error.retry_after_seconds == 3600

    configure(YOUTUBE_API_KEY=BAD_KEY)  # another key: the registry builds another client
    rejected = await call("video_comments", {"url": URL})
    assert rejected.error.category == "unauthorized"


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"url": URL, "max_results": 0},
        {"url": URL, "max_results": 101},
        {"url": URL, "order": "rating"},
        {"url": URL, "page_token": ""},
        {"url": "https://example.com/not-youtube"},
    ],
)
async def test_bad_input(youtube_stub, arguments):
    outcome = await call("video_comments", arguments)
    assert outcome.error is not None
    assert outcome.error.category == "invalid_input"
    assert not youtube_stub.calls("commentThreads"), "bad input never reaches the API"
