"""Which caption file belongs to which video: the same name in the same folder, with
yt-dlp's language tag allowed between the name and the suffix."""

from __future__ import annotations

from video_research.support.media_names import caption_language, captions_beside, video_beside


def _touch(folder, *names):
    for name in names:
        (folder / name).write_bytes(b"x")
    return folder


def test_a_caption_file_finds_the_video_of_its_name(tmp_path):
    _touch(
        tmp_path,
        "lecture.mp4",
        "lecture.srt",
        "Talk [dQw4w9WgXcQ].webm",
        "Talk [dQw4w9WgXcQ].en-US.vtt",
        "notes.vtt",
        "my.talk.mkv",
        "my.talk.vtt",
    )
    assert video_beside(tmp_path / "lecture.srt") == tmp_path / "lecture.mp4"
    found = video_beside(tmp_path / "Talk [dQw4w9WgXcQ].en-US.vtt")
    assert found == tmp_path / "Talk [dQw4w9WgXcQ].webm"
    assert video_beside(tmp_path / "my.talk.vtt") == tmp_path / "my.talk.mkv"
    assert video_beside(tmp_path / "notes.vtt") is None


def test_a_video_finds_its_captions_untagged_first_then_by_language(tmp_path):
    _touch(
        tmp_path,
        "week1.mp4",
        "week1.de.vtt",
        "week1.en.vtt",
        "week1.srt",
        "week1.json",  # metadata as often as captions: never taken unasked
        "week10.vtt",
        "week1.info.json",
    )
    video = tmp_path / "week1.mp4"
    assert [p.name for p in captions_beside(video, ["en"])] == [
        "week1.srt",
        "week1.en.vtt",
        "week1.de.vtt",
    ]
    assert [p.name for p in captions_beside(video, ["de", "en"])][1] == "week1.de.vtt"
    assert caption_language(tmp_path / "week1.en.vtt", video) == "en"
    assert caption_language(tmp_path / "week1.srt", video) == ""
