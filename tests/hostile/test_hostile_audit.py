"""The audit log names who really called, and the human log cannot be forged.

An unverified session claim used to be recorded under the name it claimed, so a bot
holding a bearer token could write entries in anyone's name. Now `username` is the
transport's identity (the token's user, or `local` on stdio) and the claim is kept as
`claimed_username`. And a newline in a user's string used to start a new line in the
human log format, which could then pass for a record of its own.
"""

from __future__ import annotations

import io
import json
import logging

from tests.helpers import http_server, tool_json

BOT_TOKEN = "bot-token-0123456789abcdef"
TOKENS = {BOT_TOKEN: {"username": "chatbot", "role": "blessed"}}


async def test_unverified_claim_is_audited_as_the_token_user(server_env, tmp_path):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    audit_file = tmp_path / "audit.jsonl"
    env = {
        **server_env,
        "VIDEO_RESEARCH_HTTP_TOKENS": json.dumps(TOKENS),
        "VIDEO_RESEARCH_AUDIT_LOG": str(audit_file),
    }
    claim = {"session": {"username": "alice", "role": "blessed", "session_id": "forged-1234"}}
    async with (
        http_server(env) as (port, _proc),
        create_mcp_http_client(headers={"Authorization": f"Bearer {BOT_TOKEN}"}) as http,
        streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        claimed = await session.call_tool(
            "playlist_create", {"name": "Mine", "video_ids": ["elm"]}, meta=claim
        )
        assert tool_json(claimed)["category"] == "forbidden"  # an unverified claim is a viewer
        own = await session.call_tool(
            "catalog_add", {"video_id": "dQw4w9WgXcQ", "title": "A video"}
        )
        assert not own.is_error, tool_json(own)

    lines = [json.loads(line) for line in audit_file.read_text().splitlines()]
    assert [(e["tool"], e["username"], e["claimed_username"], e["verified"]) for e in lines] == [
        ("playlist_create", "chatbot", "alice", False),
        ("catalog_add", "chatbot", None, True),
    ]


def test_human_log_lines_cannot_be_forged():
    from video_research.support.logs import setup_logging

    stream = io.StringIO()
    setup_logging("INFO", "human", stream=stream)
    try:
        title = (
            "Nice video\n12:00:00 ERROR   video_research.server.auth: admin token leaked\x1b[2J\r"
        )
        logging.getLogger("video_research.test").info("added %s", title)
        try:
            raise ValueError("bad title\n12:00:01 INFO    forged: second line")
        except ValueError:
            logging.getLogger("video_research.test").exception("failed on %r", "x")
    finally:
        setup_logging("INFO", "human")
    lines = stream.getvalue().splitlines()
    records = [line for line in lines if not line.startswith(" ")]
    assert len(records) == 2, lines
    assert records[0].endswith(
        "added Nice video\\n12:00:00 ERROR   video_research.server.auth: admin token leaked\\x1b[2J\\r"
    )
    assert "12:00:01 INFO    forged" in lines[-1] and lines[-1].startswith("  ")


async def test_an_older_catalog_database_gains_the_claimed_username_column(tmp_path):
    """Older databases have no claimed_username column; opening one adds it."""
    import sqlite3

    from video_research.catalog import audit
    from video_research.catalog.db import CatalogDB
    from video_research.handlers.context import Caller

    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE audit_log (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp TEXT NOT NULL,"
            " tool TEXT NOT NULL, username TEXT NOT NULL, role TEXT NOT NULL, session TEXT,"
            " verified INTEGER NOT NULL, ok INTEGER NOT NULL, category TEXT,"
            " input TEXT NOT NULL, result TEXT NOT NULL)"
        )
    db = CatalogDB(str(path))
    entry = audit.make_entry(
        tool="catalog_add",
        caller=Caller("mallory", "viewer", verified=False),
        arguments={},
        result=None,
        error={"category": "forbidden"},
    )
    await db.write(
        lambda conn: conn.execute(
            "INSERT INTO audit_log (timestamp, tool, username, claimed_username, role, verified,"
            " ok, input, result) VALUES (?, ?, ?, ?, ?, 0, 0, '{}', '{}')",
            (
                entry["timestamp"],
                "catalog_add",
                entry["username"],
                entry["claimed_username"],
                "viewer",
            ),
        )
    )
    rows = await db.read(
        lambda conn: conn.execute("SELECT username, claimed_username FROM audit_log").fetchall()
    )
    db.close()
    assert [tuple(r) for r in rows] == [("local", "mallory")]


def test_printable_escapes_only_what_cannot_be_written():
    import os

    from video_research.support import printable

    assert printable.text("plain café ✓") == "plain café ✓"
    assert printable.text(os.fsdecode(b"bad-\xff\xfe.md")) == "bad-\\xff\\xfe.md"
    assert printable.text("lone \ud800 high") == "lone \\ud800 high"
    assert printable.data({"k\udcff": ["v\udcff", 1, None]}) == {"k\\xff": ["v\\xff", 1, None]}
    assert printable.one_line("a\nb\rc\td\x1b[0m\x00\u2028") == "a\\nb\\rc\td\\x1b[0m\\x00\\u2028"
