"""The watch queue: what plays now and what plays next, in SQLite or NATS JetStream KV.

The queue of a channel (VIDEO_RESEARCH_QUEUE_CHANNEL) is one JSON document:

    {"channel": "default", "current": Item + {"started_at"} | null, "items": [Item, ...],
     "updated_at": "...", "recent_commands": ["<correlation_id>", ...]}

    Item = {"uid", "video_id", "title", "duration_seconds", "manifest_url",
            "media": {"type": "yt" | "cm", "id"}, "added_by", "added_at"}

Every change is a pure function of the old document (`add`, `apply_playlist`, `advance`,
`clear`, `remove`, `move`), run by the backend as one atomic step:
- SQLite (default): inside a `BEGIN IMMEDIATE` transaction of the catalog database;
- NATS (NATS_URL set): a read-modify-write of the key `<channel>` in the KV bucket
  NATS_QUEUE_BUCKET with optimistic concurrency (see nats_kv.update_json). After the
  write the command is published on `command_subject()` so a bot (Kryten-Robot) can
  apply it to CyTube. The KV revision is the source of truth; each command carries it.
"""

from __future__ import annotations

import json
import logging
import secrets
from typing import TYPE_CHECKING, Any, Literal, Protocol

from video_research.catalog.db import get_db, now_iso, parse_time
from video_research.config import Settings
from video_research.support import clock
from video_research.support.errors import invalid_input, not_found
from video_research.support.services import current_settings
from video_research.support.youtube_urls import YouTubeUrlError, parse_video_id

if TYPE_CHECKING:
    from video_research.support.schema_types.common.catalog import FailedItem, Video
    from video_research.support.schema_types.tools import QueueStatusOutput
    from video_research.support.schema_types.tools.queue_status_output import CurrentVideo, Item

logger = logging.getLogger(__name__)

Position = Literal["end", "next"]
Mode = Literal["append", "preserve_current", "hard_replace"]
BackendName = Literal["sqlite", "nats"]
RECENT_COMMANDS = 20
# Most upcoming items a queue holds (on both backends): the whole queue is one document,
# and on NATS one KV value, which must stay under the server's max_payload (1 MB).
MAX_QUEUE_ITEMS = 1000


def empty_state(channel: str) -> dict[str, Any]:
    return {
        "channel": channel,
        "current": None,
        "items": [],
        "updated_at": None,
        "recent_commands": [],
    }


def media_of(video: Video) -> dict[str, str]:
    """How CyTube names the media: a YouTube ID ("yt") or a custom manifest URL ("cm").

    The YouTube ID comes from the manifest URL, which is what plays: a catalog entry's own
    video_id may be any friendly token.
    """
    try:
        return {"type": "yt", "id": parse_video_id(video["manifest_url"])}
    except YouTubeUrlError:
        return {"type": "cm", "id": video["manifest_url"]}


def make_item(video: Video, added_by: str) -> dict[str, Any]:
    return {
        "uid": "q_" + secrets.token_hex(6),
        "video_id": video["video_id"],
        "title": video["title"],
        "duration_seconds": video["duration_seconds"],
        "manifest_url": video["manifest_url"],
        "media": media_of(video),
        "added_by": added_by,
        "added_at": now_iso(),
    }


class Command(dict):
    """A queue change as published to NATS (and returned to the caller)."""


def command(action: str, actor: dict[str, str], **fields: Any) -> Command:
    return Command(
        action=action,
        correlation_id="c_" + secrets.token_hex(8),
        issued_by=actor,
        issued_at=now_iso(),
        **fields,
    )


def _stamp(state: dict[str, Any], cmd: Command) -> dict[str, Any]:
    state["updated_at"] = cmd["issued_at"]
    state["recent_commands"] = [*state.get("recent_commands", []), cmd["correlation_id"]][
        -RECENT_COMMANDS:
    ]
    return state


def _capped(upcoming: list[dict[str, Any]], before: int) -> list[dict[str, Any]]:
    """`upcoming` when it fits in MAX_QUEUE_ITEMS; invalid_input (nothing changes) if not."""
    if len(upcoming) > MAX_QUEUE_ITEMS:
        raise invalid_input(
            f"The queue holds at most {MAX_QUEUE_ITEMS} upcoming items; it has {before}, and "
            f"this change would make it {len(upcoming)}. Nothing was queued.",
            hint="Remove items (queue_remove, queue_clear) or add fewer videos.",
        )
    return upcoming


def add(
    state: dict[str, Any], items: list[dict[str, Any]], position: Position, cmd: Command
) -> dict[str, Any]:
    upcoming = items + state["items"] if position == "next" else state["items"] + items
    state["items"] = _capped(upcoming, len(state["items"]))
    return _stamp(state, cmd)


def apply_playlist(
    state: dict[str, Any], items: list[dict[str, Any]], mode: Mode, cmd: Command
) -> dict[str, Any]:
    upcoming = _capped(state["items"] + items if mode == "append" else items, len(state["items"]))
    if mode == "hard_replace":
        state["current"] = None
    state["items"] = upcoming
    return _stamp(state, cmd)


def advance(state: dict[str, Any], cmd: Command) -> dict[str, Any]:
    if state["items"]:
        state["current"] = {**state["items"][0], "started_at": cmd["issued_at"]}
        state["items"] = state["items"][1:]
    else:
        state["current"] = None
    return _stamp(state, cmd)


def clear(state: dict[str, Any], cmd: Command) -> dict[str, Any]:
    state["items"] = []
    return _stamp(state, cmd)


def remove(state: dict[str, Any], uid: str, cmd: Command) -> dict[str, Any]:
    kept = [item for item in state["items"] if item["uid"] != uid]
    if len(kept) == len(state["items"]):
        raise not_found(
            f"No upcoming queue item with uid {uid!r}.",
            hint="Call queue_status for the uids of the upcoming items.",
        )
    state["items"] = kept
    return _stamp(state, cmd)


def move(state: dict[str, Any], uid: str, to_position: int, cmd: Command) -> dict[str, Any]:
    """Put the upcoming item `uid` at `to_position` (1-based among the upcoming items).

    A position rather than "before/after another uid": a view's up/down buttons and an agent
    both know the number they want, and the move stays one atomic step of the backend even
    while others change the queue (the uid, not the old index, names the item).
    """
    items = state["items"]
    index = next((n for n, item in enumerate(items) if item["uid"] == uid), None)
    if index is None:
        raise not_found(
            f"No upcoming queue item with uid {uid!r}.",
            hint="Call queue_status for the uids of the upcoming items.",
        )
    if to_position > len(items):
        raise invalid_input(
            f"to_position {to_position} is past the end of the queue, which has {len(items)} "
            "upcoming items; nothing moved.",
            hint=f"Pass a position from 1 to {len(items)}.",
        )
    item = items.pop(index)
    items.insert(to_position - 1, item)
    state["items"] = items
    return _stamp(state, cmd)


def status(state: dict[str, Any], revision: int) -> QueueStatusOutput:
    """The queue_status view: current video with elapsed time, upcoming items, totals."""
    current = state.get("current")
    view_current: CurrentVideo | None = None
    if current is not None:
        started = parse_time(current["started_at"], "started_at", sane_range=False)
        # Never below 0: a wall clock stepped back after the video started (NTP, an
        # operator) would otherwise report it as starting in the future.
        elapsed = max(0, int((clock.now() - started).total_seconds()))
        duration = current.get("duration_seconds")
        view_current = {
            "uid": current["uid"],
            "video_id": current["video_id"],
            "title": current["title"],
            "duration_seconds": duration,
            "elapsed_seconds": min(elapsed, duration) if duration is not None else elapsed,
            "started_at": current["started_at"],
        }
    items: list[Item] = [
        {
            "uid": i["uid"],
            "video_id": i["video_id"],
            "title": i["title"],
            "duration_seconds": i["duration_seconds"],
            "added_by": i["added_by"],
        }
        for i in state["items"]
    ]
    return {
        "channel": state["channel"],
        "current_video": view_current,
        "queue_length": len(items),
        "total_duration_seconds": sum(i["duration_seconds"] or 0 for i in items),
        "items": items,
        "revision": revision,
        "updated_at": state.get("updated_at"),
        "recent_commands": state.get("recent_commands", []),
    }


# ----------------------------------------------------------------------------- backends


class QueueBackend(Protocol):
    name: BackendName

    async def read(self) -> tuple[dict[str, Any], int]: ...

    async def change(self, fn: Any, cmd: Command) -> tuple[dict[str, Any], int, bool | None]:
        """Apply `fn` atomically; (new state, revision, whether the command was published
        — None where there is no bus)."""
        ...


class SqliteQueue:
    """The queue as one row of the catalog database's queue_state table."""

    name: BackendName = "sqlite"

    def __init__(self, settings: Settings) -> None:
        self.channel = settings.queue_channel

    def _load(self, conn: Any) -> tuple[dict[str, Any], int]:
        row = conn.execute(
            "SELECT revision, value FROM queue_state WHERE name = ?", (self.channel,)
        ).fetchone()
        if row is None:
            return empty_state(self.channel), 0
        return json.loads(row["value"]), row["revision"]

    async def read(self) -> tuple[dict[str, Any], int]:
        return await get_db().read(self._load)

    async def change(self, fn: Any, cmd: Command) -> tuple[dict[str, Any], int, bool | None]:
        def write(conn: Any) -> tuple[dict[str, Any], int, bool | None]:
            state, revision = self._load(conn)
            state = fn(state)
            conn.execute(
                "INSERT INTO queue_state (name, revision, value) VALUES (?,?,?)"
                " ON CONFLICT(name) DO UPDATE SET revision = excluded.revision,"
                " value = excluded.value",
                (self.channel, revision + 1, json.dumps(state)),
            )
            return state, revision + 1, None

        return await get_db().write(write)


def command_subject(settings: Settings) -> str:
    """Where queue commands are published: <NATS_SUBJECT_PREFIX>.video_research.queue.<channel>."""
    return f"{settings.nats_subject_prefix}.video_research.queue.{settings.queue_channel}"


class NatsQueue:
    """The queue as the key <channel> of the KV bucket NATS_QUEUE_BUCKET."""

    name: BackendName = "nats"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.channel = settings.queue_channel

    async def read(self) -> tuple[dict[str, Any], int]:
        from video_research.catalog import nats_kv

        kv = await nats_kv.bucket(self.settings.nats_queue_bucket, self.settings)
        state, revision = await nats_kv.read_json(kv, self.channel, self.settings)
        return (state or empty_state(self.channel)), revision

    async def change(self, fn: Any, cmd: Command) -> tuple[dict[str, Any], int, bool | None]:
        from video_research.catalog import nats_kv
        from video_research.support.errors import ToolFailure

        kv = await nats_kv.bucket(self.settings.nats_queue_bucket, self.settings)
        try:
            state, revision = await nats_kv.update_json(
                kv, self.channel, lambda old: fn(old or empty_state(self.channel)), self.settings
            )
        except nats_kv.Ambiguous as failure:
            # queue_status lists the recent correlation IDs: the caller can see whether
            # this one landed before retrying.
            failure.details = {"correlation_id": cmd["correlation_id"]}
            raise
        try:
            await nats_kv.publish(
                command_subject(self.settings),
                {**cmd, "channel": self.channel, "revision": revision},
                self.settings,
            )
        except ToolFailure as failure:
            # The KV write is the commit point and it happened; a bot that missed the
            # command catches up from the revision it carries.
            logger.warning("queue command %s not published: %s", cmd["correlation_id"], failure)
            return state, revision, False
        return state, revision, True


def backend(settings: Settings | None = None) -> QueueBackend:
    settings = settings or current_settings()
    return NatsQueue(settings) if settings.nats_url else SqliteQueue(settings)


async def items_for(
    video_ids: list[str], added_by: str
) -> tuple[list[dict[str, Any]], list[FailedItem]]:
    """Queue items for catalog videos, in order; unknown IDs come back as failures."""
    from video_research.catalog import videos

    found = await get_db().read(videos.get_many, video_ids)
    items: list[dict[str, Any]] = []
    failed: list[FailedItem] = []
    for video_id in video_ids:
        if video_id in found:
            items.append(make_item(found[video_id], added_by))
        else:
            failed.append({"video_id": video_id, "error": "not in the catalog"})
    return items, failed


def require_items(items: list[dict[str, Any]], failed: list[FailedItem]) -> None:
    if not items:
        raise invalid_input(
            "None of the videos are in the catalog; nothing was queued.",
            hint="Find videos with catalog_search and pass their video_id.",
            failed=failed,
        )
