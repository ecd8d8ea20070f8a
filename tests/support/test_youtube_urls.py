"""YouTube URL validation and normalisation, table-driven."""

from __future__ import annotations

import pytest

from video_research.support.errors import ErrorCategory
from video_research.support.youtube_urls import (
    YouTubeUrlError,
    is_youtube_url,
    normalize_youtube_url,
    parse_playlist_id,
    parse_video_id,
    watch_url,
)

ID = "dQw4w9WgXcQ"
CANON = f"https://www.youtube.com/watch?v={ID}"

VALID = [
    f"https://www.youtube.com/watch?v={ID}",
    f"http://www.youtube.com/watch?v={ID}",
    f"https://youtube.com/watch?v={ID}",
    f"https://youtu.be/{ID}",
    f"https://www.youtu.be/{ID}",
    f"https://youtu.be/{ID}?t=42",
    f"https://youtu.be/{ID}?si=abcDEF123",
    f"https://www.youtube.com/shorts/{ID}",
    f"https://www.youtube.com/shorts/{ID}?feature=share",
    f"https://www.youtube.com/embed/{ID}",
    f"https://www.youtube.com/embed/{ID}?start=10",
    f"https://www.youtube.com/live/{ID}",
    f"https://www.youtube.com/live/{ID}?si=x",
    f"https://m.youtube.com/watch?v={ID}",
    f"https://music.youtube.com/watch?v={ID}",
    f"https://www.youtube.com/watch?v={ID}&list=PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf",
    f"https://www.youtube.com/watch?list=PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf&v={ID}",
    f"https://www.youtube.com/watch?v={ID}&t=1m30s",
    f"https://www.youtube.com/watch?v={ID}#comments",
    f"HTTPS://WWW.YOUTUBE.COM/watch?v={ID}",
    f"https://www.youtube.com:443/watch?v={ID}",
    f"www.youtube.com/watch?v={ID}",
    f"youtu.be/{ID}",
    f"  https://www.youtube.com/watch?v={ID}  ",
    f"https:\\/\\/www.youtube.com\\/watch?v={ID}",
    f"https://www.youtube.com/v/{ID}",
]

INVALID = [
    (f"https://youtube.com.evil.com/watch?v={ID}", ErrorCategory.INVALID_INPUT),
    (f"https://not-youtube.com/watch?v={ID}", ErrorCategory.INVALID_INPUT),
    (f"https://evilyoutube.com/watch?v={ID}", ErrorCategory.INVALID_INPUT),
    (f"https://youtu.be.evil.com/{ID}", ErrorCategory.INVALID_INPUT),
    (f"https://evil.com/?u=https://www.youtube.com/watch?v={ID}", ErrorCategory.INVALID_INPUT),
    (f"https://www.youtube.com@evil.com/watch?v={ID}", ErrorCategory.INVALID_INPUT),
    (f"https://user:pw@www.youtube.com/watch?v={ID}", ErrorCategory.INVALID_INPUT),
    (f"ftp://www.youtube.com/watch?v={ID}", ErrorCategory.INVALID_INPUT),
    (f"javascript:alert(1)//youtube.com/watch?v={ID}", ErrorCategory.INVALID_INPUT),
    ("", ErrorCategory.INVALID_INPUT),
    ("not a url at all", ErrorCategory.INVALID_INPUT),
    ("https://www.youtube.com/watch?v=short", ErrorCategory.INVALID_INPUT),
    ("https://www.youtube.com/watch", ErrorCategory.INVALID_INPUT),
    ("https://www.youtube.com/channel/UCuAXFkgsw1L7xaCfnd5JJOw", ErrorCategory.INVALID_INPUT),
    ("https://youtu.be/", ErrorCategory.INVALID_INPUT),
    (f"https://www.youtube.com/watch?v={ID}extra", ErrorCategory.INVALID_INPUT),
    ("https://www.youtube.com/watch?v=dQw4w9WgX<Q", ErrorCategory.INVALID_INPUT),
]


@pytest.mark.parametrize("url", VALID)
def test_valid_urls_normalise(url):
    assert parse_video_id(url) == ID
    assert normalize_youtube_url(url) == CANON
    assert is_youtube_url(url)


@pytest.mark.parametrize(("url", "category"), INVALID)
def test_invalid_urls_are_rejected_with_a_category(url, category):
    with pytest.raises(YouTubeUrlError) as info:
        normalize_youtube_url(url)
    assert info.value.category is category
    assert isinstance(info.value, ValueError)
    assert not is_youtube_url(url)


def test_table_is_big_enough():
    assert len(VALID) + len(INVALID) >= 25


@pytest.mark.parametrize(
    "url",
    [
        "https://www.youtube.com/playlist?list=PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf",
        f"https://www.youtube.com/watch?v={ID}&list=PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf",
        "https://m.youtube.com/playlist?list=PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf",
    ],
)
def test_playlist_ids(url):
    assert parse_playlist_id(url) == "PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf"


def test_playlist_errors():
    with pytest.raises(YouTubeUrlError):
        parse_playlist_id(f"https://www.youtube.com/watch?v={ID}")
    with pytest.raises(YouTubeUrlError):
        parse_playlist_id("https://evil.com/playlist?list=PLabc")


def test_watch_url_with_time():
    assert watch_url(ID, 83.7) == f"{CANON}&t=83s"
    assert watch_url(ID) == CANON
