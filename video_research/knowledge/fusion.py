"""Query-adaptive weighting of hybrid search: how much a query leans on its keywords.

Hybrid search fuses the keyword (BM25) and vector result sets as Weaviate's
relativeScoreFusion with one weight, alpha (0 keywords only, 1 vectors only). One fixed
alpha cannot suit every query: a note naming people, products and numbers ("o1 Pro,
Claude, Gemini, Grok 3 and R1", "n = 6, d = 71") is answered by the passage that holds
those exact tokens, while the vector side pulls in same-topic passages from other
videos; a paraphrase shares no word with its passage and needs the vectors. On
`make eval` a fixed 0.6 lost to keywords only on the notes-style queries, and 0.3-0.4
lost on the viewer queries.

So the default alpha is computed from the query's own text (no statistics of the
collection, so Weaviate, whose hybrid takes alpha per query, gets exactly the same
weight): every *specific* token, one a paraphrase would not produce, lowers alpha by
`STEP` from the embedder's base (`BASE`, `MODEL_BASE`), down to `FLOOR`. Specific tokens: numbers and tokens holding a
digit ("GPT-3", "256x256"), capitalised words after the first ("Monty Hall", "Jordan"),
identifiers (CamelCase, dotted or hyphenated: "pipes.show", "matter.js"), and Latin
words or numbers inside CJK text (the names a Chinese note keeps in English). Tuned on
the tuning part of the notes set and the viewer set; the held-out part was not used
(docs/benchmarks.md has the numbers).

The query's text cannot tell a quoted sentence from a paraphrase, and in a large store
that matters most: among a hundred thousand chunks of same-topic lectures the vector
side fills its candidates with passages that are about the right thing, and a query
that quotes its passage word for word lost it to them. So the search then looks at what
its keyword side found: when the best keyword hit holds `KEYWORD_MATCH_SHARE` of the
query's words, or half of them and `KEYWORD_MATCH_WORDS` that are not stopwords (a long
note), the query leans on keywords (`keyword_match`). A paraphrase or a query in another
language shares few words with any passage and keeps its weight. The
rule reads the hit's text, not a score, so both backends apply it alike. Where the
keyword side is calibrated (the embedded store), a best hit scoring `STRONG_KEYWORDS` of
what a passage holding each telling word once scores leans on keywords too: it holds the
query's rare words, however few of all its words that is.

Two more rules read the keyword side's best hits (`adapted_alpha`, `quotes_first`): a
query's names count only where those hits hold them (a German noun is capitalised, and
no English passage holds it), and a passage that the query quotes (most of its words as
one run, in order) goes first, whatever either side scored it, or when it quotes none, a
passage holding most of a long note's words in any order (`asked_for`); the embedded
store also looks the whole query up as a phrase, for the quote's passage that neither
side's best hold (`PHRASE_MOST`). Where the keyword side is calibrated, a hit holding one
or two of a longer query's words by chance earns no keyword credit
(`chance_matches_down`, `KEYWORD_CREDIT_WORDS`), and a query written in CJK whose vector
side found passages in CJK reads its keyword side's bigrams on min-max at a lower weight
(`cjk_passages`, `CJK_ALPHA`); where its keyword side's best stands apart, holds
several of its bigrams and sits near it by meaning too, both sides agree on that passage
and the query leans on keywords (`cjk_agreement`, `CJK_AGREED_ALPHA`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from video_research.knowledge.keyword_tokens import (
    content_terms,
    count_terms,
    holds_most_words,
    matched_share,
    query_tokens,
    quotes,
    tokens,
)
from video_research.knowledge.relevance import STOPWORDS

K = TypeVar("K")

BASE = 0.6
"""alpha of a query without specific tokens (the previous fixed default)."""
MODEL_BASE = {"local:use-multilingual": 0.75}
"""A stronger vector side earns more weight: with use-multilingual, 0.6 lost to vectors
only on the notes' MRR, 0.7 did not; once links were placed by a vote of neighbouring
windows (`transcripts.meaning.MEANING_VOTE_SECONDS`), 0.7 lost to vectors only on the
viewer queries' moment@5 (0.800 against 0.807), 0.75 and 0.8 did not (0.813 and 0.820;
the notes' tuning part 0.974 with both). 0.75, not 0.8: with 100k distractor chunks
of other videos the vector side falls furthest, and 0.8 lost more there (all queries'
moment@5 0.644 against 0.652; 0.663 at 0.7) (make eval, tuning parts)."""
STEP = 0.1
"""alpha given to the keyword side per specific token."""
FLOOR = 0.4
"""The lowest adaptive alpha: the vector side always keeps a say."""

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_TOKEN = re.compile(r"[^\W_]+(?:[.\-'][^\W_]+)*", re.UNICODE)
_LATIN_IN_CJK = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]*")
_IDENTIFIER = re.compile(r"[a-z][A-Z]|[.\-]")


def specific_tokens(query: str, held: str | None = None) -> int:
    """How many tokens of `query` name something exactly (see the module docstring); with
    `held` (the text of the keyword side's best hits), only those names that text holds
    (`NAMES_AMONG`)."""
    have = None if held is None else set(tokens(held))
    count = 0
    for position, token in enumerate(_TOKEN.findall(query)):
        if _CJK.search(token):
            names = _LATIN_IN_CJK.findall(token)
        elif (
            any(ch.isdigit() for ch in token)
            or (position > 0 and token[0].isupper())
            or _IDENTIFIER.search(token)
        ):
            names = [token]
        else:
            continue
        count += sum(1 for name in names if have is None or set(tokens(name)) <= have)
    return count


def query_alpha(query: str, embedder_identity: str = "", held: str | None = None) -> float:
    """The hybrid weight for `query` when the caller leaves alpha out (with `held`, counting
    only the names the keyword side's best hits hold: `specific_tokens`)."""
    base = MODEL_BASE.get(embedder_identity, BASE)
    return max(FLOOR, base - STEP * specific_tokens(query, held))


NAMES_AMONG = 3
"""How many of the keyword side's best hits a name of the query must be among to count
(`adapted_alpha`). A capitalised word is a name in English and every noun in German: a
German sentence asked of English lectures had five to nine "names", its weight fell to
the floor, and the few chance matches of its words (a number, "Video") outranked what
the vector side found. Counting only the names the keyword side found (in any of its
three best hits: a note naming several things rarely has them all in one passage) gave
the large eval corpus's other languages -> English queries 0.622 / 0.536 -> 0.633 /
0.569 moment@5 / MRR@10 and Chinese -> English MRR 0.615 -> 0.630 (tuning part, vectors
only 0.656 / 0.589 and 0.613), and the 39 videos' cross-language MRR 0.824 -> 0.831;
only the best hit lost the notes' MRR there (0.972 -> 0.965). docs/benchmarks.md."""


NO_MATCH_SHARE = 0.1
"""Under this share of the query's words in the keyword side's best hit, no name of the
query counts (`names_held`): the keyword side did not find the query, and the names its
hits hold are chance matches, a digit or a capitalised word ("2D", "Projektion") that a
Spanish, German or Japanese sentence shares with an English lecture. Counted, they sank
such a query's weight below the base and chance keyword matches outranked what the
vector side found. Replayed on the tuning parts: the large eval corpus's other
languages -> English 0.633 / 0.569 -> 0.667 / 0.602 moment@5 / MRR@10 on the corpus
alone (vectors only 0.656 / 0.589) and 0.600 / 0.529 -> 0.633 / 0.560 with 100k
distractor chunks (vectors only 0.633 / 0.555); the 39 videos' cross-language MRR 0.801
-> 0.814 and Chinese notes MRR 0.845 -> 0.868; no tuning group lost. 0.2 and 0.3 gained
less and 0.3 lost the 39 videos' notes. On the held-out part one of the 43 sentences in
other languages fell out of the first five (docs/benchmarks.md, "Long notes lean on
keywords")."""
NO_MATCH_MODELS = frozenset({"local:use-multilingual"})
"""The embedders NO_MATCH_SHARE applies to: those whose vector side reads a query in
another language. Dropping a query's chance names hands it to the vector side; with
all-MiniLM-L6-v2, which reads English only, the names are all a Chinese note has, and
the rule lowered the 39 videos' Chinese notes from 0.814 / 0.708 to 0.721 / 0.604
(keywords only 0.791 / 0.681). Not measured with the other models, so not applied."""


def names_held(query: str, embedder_identity: str, keyword_texts: Sequence[str]) -> str:
    """The text whose names count for `query` (`specific_tokens`' `held`) once its keyword
    side has answered (`keyword_texts`: its best hits' text, best first): the NAMES_AMONG
    best hits, or nothing when the best holds under NO_MATCH_SHARE of the query's words
    (NO_MATCH_MODELS only)."""
    if not keyword_texts:
        return ""
    if (
        embedder_identity in NO_MATCH_MODELS
        and matched_share(query, keyword_texts[0]) < NO_MATCH_SHARE
    ):
        return ""
    return "\n".join(keyword_texts[:NAMES_AMONG])


def adapted_alpha(
    query: str,
    embedder_identity: str,
    keyword_texts: Sequence[str],
    best_keyword: float | None = None,
    vector_texts: Sequence[str] | None = None,
    agreed: bool = False,
) -> float:
    """The default weight of `query` once its keyword side has answered (`keyword_texts`:
    the text of its best hits, best first): names count where the keyword side found them
    (`names_held`, `query_alpha`), and a query whose best hit holds its words leans on
    keywords (`keyword_match`), as does one whose best hit's calibrated keyword score
    (`best_keyword`; None where the keyword side has none: Weaviate) reaches
    STRONG_KEYWORDS. Both backends compute the rest from the same texts. With the vector
    side's best hits (`vector_texts`, the embedded store), a CJK query among CJK passages
    weighs at most CJK_ALPHA (`cjk_passages`); one whose best keyword hit both sides
    agree on (`agreed`: `cjk_agreement`) at most CJK_AGREED_ALPHA."""
    held = names_held(query, embedder_identity, keyword_texts)
    alpha = query_alpha(query, embedder_identity, held)
    matched = bool(keyword_texts) and keyword_match(query, keyword_texts[0])
    if matched or (best_keyword is not None and min(best_keyword, 1.0) >= STRONG_KEYWORDS):
        alpha = min(alpha, KEYWORD_MATCH_ALPHA)
    elif cjk_passages(query, vector_texts):
        alpha = min(alpha, CJK_ALPHA)
    if agreed:
        alpha = min(alpha, CJK_AGREED_ALPHA)
    return alpha


KEYWORD_MATCH_SHARE = 0.7
"""The share of the query's distinct words the best keyword hit must hold for the query
to lean on keywords (see the module docstring). Chosen on make eval's tuning parts (the
viewer queries and the notes' tuning part) in a replay of cached result lists: with 100k
distractor chunks of other videos their moment@5 rose from 0.619 to 0.677, and on the
corpus alone stayed 0.867. 0.8 gave the same; 0.6 the same at 100k and one query more on
the corpus alone (0.872), within the replay's noise (it rounds alpha to a grid), and
would let a three-word query lean on two of its words; 0.9 and 1.0 (every word) less at
100k (0.659, 0.650): a quote often drops or changes a word of what was said; 0.5 less
on both (0.863 / 0.655)."""
KEYWORD_MATCH_ALPHA = 0.2
"""alpha of a query whose words the best keyword hit holds (at most). 0.4 kept less at
100k (0.673) and 0 lost on the corpus alone (0.859): the vector side still breaks ties
between passages that hold the same words."""


KEYWORD_MATCH_WORDS = 8
"""A query also leans on keywords when its best keyword hit holds this many of its
distinct words that are not stopwords, and at least LONG_MATCH_SHARE of all its words:
a long note ("correct answer equal none others necessarily true let's walk through
case", 17 words) is found by a passage holding ten of them, which no chance match does,
while a paraphrase holding half of its eight words holds three or four. On the large
eval corpus's tuning part (replayed) the English notes went from 0.976 / 0.954 to
0.985 / 0.966 moment@5 / MRR@10 on the corpus alone (keywords only 0.985 / 0.967) and
from 0.951 / 0.934 to 0.966 / 0.948 with 100k distractor chunks (keywords only 0.976 /
0.959), every other group unchanged; the 39 videos unchanged. 6 or 7 words lowered the
39 videos' notes MRR (0.921 -> 0.919), 10 gained less on the large corpus (0.980).
docs/benchmarks.md, "Long notes lean on keywords"."""
LONG_MATCH_SHARE = 0.5
"""See KEYWORD_MATCH_WORDS: 0.4 gave the same on both corpora; a passage holding eight
words of a thirty-word query is not what it asked for."""

STRONG_KEYWORDS = 0.7
"""A query also leans on keywords when its best keyword hit's calibrated score (BM25 over
what a passage holding each of the query's telling words once scores) reaches this:
that hit holds the query's rare words, whatever share of all its words that is. Counting
words cannot tell the content words of chat ("god half hours afternoon main project get
right now going", four of nine held) from a paraphrase's chance matches; their weight
can: that hit scored 0.72, the next 0.45, and a paraphrase's chance match holds common
words that score low. Only where the keyword side is calibrated (the embedded store).
Chosen in the replay on the tuning parts (docs/benchmarks.md, "A keyword hit strong
enough to lean on"): with 100k distractor chunks the English notes went from 0.985 /
0.976 to 0.990 / 0.981 moment@5 / MRR@10 (keywords only 0.990 / 0.976) and the literal
Chinese quotes from 0.923 / 0.897 to 0.962 / 0.936; nothing lost on the corpus alone or
the 39 videos. 0.5 and 0.6 gained the same and cost the 39 videos' notes MRR (0.937 ->
0.934); 0.8 left the notes behind keywords only. The held-out part, looked at after the
choice, lost one note's rank on the corpus alone (MRR 0.987 -> 0.982), where 0.5 would
have gained (0.995): reported, not tuned on."""


CJK_ALPHA = 0.6
"""alpha at most of a query written in CJK whose vector side's first CJK_AMONG hits hold a
passage written in CJK (`cjk_passages`), and that side read on min-max instead of the
calibrated scale (`calibrated_keywords`). The keyword side cuts CJK into character
bigrams: a Chinese claim restating a Chinese passage keeps its two-character words, so
the passage holds several of the claim's bigrams, but never most of them, and on the
calibrated scale it scored 0.1-0.4: with the base weight (0.75) the keyword side could
not lift it over what the vector side put first. On the large eval corpus's 35 tuning
Chinese claims the default was 0.600 / 0.543 moment@5 / MRR@10 on the corpus alone
against keywords only's 0.714 / 0.610, 0.771 / 0.623 with the rule; with 100k distractor
chunks 0.514 / 0.404 -> 0.600 / 0.478 (keywords only 0.686 / 0.578). Chosen in the
replay on the tuning parts: 0.5 and 0.4 gained more among distractors but sank the
Chinese questions about English videos below vectors only (the large corpus's 87
translations, MRR 0.583 and 0.559 against 0.613 on the corpus alone); 0.7 and 0.75 gained
less (docs/benchmarks.md, "Chinese claims lean on their bigrams")."""
CJK_AMONG = 50
"""How many of the vector side's best hits are looked at for a passage written in CJK
(`cjk_passages`). The gate keeps the rule off a Chinese question about English videos
(the 39 videos' Chinese notes): its keyword side matches Chinese passages on common
bigrams by chance, and read on min-max at 0.6 without the gate those cost the 39
videos' cross-language MRR 0.798 -> 0.765 (vectors only 0.769). Among distractor chunks
in other languages the vector side ranks them above the claim's passage, so the first
ten held it less often than fifty: the tuning claims with 100k distractors 0.571 / 0.470
with ten, 0.600 / 0.478 with fifty, the same on the corpus alone and on the 39 videos;
one to five kept less on the large corpus. The held-out part, looked at after the
choice, lost two of its 42 Chinese questions about English videos from the first five
on the corpus alone (a Chinese podcast passage among their vector side's first 50; with
ten, one): reported, not tuned on."""
_CJK_SHARE = 1 / 3
"""A text is written in CJK when this share of its characters are (a Chinese passage that
keeps English names and numbers still is)."""


def written_in_cjk(text: str) -> bool:
    """Whether `text` is written in CJK: _CJK_SHARE of its characters, spaces aside."""
    letters = len(text) - text.count(" ")
    return letters > 0 and len(_CJK.findall(text)) >= _CJK_SHARE * letters


def cjk_passages(query: str, vector_texts: Sequence[str] | None) -> bool:
    """Whether `query` is written in CJK and the vector side's first CJK_AMONG hits
    (`vector_texts`, best first; None: not known, as in Weaviate) hold a passage written
    in CJK: a search among passages in the query's own script, where the keyword side's
    bigrams are evidence (`CJK_ALPHA`)."""
    return (
        vector_texts is not None
        and written_in_cjk(query)
        and any(written_in_cjk(text) for text in vector_texts[:CJK_AMONG])
    )


CJK_AGREED_MARGIN = 1.15
"""How far a CJK query's best keyword hit must score above the keyword side's second
(calibrated scores, each capped at 1) for both sides to agree on it (`cjk_agreement`).
Among distractor chunks the vector side (use-multilingual) fills its candidates with
passages near every Chinese sentence, and a Chinese claim's passage is not among them:
even on min-max at CJK_ALPHA its few bigrams could not lift it back, and with 100k
distractor chunks the default kept 0.600 / 0.478 moment@5 / MRR@10 of the large eval
corpus's 35 tuning claims against keywords only's 0.686 / 0.578. A keyword best that
stands apart, holds several of the claim's bigrams and sits near the query by meaning
too is the passage the claim restates. First chosen at 1.3 in the replay on the tuning
parts (docs/benchmarks.md, "Chinese claims: when both sides agree"), which left the
claims one claim below keywords only among 1M distractors; with repeated passages folded
(`transcripts.moments.fold_repeats`) 1.15 and 1.1 reach keywords only there (MRR@10
0.585 and 0.583 against 0.577; 1.2-1.3 keep 0.562: the claim they add scores 1.18 times
its second). 1.15 costs the Chinese questions about English videos one place in the
first five on the corpus alone (0.701 -> 0.690, vectors only 0.678) and one at 100k
(0.621 -> 0.609, equal to vectors only); 1.1 costs the claims MRR alone too (0.635
against 0.649) (docs/benchmarks.md, "Repeated passages folded")."""
CJK_AGREED_NEAR = 0.6
"""The share of the vector side's best cosine (exact) that the agreed keyword hit's own
cosine must reach (`cjk_agreement`). The claims' passages it lifts sat at 0.6 or more
of it among 100k distractors (some above 1: the vector side's best is the nearest by the
index's codes), the chance matches of Chinese questions about English videos mostly
lower (0.2-0.8). 0.5 gave the same on the tuning parts; 0.8 kept less among 100k
distractors (0.714 / 0.570 against 0.714 / 0.591)."""
CJK_AGREED_TERMS = 5
"""How many of the query's distinct bigrams (stopwords aside) the agreed keyword hit must
hold (`cjk_agreement`). A short Chinese passage holding four common ones by chance (不同,
假设, 增长: a line of chat) scores far above the next under BM25's length normalisation;
the claims' passages held 3-11 of their 15-33. Chosen on the tuning parts among 0, 5 and
6: without the count one claim fell out of the first five on the corpus alone (0.743 /
0.640 against 0.771 / 0.649); 6 lost claims among 100k distractors (0.686 / 0.563). The
count was added after the rule without it had been looked at on the held-out part, where
it cost two of the 42 Chinese questions about English videos their place on the corpus
alone (0.619 -> 0.571): for this rule those figures are not untouched."""
CJK_AGREED_ALPHA = 0.1
"""alpha at most of a CJK query whose best keyword hit both sides agree on
(`cjk_agreement`): the keyword side orders, the vector side breaks its ties. 0 and 0.2
gave the same moment@5 and less MRR@10 among 100k distractors (0.587 and 0.569 against
0.591)."""


def cjk_agreement(
    query: str,
    best_text: str,
    scores: Sequence[float],
    cosines: Callable[[], tuple[float, float] | None],
) -> bool:
    """Whether both sides agree on a CJK query's best keyword hit (its text `best_text`;
    `scores`: the keyword side's best calibrated scores, best first; `cosines`: that
    hit's cosine to the query and the vector side's best, or None where either is not
    known, asked for last since a store reads two vectors for them): the query and the
    hit are written in CJK, the hit holds CJK_AGREED_TERMS of the query's bigrams, scores
    CJK_AGREED_MARGIN times the keyword side's second (if any), and its cosine is
    CJK_AGREED_NEAR of the vector side's best. Such a hit is what a Chinese claim
    restates; the default weight then leans on keywords (CJK_AGREED_ALPHA)."""
    if not scores or not written_in_cjk(query) or not written_in_cjk(best_text):
        return False
    second = min(scores[1], 1.0) if len(scores) > 1 else 0.0
    if min(scores[0], 1.0) < CJK_AGREED_MARGIN * second:
        return False
    terms = content_terms(query_tokens(query))
    if len(count_terms(best_text, terms)) < CJK_AGREED_TERMS:
        return False
    found = cosines()
    return found is not None and found[0] >= CJK_AGREED_NEAR * found[1]


def keyword_match(query: str, text: str) -> bool:
    """Whether the best keyword hit (`text`) holds what `query` asked, so that the query
    leans on keywords: KEYWORD_MATCH_SHARE of its distinct words, or KEYWORD_MATCH_WORDS
    of them that are not stopwords and LONG_MATCH_SHARE of all."""
    terms = query_tokens(query)
    if not terms:
        return False
    held = count_terms(text, terms)
    share = len(held) / len(terms)
    if share >= KEYWORD_MATCH_SHARE:
        return True
    content = sum(1 for term in held if term not in STOPWORDS)
    return share >= LONG_MATCH_SHARE and content >= KEYWORD_MATCH_WORDS


def keyword_match_alpha(alpha: float, share: float | None) -> float:
    """`alpha` lowered to KEYWORD_MATCH_ALPHA when the best keyword hit holds `share` of
    the query's words (`keyword_tokens.matched_share`) and that is KEYWORD_MATCH_SHARE or
    more; else `alpha` unchanged (also without a keyword hit: None)."""
    if share is not None and share >= KEYWORD_MATCH_SHARE:
        return min(alpha, KEYWORD_MATCH_ALPHA)
    return alpha


def calibrated_keywords(
    query: str, held: str | None = None, vector_texts: Sequence[str] | None = None
) -> bool:
    """Whether the default search weighs `query`'s keyword side by its calibrated score
    (the keyword index's BM25 over what a passage holding every query word once scores,
    0..1 for every query) instead of min-max over its candidates: for a query that names
    nothing (`specific_tokens` 0). Min-max gives the best keyword hit 1.0 however little
    of the query it holds; for a paraphrase, whose words turn up by chance in passages
    about something else, that pulled those passages above what the vector side found
    (make eval, the replay in docs/benchmarks.md: the 38 paraphrases' moment@5 / MRR@10
    0.368 / 0.199 -> 0.395 / 0.249, vectors only 0.395 / 0.257). A query that names
    things keeps min-max: a name's few hits are what it asked for, however low BM25
    scores them against the whole query (the Chinese notes, which keep English names,
    fell from 1.000 to 0.977 when calibrated). With `held`, only the names those hits
    hold count (`NAMES_AMONG`). A CJK query among CJK passages (`cjk_passages`, given the
    vector side's best hits' `vector_texts`) keeps min-max too: its passage holds a few
    of its many bigrams, which the calibrated scale scores low (`CJK_ALPHA`)."""
    return specific_tokens(query, held) == 0 and not cjk_passages(query, vector_texts)


KEYWORD_CREDIT_WORDS = 3
"""A passage holding fewer of a query's distinct words other than stopwords (and not all
of them) gets no keyword credit where the keyword side is calibrated (`chance_matches_down`).
Chosen on make eval's tuning parts (the replay, `--fusion --tuning-only`) among 0, 2 and 3:
3 brought the 39 videos' paraphrases to vectors only (MRR@10 0.271 -> 0.293) and the large
corpus's Chinese quotes above keywords only (MRR 0.923 -> 0.955 alone, 0.885 -> 0.897 at
100k), every tuning group at or above the better single mode on the corpus alone; 2 gained
less. It cost one French query on the 39 videos, whose passage holds its variable "t"
alone (docs/benchmarks.md, "A chance word earns no keyword credit")."""


def keyword_credit(terms: Sequence[str], text: str, least: int | None = None) -> bool:
    """Whether a keyword hit's `text` holds enough of a query's distinct words other than
    stopwords (`terms`: `keyword_tokens.content_terms` of its tokens, the words the keyword
    side asked with) to count as found by keywords: KEYWORD_CREDIT_WORDS of them, or all.
    A paraphrase shares a word or two with many passages by chance ("half", "rounds",
    "choice"); on the calibrated scale such a hit scores 0.1-0.2, enough to lift it over
    a passage the vector side ranked just above it, which is what such a query needs. A
    question in another language may share one word that matters (a variable, a cognate)
    and loses it too: one French question on make eval. `least`: instead of
    KEYWORD_CREDIT_WORDS (the eval's replay)."""
    held = count_terms(text, terms)
    return len(held) >= min(KEYWORD_CREDIT_WORDS if least is None else least, len(terms))


def chance_matches_down(
    fused: list[tuple[K, float]],
    keyword: dict[K, float],
    weight: float,
    read: Callable[[Iterable[K]], dict[K, str]],
    terms: Sequence[str],
    head: int,
) -> list[tuple[K, float]]:
    """`fused` (best first, its keyword side calibrated and weighted by `weight`; `keyword`
    key -> that side's score) with the keyword credit taken from the hits that fail
    `keyword_credit`, as if the keyword side had not returned them. Only the first `head`
    are settled: `read` gives the keyword text of the keys asked (a store read each), and
    taking credit only lowers a score, so the first `head` are exact once every credited
    hit among them has been checked (a few rounds; those beyond keep unchecked scores)."""
    if not terms or weight <= 0:
        return fused
    order = {key: at for at, (key, _) in enumerate(fused)}
    scores = dict(fused)
    checked: set[K] = set()
    while True:
        ranked = sorted(scores, key=lambda key: (-round(scores[key], 7), order[key]))
        ask = [key for key in ranked[:head] if key in keyword and key not in checked]
        if not ask:
            return [(key, scores[key]) for key in ranked]
        texts = read(ask)
        for key in ask:
            checked.add(key)
            if not keyword_credit(terms, texts.get(key, "")):
                scores[key] -= weight * min(1.0, max(0.0, keyword[key]))


QUOTE_DEPTH = 30
"""How many of the keyword side's best hits are read for a passage the query quotes."""

PHRASE_MOST = 5
"""A query of QUOTE_MIN_TOKENS or more whose words, as one phrase, are in this many
passages or fewer quotes them, wherever either side ranked them (the embedded store's
FTS5 phrase lookup, `backends.fts.phrase_rows`): among a million chunks of one
channel's talks the keyword side's first QUOTE_DEPTH were often other passages holding
the same words. On the large eval corpus with 1M distractor chunks, the phrase of 658 of
its 664 literal English quotes found the right video, 629 of them in one passage alone
(docs/benchmarks.md, "Quotes found word for word"). In more passages it is a saying,
which tells nothing. Weaviate has no phrase search: there only the keyword side's best
are read."""


def asked_for(texts: dict[K, str], run: tuple[str, ...], quoted: Sequence[K] = ()) -> set[K]:
    """Which of the keyword side's best hits (`texts`, key -> keyword text) the query
    whose `quote_tokens` are `run` asked for, to go first (`quotes_first`): those it
    quotes (`keyword_tokens.quotes`), with `quoted`, what the store found quoted by other
    means (the embedded store's phrase lookup); when it quotes none, those holding most of
    its words in any order (`keyword_tokens.holds_most_words`: a note). Only when it
    quotes none: a quoted sentence's words are often all in a longer passage that is not
    where it was said (the literal English quotes lost 0.003-0.030 MRR@10 with the rule
    applied beside quotes, make eval's tuning parts)."""
    found = {key for key, text in texts.items() if quotes(text, run)} | set(quoted)
    return found or {key for key, text in texts.items() if holds_most_words(text, run)}


def quotes_first(
    fused: list[tuple[K, float]], keyword: list[K], quoted: set[K], depth: int = QUOTE_DEPTH
) -> list[tuple[K, float]]:
    """`fused` (best first) with the passages the query quotes moved ahead of the rest.

    A query that holds a passage's words as one run, in order (`keyword_tokens.quotes`:
    someone pasting a sentence they remember), asked for that passage. BM25 does not know
    it: its length normalisation ranks a short passage holding most of those words above
    a long one holding all of them, and among a few hundred videos of one subject the
    vector side fills the fused list with passages about the same thing. On the large
    eval corpus (360 videos) the quoted passage was often below the keyword side's first
    hit, so neither side nor their fusion put it first: literal English quotes, held-out
    moment@5 / MRR@10 0.938 / 0.906 with the fusion, 0.955 / 0.919 with keywords only,
    0.978 / 0.972 with quotes first (docs/benchmarks.md, "Quotes first").

    `keyword` is the keyword side's best keys in its order (the first `depth` count),
    `quoted` those of them the query quotes: they go first in that order, each scored by its keyword rank
    above every other hit, and the scores are then rescaled so that the best is 1 (the
    ratios between hits, which merging reads, do not change)."""
    if not quoted:
        return fused
    top = max((score for _, score in fused), default=1.0)
    boosted = {
        key: top + 1.0 + (depth - rank) / depth
        for rank, key in enumerate(keyword[:depth])
        if key in quoted
    }
    ranked = sorted(boosted.items(), key=lambda item: -item[1]) + [
        (key, score) for key, score in fused if key not in boosted
    ]
    best = ranked[0][1]
    return [(key, score / best) for key, score in ranked]
