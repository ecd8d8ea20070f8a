"""File roots as users mean them: compared after resolving links on both sides, and a
refusal that says how the path resolved, which link took it out, and what to change."""

from __future__ import annotations

import os

import pytest

from tests.calls import call_error
from video_research.support import paths
from video_research.support.errors import ToolFailure


@pytest.fixture
def tree(tmp_path):
    """root/ (the allowed root, reached through the link `via`), root/shared -> outside/."""
    root = tmp_path / "root"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.md").write_text("# A\n\ntext\n")
    outside = tmp_path / "outside"
    (outside / "data").mkdir(parents=True)
    (outside / "data" / "b.md").write_text("# B\n")
    (root / "shared").symlink_to(outside)
    via = tmp_path / "via"
    via.symlink_to(root)
    return root, outside, via


def test_a_root_given_through_a_symlink_accepts_paths_under_its_target(tree, configure):
    root, _, via = tree
    configure(VIDEO_RESEARCH_FILE_ROOTS=str(via))
    # the path through the link and the real path both lie under the root
    for given in (via / "notes" / "a.md", root / "notes" / "a.md"):
        assert paths.confine_to(given, paths.configured_roots()) == root / "notes" / "a.md"


def test_a_link_inside_a_root_that_points_outside_is_refused_and_the_message_says_so(
    tree, configure
):
    root, outside, via = tree
    configure(VIDEO_RESEARCH_FILE_ROOTS=str(via))
    with pytest.raises(ToolFailure) as refused:
        paths.confine_to(root / "shared" / "data", paths.configured_roots())
    message = refused.value.message
    assert f"resolved to {outside / 'data'}" in message
    assert f"{root / 'shared'} is a symbolic link to {outside}" in message
    assert str(root) in message  # the roots, resolved
    assert "VIDEO_RESEARCH_FILE_ROOTS" in refused.value.hint


async def test_a_tool_refusal_names_the_resolved_path_the_roots_and_the_setting(tree, configure):
    root, outside, _ = tree
    configure(VIDEO_RESEARCH_FILE_ROOTS=str(root))
    error = await call_error("index_transcript_files", {"path": str(root / "shared" / "data")})
    assert error["category"] == "forbidden"
    assert str(outside / "data") in error["error"] and "symbolic link" in error["error"]
    assert "VIDEO_RESEARCH_FILE_ROOTS" in error["hint"]


async def test_a_missing_relative_path_says_what_it_was_relative_to(tree, configure, monkeypatch):
    root, _, _ = tree
    configure(VIDEO_RESEARCH_FILE_ROOTS=str(root))
    monkeypatch.chdir(root)
    error = await call_error("index_transcript_files", {"path": "relative/dir"})
    assert (
        f"relative/dir (resolved to {root / 'relative' / 'dir'}, from the server's working "
        f"directory {root})" in error["error"]
    )


def test_explain_leaves_an_absolute_resolved_path_alone_and_expands_home(tmp_path):
    assert paths.explain(str(tmp_path)) == str(tmp_path)
    assert "home directory expanded" in paths.explain("~/x")
    assert os.path.expanduser("~") in paths.explain("~/x")


async def test_a_relative_path_outside_the_roots_says_to_pass_an_absolute_one(
    tree, configure, monkeypatch, tmp_path
):
    root, _, _ = tree
    configure(VIDEO_RESEARCH_FILE_ROOTS=str(root))
    monkeypatch.chdir(tmp_path)
    error = await call_error("index_transcript_files", {"path": "outside/data"})
    assert error["category"] == "forbidden"
    assert f"resolved to {tmp_path / 'outside' / 'data'}" in error["error"]
    assert "pass an absolute path" in error["hint"]


def test_a_refusal_says_which_set_of_roots_refused_and_names_both(tree):
    """The effective roots are the intersection of the server's and the client's."""
    root, outside, _ = tree
    client_root = root / "notes"
    (root / "c.md").write_text("# C\n")
    with pytest.raises(ToolFailure) as by_client:
        paths.confine_to(root / "c.md", [root], [client_root])
    message = by_client.value.message
    assert "outside the directories your MCP client shares" in message
    assert (
        f"its roots: {client_root}" in message
        and f"the server's roots ({root}) allow it" in message
    )
    assert "must be under both" in message
    with pytest.raises(ToolFailure) as by_server:
        paths.confine_to(outside / "data" / "b.md", [root], [outside])
    message = by_server.value.message
    assert "outside the directories this server may read" in message
    assert f"your MCP client's roots ({outside})" in message and "must be under both" in message
