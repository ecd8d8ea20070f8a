"""Speakers from window embeddings: average-linkage agglomerative clustering on cosine
distance, cut at a fitted distance, so the number of speakers is found, not given."""

from __future__ import annotations

import numpy as np

MAX_CLUSTERED = 1500
"""Windows clustered directly (the linkage is quadratic in memory); beyond, an even
sample is clustered and every window joins its nearest speaker's centroid."""


def cluster(embeddings: np.ndarray, threshold: float, min_share: float) -> np.ndarray:
    """A speaker number per row of `embeddings` (unit vectors): clusters whose average
    cosine distance is below `threshold` merge; a cluster holding less than `min_share`
    of the windows (a cough, a laugh, a music sting) joins its nearest larger one."""
    count = len(embeddings)
    if count == 0:
        return np.zeros(0, int)
    if count == 1:
        return np.zeros(1, int)
    from scipy.cluster.hierarchy import fcluster, linkage

    picked = np.arange(count)
    if count > MAX_CLUSTERED:
        picked = np.linspace(0, count - 1, MAX_CLUSTERED).round().astype(int)
    tree = linkage(embeddings[picked].astype(np.float64), method="average", metric="cosine")
    labels = fcluster(tree, t=threshold, criterion="distance") - 1
    centroids = _centroids(embeddings[picked], labels)
    sizes = np.bincount(labels, minlength=len(centroids))
    big = sizes >= max(1, min_share * len(picked))
    if not big.any():
        big[np.argmax(sizes)] = True
    keep = centroids[big]
    return np.argmax(embeddings @ keep.T, axis=1)


def _centroids(embeddings: np.ndarray, labels: np.ndarray) -> np.ndarray:
    out = np.zeros((labels.max() + 1, embeddings.shape[1]))
    np.add.at(out, labels, embeddings)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
