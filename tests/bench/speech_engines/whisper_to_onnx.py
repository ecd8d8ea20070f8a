"""Make sherpa-onnx's Whisper model files from a CTranslate2 Whisper model:
`python whisper_to_onnx.py CT2_DIR OUT_DIR` (run in the export venv: torch, openai-whisper,
onnx, onnxruntime; see the Makefile's speech-engines-onnx).

sherpa-onnx runs Whisper from an encoder/decoder ONNX pair with its own cache layout,
made by its export script from openai-whisper's PyTorch model. That model is built here
with the weights of the bundled faster-whisper model (names mapped by ct2_model.to_openai,
float16 widened to float32 as openai-whisper loads it on the CPU), saved as an
openai-whisper checkpoint, and the export script (vendored, unchanged) is run on it with
its `load_model` pointed at that checkpoint instead of the download. The script writes
base-{encoder,decoder}{,.int8}.onnx and base-tokens.txt into OUT_DIR (tokens from
openai-whisper's bundled tiktoken file: the same vocabulary).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import sys
from pathlib import Path

HERE = Path(__file__).parent


def main(ct2_dir: str, out_dir: str) -> int:
    import torch
    import whisper

    sys.path.insert(0, str(HERE.parent.parent.parent))
    from tests.bench.speech_engines.ct2_model import read_ct2, to_openai

    weights, dims = to_openai(read_ct2((Path(ct2_dir) / "model.bin").read_bytes()))
    state = {name: torch.from_numpy(array.astype("float32")) for name, array in weights.items()}
    model = whisper.model.Whisper(whisper.model.ModelDimensions(**dataclasses.asdict(dims)))
    missing, unexpected = model.load_state_dict(state, strict=False)
    # openai-whisper's checkpoints hold exactly these tensors; alignment_heads is a buffer
    # it sets itself (not persistent), so nothing may be missing or left over.
    if missing or unexpected:
        raise SystemExit(
            f"weights do not fit openai-whisper: missing {missing}, extra {unexpected}"
        )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / "base.pt"
    torch.save({"dims": dataclasses.asdict(dims), "model_state_dict": state}, checkpoint)

    spec = importlib.util.spec_from_file_location(
        "sherpa_onnx_export_whisper", HERE / "vendor" / "sherpa_onnx_export_whisper.py"
    )
    export = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(export)  # type: ignore[union-attr]
    export.load_model = lambda name: whisper.load_model(str(checkpoint), device="cpu")
    # The script was written for the TorchScript exporter (torch.onnx.export's default
    # until torch 2.9; the dynamo one needs onnxscript and rejects its cache tricks).
    export_with = torch.onnx.export

    def torchscript_export(*args, **kwargs):
        kwargs.setdefault("dynamo", False)
        return export_with(*args, **kwargs)

    export.torch.onnx.export = torchscript_export
    os.chdir(out)
    sys.argv = ["export-onnx.py", "--model", "base"]
    torch.set_num_threads(os.cpu_count() or 1)
    with whisper.model.disable_sdpa():
        export.main()
    for name in ("base-encoder.onnx", "base-decoder.onnx", "base.pt"):
        (out / name).unlink(missing_ok=True)  # only the int8 pair is run
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))
