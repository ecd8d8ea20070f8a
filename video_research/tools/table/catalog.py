"""The catalog toolset: the channel's video catalog."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="catalog_search",
        handler="catalog:catalog_search",
        toolset="catalog",
        title="Search the video catalog",
        description=(
            "Search the video catalog by title and/or category, best matches first; snapshot_id "
            "changes when the catalog does."
        ),
    ),
    ToolSpec(
        name="catalog_categories",
        handler="catalog:catalog_categories",
        toolset="catalog",
        title="Catalog categories",
        description="List the catalog's categories with how many videos each has.",
    ),
    ToolSpec(
        name="catalog_get_video",
        handler="catalog:catalog_get_video",
        toolset="catalog",
        title="Catalog video",
        description="A catalog video's details by ID.",
    ),
    ToolSpec(
        name="catalog_add",
        handler="catalog:catalog_add",
        toolset="catalog",
        title="Add a video to the catalog",
        description=(
            "Add a video to the catalog, or update the one with that video_id. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        audited=True,
    ),
    ToolSpec(
        name="catalog_remove",
        handler="catalog:catalog_remove",
        toolset="catalog",
        title="Remove videos from the catalog",
        description="Remove videos from the catalog and from every playlist. Requires admin.",
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="catalog_import",
        handler="catalog:catalog_import",
        toolset="catalog",
        title="Import videos into the catalog",
        description=(
            "Import videos from a JSON or CSV file or a YouTube playlist; existing video_ids are "
            "updated.\n"
            "Bad entries are listed in failed and never stop the good ones. Requires admin."
        ),
        role="admin",
        read_only=False,
        open_world=True,
        audited=True,
    ),
)
