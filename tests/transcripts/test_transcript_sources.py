"""youtube-transcript-api, unpatched, against the local youtube.com stub: language
preference and fallback, manual before generated, every failure reason with its hint,
transient errors retried, and the proxy settings really used."""

from __future__ import annotations

import pytest

from tests.stubs.youtube_transcripts import StubVideo
from video_research.transcripts.sources import (
    TranscriptUnavailable,
    fetch_youtube,
    proxy_config,
)

VIDEO = "aaaaaaaaaaa"
EN_MANUAL = [(0.5, 2.0, "hello &amp; welcome"), (2.5, 1.5, "to the show")]
EN_AUTO = [(0.4, 2.0, "hello and welcome"), (2.4, 1.5, "to the show")]
DE = [(0.0, 2.0, "hallo")]


def _tracks(**tracks):
    return StubVideo({code: value for code, value in tracks.items()})


async def test_manual_track_in_the_preferred_language_wins(transcript_stub):
    transcript_stub.videos[VIDEO] = _tracks(en=(EN_MANUAL, False), de=(DE, False))
    transcript = await fetch_youtube(VIDEO, ["en"])
    assert (transcript.language, transcript.is_generated) == ("en", False)
    assert [(c.start, c.end, c.text) for c in transcript.cues] == [
        (0.5, 2.5, "hello & welcome"),
        (2.5, 4.0, "to the show"),
    ]
    routes = [r.route for r in transcript_stub.requests]
    assert routes == ["watch", "player", "timedtext"]
    assert transcript_stub.calls("timedtext")[0].query["lang"] == "en"


async def test_generated_track_when_no_manual_one(transcript_stub):
    transcript_stub.videos[VIDEO] = StubVideo({"en": (EN_AUTO, True), "de": (DE, False)})
    transcript = await fetch_youtube(VIDEO, ["en"])
    assert (transcript.language, transcript.is_generated) == ("en", True)


async def test_languages_are_tried_in_order_then_any_track(transcript_stub):
    transcript_stub.videos[VIDEO] = _tracks(de=(DE, False))
    assert (await fetch_youtube(VIDEO, ["fr", "de", "en"])).language == "de"
    fallback = await fetch_youtube(VIDEO, ["fr"])
    assert fallback.language == "de" and fallback.cues[0].text == "hallo"


async def test_default_languages_come_from_settings(transcript_stub, configure):
    transcript_stub.videos[VIDEO] = _tracks(en=(EN_MANUAL, False), de=(DE, False))
    configure(TRANSCRIPT_LANGUAGES="de,en")
    assert (await fetch_youtube(VIDEO)).language == "de"


@pytest.mark.parametrize(
    "failure, reason, category, hint_mentions",
    [
        ("bot", "blocked", "rate_limited", "TRANSCRIPT_PROXY_URL"),
        ("blocked", "blocked", "rate_limited", "WEBSHARE_PROXY_USERNAME"),
        ("disabled", "disabled", "not_found", "index_transcript_files"),
        ("unavailable", "unavailable", "not_found", "video ID"),
        ("age", "age_restricted", "forbidden", "cookies"),
    ],
)
async def test_failures_have_a_reason_and_a_hint(
    transcript_stub, failure, reason, category, hint_mentions
):
    transcript_stub.videos[VIDEO] = StubVideo(failure=failure)
    with pytest.raises(TranscriptUnavailable) as caught:
        await fetch_youtube(VIDEO, ["en"])
    item = caught.value.to_item()
    assert item["reason"] == reason and item["video_id"] == VIDEO
    assert caught.value.to_tool_error().category == category
    assert hint_mentions in item["hint"]


async def test_no_track_at_all_is_no_transcript(transcript_stub):
    transcript_stub.videos[VIDEO] = StubVideo({})
    with pytest.raises(TranscriptUnavailable) as caught:
        await fetch_youtube(VIDEO, ["en"])
    assert caught.value.reason == "no_transcript"


async def test_a_server_error_is_retried(transcript_stub):
    transcript_stub.videos[VIDEO] = _tracks(en=(EN_MANUAL, False))
    from tests.stubs.base import Status

    transcript_stub.enqueue("player", Status(500, {"error": "backend"}))
    transcript = await fetch_youtube(VIDEO, ["en"])
    assert transcript.cues
    assert len(transcript_stub.calls("player")) == 2


async def test_persistent_server_errors_end_as_a_retryable_failure(transcript_stub):
    transcript_stub.videos[VIDEO] = StubVideo(failure="http500")
    with pytest.raises(TranscriptUnavailable) as caught:
        await fetch_youtube(VIDEO, ["en"])
    assert caught.value.reason == "network" and caught.value.retryable
    assert len(transcript_stub.calls("player")) == 3  # GEMINI_RETRY_MAX_ATTEMPTS default


async def test_unreachable_endpoint_is_a_network_failure(configure):
    from tests.helpers import free_port

    configure(
        YOUTUBE_TRANSCRIPT_ENDPOINT=f"http://127.0.0.1:{free_port()}", GEMINI_RETRY_MAX_ATTEMPTS="1"
    )
    with pytest.raises(TranscriptUnavailable) as caught:
        await fetch_youtube(VIDEO, ["en"])
    assert caught.value.reason == "network"


async def test_requests_go_through_the_configured_proxy(transcript_server, monkeypatch, configure):
    """The stub plays the proxy: requests for an unresolvable origin reach it only as proxy
    requests, with the credentials of TRANSCRIPT_PROXY_URL."""
    transcript_server.reset()
    transcript_server.videos[VIDEO] = _tracks(en=(EN_MANUAL, False))
    port = transcript_server.base_url.rsplit(":", 1)[1]
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    configure(
        YOUTUBE_TRANSCRIPT_ENDPOINT="http://youtube.invalid",
        TRANSCRIPT_PROXY_URL=f"http://proxyuser:proxypass@127.0.0.1:{port}",
    )
    transcript = await fetch_youtube(VIDEO, ["en"])
    assert transcript.cues
    watch = transcript_server.calls("watch")[0]
    assert watch.headers.get("proxy-authorization", "").startswith("Basic ")
    assert watch.headers["host"] == "youtube.invalid"


def test_webshare_settings_build_rotating_residential_proxies(configure):
    from youtube_transcript_api.proxies import WebshareProxyConfig

    settings = configure(
        WEBSHARE_PROXY_USERNAME="wsuser",
        WEBSHARE_PROXY_PASSWORD="wspass-secret",
        WEBSHARE_PROXY_LOCATIONS="de, us",
        TRANSCRIPT_PROXY_URL="http://ignored:1",
    )
    proxy = proxy_config(settings)
    assert isinstance(proxy, WebshareProxyConfig)
    url = proxy.to_requests_dict()["https"]
    assert url.startswith("http://wsuser-DE-US-rotate:wspass-secret@p.webshare.io:80")
    assert proxy.retries_when_blocked > 0
    assert "wspass-secret" not in str(settings.public_dict())


def test_no_proxy_by_default(services):
    assert proxy_config(services.settings) is None


async def test_an_unexpected_failure_says_its_cause_and_a_404_is_not_retryable(transcript_stub):
    """youtube-transcript-api's message starts with a preamble; the cause is what counts."""
    from tests.stubs.youtube_transcripts import Text

    transcript_stub.videos[VIDEO] = _tracks(en=(EN_MANUAL, False))
    transcript_stub.enqueue("timedtext", Text("gone", code=404))
    with pytest.raises(TranscriptUnavailable) as caught:
        await fetch_youtube(VIDEO, ["en"])
    item = caught.value.to_item()
    assert item["reason"] == "error"
    assert "404" in item["error"] and "most likely caused by" not in item["error"]
    assert item["retryable"] is False
