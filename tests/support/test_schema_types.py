"""The generated TypedDicts (video_research/support/schema_types/) are what `make types`
makes of schemas/ today: a schema changed without regenerating fails here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.generate_schema_types import PACKAGE, generate
from video_research.support import contracts
from video_research.transcripts.chunker import chunk_cues
from video_research.transcripts.indexer import CHUNKS_COLLECTION, VideoInfo, chunk_properties
from video_research.transcripts.parsers import Cue
from video_research.transcripts.sources import Transcript


def _files(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*.py"))
    }


def test_the_committed_types_are_what_the_schemas_generate(tmp_path):
    out = tmp_path / "schema_types"
    generate(out)
    fresh, committed = _files(out), _files(PACKAGE)
    assert sorted(fresh) == sorted(committed), "run `make types`"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"run `make types`: {stale} differ from what schemas/ generate"


def test_every_tool_contract_has_its_types():
    tools = contracts.schema_root() / "tools"
    for schema in tools.glob("*.json"):
        module = schema.name.removesuffix(".json").replace(".", "_")
        assert (PACKAGE / "tools" / f"{module}.py").is_file(), module


def test_the_chunk_schema_names_every_stored_chunk_property():
    """schemas/common/transcript_chunk.json describes what the indexer's collection holds:
    a property added to one and not the other fails here."""
    schema = contracts.load_schema("common/transcript_chunk.json")
    stored = {prop.name for prop in CHUNKS_COLLECTION.properties}
    assert _named(schema) == stored


def _named(schema: dict[str, Any]) -> set[str]:
    """The properties a schema names, its `allOf` parts' (nested: the video's fields
    extend its identity) included."""
    return set(schema.get("properties", {})).union(*map(_named, schema.get("allOf", [])))


def test_what_the_indexer_stores_for_a_chunk_matches_its_schema():
    """The chunk schema is held to the indexer's real output (speaker and sentence language
    included), not only to the collection's property names."""
    cues = [
        Cue(0.0, 2.0, "The tide turns.", speaker="S1", language="en", language_probability=0.9),
        Cue(2.0, 4.0, "Then it comes back.", speaker="S1", language="en"),
    ]
    chunks, kept = chunk_cues(cues)
    transcript = Transcript(video_id="tides", cues=kept, language="en", source="speech")
    stored = chunk_properties(VideoInfo("tides", title="Tides"), transcript, chunks, kept)
    assert stored and stored[0]["speaker"] == "S1"
    for props in stored:
        assert contracts.validation_errors("common/transcript_chunk.json", props) == []
