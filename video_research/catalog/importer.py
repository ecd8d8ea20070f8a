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
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from video_research.catalog.videos import VideoRecord
from video_research.support import paths, printable
from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input
from video_research.support.youtube_urls import VIDEO_ID, watch_url

if TYPE_CHECKING:
    from video_research.support.schema_types.common.catalog import FailedRow

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


def record_from_row(row: Mapping[str, Any]) -> VideoRecord:
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


MAX_ROW_DEPTH = 32
"""How deeply a row of a JSON file may nest (a video is a flat object with one list)."""


def _read_text(path: Path) -> str:
    """The file's text (UTF-8, a BOM dropped, bad bytes replaced); only a regular file
    of at most MAX_FILE_BYTES is read (paths.read_regular: a FIFO or device is refused)."""
    try:
        data = paths.read_regular(path, MAX_FILE_BYTES)
    except ToolFailure as failure:
        if failure.category is ErrorCategory.TOO_LARGE:
            raise ToolFailure(
                ErrorCategory.TOO_LARGE,
                f"{paths.printable(path.name)} is larger than "
                f"{MAX_FILE_BYTES // (1024 * 1024)} MB.",
                hint="Split the file and import the parts one by one.",
            ) from None
        raise
    return data.decode("utf-8-sig", errors="replace")


def _json_number(text: str) -> int | str:
    """JSON integers as int, except ones too long for int() (Python refuses over 4,300
    digits): kept as their digits, so the row that holds one fails alone."""
    return int(text) if len(text) <= 1000 else text


Row = dict[str, Any]
"""A row: the video object, or {"_bad": reason} for an entry that cannot be one."""


def _json_rows(text: str, name: str) -> list[Row]:
    try:
        data = json.loads(text, parse_int=_json_number)
    except RecursionError:  # one entry nests deeper than Python's stack: split the file
        return _shallow_json_rows(text, name)
    except json.JSONDecodeError as exc:
        raise invalid_input(
            f"{name} is not valid JSON: {exc}",
            hint='Fix the file: a list of video objects, or {"videos": [...]}.',
        ) from None
    if isinstance(data, dict):
        data = data.get("videos")
    if not isinstance(data, list):
        raise _no_list(name)
    return [row if isinstance(row, dict) else {"_bad": _NOT_OBJECT} for row in data]


_NOT_OBJECT = "each entry must be a JSON object"


def _no_list(name: str) -> ToolFailure:
    return invalid_input(
        f"{name} holds no list of videos.",
        hint='Use a JSON list of video objects, or {"videos": [...]}.',
    )


_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},]')
"""What delimits JSON values: a whole string (so brackets inside one do not count), a
bracket or a comma."""
_VIDEO_ID = re.compile(r'"video_id"\s*:\s*("[^"\\]*(?:\\.[^"\\]*)*")')
_KEY = re.compile(r'\s*("[^"\\]*(?:\\.[^"\\]*)*")\s*:')


def _children(text: str, opening: int, name: str) -> list[tuple[int, int, int]]:
    """(start, end, depth) of each direct child of the array or object that opens at
    text[opening]: its text span and how deeply it nests. Linear, no recursion."""
    depth, start, deepest = 0, opening + 1, 0
    children: list[tuple[int, int, int]] = []
    for token in _TOKEN.finditer(text, opening):
        char = token.group()[0]
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth - 1)
        elif char in "]}":
            depth -= 1
            if depth == 0:
                if text[start : token.start()].strip():
                    children.append((start, token.start(), deepest))
                return children
        elif char == "," and depth == 1:
            children.append((start, token.start(), deepest))
            start, deepest = token.end(), 0
    raise invalid_input(
        f"{name} is not valid JSON: a list or object is never closed.",
        hint='Fix the file: a list of video objects, or {"videos": [...]}.',
    )


def _shallow_json_rows(text: str, name: str) -> list[Row]:
    """The rows of a JSON file one entry at a time, for a file that json.loads cannot
    take whole (an entry nested deeper than the recursion limit). An entry nested deeper
    than MAX_ROW_DEPTH, or that is not valid JSON, becomes a bad row of its own."""
    opening = len(text) - len(text.lstrip())
    if text[opening : opening + 1] == "{":
        for start, end, _ in _children(text, opening, name):
            key = _KEY.match(text, start)
            if key and json.loads(key.group(1)) == "videos":
                opening = (
                    key.end() + len(text[key.end() : end]) - len(text[key.end() : end].lstrip())
                )
                break
        else:
            raise _no_list(name)
    if text[opening : opening + 1] != "[":
        raise _no_list(name)
    rows: list[Row] = []
    for start, end, depth in _children(text, opening, name):
        if depth > MAX_ROW_DEPTH:
            named = _VIDEO_ID.search(text, start, min(end, start + 4096))
            rows.append(
                {
                    "_bad": f"the entry nests deeper than {MAX_ROW_DEPTH} levels",
                    "video_id": json.loads(named.group(1)) if named else "",
                }
            )
            continue
        try:
            row = json.loads(text[start:end], parse_int=_json_number)
        except json.JSONDecodeError as exc:
            rows.append({"_bad": f"not valid JSON: {exc.msg}"})
            continue
        rows.append(row if isinstance(row, dict) else {"_bad": _NOT_OBJECT})
    return rows


def _csv_rows(text: str, name: str, delimiter: str) -> list[Row]:
    # A cell may be as large as the file (the default limit, 128 KiB, made the whole
    # import fail); one that is too large for its column fails its own row.
    if csv.field_size_limit() < MAX_FILE_BYTES:
        csv.field_size_limit(MAX_FILE_BYTES)
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    try:
        fieldnames = reader.fieldnames
    except csv.Error as exc:
        raise invalid_input(f"{name}: the header row cannot be read ({exc}).") from None
    if not fieldnames or "title" not in fieldnames:
        raise invalid_input(
            f"{name} has no header row with a title column.",
            hint="The first row names the columns: video_id,title,categories,duration_seconds,manifest_url.",
        )
    rows: list[Row] = []
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return rows
        except csv.Error as exc:  # this row only: the reader goes on at the next line
            rows.append({"_bad": f"line {reader.line_num}: {exc}"})
            continue
        rows.append({k: v for k, v in row.items() if k is not None})


def _rows(path: Path) -> list[Row]:
    name = paths.printable(path.name)
    suffix = path.suffix.lower()
    if suffix not in (".json", ".csv", ".tsv"):
        raise ToolFailure(
            ErrorCategory.UNSUPPORTED_FORMAT,
            f"Cannot import {name}: only .json, .csv and .tsv files are read.",
        )
    text = _read_text(path)
    if suffix == ".json":
        return _json_rows(text, name)
    return _csv_rows(text, name, "\t" if suffix == ".tsv" else ",")


def _row_id(row: Row) -> str:
    """The video_id a bad row names, as far as it can be shown (never a nested value)."""
    value = row.get("video_id")
    return printable.one_line(str(value)[:200]) if isinstance(value, str | int | float) else ""


def read_file(path: Path) -> tuple[list[tuple[int, VideoRecord]], list[FailedRow]]:
    """(row number, record) for every good row, and {row, video_id, error} for every bad one."""
    good: list[tuple[int, VideoRecord]] = []
    failed: list[FailedRow] = []
    for number, row in enumerate(_rows(path), start=1):
        try:
            if "_bad" in row:
                raise ValueError(row["_bad"])
            good.append((number, record_from_row(row)))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            failed.append(
                {"row": number, "video_id": _row_id(row), "error": f"{where}: {first['msg']}"}
            )
        except (ValueError, TypeError) as exc:
            failed.append({"row": number, "video_id": _row_id(row), "error": str(exc)[:500]})
        except RecursionError:
            failed.append(
                {"row": number, "video_id": _row_id(row), "error": "the entry nests too deeply"}
            )
    return good, failed
