"""The ranking eval's tables and its fit: `make eval` and `make eval EVAL=--fit`.

Over the candidates of `ranking_data` (the large corpus, its chapter-title queries
from the Coding Train's own site, the no-answer queries), replayed by `ranking_eval`:

1. baselines beside the default: keywords only, vectors only, a fixed weight 0.3 / 0.5 /
   0.7, reciprocal rank fusion;
2. leave-one-channel-out cross-validation of the fitted fusion (chosen on nine channels,
   measured on the tenth, every fold);
3. the ablation: the default with each stage removed in turn;
4. relevance: how often the right moment and the no-answer queries' best hits are weak.

`--fit` chooses the fusion on every channel and fits relevance's logistic on the right
moments against the no-answer queries' first hits, then writes both into
video_research/knowledge/ranking_params.json for the embedder measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tests.eval import ranking_eval
from tests.eval.large_corpus import group
from tests.eval.ranking_eval import DEFAULT, Sample, Variant, describe, score

PARAMS = Path(__file__).parents[2] / "video_research" / "knowledge" / "ranking_params.json"

BASELINES: dict[str, Variant] = {
    "keywords only": Variant(fusion="keywords"),
    "vectors only": Variant(fusion="vectors"),
    "fixed alpha 0.3": Variant(fusion="alpha", alpha=0.3),
    "fixed alpha 0.5": Variant(fusion="alpha", alpha=0.5),
    "fixed alpha 0.7": Variant(fusion="alpha", alpha=0.7),
    "reciprocal rank fusion": Variant(fusion="rrf"),
    "default (fitted)": DEFAULT,
}

ABLATION: dict[str, Variant] = {
    "default": DEFAULT,
    "without folding repeats": Variant(fold=False),
    "without sentences' nearness (a chunk by its own vector only)": Variant(sentences=False),
    "link: sentences by meaning only (no words)": Variant(link_words=False),
    "link: words only (no stored sentences)": Variant(link_sentences=False),
    "link: none (the best chunk's start)": Variant(link_sentences=False, link_words=False),
}


def _say(text: str = "") -> None:
    print(text, flush=True)


def sets_of(samples: dict[str, list[Sample]]) -> dict[str, list[Sample]]:
    """The sets each table reports: every group of the large corpus, the chapter titles,
    and all English / all Chinese-query together."""
    large = samples.get("large", samples.get("small", []))
    out: dict[str, list[Sample]] = {}
    for name in sorted({group(s.query) for s in large}):
        out[f"large: {name}"] = [s for s in large if group(s.query) == name]
    out["large: English queries"] = [s for s in large if s.query.query_language == "en"]
    out["large: Chinese queries"] = [s for s in large if s.query.query_language == "zh"]
    out["large: all"] = large
    if samples.get("chapters"):
        out["Coding Train chapter titles (authors' labels)"] = samples["chapters"]
    return out


def table(rows: dict[str, dict[str, float]], columns: Sequence[str]) -> str:
    lines = ["| | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    for name, row in rows.items():
        cells = [f"{row[c]:.3f}" if isinstance(row[c], float) else str(row[c]) for c in columns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def baselines(sets: dict[str, list[Sample]]) -> None:
    rows = {
        name: {label: score(part, variant).row() for label, part in sets.items()}
        for name, variant in BASELINES.items()
    }
    for metric in ("moment@5", "MRR@10", "moment@1"):
        _say(f"\n### {metric}: baselines and the default\n")
        _say(
            table(
                {name: {k: v[metric] for k, v in row.items()} for name, row in rows.items()},
                list(sets),
            )
        )
    _say("\nn per set: " + ", ".join(f"{label} {len(part)}" for label, part in sets.items()))


def fitted_ablation(model: str) -> dict[str, Variant]:
    """The row that removes the fitted method's own part: the cosine min-max normalised
    like the keyword score (a fixed weight, the fitted one, over both)."""
    from video_research.knowledge import ranking

    fitted = ranking.params(model)
    if fitted.fusion != "cosine":
        return {}
    return {
        f"cosine normalised too (fixed alpha {fitted.alpha:.2f})": Variant(
            fusion="alpha", alpha=fitted.alpha
        )
    }


def ablation(sets: dict[str, list[Sample]]) -> None:
    model = next(s.model for part in sets.values() for s in part)
    _say(
        "\n### ablation: each stage removed in turn "
        f"(moment@5 / MRR@10 / link within {ranking_eval.LINK_SECONDS:.0f} s)\n"
    )
    rows = {}
    for name, variant in {**ABLATION, **fitted_ablation(model)}.items():
        rows[name] = {}
        for label, part in sets.items():
            scores = score(part, variant)
            row = scores.row()
            rows[name][label] = (
                f"{row['moment@5']:.3f} / {row['MRR@10']:.3f} / "
                f"{ranking_eval.link_rate(scores):.3f}"
            )
    _say(table(rows, list(sets)))


def cross_validation(samples: list[Sample]) -> None:
    _say("\n### leave-one-channel-out: fusion chosen on the other channels (moment@5 / MRR@10)\n")
    rows = {}
    folds = ranking_eval.cross_validate(samples)
    for fold in folds:
        chosen, base = fold["chosen_row"], fold["alpha 0.5"]
        rows[f"{fold['channel']} (n={fold['n']})"] = {
            "chosen on the others": fold["chosen"],
            "chosen, on this channel": f"{chosen['moment@5']:.3f} / {chosen['MRR@10']:.3f}",
            "fixed alpha 0.5": f"{base['moment@5']:.3f} / {base['MRR@10']:.3f}",
        }
    total = sum(fold["n"] for fold in folds) or 1

    def pooled(column: str, metric: str) -> float:
        return sum(fold[column][metric] * fold["n"] for fold in folds) / total

    rows[f"every fold pooled (n={total})"] = {
        "chosen on the others": "",
        "chosen, on this channel": (
            f"{pooled('chosen_row', 'moment@5'):.3f} / {pooled('chosen_row', 'MRR@10'):.3f}"
        ),
        "fixed alpha 0.5": (
            f"{pooled('alpha 0.5', 'moment@5'):.3f} / {pooled('alpha 0.5', 'MRR@10'):.3f}"
        ),
    }
    _say(table(rows, ["chosen on the others", "chosen, on this channel", "fixed alpha 0.5"]))


def relevance(answerable: list[Sample], no_answer: list[Sample]) -> None:
    from tests.eval.metrics import is_moment
    from video_research.knowledge.relevance import is_weak

    right_weak = right = 0
    for sample in answerable:
        for video, at, value in ranking_eval.replay(sample):
            if is_moment(sample.query, (video, at)):
                right += 1
                right_weak += is_weak(value)
                break
    flagged = sum(
        1
        for sample in no_answer
        if all(is_weak(value) for _, _, value in ranking_eval.replay(sample)[:1])
    )
    _say("\n### relevance (weak below 0.5)\n")
    _say(
        f"- right moments flagged weak: {right_weak} of {right} ({right_weak / max(right, 1):.3f})\n"
        f"- no-answer queries whose best hit is weak: {flagged} of {len(no_answer)} "
        f"({flagged / max(len(no_answer), 1):.3f})"
    )


def fit(samples: dict[str, list[Sample]]) -> dict:
    """Every parameter of the pipeline for the samples' embedder (see the module doc)."""
    large = samples.get("large", samples.get("small", [])) + samples.get("chapters", [])
    chosen = ranking_eval.choose(large)
    model = large[0].model
    entry: dict = {"fusion": chosen.fusion, "alpha": chosen.alpha}
    ranking_eval.write_params(PARAMS, {model: entry})
    _reload()
    positives, negatives = ranking_eval.relevance_samples(large, samples["no-answer"])
    entry["relevance"] = ranking_eval.fit_relevance(positives, negatives)
    ranking_eval.write_params(PARAMS, {model: entry})
    _reload()
    _say(f"\nfitted for {model}: {describe(chosen)}, relevance {entry['relevance']}")
    _say(f"({len(positives)} right moments, {len(negatives)} no-answer hits) -> {PARAMS}")
    return entry


def _reload() -> None:
    from video_research.knowledge import ranking

    ranking._params_file.cache_clear()
    ranking_eval.forget()


def report(samples: dict[str, list[Sample]]) -> None:
    sets = sets_of(samples)
    answerable = samples.get("large", samples.get("small", []))
    baselines(sets)
    cross_validation(answerable + samples.get("chapters", []))
    ablation(sets)
    relevance(answerable, samples.get("no-answer", []))
