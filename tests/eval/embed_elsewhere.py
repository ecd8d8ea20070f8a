"""Distractors embedded by multilingual-e5-small on another machine (a GPU), for issue 39.

e5's own vectors for 100k distractor chunks and their windows take this 2-core host about
50 minutes idle and two hours busy (`--true-vectors`, or `here` below), and the crude
approximation that serves other embedders is unfit for e5 (docs/benchmarks-log-2026.md,
"multilingual-e5-small on the large corpus"). A GPU does them in a minute, from the same
4-bit weights the store reads, dequantised the same way:

    # here: the distractors' texts (after the e5 store of the corpus is built), then
    # what the other machine needs (the encoder's blocks, the word rows those texts use,
    # the tokenizer, and reference vectors from the local fp32 graph to check against)
    make eval EVAL="--corpus large --embedders multilingual-e5-small --distractors 100000 \\
        --distractor-pool POOL --export-distractors TEXTS"
    .venv/bin/python -m tests.eval.embed_elsewhere pack TEXTS/distractors-100000-*.json.xz PACK
    # there (torch, numpy and tokenizers; run from a copy of this repository), once per part
    # (100k chunks in int8 and their ~230k windows in 4 bits each fit one 64 MB transfer)
    python3 -m tests.eval.embed_elsewhere embed PACK chunks OUT
    python3 -m tests.eval.embed_elsewhere embed PACK windows OUT
    # here: both parts in VECTORS/100000, then the run, which stores them as true vectors
    make eval EVAL="--corpus large --embedders multilingual-e5-small --distractors 100000 \\
        --distractor-pool POOL --distractor-vectors VECTORS"

Without a GPU, the same files come from this machine, with the store's own embedder, a
checkpoint every 5,000 rows (rerun the same command to go on where it stopped):

    .venv/bin/python -m tests.eval.embed_elsewhere here TEXTS/distractors-100000-*.json.xz \\
        VECTORS/100000 MODELS [--chunks-only]

`--chunks-only` embeds the chunks alone and each window takes its chunk's vector
(`distractors.GivenVectors`): the eval's figures are the same, for a third of the work.

`embed` refuses to write anything when its vectors of the reference texts fall below
cosine 0.999 to the local graph's. A distractor's windows only place the link of a
distractor's own moment (never a right answer), so 4 bits (cosine ~0.99) lose nothing the
eval measures.
"""

from __future__ import annotations

import json
import lzma
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.eval.distractors import pack_rows

REFERENCE_TEXTS = 48
"""Chunks, and as many windows, embedded here by the fp32 graph for `embed` to check."""
MATCH = 0.999
"""The least cosine `embed` accepts between its vectors and the reference's."""
ROWS_PER_FILE = {8: 40_000, 4: 80_000}
"""Rows per file: under 16 MiB each, the most one file of a transfer may hold."""


def pack(texts_file: Path, out: Path) -> None:
    """Write to `out` what `embed` needs for the texts in `texts_file` (`export_texts`)."""
    import numpy as np

    from video_research.knowledge.embedders import onnx_e5

    payload = json.loads(lzma.decompress(texts_file.read_bytes()))
    weights = onnx_e5.read_weights(onnx_e5.verified_weights(), blocks_kept=True)
    tokenizer = onnx_e5.E5Tokenizer(weights)
    used: set[int] = set(weights.specials.values())
    for kind in ("chunks", "windows"):
        texts = payload[kind]
        for start in range(0, len(texts), 4096):
            for row in tokenizer.ids(texts[start : start + 4096], onnx_e5.PASSAGE_PREFIX):
                used.update(row)
    ids = np.array(sorted(used), dtype=np.int32)
    out.mkdir(parents=True, exist_ok=True)
    arrays = {"used_ids": ids, "word_blocks": weights.word_blocks[ids]}
    arrays |= {"t:" + key: value for key, value in weights.tensors.items()}
    np.savez(out / "weights.npz", **arrays)
    plain = tokenizer._plain.to_str()  # noqa: SLF001 - the same Unigram model, serialised
    (out / "tokenizer.json.xz").write_bytes(lzma.compress(plain.encode()))
    meta = {
        "config": weights.config,
        "specials": weights.specials,
        "normalise": {str(k): v for k, v in weights.normalise.items()},
        "prefix": onnx_e5.PASSAGE_PREFIX,
        "max_tokens": onnx_e5.MAX_TOKENS,
        "count": payload["count"],
        "pool": payload["pool"],
    }
    (out / "meta.json").write_text(json.dumps(meta))
    (out / "texts.json.xz").write_bytes(texts_file.read_bytes())
    with tempfile.TemporaryDirectory() as graphs:  # the fp32 graph, built for this alone
        model = onnx_e5.OnnxE5(Path(graphs), precision="fp32")
        sample = payload["chunks"][:REFERENCE_TEXTS] + payload["windows"][:REFERENCE_TEXTS]
        np.save(out / "reference.npy", model.encode(sample))
    print(f"{len(ids)} word rows of {len(weights.pieces)}; wrote {out}", file=sys.stderr)


def _dequantize(blocks: Any) -> Any:
    """As `onnx_e5.dequantize` (repeated: the other machine has no package installed)."""
    import numpy as np

    scale = np.ascontiguousarray(blocks[..., :2]).view("<f2").astype(np.float32)
    nibbles = blocks[..., 2:]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.int8) - 8
    return (values.astype(np.float32) * scale).reshape(*blocks.shape[:-2], -1)


def embed(here: Path, part: str, out: Path) -> None:
    """Embed `part` (chunks or windows) of the packed texts on the GPU, fp32, as
    `onnx_e5`'s graph computes them; write `pack_rows` files and `key.json` to `out`."""
    import numpy as np
    import torch
    from tokenizers import Tokenizer

    started = time.time()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.device("cuda")
    meta = json.loads((here / "meta.json").read_text())
    saved = np.load(here / "weights.npz")
    tensor = {
        key[2:]: torch.from_numpy(
            _dequantize(saved[key]) if saved[key].dtype == np.uint8 else saved[key]
        ).to(device)
        for key in saved.files
        if key.startswith("t:")
    }
    used = saved["used_ids"]
    words = torch.from_numpy(_dequantize(saved["word_blocks"])).to(device)
    row_of = np.full(int(used.max()) + 1, -1, dtype=np.int64)
    row_of[used] = np.arange(len(used))
    config = meta["config"]
    hidden, heads = config["hidden_size"], config["num_attention_heads"]
    eps, layers = config["layer_norm_eps"], config["num_hidden_layers"]
    positions = tensor["embeddings.position_embeddings.weight"]
    token_type = tensor["embeddings.token_type_embeddings.weight"][0]
    functional = torch.nn.functional

    def norm(x: Any, name: str) -> Any:
        return functional.layer_norm(
            x, (hidden,), tensor[name + ".weight"], tensor[name + ".bias"], eps
        )

    def linear(x: Any, name: str) -> Any:
        return x @ tensor[name + ".weight"].T + tensor[name + ".bias"]

    @torch.no_grad()
    def forward(ids: Any, mask: Any) -> Any:
        batch, width = ids.shape
        x = norm(words[ids] + positions[:width][None] + token_type, "embeddings.LayerNorm")
        keep = mask.bool()[:, None, None, :]
        for n in range(layers):
            p = f"encoder.layer.{n}."
            q, k, v = (
                linear(x, p + f"attention.self.{side}")
                .view(batch, width, heads, -1)
                .transpose(1, 2)
                for side in ("query", "key", "value")
            )
            context = functional.scaled_dot_product_attention(q, k, v, attn_mask=keep)
            context = context.transpose(1, 2).reshape(batch, width, hidden)
            x = norm(
                linear(context, p + "attention.output.dense") + x, p + "attention.output.LayerNorm"
            )
            h = linear(x, p + "intermediate.dense")
            h = 0.5 * h * (1 + torch.erf(h / np.sqrt(2.0)))
            x = norm(linear(h, p + "output.dense") + x, p + "output.LayerNorm")
        weight = mask[..., None].float()
        pooled = (x * weight).sum(1) / weight.sum(1).clamp_min(1e-9)
        return pooled / pooled.norm(dim=1, keepdim=True).clamp_min(1e-12)

    tokenizer = Tokenizer.from_str(
        lzma.decompress((here / "tokenizer.json.xz").read_bytes()).decode()
    )
    table = str.maketrans({int(k): v for k, v in meta["normalise"].items()})
    prefix, most, pad = meta["prefix"], meta["max_tokens"], meta["specials"]["pad"]

    def vectors_of(texts: list[str]) -> Any:
        rows = []
        for start in range(0, len(texts), 20_000):
            batch = [(prefix + t).translate(table) for t in texts[start : start + 20_000]]
            for encoding in tokenizer.encode_batch(batch):
                ids = encoding.ids
                rows.append([*ids[: most - 1], ids[-1]] if len(ids) > most else ids)
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
        result = torch.empty((len(rows), hidden), dtype=torch.float32, device=device)
        at = 0
        while at < len(order):
            end = min(at + 1024, len(order))
            size = max(1, min(1024, 262_144 // max(len(rows[order[end - 1]]), 1)))
            chosen = order[at : at + size]
            width = max(len(rows[i]) for i in chosen)
            ids = np.full((len(chosen), width), row_of[pad], dtype=np.int64)
            mask = np.zeros((len(chosen), width), dtype=np.int64)
            for r, i in enumerate(chosen):
                mapped = row_of[rows[i]]
                if (mapped < 0).any():
                    raise SystemExit("a token outside the packed word rows: pack again")
                ids[r, : len(mapped)] = mapped
                mask[r, : len(mapped)] = 1
            result[torch.as_tensor(chosen, device=device)] = forward(
                torch.from_numpy(ids).to(device), torch.from_numpy(mask).to(device)
            )
            at += len(chosen)
        return result

    payload = json.loads(lzma.decompress((here / "texts.json.xz").read_bytes()))
    reference = torch.from_numpy(np.load(here / "reference.npy")).to(device)
    sample = payload["chunks"][:REFERENCE_TEXTS] + payload["windows"][:REFERENCE_TEXTS]
    cosines = (vectors_of(sample) * reference).sum(1)
    print(f"against the local fp32 graph: cosine min {cosines.min().item():.6f}", flush=True)
    if cosines.min().item() < MATCH:
        raise SystemExit("these vectors are not the local graph's: nothing written")
    texts = payload[part]
    begun = time.time()
    vectors = vectors_of(texts).cpu().numpy()
    print(f"{part}: {len(texts)} texts in {time.time() - begun:.1f} s", flush=True)
    bits = 8 if part == "chunks" else 4
    out.mkdir(parents=True, exist_ok=True)
    step = ROWS_PER_FILE[bits]
    for n, start in enumerate(range(0, len(vectors), step)):
        np.savez(out / f"{part}-{n:02d}.npz", **pack_rows(vectors[start : start + step], bits))
    (out / "key.json").write_text(json.dumps({"count": meta["count"], "pool": meta["pool"]}))
    print(f"done in {time.time() - started:.0f} s", flush=True)


HERE_ROWS = 5_000
"""Rows per file `here` writes: each file is a checkpoint (under a minute of work on two
idle cores), so a run stopped part way loses at most that."""


def here(
    texts_file: Path,
    out: Path,
    cache: Path,
    rows: int = HERE_ROWS,
    parts: tuple[str, ...] = ("chunks", "windows"),
) -> list[Path]:
    """Embed the exported texts on this machine with the store's own embedder (the int8
    graph, short texts through fp32, exactly as `--true-vectors` would), writing the files
    `given_vectors` reads. Slow (100k distractors, 327k texts: 52 minutes on two idle
    cores, about 105 texts/s) but resumable: a file already written is kept, so the work
    can span several runs (a folder holding another export's files, or files of another
    size, is refused); both parts go to `out` as 8 bits, since nothing here has to fit a
    transfer. `parts` ("chunks" alone: `--chunks-only`) skips the windows, which then
    take their chunk's vector (`GivenVectors`). Returns the files this run wrote."""
    import numpy as np

    from video_research.knowledge.embedders.embeddings import E5_MODEL, LocalEmbedder

    payload = json.loads(lzma.decompress(texts_file.read_bytes()))
    out.mkdir(parents=True, exist_ok=True)
    key = {"count": payload["count"], "pool": payload["pool"], "rows": rows}
    held = out / "key.json"
    if held.exists() and json.loads(held.read_text()) != key:
        # The files kept there were cut from other texts (or at another size): going on
        # would join two exports' vectors without a word.
        raise SystemExit(
            f"{out} holds vectors of {held.read_text()}, not {key}: use another folder"
        )
    held.write_text(json.dumps(key))
    embedder = LocalEmbedder(E5_MODEL, cache_dir=cache)
    written: list[Path] = []
    for part in parts:
        texts = payload[part]
        files = range(0, len(texts), rows)
        for n, start in enumerate(files):
            target = out / f"{part}-{n:03d}.npz"
            if target.exists():
                continue
            begun = time.time()
            vectors = embedder.encode(texts[start : start + rows], "document")
            partial = out / f".{target.name}.partial"  # a name `given_vectors` never reads
            with partial.open("wb") as file:
                np.savez(file, **pack_rows(vectors, 8))
            partial.replace(target)  # complete or absent, never half written
            written.append(target)
            took = time.time() - begun
            print(
                f"{part} {n + 1}/{len(files)}: {len(vectors)} texts in {took:.0f} s "
                f"({len(vectors) / took:.1f}/s)",
                file=sys.stderr,
                flush=True,
            )
    return written


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "pack":
        pack(Path(argv[1]), Path(argv[2]))
        return 0
    if len(argv) == 4 and argv[0] == "embed" and argv[2] in ("chunks", "windows"):
        embed(Path(argv[1]), argv[2], Path(argv[3]))
        return 0
    if len(argv) in (4, 5) and argv[0] == "here" and argv[4:] in ([], ["--chunks-only"]):
        parts = ("chunks",) if argv[4:] else ("chunks", "windows")
        here(Path(argv[1]), Path(argv[2]), Path(argv[3]), parts=parts)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
