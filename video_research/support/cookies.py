"""The cookies file (YOUTUBE_COOKIES_FILE): a Netscape-format file, the one browsers'
export add-ons and `yt-dlp --cookies-from-browser ... --cookies FILE` write.

Signed-in cookies are what gets past YouTube's "sign in to confirm you're not a bot" on a
blocked IP, so one file serves both the media downloads (yt-dlp's `cookiefile`) and the
transcript requests (youtube-transcript-api, through the requests Session it is given).
The file is read with the standard library's `http.cookiejar.MozillaCookieJar`; a missing,
oversized or unreadable file is a `config_error` naming the setting, never a silent run
without cookies.
"""

from __future__ import annotations

import http.cookiejar
import os
from pathlib import Path

from video_research.support.errors import config_error

MAX_COOKIES_BYTES = 5 * 1024 * 1024
"""A browser's whole cookie store exports to well under a megabyte."""

_HINT = (
    "Point YOUTUBE_COOKIES_FILE at a Netscape-format cookies.txt (export it from a signed-in "
    "browser, e.g. yt-dlp --cookies-from-browser firefox --cookies cookies.txt), or unset it."
)


def cookie_file(path: str) -> Path:
    """The cookies file's path once it has been checked to load (config_error otherwise)."""
    load_cookie_jar(path)
    return Path(path).expanduser()


def load_cookie_jar(path: str) -> http.cookiejar.MozillaCookieJar:
    """The cookies in the Netscape-format file at `path` (config_error when it cannot be
    read as one)."""
    file = Path(path).expanduser()
    try:
        info = file.stat()
    except OSError as exc:
        raise config_error(
            f"YOUTUBE_COOKIES_FILE {path!r} cannot be read ({exc.strerror or exc}).", hint=_HINT
        ) from None
    if not os.path.isfile(file):
        raise config_error(f"YOUTUBE_COOKIES_FILE {path!r} is not a regular file.", hint=_HINT)
    if info.st_size > MAX_COOKIES_BYTES:
        raise config_error(
            f"YOUTUBE_COOKIES_FILE {path!r} is {info.st_size:,} bytes, more than a cookies file "
            f"holds ({MAX_COOKIES_BYTES:,}).",
            hint=_HINT,
        )
    jar = http.cookiejar.MozillaCookieJar(str(file))
    try:
        jar.load(ignore_discard=True, ignore_expires=True)
    except (http.cookiejar.LoadError, OSError, UnicodeDecodeError, ValueError) as exc:
        raise config_error(
            f"YOUTUBE_COOKIES_FILE {path!r} is not a Netscape-format cookies file "
            f"({' '.join(str(exc).split())[:200]}).",
            hint=_HINT,
        ) from None
    return jar
