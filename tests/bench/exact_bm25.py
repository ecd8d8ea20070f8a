"""An independent exhaustive BM25: every document scored, the textbook formula.

The keyword index's recall is measured against this, not only against FTS5's bm25()
(whose IDF goes to ~0 for words in more than half the documents and whose tokens are
not the index's) nor against Tantivy's own exhaustive scoring (which shares Tantivy's
1-byte document-length codes, so it cannot show what they cost). Here:

    score(d, q) = sum over distinct query tokens t of
        ln(1 + (N - n_t + 0.5) / (n_t + 0.5)) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl))

with k1 = 1.2, b = 0.75, |d| the exact token count of the document and avgdl their
mean, over the tokens the keyword index stores (`keyword_index.tokens`: CJK bigrams,
Latin words and numbers whole).

Documents are split at line breaks (no token crosses one) and each distinct line is
tokenised once, so a million transcript chunks made of repeated caption lines load in
seconds; scoring a query is one sparse product (documents x lines) x (lines x terms).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import numpy as np
from scipy import sparse

K1 = 1.2
B = 0.75


class ExactBm25:
    def __init__(self, rows: Iterable[tuple[int, str]]) -> None:
        from video_research.knowledge.backends.keyword_index import tokens

        line_ids: dict[str, int] = {}
        self._line_counts: list[Counter] = []
        doc_rows, indptr, members = [], [0], []
        for row, body in rows:
            doc_rows.append(row)
            for line in body.split("\n"):
                at = line_ids.get(line)
                if at is None:
                    at = line_ids[line] = len(self._line_counts)
                    self._line_counts.append(Counter(tokens(line)))
                members.append(at)
            indptr.append(len(members))
        self.rows = np.asarray(doc_rows, dtype=np.int64)
        lines = len(self._line_counts)
        self._docs = sparse.csr_matrix(
            (np.ones(len(members), dtype=np.float32), np.asarray(members), np.asarray(indptr)),
            shape=(len(doc_rows), lines),
        )
        line_lengths = np.asarray([sum(c.values()) for c in self._line_counts], dtype=np.float32)
        self.lengths = self._docs @ line_lengths
        self.avgdl = float(self.lengths.mean()) if len(self.lengths) else 0.0
        self._norm = K1 * (1 - B + B * self.lengths / max(self.avgdl, 1e-9))
        self._postings: dict[str, dict[int, int]] = {}
        for at, counts in enumerate(self._line_counts):
            for token, tf in counts.items():
                self._postings.setdefault(token, {})[at] = tf

    def scores(self, terms: list[str]) -> np.ndarray:
        """Every document's BM25 score for the distinct `terms` (0 where none match)."""
        terms = list(dict.fromkeys(terms))
        total = np.zeros(len(self.rows), dtype=np.float64)
        if not terms:
            return total
        cols, lines, tfs = [], [], []
        for j, term in enumerate(terms):
            for line, tf in self._postings.get(term, {}).items():
                cols.append(j)
                lines.append(line)
                tfs.append(tf)
        by_line = sparse.csr_matrix(
            (np.asarray(tfs, dtype=np.float32), (lines, cols)),
            shape=(self._docs.shape[1], len(terms)),
        )
        tf = (self._docs @ by_line).tocsc()
        n = len(self.rows)
        for j in range(len(terms)):
            start, end = tf.indptr[j], tf.indptr[j + 1]
            docs, freq = tf.indices[start:end], tf.data[start:end].astype(np.float64)
            if not len(docs):
                continue
            idf = np.log(1 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            total[docs] += idf * freq * (K1 + 1) / (freq + self._norm[docs])
        return total

    def top(self, terms: list[str], k: int = 10) -> dict[int, float]:
        """{row id: score} of every document scoring at least the k-th best (ties kept)."""
        scores = self.scores(terms)
        matched = np.flatnonzero(scores > 0)
        if not len(matched):
            return {}
        kth = np.sort(scores[matched])[::-1][min(k, len(matched)) - 1]
        keep = matched[scores[matched] >= kth * (1 - 1e-6)]
        return {int(self.rows[i]): float(scores[i]) for i in keep}


def recall_at_k(found: list[int], top: dict[int, float], k: int = 10) -> float:
    """Share of the first k of `found` that the exact BM25 puts in its top k (a row tied
    with the k-th best counts: ties come back in any order)."""
    if not top:
        return 1.0
    return sum(1 for row in found[:k] if row in top) / min(k, len(top))
