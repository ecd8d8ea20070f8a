"""Speaker labels in the transcript index, without a recording: a chunk never spans a
change of speaker, a sentence takes the speaker holding most of it, records made before
speakers read as before, and a store's files indexed before the speaker pass re-index
(their settings hash changes) while the hash with the pass off stays what it was."""

from __future__ import annotations

import hashlib
import json

from video_research.media.speakers.diarize import Turn, label_sentences
from video_research.transcripts import indexer
from video_research.transcripts.chunker import chunk_cues
from video_research.transcripts.media_index import _settings_sha256
from video_research.transcripts.parsers import Cue


def test_a_chunk_never_spans_a_change_of_speaker():
    cues = [
        Cue(0.0, 2.0, "Welcome to the show.", "S1"),
        Cue(2.2, 4.0, "Thanks for having me.", "S2"),
        Cue(4.1, 6.0, "It is a pleasure.", "S2"),
        Cue(6.1, 8.0, "Let us begin.", "S1"),
    ]
    chunks, _ = chunk_cues(cues, target_tokens=256)
    assert [(c.speaker, c.text.count("\n") + 1) for c in chunks] == [
        ("S1", 1),
        ("S2", 2),
        ("S1", 1),
    ]
    unlabelled, _ = chunk_cues([Cue(c.start, c.end, c.text) for c in cues], target_tokens=256)
    assert len(unlabelled) == 1 and unlabelled[0].speaker == ""


def test_a_sentence_takes_the_speaker_holding_most_of_it():
    turns = [Turn(0.0, 5.0, "S1"), Turn(5.0, 9.0, "S2"), Turn(12.0, 14.0, "S1")]
    segments = [
        {"start": 0.5, "end": 4.0, "text": "a"},
        {"start": 4.5, "end": 8.0, "text": "b"},  # 0.5 s of S1, 3 s of S2
        {"start": 10.0, "end": 10.5, "text": "c"},  # in no turn: the nearest
    ]
    assert [s["speaker"] for s in label_sentences(segments, turns)] == ["S1", "S2", "S2"]


def test_records_without_speakers_read_as_before():
    old = {"segments_json": json.dumps([{"start": 0.0, "end": 1.0, "text": "Hi."}])}
    (cue,) = indexer.cues_of(old)
    assert cue.speaker == "" and cue.to_dict() == {"start": 0.0, "end": 1.0, "text": "Hi."}
    said = Cue(0.0, 1.0, "Hi.", "S2").to_dict()
    assert indexer.cues_of({"segments_json": json.dumps([said])})[0].speaker == "S2"


def test_the_speaker_pass_re_indexes_files_indexed_before_it():
    before = hashlib.sha256(
        json.dumps({"speech_model": "faster-whisper/base", "language": ""}, sort_keys=True).encode()
    ).hexdigest()
    assert _settings_sha256("faster-whisper/base", "") == before  # pass off: unchanged
    assert _settings_sha256("faster-whisper/base", "", "speakers/x") != before
