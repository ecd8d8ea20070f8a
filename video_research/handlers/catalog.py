"""Catalog tools: search, categories, get, add, remove, import."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import TYPE_CHECKING

from pydantic import ValidationError

from video_research.catalog import changes, importer, playlists
from video_research.catalog import videos as catalog
from video_research.catalog.db import get_db, snapshot_id
from video_research.catalog.videos import VideoRecord
from video_research.handlers.context import CallContext
from video_research.support.errors import invalid_input, not_found
from video_research.support.paths import confine

if TYPE_CHECKING:
    from video_research.support.schema_types.common.catalog import FailedRow, Video
    from video_research.support.schema_types.tools import (
        CatalogAddInput,
        CatalogAddOutput,
        CatalogCategoriesInput,
        CatalogCategoriesOutput,
        CatalogGetVideoInput,
        CatalogGetVideoOutput,
        CatalogImportInput,
        CatalogImportOutput,
        CatalogRemoveInput,
        CatalogRemoveOutput,
        CatalogSearchInput,
        CatalogSearchOutput,
    )
    from video_research.support.schema_types.tools.catalog_search_output import Item


def public_video(video: Video) -> Item:
    """A catalog entry as a search lists it: without its source and timestamps."""
    return {
        "video_id": video["video_id"],
        "title": video["title"],
        "categories": video["categories"],
        "duration_seconds": video["duration_seconds"],
        "thumbnail_url": video["thumbnail_url"],
        "manifest_url": video["manifest_url"],
    }


async def catalog_search(args: CatalogSearchInput, ctx: CallContext) -> CatalogSearchOutput:
    page = await get_db().read(
        lambda conn: catalog.search(
            conn,
            q=args.get("q"),
            categories=args.get("categories") or [],
            limit=args["limit"],
            offset=args["offset"],
        )
    )
    items = [public_video(v) for v in page["items"]]
    return {
        "items": items,
        "total": page["total"],
        "snapshot_id": page["snapshot_id"],
        "has_more": args["offset"] + len(items) < page["total"],
        "actions": ctx.allowed(("queue_add_video",)),
    }


async def catalog_categories(
    args: CatalogCategoriesInput, ctx: CallContext
) -> CatalogCategoriesOutput:
    rows = await get_db().read(catalog.all_categories)
    return {
        "categories": [r["name"] for r in rows],
        "video_counts": {r["name"]: r["video_count"] for r in rows},
    }


async def catalog_get_video(args: CatalogGetVideoInput, ctx: CallContext) -> CatalogGetVideoOutput:
    video = await get_db().read(catalog.get, args["video_id"])
    if video is None:
        raise not_found(
            f"No video {args['video_id']!r} in the catalog.",
            hint="Find videos with catalog_search; video IDs are case-sensitive.",
        )
    return {**video}  # the entry, as the tool's output type (which adds `injections`)


async def _catalog_changed() -> None:
    await changes.announce(changes.CATALOG_STATS, changes.CATALOG_CATEGORIES)


async def catalog_add(args: CatalogAddInput, ctx: CallContext) -> CatalogAddOutput:
    try:
        record = importer.record_from_row(args)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise invalid_input(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    except ValueError as exc:
        raise invalid_input(
            str(exc), hint="Pass manifest_url: the URL the video plays from."
        ) from None

    def write(conn: sqlite3.Connection) -> CatalogAddOutput:
        created = catalog.upsert(conn, record, source="catalog_add")
        video = catalog.get(conn, record.video_id)
        if video is None:  # upserted just above, in this transaction
            raise RuntimeError(f"catalog_add: {record.video_id!r} vanished on write")
        return {"created": created, "video": video}

    result = await get_db().write(write)
    await _catalog_changed()
    return result


async def catalog_remove(args: CatalogRemoveInput, ctx: CallContext) -> CatalogRemoveOutput:
    def write(conn: sqlite3.Connection) -> CatalogRemoveOutput:
        affected = sorted(
            {
                r["playlist_id"]
                for video_id in args["video_ids"]
                for r in conn.execute(
                    "SELECT playlist_id FROM playlist_items WHERE video_id = ?", (video_id,)
                )
            }
        )
        removed, missing = catalog.remove(conn, args["video_ids"])
        return {
            "removed": removed,
            "not_found": missing,
            "playlists_affected": affected,
            "snapshot_id": snapshot_id(conn),
        }

    result = await get_db().write(write)
    await _catalog_changed()
    await changes.playlists_changed(result["playlists_affected"])
    return result


async def _records_from_youtube(
    url: str, max_items: int
) -> tuple[list[tuple[int, VideoRecord]], list[FailedRow], str]:
    from video_research.catalog.feed import record_from_youtube
    from video_research.clients import youtube
    from video_research.support.youtube_urls import parse_playlist_id

    playlist = await youtube.get_playlist(parse_playlist_id(url), max_items)
    good: list[tuple[int, VideoRecord]] = []
    failed: list[FailedRow] = []
    for number, item in enumerate(playlist["items"], start=1):
        if not item.get("available", True):
            failed.append(
                {
                    "row": number,
                    "video_id": item.get("video_id", ""),
                    "error": "private or deleted on YouTube",
                }
            )
            continue
        try:
            good.append((number, record_from_youtube(item)))
        except ValidationError as exc:
            failed.append(
                {
                    "row": number,
                    "video_id": item.get("video_id", ""),
                    "error": str(exc.errors()[0]["msg"]),
                }
            )
    return good, failed, playlist.get("title") or ""


async def catalog_import(args: CatalogImportInput, ctx: CallContext) -> CatalogImportOutput:
    extra = args.get("categories") or []
    if bool(args.get("file_path")) == bool(args.get("playlist_url")):
        raise invalid_input(
            "Pass exactly one of file_path or playlist_url.",
            hint="file_path: a .json/.csv file of videos; playlist_url: a YouTube playlist URL.",
        )
    if args.get("file_path"):
        path = await confine(args["file_path"], ctx)
        # Reading and validating up to 20 MB is blocking work: off the event loop.
        good, failed = await asyncio.to_thread(importer.read_file, path)
        source, default_name = "catalog_import:file", path.stem
    else:
        good, failed, default_name = await _records_from_youtube(
            args["playlist_url"], args["max_items"]
        )
        source = "catalog_import:youtube"
    playlist_name = args.get("playlist_name")
    if args["dry_run"]:
        return {
            "dry_run": True,
            "imported": len(good),
            "created": 0,
            "updated": 0,
            "failed": failed,
            "video_ids": [r.video_id for _, r in good],
        }

    def write(conn: sqlite3.Connection) -> CatalogImportOutput:
        created = sum(
            catalog.upsert(conn, record, source=source, extra_categories=extra)
            for _, record in good
        )
        ids = list(dict.fromkeys(r.video_id for _, r in good))
        out: CatalogImportOutput = {
            "dry_run": False,
            "imported": len(good),
            "created": created,
            "updated": len(good) - created,
            "failed": failed,
            "video_ids": ids,
            "snapshot_id": snapshot_id(conn),
        }
        if playlist_name is not None and ids:
            made = playlists.create(
                conn,
                name=playlist_name or default_name or "Imported",
                video_ids=ids,
                created_by=ctx.caller.username,
            )
            out["playlist_id"] = made["playlist_id"]
        return out

    result = await get_db().write(write)
    await _catalog_changed()
    if "playlist_id" in result:
        await changes.announce(changes.PLAYLIST_INDEX)
    return result
