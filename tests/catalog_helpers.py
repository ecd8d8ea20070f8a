"""Shared pieces of the catalog, queue and role tests: callers, a small catalog, and
calls through the real dispatcher (roles, contracts, audit) on a real SQLite file."""

from __future__ import annotations

from tests.calls import call_ok, call_tool
from video_research.handlers.context import Caller

ADMIN = Caller(username="owner", role="admin", verified=True)
BLESSED = Caller(username="dj", role="blessed", verified=True)
VIEWER = Caller(username="guest", role="viewer")

MOVIES = [
    ("f13-1", "Friday the 13th", ["Horror", "Slasher"], 5700),
    ("f13-2", "Friday the 13th Part 2", ["Horror", "Slasher"], 5220),
    ("halloween", "Halloween", ["Horror"], 5460),
    ("elm", "A Nightmare on Elm Street", ["Horror"], 5460),
    ("airplane", "Airplane!", ["Comedy"], 5280),
    ("unknown", "Mystery Reel", [], None),
]


async def call(tool, arguments=None, caller=ADMIN):
    """A catalog call (its Outcome), as the catalog's owner unless a caller is named."""
    return await call_tool(tool, arguments, caller=caller)


async def ok(tool, arguments=None, caller=ADMIN):
    return await call_ok(tool, arguments, caller=caller)


def movie_arguments() -> list[dict]:
    """catalog_add arguments for every film of MOVIES."""
    return [
        {
            "video_id": video_id,
            "title": title,
            "categories": categories,
            "duration_seconds": seconds,
            "manifest_url": f"https://media.example/{video_id}.json",
        }
        for video_id, title, categories, seconds in MOVIES
    ]


async def seed_catalog():
    for arguments in movie_arguments():
        await ok("catalog_add", arguments)
