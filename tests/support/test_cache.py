"""The analysis file cache: keys, TTL, atomic writes, clear, stats."""

from __future__ import annotations

import contextlib
import json
import os
import time

from video_research.support.cache import Cache, atomic_write_json


def make(tmp_path, ttl=30):
    return Cache(directory=tmp_path / "cache", ttl_days=ttl)


def test_round_trip_and_key_parts(tmp_path):
    cache = make(tmp_path)
    cache.save(
        "dQw4w9WgXcQ", "video_analyze", "gemini-x", {"title": "t"}, instruction="list recipes"
    )
    assert cache.load("dQw4w9WgXcQ", "video_analyze", "gemini-x", instruction="list recipes") == {
        "title": "t"
    }
    assert cache.load("dQw4w9WgXcQ", "video_analyze", "gemini-x", instruction="other") is None
    assert (
        cache.load("dQw4w9WgXcQ", "video_analyze", "gemini-y", instruction="list recipes") is None
    )
    name = cache.path_for("dQw4w9WgXcQ", "video_analyze", "gemini-x", "list recipes").name
    assert name.startswith("dQw4w9WgXcQ_video_analyze_") and name.endswith(".json")
    envelope = json.loads((tmp_path / "cache" / name).read_text())
    assert set(envelope) >= {"cached_at", "content_id", "tool", "model", "analysis"}


def test_default_instruction_key(tmp_path):
    path = make(tmp_path).path_for("abc", "video_analyze", "m")
    assert "_default_" in path.name


def test_expired_entries_are_misses(tmp_path):
    cache = make(tmp_path, ttl=1)
    path = cache.save("vid", "video_analyze", "m", {"a": 1})
    old = time.time() - 2 * 86400
    os.utime(path, (old, old))
    assert cache.load("vid", "video_analyze", "m") is None
    assert cache.stats()["expired_files"] == 1


def test_content_id_cannot_escape_the_directory(tmp_path):
    cache = make(tmp_path)
    path = cache.save("../../etc/passwd", "video_analyze", "m", {"a": 1})
    assert path.parent == tmp_path / "cache"


def test_clear_by_content_id_is_exact_even_with_underscores(tmp_path):
    cache = make(tmp_path)
    cache.save("abc", "video_analyze", "m", {"a": 1})
    cache.save("abc_def", "video_analyze", "m", {"a": 2})
    assert cache.clear("abc") == 1
    assert cache.load("abc_def", "video_analyze", "m") == {"a": 2}
    assert cache.clear() == 1
    assert cache.stats()["total_files"] == 0


def test_list_and_stats(tmp_path):
    cache = make(tmp_path)
    cache.save("one", "video_analyze", "m", {"a": 1})
    cache.save("two", "video_analyze", "m", {"a": 2})
    entries, total = cache.list_entries(limit=1)
    assert total == 2 and len(entries) == 1
    stats = cache.stats()
    assert stats["total_files"] == 2 and stats["total_size_bytes"] > 0


def test_corrupt_file_is_a_miss_not_a_crash(tmp_path):
    cache = make(tmp_path)
    path = cache.path_for("vid", "video_analyze", "m")
    path.parent.mkdir(parents=True)
    path.write_text("{truncated")
    assert cache.load("vid", "video_analyze", "m") is None
    assert cache.list_entries()[1] == 0


def test_atomic_write_leaves_old_file_on_failure(tmp_path):
    target = tmp_path / "f.json"
    atomic_write_json(target, {"v": 1})

    class Unserializable:
        def __str__(self):
            raise RuntimeError("cannot serialize")

    with contextlib.suppress(RuntimeError):
        atomic_write_json(target, {"v": Unserializable()})
    assert json.loads(target.read_text()) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"], "temp file left behind"


def test_a_clock_stepped_back_does_not_reorder_the_list(tmp_path):
    from video_research.support import clock

    cache = make(tmp_path)
    cache.save("first", "video_analyze", "m", {"a": 1})
    clock.step(-3600)
    try:
        cache.save("second", "video_analyze", "m", {"a": 2})
        entries, _ = cache.list_entries()
        assert [e["content_id"] for e in entries] == ["second", "first"]
        assert cache.load("first", "video_analyze", "m") == {"a": 1}  # not expired backwards
    finally:
        clock.step(3600)


def test_an_entry_stamped_years_ahead_is_no_floor_for_new_ones(tmp_path):
    from video_research.support import cache as cache_module

    cache = make(tmp_path)
    future = cache.save("copied", "video_analyze", "m", {"a": 1})
    far = time.time() + 10 * 365 * 86400
    os.utime(future, (far, far))
    cache_module._newest.pop(cache.directory, None)  # a new process reads the folder
    fresh = cache.save("fresh", "video_analyze", "m", {"a": 2})
    assert fresh.stat().st_mtime < time.time() + 60  # expires on its own TTL
