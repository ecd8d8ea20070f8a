"""The five Semantic Scholar calls the paper tools make, and the shapes they return.

The API answers in camelCase with every field optional (a paper may lack an abstract,
a year, authors); `paper()` and `author()` turn that into the snake_case objects the
tools return, with a missing value as null or an empty list, never a missing key.
"""

from __future__ import annotations

from typing import Any

from video_research.clients import semantic_scholar as client
from video_research.papers import ids

GRAPH = "/graph/v1"
RECOMMENDATIONS = "/recommendations/v1"

LIST_FIELDS = (
    "paperId,externalIds,url,title,abstract,venue,year,publicationDate,authors,citationCount,"
    "referenceCount,influentialCitationCount,isOpenAccess,openAccessPdf,fieldsOfStudy,"
    "publicationTypes"
)
DETAIL_FIELDS = LIST_FIELDS + ",journal,tldr,citationStyles"
CITATION_FIELDS = "contexts,intents,isInfluential," + LIST_FIELDS
AUTHOR_FIELDS = (
    "authorId,externalIds,url,name,affiliations,homepage,paperCount,citationCount,hIndex"
)
ABSTRACT_CHARS = 3000
"""Abstracts are cut here in lists: a page of 100 full abstracts is mostly noise."""


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _texts(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def paper(raw: dict[str, Any], *, full: bool = False) -> dict[str, Any]:
    """A Graph API paper as the tools return it (`full` keeps journal, TL;DR, BibTeX)."""
    external = raw.get("externalIds") if isinstance(raw.get("externalIds"), dict) else {}
    pdf = raw.get("openAccessPdf") if isinstance(raw.get("openAccessPdf"), dict) else {}
    abstract = raw.get("abstract") if isinstance(raw.get("abstract"), str) else None
    if abstract and not full and len(abstract) > ABSTRACT_CHARS:
        abstract = abstract[:ABSTRACT_CHARS].rstrip() + "…"
    out: dict[str, Any] = {
        "paper_id": str(raw.get("paperId") or ""),
        "title": str(raw.get("title") or ""),
        "abstract": abstract,
        "year": _count(raw.get("year")),
        "publication_date": raw.get("publicationDate")
        if isinstance(raw.get("publicationDate"), str)
        else None,
        "venue": raw.get("venue") or None,
        "authors": [
            {"author_id": a.get("authorId"), "name": str(a.get("name") or "")}
            for a in raw.get("authors") or []
            if isinstance(a, dict)
        ],
        "citation_count": _count(raw.get("citationCount")),
        "reference_count": _count(raw.get("referenceCount")),
        "influential_citation_count": _count(raw.get("influentialCitationCount")),
        "is_open_access": raw.get("isOpenAccess")
        if isinstance(raw.get("isOpenAccess"), bool)
        else None,
        "open_access_pdf": pdf.get("url") or None,
        "fields_of_study": _texts(raw.get("fieldsOfStudy")),
        "publication_types": _texts(raw.get("publicationTypes")),
        "doi": external.get("DOI"),
        "arxiv_id": external.get("ArXiv"),
        "url": raw.get("url")
        or (
            f"https://www.semanticscholar.org/paper/{raw['paperId']}"
            if raw.get("paperId")
            else None
        ),
    }
    if full:
        journal = raw.get("journal") if isinstance(raw.get("journal"), dict) else {}
        tldr = raw.get("tldr") if isinstance(raw.get("tldr"), dict) else {}
        styles = raw.get("citationStyles") if isinstance(raw.get("citationStyles"), dict) else {}
        out["external_ids"] = {str(k): str(v) for k, v in external.items() if v is not None}
        out["journal"] = {k: v for k, v in journal.items() if isinstance(v, str)} or None
        out["tldr"] = tldr.get("text") or None
        out["bibtex"] = styles.get("bibtex") or None
    return out


def author(raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "author_id": str(raw.get("authorId") or ""),
        "name": str(raw.get("name") or ""),
        "affiliations": _texts(raw.get("affiliations")),
        "homepage": raw.get("homepage") or None,
        "paper_count": _count(raw.get("paperCount")),
        "citation_count": _count(raw.get("citationCount")),
        "h_index": _count(raw.get("hIndex")),
        "url": raw.get("url")
        or (
            f"https://www.semanticscholar.org/author/{raw['authorId']}"
            if raw.get("authorId")
            else None
        ),
    }


def _page(body: dict[str, Any], offset: int) -> dict[str, Any]:
    """offset/next/total of a paged answer; `next` is absent on the last page."""
    nxt = body.get("next")
    total = body.get("total")
    return {
        "offset": _count(body.get("offset")) or offset,
        "next_offset": _count(nxt),
        "total": int(total) if isinstance(total, int | str) and str(total).isdigit() else None,
    }


def _data(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for item in body.get("data") or [] if isinstance(item, dict)]


async def search_papers(
    query: str, *, limit: int, offset: int, filters: dict[str, Any]
) -> dict[str, Any]:
    body = await client.get(
        f"{GRAPH}/paper/search",
        {"query": query, "limit": limit, "offset": offset, "fields": LIST_FIELDS, **filters},
        f"papers matching {query!r}",
    )
    return {"papers": [paper(p) for p in _data(body)], **_page(body, offset)}


async def paper_details(paper_id: str) -> dict[str, Any]:
    pid = ids.normalise(paper_id)
    body = await client.get(
        f"{GRAPH}/paper/{ids.path_segment(pid)}", {"fields": DETAIL_FIELDS}, f"paper {pid}"
    )
    return paper(body, full=True)


async def citations(paper_id: str, *, direction: str, limit: int, offset: int) -> dict[str, Any]:
    """Papers citing `paper_id` (direction "citations") or cited by it ("references")."""
    pid = ids.normalise(paper_id)
    body = await client.get(
        f"{GRAPH}/paper/{ids.path_segment(pid)}/{direction}",
        {"fields": CITATION_FIELDS, "limit": limit, "offset": offset},
        f"{direction} of paper {pid}",
    )
    inner = "citingPaper" if direction == "citations" else "citedPaper"
    items = []
    for edge in _data(body):
        linked = edge.get(inner)
        if not isinstance(linked, dict) or not linked.get("paperId"):
            continue  # the API lists edges to papers it cannot resolve with a null paperId
        items.append(
            {
                "paper": paper(linked),
                "contexts": _texts(edge.get("contexts"))[:5],
                "intents": _texts(edge.get("intents")),
                "is_influential": edge.get("isInfluential") is True,
            }
        )
    return {"paper_id": pid, "direction": direction, "items": items, **_page(body, offset)}


async def recommendations(paper_id: str, *, limit: int, pool: str) -> dict[str, Any]:
    pid = ids.normalise(paper_id)
    body = await client.get(
        f"{RECOMMENDATIONS}/papers/forpaper/{ids.path_segment(pid)}",
        {"fields": LIST_FIELDS, "limit": limit, "from": pool},
        f"recommendations for paper {pid}",
    )
    found = [p for p in body.get("recommendedPapers") or [] if isinstance(p, dict)]
    return {"paper_id": pid, "papers": [paper(p) for p in found]}


async def search_authors(query: str, *, limit: int, offset: int) -> dict[str, Any]:
    body = await client.get(
        f"{GRAPH}/author/search",
        {"query": query, "limit": limit, "offset": offset, "fields": AUTHOR_FIELDS},
        f"authors matching {query!r}",
    )
    return {"authors": [author(a) for a in _data(body)], **_page(body, offset)}
