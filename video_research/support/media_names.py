"""Media file names: which suffixes are audio and video, and which caption file belongs to
which video.

People keep captions beside their video under the same name: `lecture.mp4` and
`lecture.srt`, or yt-dlp's `Title [ID].mp4` and `Title [ID].en.vtt` (a language tag
between the name and the suffix). Such a caption file is that video's transcript: its
moments link to the video, and the video's pictures are read beside it. Both the
transcript indexers (a caption file finding its video) and the media indexer (a video
finding its captions) ask, so the rule lives here, below both. Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

AUDIO_SUFFIXES = (".mp3", ".m4a", ".aac", ".wav", ".ogg", ".oga", ".opus", ".flac")
VIDEO_SUFFIXES = (".mp4", ".m4v", ".mkv", ".webm", ".mov", ".avi")
MEDIA_SUFFIXES = AUDIO_SUFFIXES + VIDEO_SUFFIXES

CAPTION_SUFFIXES = (".vtt", ".srt", ".srv1", ".srv2", ".srv3", ".json3", ".ttml", ".dfxp")
"""Caption formats a video's captions come in. A `.json`, `.txt` or `.md` beside a video is
as often its metadata or notes, so it is never taken for the video's captions unasked
(index_transcript_files still reads it, and links it to the video beside it)."""

LANGUAGE_TAG = re.compile(r"\.(?P<lang>[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*)$")
"""yt-dlp's language tag at the end of a caption file's stem: `.en`, `.en-US`, `.pt-BR`,
`.en-orig`."""


def _stem(path: Path) -> str:
    return path.name[: -len(path.suffix)] if path.suffix else path.name


def caption_stems(caption: Path) -> list[str]:
    """The names a caption file's video may have, without suffix: its own stem, and that
    stem without a language tag (`talk.en.vtt` -> `talk.en`, `talk`)."""
    stem = _stem(caption)
    tag = LANGUAGE_TAG.search(stem)
    return [stem, stem[: tag.start()]] if tag and tag.start() > 0 else [stem]


def caption_language(caption: Path, video: Path) -> str:
    """The language tag between the video's name and the caption's suffix ("" if none)."""
    stem = _stem(caption)
    if stem == _stem(video):
        return ""
    tag = LANGUAGE_TAG.search(stem)
    return tag.group("lang").split("-orig")[0] if tag else ""


def video_beside(caption: Path) -> Path | None:
    """The video file a caption file belongs to: in its folder, with its stem (or its stem
    without a language tag) and a video suffix; None when there is none. Blocking."""
    for stem in caption_stems(caption):
        for suffix in VIDEO_SUFFIXES:
            for candidate in (stem + suffix, stem + suffix.upper()):
                path = caption.with_name(candidate)
                if path.is_file():
                    return path
    return None


def captions_beside(video: Path, languages: Sequence[str] = ()) -> list[Path]:
    """The caption files of `video` in its folder, the one to use first: untagged, then by
    the order of `languages` (a tag `en-US` counts as `en`), then by name. Blocking."""
    stem = _stem(video)
    try:
        siblings = list(video.parent.iterdir())
    except OSError:
        return []
    found = [
        path
        for path in siblings
        if path.suffix.lower() in CAPTION_SUFFIXES
        and stem in caption_stems(path)
        and path.is_file()
    ]
    order = [language.lower().split("-")[0] for language in languages]

    def rank(path: Path) -> tuple[int, str]:
        language = caption_language(path, video).lower()
        if not language:
            return (0, path.name)
        base = language.replace("_", "-").split("-")[0]
        return (1 + (order.index(base) if base in order else len(order)), path.name)

    return sorted(found, key=rank)
