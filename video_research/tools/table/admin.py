"""The admin toolset: the audit log and the chat-session registry."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="audit_log",
        handler="admin:audit_log",
        toolset="admin",
        title="Audit log",
        description=(
            "Read the audit log of write operations, newest first: who, which tool, the input and "
            "the result or error. Requires admin."
        ),
        role="admin",
    ),
    ToolSpec(
        name="session_register",
        handler="admin:session_register",
        toolset="admin",
        title="Register a session",
        description=(
            "Register a chat session so calls claiming it ({username, role, session_id} in "
            "_meta.session) get at most its role until it expires; unverified claims get viewer. "
            "Requires admin."
        ),
        role="admin",
        read_only=False,
        audited=True,
    ),
    ToolSpec(
        name="session_revoke",
        handler="admin:session_revoke",
        toolset="admin",
        title="Revoke a session",
        description=(
            "Remove a session from the registry; its claims count as viewer from now on. Requires "
            "admin."
        ),
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="session_list",
        handler="admin:session_list",
        toolset="admin",
        title="Registered sessions",
        description="List the registered sessions (usernames, roles, expiry; session IDs as fingerprints). Requires admin.",
        role="admin",
    ),
)
