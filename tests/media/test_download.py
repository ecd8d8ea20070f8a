"""Media from URLs without the internet: a direct media file served on 127.0.0.1 (let
through the URL policy by VIDEO_RESEARCH_URL_ALLOWLIST, as a local deployment would),
redirects checked hop by hop, the size limit, and the cookies file that yt-dlp and the
transcript requests share (a missing or malformed file is a config_error)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.transcripts.test_transcript_tools import call, failures
from video_research.media import download as media_download
from video_research.support import cookies, url_policy
from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.support.services import current_settings
from video_research.transcripts import sources

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
AUDIO = (FIXTURES / "speech.ogg").read_bytes()

COOKIES = """# Netscape HTTP Cookie File
.youtube.com\tTRUE\t/\tTRUE\t2147483647\tSID\tsigned-in-session
.youtube.com\tTRUE\t/\tFALSE\t2147483647\tPREF\thl=en
"""


class _Media(BaseHTTPRequestHandler):
    hosts: list[str] = []  # noqa: RUF012 - the Host header of every request, for the test to read

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.hosts.append(self.headers.get("Host", ""))
        if self.path == "/talks/garden_talk.ogg":
            self.send_response(200)
            self.send_header("Content-Type", "audio/ogg")
            self.send_header("Content-Length", str(len(AUDIO)))
            self.end_headers()
            self.wfile.write(AUDIO)
        elif self.path == "/big.ogg":  # no Content-Length: the limit must count bytes
            self.send_response(200)
            self.send_header("Content-Type", "audio/ogg")
            self.end_headers()
            for _ in range(40):
                self.wfile.write(b"\0" * 65536)
        elif self.path == "/moved.ogg":
            self.send_response(302)
            self.send_header("Location", "/talks/garden_talk.ogg")
            self.end_headers()
        elif self.path == "/metadata":
            self.send_response(302)
            self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
            self.end_headers()
        else:
            self.send_response(404)
            self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Media.hosts.clear()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Media)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.slow
async def test_a_direct_media_url_is_downloaded_transcribed_and_found(server, configure):
    configure(VIDEO_RESEARCH_URL_ALLOWLIST="127.0.0.1")
    url = f"{server}/moved.ogg"  # a redirect, checked again, to the file
    result = await call("index_media_files", {"urls": [url]})
    batch = result["batch"]
    assert batch["indexed_count"] == 1, batch
    video_id = batch["indexed"][0]["video_id"]
    assert video_id.startswith("url:moved-")
    found = await call("semantic_search_transcripts", {"query": "platform seven tonight"})
    top = found["results"][0]
    assert top["video_id"] == video_id and top["timestamp_url"].startswith(url + "#t=")
    assert abs(top["match_time"] - 24.0) <= 5
    assert not list((current_settings().cache_dir / "media-downloads").glob("*/*")), "cleaned up"
    again = await call("index_media_files", {"urls": [url]})
    assert again["batch"]["skipped"] == [video_id] and again["transcribed_count"] == 0


async def test_loopback_is_refused_without_the_allowlist(server, tmp_path):
    with pytest.raises(ToolFailure) as refused:
        await media_download.download(
            f"{server}/talks/garden_talk.ogg", tmp_path, current_settings()
        )
    assert refused.value.category is ErrorCategory.INVALID_INPUT


async def test_a_redirect_to_a_private_address_is_refused(server, configure, tmp_path):
    configure(VIDEO_RESEARCH_URL_ALLOWLIST="127.0.0.1")
    with pytest.raises(ToolFailure) as refused:
        await media_download.download(f"{server}/metadata", tmp_path, current_settings())
    assert refused.value.category is ErrorCategory.INVALID_INPUT
    assert "169.254.169.254" in refused.value.message


async def test_the_size_limit_stops_a_download_without_a_length(server, configure, tmp_path):
    settings = configure(VIDEO_RESEARCH_URL_ALLOWLIST="127.0.0.1", MEDIA_DOWNLOAD_MAX_MB="1")
    with pytest.raises(ToolFailure) as refused:
        await media_download.download(f"{server}/big.ogg", tmp_path, settings)
    assert refused.value.category is ErrorCategory.TOO_LARGE
    assert not list(tmp_path.iterdir()), "the partial file is removed"
    failed = await call("index_media_files", {"urls": [f"{server}/big.ogg", f"{server}/nope.ogg"]})
    assert [item["reason"] for item in failures(failed)] == ["download", "download"]
    assert failures(failed)[0]["category"] == "too_large", "its own category, not the reason's"


@pytest.mark.parametrize(
    "name,sent,answers",
    [
        ("media.stub.invalid", "media.stub.invalid", ["127.0.0.1"]),
        ("médias.stub.invalid", "xn--mdias-bsa.stub.invalid", ["127.0.0.2", "127.0.0.1"]),
    ],
)
async def test_a_download_connects_to_the_address_the_policy_checked(
    server, configure, tmp_path, name, sent, answers
):
    """DNS rebinding: a name could answer a public address to the policy's lookup and a
    private one to the connection's. The download never looks the name up again: it
    connects to the checked address with the name in the Host header. The name is under
    .invalid, which no resolver answers (RFC 6761): only the policy's resolver (the test's)
    knows it, so connecting by name would fail. Each address is tried in turn (nothing
    listens on 127.0.0.2), and every redirect hop is looked up once and pinned alike; a
    non-ASCII name travels in its IDNA form."""
    settings = configure(VIDEO_RESEARCH_URL_ALLOWLIST="127.0.0.0/8")
    port = server.rsplit(":", 1)[1]
    asked: list[str] = []

    async def resolver(host: str, _port: int) -> list[str]:
        asked.append(host)
        return answers

    with url_policy.use_resolver(resolver):
        got = await media_download.download(f"http://{name}:{port}/moved.ogg", tmp_path, settings)
    assert got.path.read_bytes() == AUDIO and got.video_id.startswith("url:moved-")
    assert asked == [name] * 2, "one lookup per hop (the URL, its redirect)"
    assert _Media.hosts == [f"{sent}:{port}"] * 2


def test_the_cookies_file_is_loaded_for_yt_dlp_and_the_transcript_requests(tmp_path, configure):
    file = tmp_path / "cookies.txt"
    file.write_text(COOKIES)
    settings = configure(YOUTUBE_COOKIES_FILE=str(file))
    jar = cookies.load_cookie_jar(str(file))
    assert {c.name: c.value for c in jar} == {"SID": "signed-in-session", "PREF": "hl=en"}
    session = sources._session(settings)
    assert session.cookies.get("SID", domain=".youtube.com") == "signed-in-session"
    options = media_download.ydl_options(tmp_path, settings, threading.Event())
    assert options["cookiefile"] == str(file)
    assert options["format"] == "bestaudio/best" and options["noplaylist"] is True
    assert options["max_filesize"] == settings.media_download_max_mb * 1024 * 1024


@pytest.mark.parametrize("content", [None, "not a cookies file\n", "\0\1\2 binary"])
async def test_a_missing_or_malformed_cookies_file_is_a_config_error(tmp_path, configure, content):
    file = tmp_path / "cookies.txt"
    if content is not None:
        file.write_text(content)
    configure(YOUTUBE_COOKIES_FILE=str(file))
    with pytest.raises(ToolFailure) as refused:
        cookies.load_cookie_jar(str(file))
    assert refused.value.category is ErrorCategory.CONFIG_ERROR
    assert "YOUTUBE_COOKIES_FILE" in refused.value.message
    error = await call(
        "index_media_files", {"urls": ["https://www.youtube.com/watch?v=dQw4w9WgXcQ"]}
    )
    assert error["category"] == "config_error", error
