"""Reading catalog entries from a JSON or CSV file.

JSON: a list of video objects, or an object with a `videos` list. CSV: a header row
naming the columns. Either way a video has `video_id`, `title`, and `manifest_url` (or
`url`); optional `categories` (a list, or one string split on `;`, `|` or `,`),
`duration_seconds` (seconds, or `H:MM:SS` / `MM:SS`) and `thumbnail_url`. A YouTube
video may leave out the URL: its watch URL is used for a new entry, and an existing one
keeps its manifest_url. A row without categories (no such key, or a CSV without the
column) keeps the categories an existing entry has. Bad rows are reported one by one;
they never stop the good ones.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from video_research.catalog.videos import VideoRecord
from video_research.errors import ErrorCategory, ToolFailure, invalid_input
from video_research.youtube_urls import VIDEO_ID, watch_url

MAX_FILE_BYTES = 20 * 1024 * 1024
_CATEGORY_SPLIT = re.compile(r"[;|,]")


def default_manifest_url(video_id: str) -> str | None:
    """The watch URL when `video_id` has the shape of a YouTube ID, else None."""
    return watch_url(video_id) if VIDEO_ID.match(video_id) else None


def parse_duration(value: Any) -> int | None:
    """Seconds from an int, a numeric string, or H:MM:SS / MM:SS; None when blank.

    ValueError for anything else, infinities and NaN (JSON allows them) included; the
    upper bound is VideoRecord's.
    """
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError("duration_seconds must be a number of seconds")
    try:
        if isinstance(value, int | float):
            return int(value)
        text = str(value).strip()
        if re.fullmatch(r"\d+(\.\d+)?", text):
            return int(float(text))
    except OverflowError:
        raise ValueError(f"duration {str(value)[:40]!r} is out of range") from None
    if re.fullmatch(r"\d+(:\d{1,2}){1,2}", text):
        seconds = 0
        for part in text.split(":"):
            seconds = seconds * 60 + int(part)
        return seconds
    raise ValueError(f"duration {text!r} is neither seconds nor H:MM:SS")


def record_from_row(row: dict[str, Any]) -> VideoRecord:
    """One validated entry; ValueError / ValidationError say what is wrong with it."""
    video_id = str(row.get("video_id") or row.get("id") or "").strip()
    categories: list[str] | None = None
    if "categories" in row or "category" in row:
        given = row.get("categories") or row.get("category") or []
        if isinstance(given, str):
            given = _CATEGORY_SPLIT.split(given)
        if not isinstance(given, list):
            raise ValueError("categories must be a list or a string")
        categories = [str(c) for c in given]
    manifest = row.get("manifest_url") or row.get("url")
    defaulted = not manifest
    if defaulted:
        manifest = default_manifest_url(video_id)
    if not manifest:
        raise ValueError("manifest_url (or url) is required for a video that is not on YouTube")
    return VideoRecord(
        video_id=video_id,
        title=row.get("title") or "",
        manifest_url=str(manifest).strip(),
        manifest_defaulted=defaulted,
        categories=categories,
        duration_seconds=parse_duration(row.get("duration_seconds", row.get("duration"))),
        thumbnail_url=row.get("thumbnail_url") or None,
    )


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise ToolFailure(ErrorCategory.FILE_NOT_FOUND, f"{path} does not exist or is not a file.")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ToolFailure(
            ErrorCategory.FILE_TOO_LARGE,
            f"{path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB.",
            hint="Split the file and import the parts one by one.",
        )
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    suffix = path.suffix.lower()
    if suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise invalid_input(
                f"{path.name} is not valid JSON: {exc}",
                hint='Fix the file: a list of video objects, or {"videos": [...]}.',
            ) from None
        if isinstance(data, dict):
            data = data.get("videos")
        if not isinstance(data, list):
            raise invalid_input(
                f"{path.name} holds no list of videos.",
                hint='Use a JSON list of video objects, or {"videos": [...]}.',
            )
        return [row if isinstance(row, dict) else {"_bad": row} for row in data]
    if suffix in (".csv", ".tsv"):
        reader = csv.DictReader(io.StringIO(text), delimiter="\t" if suffix == ".tsv" else ",")
        if not reader.fieldnames or "title" not in reader.fieldnames:
            raise invalid_input(
                f"{path.name} has no header row with a title column.",
                hint="The first row names the columns: video_id,title,categories,duration_seconds,manifest_url.",
            )
        return [{k: v for k, v in row.items() if k is not None} for row in reader]
    raise ToolFailure(
        ErrorCategory.FILE_UNSUPPORTED,
        f"Cannot import {path.name}: only .json, .csv and .tsv files are read.",
    )


def read_file(path: Path) -> tuple[list[tuple[int, VideoRecord]], list[dict[str, Any]]]:
    """(row number, record) for every good row, and {row, video_id, error} for every bad one."""
    good: list[tuple[int, VideoRecord]] = []
    failed: list[dict[str, Any]] = []
    for number, row in enumerate(_rows(path), start=1):
        try:
            if "_bad" in row:
                raise ValueError("each entry must be a JSON object")
            good.append((number, record_from_row(row)))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            failed.append(
                {
                    "row": number,
                    "video_id": str(row.get("video_id") or ""),
                    "error": f"{where}: {first['msg']}",
                }
            )
        except ValueError as exc:
            failed.append(
                {"row": number, "video_id": str(row.get("video_id") or ""), "error": str(exc)}
            )
    return good, failed
