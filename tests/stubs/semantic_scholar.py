"""A local stub of the Semantic Scholar Graph and Recommendations APIs, for the real httpx client.

Built from the API's documented response shapes (api.semanticscholar.org/api-docs, graph
v1 and recommendations v1): `paper/search` and `author/search` answer
`{total, offset, next, data}` (`next` absent on the last page), `paper/{id}` a paper,
`paper/{id}/citations` and `/references` `{offset, next, data: [{contexts, intents,
isInfluential, citingPaper | citedPaper}]}`, `recommendations/v1/papers/forpaper/{id}`
`{recommendedPapers}`. Only the requested `fields` come back (plus `paperId` /
`authorId`, always), as the API does; an unknown field is the documented 400
`{"error": "Unrecognized or unsupported fields: [...]"}`, an unknown paper the 404
`{"error": "Paper with id ... not found"}`. `rate_limited()` is the gateway's 429
`{"message": "Too Many Requests...", "code": "429"}` with a Retry-After header.

Papers are known by their 40-hex ID and by `DOI:`, `ARXIV:` and `CorpusId:` forms.
Routes for `enqueue`: paper_search, paper, citations, references, recommendations,
author_search.
"""

from __future__ import annotations

import copy
import hashlib
import re
from typing import Any

from tests.stubs.base import Recorded, ScriptedStub, Status

__all__ = ["LITERATURE_GRAPH", "SemanticScholarStub", "Status", "rate_limited"]

LITERATURE_GRAPH = "649def34f8be52c8b66281af98ae884c09aef38b"
"""The documentation's running example: "Construction of the Literature Graph in Semantic Scholar"."""


def rate_limited(retry_after: str = "1") -> Status:
    return Status(
        429,
        {
            "message": "Too Many Requests. Please wait and try again or apply for a key for "
            "higher rate limits. https://www.semanticscholar.org/product/api#api-key-form",
            "code": "429",
        },
        {"Retry-After": retry_after},
    )


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def _paper(title: str, year: int, authors: list[tuple[str, str]], **extra: Any) -> dict[str, Any]:
    paper_id = extra.pop("paperId", None) or _sha(title)
    corpus = int(paper_id[:7], 16)
    external = {"CorpusId": corpus, **extra.pop("externalIds", {})}
    return {
        "paperId": paper_id,
        "corpusId": corpus,
        "externalIds": external,
        "url": f"https://www.semanticscholar.org/paper/{paper_id}",
        "title": title,
        "abstract": extra.pop("abstract", f"We study {title.lower()}."),
        "venue": extra.pop("venue", "arXiv.org"),
        "publicationVenue": None,
        "year": year,
        "referenceCount": extra.pop("referenceCount", 30),
        "citationCount": extra.pop("citationCount", 100),
        "influentialCitationCount": extra.pop("influentialCitationCount", 10),
        "isOpenAccess": True,
        "openAccessPdf": {"url": f"https://arxiv.org/pdf/{corpus}.pdf", "status": "GREEN"},
        "fieldsOfStudy": extra.pop("fieldsOfStudy", ["Computer Science"]),
        "s2FieldsOfStudy": [{"category": "Computer Science", "source": "s2-fos-model"}],
        "publicationTypes": ["JournalArticle"],
        "publicationDate": f"{year}-06-01",
        "journal": {"name": "arXiv.org", "volume": "abs/1805.02262"},
        "citationStyles": {"bibtex": f"@Article{{Stub{year},\n title = {{{title}}}\n}}\n"},
        "authors": [{"authorId": a, "name": n} for a, n in authors],
        "tldr": {"model": "tldr@v2.0.0", "text": f"A short summary of {title}."},
        **extra,
    }


CORPUS = [
    _paper(
        "Construction of the Literature Graph in Semantic Scholar",
        2018,
        [("1741101", "Oren Etzioni"), ("1738085", "Waleed Ammar")],
        paperId=LITERATURE_GRAPH,
        externalIds={"DOI": "10.18653/V1/N18-3011", "ArXiv": "1805.02262", "ACL": "N18-3011"},
        abstract="We describe a deployed scalable system for organizing published scientific "
        "literature into a heterogeneous graph to facilitate algorithmic manipulation and discovery.",
        venue="North American Chapter of the Association for Computational Linguistics",
        citationCount=453,
    ),
    _paper("S2ORC: The Semantic Scholar Open Research Corpus", 2020, [("46258841", "Kyle Lo")]),
    _paper("SPECTER: Document-level Representation Learning", 2020, [("2527954", "Arman Cohan")]),
    _paper("The Semantic Scholar Open Data Platform", 2023, [("2179018", "Rodney Kinney")]),
    _paper(
        "Citation intent classification with structural scaffolds",
        2019,
        [("2527954", "Arman Cohan")],
        fieldsOfStudy=["Computer Science", "Linguistics"],
    ),
    _paper(
        "A graph of scholarly knowledge for drug discovery",
        2021,
        [("1", "A. Chemist")],
        fieldsOfStudy=["Medicine"],
        citationCount=7,
    ),
]
AUTHORS = [
    {
        "authorId": "1741101",
        "externalIds": {"DBLP": ["Oren Etzioni"]},
        "url": "https://www.semanticscholar.org/author/1741101",
        "name": "Oren Etzioni",
        "affiliations": ["Allen Institute for AI"],
        "homepage": "https://allenai.org/",
        "paperCount": 10,
        "citationCount": 50,
        "hIndex": 5,
    },
    {
        "authorId": "2527954",
        "externalIds": {},
        "url": "https://www.semanticscholar.org/author/2527954",
        "name": "Arman Cohan",
        "affiliations": [],
        "homepage": None,
        "paperCount": 120,
        "citationCount": 9000,
        "hIndex": 40,
    },
]
PAPER_FIELDS = set(CORPUS[0]) | {"citations", "references", "embedding"}
EDGE_FIELDS = {"contexts", "intents", "isInfluential"}
AUTHOR_FIELDS = set(AUTHORS[0]) | {"papers"}

_PAPER_PATH = re.compile(r"^/graph/v1/paper/(.+?)(/citations|/references)?$")
_RECOMMEND_PATH = re.compile(r"^/recommendations/v1/papers/forpaper/(.+)$")


class SemanticScholarStub(ScriptedStub):
    def __init__(self) -> None:
        super().__init__()
        self.papers = copy.deepcopy(CORPUS)
        self.unknown_ids: set[str] = set()

    def route(self, method: str, path: str, headers: dict[str, str]) -> str:
        if path == "/graph/v1/paper/search":
            return "paper_search"
        if path == "/graph/v1/author/search":
            return "author_search"
        if _RECOMMEND_PATH.match(path):
            return "recommendations"
        match = _PAPER_PATH.match(path)
        if match:
            return (match.group(2) or "/paper").lstrip("/")
        return "unknown"

    def default(self, record: Recorded) -> Any:
        handler = {
            "paper_search": self._search,
            "author_search": self._author_search,
            "paper": self._details,
            "citations": self._edges,
            "references": self._edges,
            "recommendations": self._recommendations,
        }.get(record.route)
        if handler is None:
            return Status(404, {"error": "Requested object not found"})
        try:
            return handler(record)
        except _Fail as fail:
            return fail.status

    # --- lookups ---
    def find(self, raw_id: str) -> dict[str, Any] | None:
        prefix, _, value = raw_id.partition(":")
        for paper in self.papers:
            external = paper["externalIds"]
            if raw_id.lower() == paper["paperId"] or (
                value
                and (
                    (prefix.upper() == "DOI" and value.upper() == external.get("DOI", "").upper())
                    or (prefix.upper() == "ARXIV" and value == external.get("ArXiv"))
                    or (prefix.lower() == "corpusid" and value == str(paper["corpusId"]))
                )
            ):
                return paper
        return None

    def _paper_or_404(self, record: Recorded) -> dict[str, Any]:
        path = _RECOMMEND_PATH.match(record.path) or _PAPER_PATH.match(record.path)
        from urllib.parse import unquote

        raw_id = unquote(path.group(1))
        paper = self.find(raw_id)
        if paper is None:
            raise _Fail(Status(404, {"error": f"Paper with id {raw_id} not found"}))
        return paper

    # --- shaping ---
    @staticmethod
    def _fields(record: Recorded, allowed: set[str], default: list[str]) -> list[str]:
        raw = record.query.get("fields")
        if raw is None:
            return default
        fields = [f.strip() for f in raw.split(",") if f.strip()]
        bad = [f for f in fields if f.split(".")[0] not in allowed]
        if bad:
            raise _Fail(
                Status(400, {"error": f"Unrecognized or unsupported fields: [{', '.join(bad)}]"})
            )
        return fields

    @staticmethod
    def _pick(item: dict[str, Any], fields: list[str], always: str) -> dict[str, Any]:
        return {always: item[always], **{f: copy.deepcopy(item[f]) for f in fields if f in item}}

    @staticmethod
    def _window(record: Recorded, default_limit: int, max_limit: int) -> tuple[int, int]:
        try:
            offset = int(record.query.get("offset") or 0)
            limit = int(record.query.get("limit") or default_limit)
        except ValueError:
            raise _Fail(
                Status(400, {"error": "Unacceptable query params: [limit or offset]"})
            ) from None
        if limit > max_limit or limit < 0 or offset < 0:
            raise _Fail(Status(400, {"error": f"Unacceptable query params: [limit={limit}]"}))
        return offset, limit

    @staticmethod
    def _paged(items: list[Any], offset: int, limit: int, total: bool) -> dict[str, Any]:
        page: dict[str, Any] = {"offset": offset, "data": items[offset : offset + limit]}
        if offset + limit < len(items):
            page["next"] = offset + limit
        if total:
            page = {"total": len(items), **page}
        return page

    # --- routes ---
    def _search(self, record: Recorded) -> dict[str, Any]:
        fields = self._fields(record, PAPER_FIELDS, ["title"])
        offset, limit = self._window(record, 100, 100)
        words = [w for w in re.findall(r"\w+", record.query.get("query", "").lower()) if len(w) > 2]
        hits = [
            p
            for p in self.papers
            if any(w in (p["title"] + " " + p["abstract"]).lower() for w in words)
        ]
        year = record.query.get("year")
        if year:
            low, _, high = year.partition("-") if "-" in year else (year, "", year)
            first, last = int(low or 0), int(high or 9999)
            hits = [p for p in hits if first <= p["year"] <= last]
        if record.query.get("fieldsOfStudy"):
            wanted = set(record.query["fieldsOfStudy"].split(","))
            hits = [p for p in hits if wanted & set(p["fieldsOfStudy"])]
        if record.query.get("minCitationCount"):
            hits = [p for p in hits if p["citationCount"] >= int(record.query["minCitationCount"])]
        items = [self._pick(p, fields, "paperId") for p in hits]
        return self._paged(items, offset, limit, total=True)

    def _details(self, record: Recorded) -> dict[str, Any]:
        paper = self._paper_or_404(record)
        fields = self._fields(record, PAPER_FIELDS, ["title"])
        return self._pick(paper, fields, "paperId")

    def _edges(self, record: Recorded) -> dict[str, Any]:
        paper = self._paper_or_404(record)
        fields = self._fields(record, PAPER_FIELDS | EDGE_FIELDS, ["title"])
        offset, limit = self._window(record, 100, 1000)
        others = [p for p in self.papers if p is not paper]
        inner = "citingPaper" if record.route == "citations" else "citedPaper"
        edges = []
        for n, other in enumerate(others):
            edge = {
                "contexts": [f"As shown by {paper['title']} [{n + 1}], graphs help."],
                "intents": ["background"] if n % 2 else ["methodology"],
                "isInfluential": n == 0,
            }
            edge = {k: v for k, v in edge.items() if k in fields}
            edge[inner] = self._pick(other, [f for f in fields if f not in EDGE_FIELDS], "paperId")
            edges.append(edge)
        # The API lists edges to papers it could not resolve with a null paperId.
        edges.append({inner: {"paperId": None, "title": "An unresolved reference"}})
        return self._paged(edges, offset, limit, total=False)

    def _recommendations(self, record: Recorded) -> dict[str, Any]:
        paper = self._paper_or_404(record)
        fields = self._fields(record, PAPER_FIELDS, ["title"])
        _, limit = self._window(record, 100, 500)
        others = [self._pick(p, fields, "paperId") for p in self.papers if p is not paper]
        return {"recommendedPapers": others[:limit]}

    def _author_search(self, record: Recorded) -> dict[str, Any]:
        fields = self._fields(record, AUTHOR_FIELDS, ["name"])
        offset, limit = self._window(record, 100, 1000)
        query = record.query.get("query", "").lower()
        hits = [a for a in AUTHORS if any(w in a["name"].lower() for w in query.split())]
        return self._paged(
            [self._pick(a, fields, "authorId") for a in hits], offset, limit, total=True
        )


class _Fail(Exception):
    def __init__(self, status: Status) -> None:
        super().__init__(status.code)
        self.status = status
