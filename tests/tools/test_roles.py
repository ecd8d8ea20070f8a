"""Roles: the matrix of every catalog-area tool x every role, generated from the catalog's
roles table (below, in its original Markdown form) plus the tools added since, and the
rules that turn a request's `_meta.session` claim into a caller."""

from __future__ import annotations

import json

import pytest

from tests.catalog_helpers import ADMIN, BLESSED, VIEWER, call, ok
from tests.fixtures.nats import wait_connected
from video_research.config import ROLE_RANK
from video_research.handlers.context import Caller
from video_research.server import auth
from video_research.support.services import current_settings
from video_research.tools import dispatch

ROLES_TABLE = """
| Tool | Required Role | Notes |
|------|---------------|-------|
| `catalog_search` | `viewer` | Read-only |
| `catalog_categories` | `viewer` | Read-only |
| `catalog_get_video` | `viewer` | Read-only |
| `playlist_list` | `viewer` | Read-only |
| `playlist_get` | `viewer` | Read-only |
| `playlist_create` | `blessed` | Write operation |
| `playlist_update` | `blessed` | Write operation |
| `playlist_delete` | `admin` | Destructive |
| `queue_status` | `viewer` | Read-only |
| `queue_add_video` | `blessed` | Write operation |
| `queue_add_videos` | `blessed` | Write operation |
| `queue_apply_playlist` | `blessed` | `admin` for hard_replace |
| `marathon_list` | `viewer` | Read-only |
| `marathon_get` | `viewer` | Read-only |
"""

# Tools beyond that table (later catalog, queue and marathon writes, admin tools): the role
# each needs.
ADDED = {
    "catalog_add": "blessed",
    "catalog_remove": "admin",
    "catalog_import": "admin",
    "queue_advance": "blessed",
    "queue_remove": "blessed",
    "queue_move": "blessed",
    "queue_clear": "admin",
    "marathon_create": "blessed",
    "marathon_delete": "admin",
    "audit_log": "admin",
    "session_register": "admin",
    "session_revoke": "admin",
    "session_list": "admin",
}

CATALOG_TOOLSETS = {"catalog", "playlists", "queue", "marathons", "admin"}


def table_roles() -> dict[str, str]:
    roles = {}
    for line in ROLES_TABLE.strip().splitlines()[2:]:
        tool, role = (cell.strip().strip("`") for cell in line.strip("|").split("|")[:2])
        roles[tool] = role
    return roles


REQUIRED = {**table_roles(), **ADDED}

# Arguments that pass validation; the calls that are allowed may still fail for other
# reasons (not_found, ...), never with `forbidden`.
ARGS = {
    "catalog_get_video": {"video_id": "halloween"},
    "catalog_add": {"video_id": "new-one", "title": "New", "manifest_url": "https://m/new"},
    "catalog_remove": {"video_ids": ["ghost"]},
    "catalog_import": {"file_path": "missing.json"},
    "playlist_get": {"playlist_id": "pl_missing"},
    "playlist_create": {"name": "Matrix", "video_ids": ["elm"]},
    "playlist_update": {"playlist_id": "pl_missing"},
    "playlist_delete": {"playlist_id": "pl_missing"},
    "queue_add_video": {"video_id": "elm"},
    "queue_add_videos": {"video_ids": ["elm"]},
    "queue_apply_playlist": {"playlist_id": "pl_missing"},
    "queue_remove": {"uid": "q_missing"},
    "queue_move": {"uid": "q_missing", "to_position": 1},
    "marathon_get": {"marathon_id": "mr_missing"},
    "marathon_create": {
        "name": "M",
        "starts_at": "2030-01-01T00:00:00Z",
        "playlist_ids": ["pl_missing"],
    },
    "marathon_delete": {"marathon_id": "mr_missing"},
    "session_register": {"session_id": "sess-matrix-01", "username": "u", "role": "viewer"},
    "session_revoke": {"session_id": "sess-matrix-01"},
}


def test_the_table_covers_every_catalog_tool_and_matches_the_roles_table():
    catalog_tools = {n for n, s in dispatch.TOOLS.items() if s.toolset in CATALOG_TOOLSETS}
    assert catalog_tools == set(REQUIRED)
    for tool, role in REQUIRED.items():
        assert dispatch.TOOLS[tool].role == role, tool
        assert dispatch.TOOLS[tool].audited == (not dispatch.TOOLS[tool].read_only), tool


@pytest.mark.parametrize("role", list(ROLE_RANK))
@pytest.mark.parametrize("tool", sorted(REQUIRED))
async def test_role_matrix(catalog, tool, role):
    caller = Caller(username=f"a-{role}", role=role, verified=role != "viewer")
    outcome = await call(tool, ARGS.get(tool, {}), caller)
    allowed = ROLE_RANK[role] >= ROLE_RANK[REQUIRED[tool]]
    category = outcome.error.category if outcome.error else None
    if allowed:
        # a path outside the file roots is forbidden too, but not by the role check
        refused = category == "forbidden" and " role; " in outcome.error.error
        assert not refused, outcome.error
    else:
        assert category == "forbidden", outcome
        assert f"'{REQUIRED[tool]}'" in outcome.error.error
        assert not outcome.error.retryable


@pytest.mark.parametrize("role", list(ROLE_RANK))
async def test_hard_replace_is_admin_only(catalog, role):
    playlist = await ok("playlist_create", {"name": "P", "video_ids": ["elm"]})
    await ok("queue_add_video", {"video_id": "halloween"})
    caller = Caller(username="u", role=role, verified=True)
    outcome = await call(
        "queue_apply_playlist",
        {"playlist_id": playlist["playlist_id"], "mode": "hard_replace"},
        caller,
    )
    if role == "admin":
        assert outcome.error is None
        assert [i["video_id"] for i in (await ok("queue_status"))["items"]] == ["elm"]
    else:
        assert outcome.error.category == "forbidden"
        assert [i["video_id"] for i in (await ok("queue_status"))["items"]] == ["halloween"]


async def test_denied_writes_are_audited(catalog):
    viewer = Caller(username="guest", role="viewer", verified=True)  # a verified viewer session
    await call("playlist_delete", {"playlist_id": "pl_x"}, viewer)
    entries = (await ok("audit_log", {"username": "guest"}, ADMIN))["entries"]
    assert [(e["tool"], e["ok"], e["category"]) for e in entries] == [
        ("playlist_delete", False, "forbidden")
    ]
    assert entries[0]["input"] == {"playlist_id": "pl_x"}


async def test_audited_inputs_are_bounded(catalog):
    """A refused call's arguments were never validated: the entry keeps a summary of them."""
    huge = {"video_id": "big", "title": "x" * 100_000, "manifest_url": "https://m/big"}
    assert (await call("catalog_add", huge)).error.category == "invalid_input"
    entry = (await ok("audit_log", {"tool": "catalog_add", "limit": 1}, ADMIN))["entries"][0]
    assert entry["input"] == {
        "truncated": True,
        "chars": len(json.dumps(huge)),
        "keys": ["manifest_url", "title", "video_id"],
    }


# ------------------------------------------------------------- claims -> callers


def _meta(**session) -> dict:
    return {"session": session}


async def test_no_claim_is_the_local_user(configure):
    local = await auth.resolve_caller({}, current_settings())
    assert (local.username, local.role, local.verified) == ("local", "admin", True)
    viewer = configure(VIDEO_RESEARCH_LOCAL_ROLE="viewer")
    assert (await auth.resolve_caller(None, viewer)).role == "viewer"


@pytest.mark.parametrize(
    "meta",
    [
        _meta(username="mallory", role="admin", session_id="sess-unknown-1"),
        _meta(username="mallory", role="admin"),
        _meta(role="admin"),
        {"session": "admin"},
        {"session": ["admin"]},
        {"session": None},
        _meta(username="mallory", role=["admin"], session_id="sess-unknown-1"),
        _meta(username="mallory", role="root", session_id="x" * 5000),
    ],
)
async def test_unverifiable_claims_are_viewers(meta):
    caller = await auth.resolve_caller(meta, current_settings())
    assert caller.role == "viewer" and not caller.verified


async def test_registered_sessions_grant_at_most_their_role():
    await ok(
        "session_register", {"session_id": "sess-dj-0001", "username": "DJ", "role": "blessed"}
    )
    settings = current_settings()
    as_blessed = await auth.resolve_caller(
        _meta(username="dj", role="blessed", session_id="sess-dj-0001"), settings
    )
    assert (as_blessed.role, as_blessed.verified) == ("blessed", True)
    assert as_blessed.username == "DJ"  # the registered spelling, not the claimed one
    claims_admin = await auth.resolve_caller(
        _meta(username="dj", role="admin", session_id="sess-dj-0001"), settings
    )
    assert claims_admin.role == "blessed"
    claims_less = await auth.resolve_caller(
        _meta(username="dj", role="viewer", session_id="sess-dj-0001"), settings
    )
    assert claims_less.role == "viewer"
    listed = (await ok("session_list"))["sessions"]
    assert [(s["username"], s["role"]) for s in listed] == [("DJ", "blessed")]
    assert "sess-dj-0001" not in str(listed)


async def test_a_bearer_token_caps_a_claim():
    await ok(
        "session_register", {"session_id": "sess-ad-0001", "username": "boss", "role": "admin"}
    )
    bot = Caller(username="bot", role="blessed", verified=True)
    caller = await auth.resolve_caller(
        _meta(username="boss", role="admin", session_id="sess-ad-0001"),
        current_settings(),
        transport_identity=bot,
    )
    assert (caller.username, caller.role) == ("boss", "blessed")
    assert (await auth.resolve_caller({}, current_settings(), transport_identity=bot)) == bot


async def test_nats_registry(nats_config):
    await ok(
        "session_register", {"session_id": "sess-nats-01", "username": "dj", "role": "blessed"}
    )
    assert (await ok("session_list"))["registry"] == "nats"
    claim = _meta(username="dj", role="blessed", session_id="sess-nats-01")
    assert (await auth.resolve_caller(claim, current_settings())).role == "blessed"
    nats_config.stop()
    # The registry cannot be read: the claim does not verify (fail closed).
    assert (await auth.resolve_caller(claim, current_settings())).role == "viewer"
    nats_config.start()
    await wait_connected()
    await ok("session_revoke", {"session_id": "sess-nats-01"})
    assert (await auth.resolve_caller(claim, current_settings())).role == "viewer"


@pytest.mark.parametrize(
    ("expires_at", "role"),
    [
        ("2999-01-01T00:00:00", "blessed"),  # naive: UTC
        ("2001-01-01T00:00:00", "viewer"),  # naive and past
        ("0001-01-01T00:00:00+14:00", "viewer"),  # before datetime's range in UTC
        ("soon", "viewer"),
        ("", "viewer"),
    ],
)
async def test_sqlite_registry_reads_stored_times_safely(expires_at, role):
    from video_research.catalog.db import get_db

    await ok(
        "session_register", {"session_id": "sess-time-0001", "username": "dj", "role": "blessed"}
    )
    await get_db().write(
        lambda conn: conn.execute("UPDATE sessions SET expires_at = ?", (expires_at,))
    )
    claim = _meta(username="dj", role="blessed", session_id="sess-time-0001")
    caller = await auth.resolve_caller(claim, current_settings())
    assert (caller.role, caller.verified) == (role, role != "viewer")
    listed = (await ok("session_list"))["sessions"]
    if role == "blessed":
        assert listed[0]["expires_at"] == "2999-01-01T00:00:00Z"
    elif expires_at != "2001-01-01T00:00:00":
        assert listed == []  # malformed entries are logged, not listed


async def test_malformed_nats_registrations_are_viewers(nats_config):
    from video_research.catalog import nats_kv, registry

    settings = current_settings()
    kv = await nats_kv.bucket(settings.nats_sessions_bucket, settings, history=1)
    key = registry.session_key("sess-bot-0001")
    claim = _meta(username="dj", role="admin", session_id="sess-bot-0001")
    malformed = [
        b"not json",
        b'["dj", "admin"]',
        b'"dj"',
        json.dumps({"role": "admin"}).encode(),
        json.dumps({"username": 7, "role": "admin"}).encode(),
        json.dumps({"username": "dj", "role": ["admin"]}).encode(),
        json.dumps({"username": "dj", "role": "admin", "expires_at": 4102444800}).encode(),
        json.dumps({"username": "dj", "role": "admin", "expires_at": "never"}).encode(),
    ]
    for value in malformed:
        await kv.put(key, value)
        caller = await auth.resolve_caller(claim, settings)
        assert (caller.role, caller.verified) == ("viewer", False), value
        assert (await ok("session_list"))["sessions"] == [], value
    naive = {"username": "DJ", "role": "admin", "expires_at": "2999-01-01T00:00:00"}
    await kv.put(key, json.dumps(naive).encode())
    caller = await auth.resolve_caller(claim, settings)
    assert (caller.username, caller.role, caller.verified) == ("DJ", "admin", True)
    assert (await ok("session_revoke", {"session_id": "sess-bot-0001"}))["revoked"]


@pytest.mark.parametrize(
    ("caller", "queue_actions", "catalog_actions"),
    [
        (VIEWER, [], []),
        (
            BLESSED,
            ["queue_advance", "queue_move", "queue_remove", "queue_add_video"],
            ["queue_add_video"],
        ),
        (
            ADMIN,
            ["queue_advance", "queue_move", "queue_remove", "queue_add_video"],
            ["queue_add_video"],
        ),
    ],
)
async def test_the_queue_and_catalog_say_which_actions_the_caller_may_take(
    configure, caller, queue_actions, catalog_actions
):
    """What the views show as controls: only the tools this caller's role may call (and
    the session lists: a toolset left off offers nothing)."""
    configure(VIDEO_RESEARCH_TOOLSETS="catalog")
    assert (await ok("catalog_search", {}, caller=caller))["actions"] == []
    configure(VIDEO_RESEARCH_TOOLSETS="catalog,queue")
    assert (await ok("queue_status", {}, caller=caller))["actions"] == queue_actions
    assert (await ok("catalog_search", {}, caller=caller))["actions"] == catalog_actions
