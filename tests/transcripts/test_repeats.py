"""A passage said word for word in several places is one result that lists the others
(`moments.fold_repeats`): a video re-uploaded under another id, its captions in another
format, must not take the places of what else the search found."""

from __future__ import annotations

import re
import shutil

from tests.calls import call_ok
from tests.helpers import DATA

GLASS = DATA / "transcripts" / "formats" / "Glass recycling explained [gLaSsReCy_4].en.vtt"
QUERY = "why glass melted in the furnace can be reshaped without wearing out"


def _as_srt(vtt: str) -> str:
    """The same captions as a re-upload carries them: SRT cues, `,` before the
    milliseconds, entities decoded."""
    cues = [block for block in vtt.split("\n\n") if "-->" in block]
    blocks = []
    for n, cue in enumerate(cues, 1):
        timing, *text = cue.strip().splitlines()
        timing = re.sub(r"(\d\d)\.(\d{3})", r"\1,\2", timing)
        said = "\n".join(text).replace("&amp;", "&")
        blocks.append(f"{n}\n{timing}\n{said}\n")
    return "\n".join(blocks)


async def _search(folder, **given) -> list[dict]:
    await call_ok("index_transcript_files", {"path": str(folder), "fetch_metadata": False})
    found = await call_ok(
        "semantic_search_transcripts", {"query": QUERY, "auto_index": False, "k": 4, **given}
    )
    return found["results"]


async def test_a_reupload_is_folded_into_the_first_place_that_says_it(tmp_path):
    alone = tmp_path / "alone"
    shutil.copytree(DATA / "transcripts" / "formats", alone)
    before = await _search(alone)
    assert before[0]["video_id"] == "gLaSsReCy_4"
    assert all("repeats" not in moment for moment in before)

    both = tmp_path / "both"
    shutil.copytree(alone, both)
    (both / "Glass recycling (reupload) [gLaSsReUp_9].en.srt").write_text(
        _as_srt(GLASS.read_text())
    )
    after = await _search(both)
    copies = {"gLaSsReCy_4", "gLaSsReUp_9"}
    for moment in after:
        # the copies tie (the same words): either may come first, the other is folded
        said = {moment["video_id"], *(r["video_id"] for r in moment.get("repeats", []))}
        assert said == copies if moment["video_id"] in copies else "repeats" not in moment
    top = after[0]
    (repeat,) = top["repeats"]
    assert repeat["start_time"] == top["start_time"] and repeat["end_time"] == top["end_time"]
    assert repeat["timestamp_url"] == top["timestamp_url"].replace(
        top["video_id"], repeat["video_id"]
    )
    # The copy took no one's place: the same moments follow, in the same order.
    assert [(m["text"], m["match_time"]) for m in after] == [
        (m["text"], m["match_time"]) for m in before
    ]


async def test_a_passage_said_differently_is_not_a_repeat(tmp_path):
    """A clip of the video, cut a sentence later, says other words in its first chunk:
    it stays a result of its own."""
    folder = tmp_path / "talks"
    shutil.copytree(DATA / "transcripts" / "formats", folder)
    cues = GLASS.read_text().split("\n\n")
    clip = "\n\n".join([cues[0], *cues[2:]])  # the header, then from the second line on
    (folder / "Glass clip [gLaSsClIp_3].en.vtt").write_text(clip)
    results = await _search(folder)
    ids = [moment["video_id"] for moment in results]
    assert "gLaSsClIp_3" in ids and "gLaSsReCy_4" in ids
    assert all("repeats" not in moment for moment in results)
