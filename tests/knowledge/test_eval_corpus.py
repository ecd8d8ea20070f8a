"""The large eval corpus (tests/eval/large_corpus.py): made from snapshots laid out as the
three source repositories lay them out, its transcripts read back through the project's
own parsers, and every query points at the moment it was made from."""

from __future__ import annotations

import json
from pathlib import Path

from tests.eval import large_corpus
from tests.eval.metrics import load_queries
from video_research.transcripts.parsers import parse_file

MATH_ID = "AAAAAAAAAAA"
CODE_ID = "CCCCCCCCCCC"
TALK_ID = "DDDDDDDDDDD"
ZH_ID = "EEEEEEEEEEE"


def _stamp(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d},000"


def _captions(root: Path) -> Path:
    folder = root / "2024" / "lecture"
    (folder / "english").mkdir(parents=True)
    (folder / "chinese").mkdir()
    (folder / "video_url.txt").write_text(f"https://www.youtube.com/watch?v={MATH_ID}")
    sentences = [
        (f"Sentence number {n} tells how the winding number of curve {n} is counted.", 10.0 * n)
        for n in range(200)
    ]
    srt = "\n".join(
        f"{n + 1}\n{_stamp(at)} --> {_stamp(at + 9)}\n{text}\n"
        for n, (text, at) in enumerate(sentences)
    )
    (folder / "english" / "captions.srt").write_text(srt)
    (folder / "english" / "sentence_timings.json").write_text(
        json.dumps([[text, at, at + 9] for text, at in sentences])
    )
    translations = [
        {
            "input": text,
            "translatedText": f"第{n}句话讲的是第{n}条曲线的环绕数怎么计算",
            "start": at,
        }
        for n, (text, at) in enumerate(sentences)
    ]
    (folder / "chinese" / "sentence_translations.json").write_text(
        json.dumps(translations, ensure_ascii=False)
    )
    return root


def _coding_train(root: Path) -> Path:
    (root / "transcripts").mkdir(parents=True)
    segments = [
        {
            "start": 4.0 * n,
            "end": 4.0 * n + 4,
            "text": f" Now segment {n} draws the fractal tree with branch {n}",
        }
        for n in range(60)
    ]
    prediction = {"output": {"detected_language": "english", "segments": segments}}
    (root / "transcripts" / f"{CODE_ID}.json").write_text(json.dumps(prediction))
    return root


def _podcast(video_id: str, language: str, words: list[str]) -> str:
    lines = [
        f"[00:{minute:02d}:00] " + " ".join(f"{w}{minute}x{n}" for n, w in enumerate(words))
        for minute in range(40)
    ]
    return (
        f"---\ntitle: an episode\nvideo_id: {video_id}\naccount_name: A Podcast\n"
        f"language: {language}\n---\n\n## Transcript\n\n" + "\n".join(lines) + "\n"
    )


def _kol(root: Path) -> Path:
    (root / "transcripts" / "talk").mkdir(parents=True)
    english = ["alpha", "beta", "gamma", "delta"] * 30
    chinese = ["模型", "数据", "训练", "推理"] * 30
    (root / "transcripts" / "talk" / "episode.md").write_text(_podcast(TALK_ID, "en", english))
    (root / "transcripts" / "talk" / "中文.md").write_text(_podcast(ZH_ID, "zh", chinese))
    return root


def test_export_reads_back_and_every_query_points_at_its_moment(tmp_path):
    out = tmp_path / "corpus"
    assert (
        large_corpus.main(
            [
                "--captions",
                str(_captions(tmp_path / "c")),
                "--coding-train",
                str(_coding_train(tmp_path / "t")),
                "--kol",
                str(_kol(tmp_path / "k")),
                "--out",
                str(out),
            ]
        )  # fmt: skip
        == 0
    )
    manifest = json.loads((out / "corpus.json").read_text())
    assert manifest["videos"] == 4 and manifest["languages"] == {"en": 3, "zh": 1}
    assert large_corpus.is_corpus(out / "transcripts")

    cues = {}
    for path in (out / "transcripts").iterdir():
        parsed = parse_file(path)
        assert parsed.cues and max(c.start for c in parsed.cues) < large_corpus.CAP_SECONDS
        cues[path.stem] = parsed.cues
    assert sorted(cues) == sorted([MATH_ID, CODE_ID, TALK_ID, ZH_ID])

    queries = load_queries(out / "queries.jsonl")
    groups = {large_corpus.group(q) for q in queries}
    assert groups == {"literal en", "notes en", "literal zh", "notes zh", "zh -> en"}
    for query in queries:
        assert query.split == ("held-out" if large_corpus.held_out(query.video_id) else "tune")
        # The cues spoken within 30 s of the label (a podcast's minute-long line counts
        # when the label falls inside it: its queries are labelled inside their line).
        near = " ".join(
            c.text
            for c in cues[query.video_id]
            if c.start - 30 <= query.second <= max(c.end, c.start) + 30
        )
        if query.kind == "literal":
            # The query's words are said within the moment's 30 s of its label.
            assert query.query.split()[0] in near, (query, near)
        if query.kind == "foreign":
            n = query.query[1 : query.query.index("句")]
            assert f"Sentence number {n} " in near


def test_a_pool_exported_for_the_corpus_never_holds_its_videos(tmp_path):
    """The distractor pool reads two of the corpus's own sources: exported with
    `--exclude-corpus`, it holds none of the corpus's videos in any language (a
    translation of an answer is a copy of it) and keeps the sources' other videos; a pool
    exported without it is refused by the eval for this corpus."""
    import pytest

    from tests.eval import distractors, pool

    captions, coding = _captions(tmp_path / "c"), _coding_train(tmp_path / "t")
    # A video the corpus does not take (no English sentence timings) and a Coding Train
    # transcript too short for it: the pool may hold both.
    other = captions / "2024" / "short"
    (other / "chinese").mkdir(parents=True)
    (other / "video_url.txt").write_text("https://youtu.be/OOOOOOOOOOO")
    (other / "chinese" / "auto_generated.srt").write_text(
        "1\n00:00:01,000 --> 00:00:03,000\n一个别的视频\n"
    )
    short = [{"start": 2.0 * n, "end": 2.0 * n + 2, "text": f" short {n}"} for n in range(10)]
    (coding / "transcripts" / "SSSSSSSSSSS.json").write_text(
        json.dumps({"output": {"detected_language": "english", "segments": short}})
    )
    corpus = tmp_path / "corpus"
    args = ["--captions", str(captions), "--coding-train", str(coding)]
    assert large_corpus.main([*args, "--kol", str(_kol(tmp_path / "k")), "--out", str(corpus)]) == 0
    ids = pool.exported_ids(corpus)
    assert ids == {MATH_ID, CODE_ID, TALK_ID, ZH_ID}

    for_corpus, unaware = tmp_path / "pool", tmp_path / "unaware"
    assert pool.main([*args, "--exclude-corpus", str(corpus), "--out", str(for_corpus)]) == 0
    held = {p.name for p in for_corpus.iterdir()} - {"pool.json"}
    assert held == {"OOOOOOOOOOO.zh.srt", "SSSSSSSSSSS.en.json"}
    assert not pool.pool_ids(for_corpus) & ids
    manifest = json.loads((for_corpus / "pool.json").read_text())
    assert manifest["excluded_corpora"] == [str(corpus)]
    assert ids <= set(manifest["excluded_corpus_ids"])
    distractors._refuse_corpus_videos(for_corpus, ids)

    # Unaware of the corpus, the same export holds its videos.
    found, _ = pool.captions_videos(pool.Source(captions), set())
    coded, _ = pool.coding_train_videos(pool.Source(coding), set())
    pool.export(pool.sample(found + coded, lines=1000), unaware, {})
    assert pool.pool_ids(unaware) & ids == {MATH_ID, CODE_ID}
    assert {f"{MATH_ID}.en.srt", f"{CODE_ID}.en.json"} <= {p.name for p in unaware.iterdir()}
    with pytest.raises(SystemExit, match="--exclude-corpus"):
        distractors._refuse_corpus_videos(unaware, ids)


def test_the_distractor_sets_split_tuning_and_held_out_by_group(tmp_path):
    """`scale_sets`: every query is in `all`, in exactly one part, and in exactly one
    group of its part."""
    out = tmp_path / "corpus"
    args = ["--captions", str(_captions(tmp_path / "c")), "--coding-train"]
    args += [str(_coding_train(tmp_path / "t")), "--kol", str(_kol(tmp_path / "k"))]
    assert large_corpus.main([*args, "--out", str(out)]) == 0
    queries = load_queries(out / "queries.jsonl")
    sets = large_corpus.scale_sets(queries)
    assert {"all", "tuning, all", "HELD-OUT, all"} <= set(sets)
    for query in queries:
        member = [name for name, keep in sets.items() if keep(query)]
        part = "HELD-OUT" if query.split == "held-out" else "tuning"
        assert member == ["all", f"{part}, all", f"{part}, {large_corpus.group(query)}"]


def test_the_hand_written_paraphrases_join_the_corpus_in_their_videos_part(tmp_path):
    """Each paraphrase names a moment of a corpus video; only the videos an export holds
    are asked about, each in the part (tuning or HELD-OUT) its video hashes to."""
    lines = large_corpus.PARAPHRASES.read_text(encoding="utf-8").splitlines()
    written = [json.loads(line) for line in lines if line.strip()]
    assert len({q["id"] for q in written}) == len(written) >= 50
    assert {q["kind"] for q in written} == {"paraphrase"}
    assert {q["query_language"] for q in written} == {"en", "zh"}
    assert all(q["query_language"] == q["passage_language"] for q in written)
    kept = {written[0]["video_id"], written[-1]["video_id"]}
    (tmp_path / "transcripts").mkdir()
    for video_id in kept:
        (tmp_path / "transcripts" / f"{video_id}.srt").write_text("")
    found = large_corpus.paraphrases(tmp_path)
    assert {q.video_id for q in found} == kept
    assert len(found) == sum(q["video_id"] in kept for q in written)
    for query in found:
        assert query.split == ("held-out" if large_corpus.held_out(query.video_id) else "tune")
        assert large_corpus.group(query) == f"paraphrase {query.query_language}"
