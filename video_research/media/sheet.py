"""A contact sheet: frames of a video in one image, a grid whose every cell carries the
time of its frame burned in, so one image shows an agent the whole video's course."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from video_research.media.decode import Tick, frames_at, no_tick, scaled_size
from video_research.media.frames import MIME, EncodedFrame, ImageFormat, encode, spaced_times
from video_research.media.limits import MediaLimits, check_range, clock
from video_research.media.probe import describe, open_container, require_video
from video_research.media.scenes import detect_scenes

if TYPE_CHECKING:
    from video_research.media.probe import MediaInfo


class Cell(TypedDict):
    time: float
    label: str
    row: int
    column: int


class SheetFound(TypedDict):
    duration_seconds: float
    sheet: EncodedFrame
    cells: list[Cell]
    media: MediaInfo


GAP = 4
"""Pixels between cells."""


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow without FreeType: the small bitmap font
        return ImageFont.load_default()


def contact_sheet(
    path: str,
    limits: MediaLimits,
    *,
    count: int = 12,
    columns: int = 4,
    cell_width: int = 320,
    start: float = 0.0,
    end: float | None = None,
    per_scene: bool = False,
    image_format: ImageFormat = "jpeg",
    scene_threshold: float = 0.05,
    tick: Tick = no_tick,
) -> SheetFound:
    """One grid image of `count` frames evenly spaced in [start, end] (or one per scene,
    at most `count`), each cell labelled with its time. The sheet's longest edge and its
    bytes stay within the limits: cells shrink to fit.

    Returns {"duration_seconds", "sheet": EncodedFrame, "cells": [{time, label, row, column}]}.
    """
    from PIL import Image, ImageDraw

    count = max(1, min(count, limits.max_frames * 4))
    with open_container(path, limits) as container:
        info = describe(container, path, limits)
        require_video(info, path)
        low, high = check_range(start, end, info.duration_seconds)
        if per_scene:
            found = detect_scenes(
                path, limits, threshold=scene_threshold, start=low, end=high, tick=tick
            )
            wanted = [scene["keyframe_time"] for scene in found["scenes"]][:count]
        else:
            wanted = spaced_times(low, high, count)
        columns = max(1, min(columns, len(wanted)))
        rows = -(-len(wanted) // columns)
        assert info.video is not None
        cell_w = min(cell_width, (limits.max_frame_edge * 2 - GAP * (columns + 1)) // columns)
        cell_w, cell_h = scaled_size(info.video["width"], info.video["height"], cell_w)
        if cell_h > cell_w:  # portrait video: the cell's height is the bound
            cell_w, cell_h = scaled_size(info.video["width"], info.video["height"], cell_h)
        pictures = frames_at(
            container, info, wanted, limits, max_edge=max(cell_w, cell_h), tick=tick
        )
    sheet = Image.new(
        "RGB", (GAP + columns * (cell_w + GAP), GAP + rows * (cell_h + GAP)), (16, 16, 16)
    )
    draw = ImageDraw.Draw(sheet)
    font = _font(max(10, cell_h // 9))
    cells: list[Cell] = []
    for n, picture in enumerate(pictures):
        row, column = divmod(n, columns)
        x, y = GAP + column * (cell_w + GAP), GAP + row * (cell_h + GAP)
        sheet.paste(picture.image.resize((cell_w, cell_h)), (x, y))
        label = clock(picture.time)
        box = draw.textbbox((0, 0), label, font=font)
        pad = 3
        draw.rectangle(
            (
                x,
                y + cell_h - (box[3] - box[1]) - 2 * pad - 2,
                x + box[2] - box[0] + 2 * pad,
                y + cell_h,
            ),
            fill=(0, 0, 0),
        )
        draw.text(
            (x + pad, y + cell_h - (box[3] - box[1]) - pad - box[1] - 2),
            label,
            fill=(255, 255, 255),
            font=font,
        )
        cells.append({"time": picture.time, "label": label, "row": row, "column": column})
    data = encode(sheet, image_format)
    quality = 80
    while len(data) > limits.max_output_bytes and quality > 20 and image_format == "jpeg":
        quality -= 20
        data = encode(sheet, image_format, quality)
    if len(data) > limits.max_output_bytes:
        from video_research.media.limits import too_large

        raise too_large(
            f"The contact sheet is {len(data):,} bytes, more than MEDIA_MAX_OUTPUT_BYTES "
            f"({limits.max_output_bytes:,}).",
            "Ask for fewer or smaller cells (count, cell_width), or JPEG.",
        )
    return {
        "duration_seconds": info.duration_seconds,
        "sheet": EncodedFrame(
            time=pictures[0].time if pictures else 0.0,
            requested=low,
            width=sheet.width,
            height=sheet.height,
            mime_type=MIME[image_format],
            data=data,
        ),
        "cells": cells,
        "media": info,
    }
