"""The speech-engines bench makes whisper.cpp's model file from the bundled faster-whisper
weights (tests/bench/speech_engines/ggml_convert.py). whisper.cpp itself is not installed
here (it lives in the bench's own venv), so this reads the file back the way whisper.cpp's
loader does and checks what would make it refuse or mis-run the model: the header, every
tensor it expects by name and shape (none missing, none extra), the text tokens, and
weights that equal the CTranslate2 ones (Q8_0 within half a quantization step)."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

from tests.bench.speech_engines.ct2_model import mel_filters, read_ct2, to_openai
from tests.bench.speech_engines.ggml_convert import write_ggml
from video_research.media import speech

pytestmark = pytest.mark.skipif(
    not speech.bundled_installed(), reason="the bundled speech model is not installed"
)

# whisper.cpp's src/whisper-arch.h, per layer where "%d" appears.
ENCODER_BLOCK = ["attn_ln.weight", "attn_ln.bias", "attn.query.weight", "attn.query.bias",
                 "attn.key.weight", "attn.value.weight", "attn.value.bias", "attn.out.weight",
                 "attn.out.bias", "mlp_ln.weight", "mlp_ln.bias", "mlp.0.weight", "mlp.0.bias",
                 "mlp.2.weight", "mlp.2.bias"]  # fmt: skip
DECODER_BLOCK = [
    *ENCODER_BLOCK,
    "cross_attn_ln.weight",
    "cross_attn_ln.bias",
    *(f"cross_attn.{part[len('attn.') :]}" for part in ENCODER_BLOCK if part.startswith("attn.")),
]


def expected_names(layers: int) -> set[str]:
    names = {"encoder.positional_embedding", "encoder.conv1.weight", "encoder.conv1.bias",
             "encoder.conv2.weight", "encoder.conv2.bias", "encoder.ln_post.weight",
             "encoder.ln_post.bias", "decoder.positional_embedding",
             "decoder.token_embedding.weight", "decoder.ln.weight", "decoder.ln.bias"}  # fmt: skip
    for layer in range(layers):
        names |= {f"encoder.blocks.{layer}.{part}" for part in ENCODER_BLOCK}
        names |= {f"decoder.blocks.{layer}.{part}" for part in DECODER_BLOCK}
    return names


def read_ggml(data: bytes) -> tuple[list[int], np.ndarray, list[bytes], dict]:
    view, offset = memoryview(data), 0

    def ints(count: int) -> list[int]:
        nonlocal offset
        values = list(struct.unpack_from(f"<{count}i", view, offset))
        offset += 4 * count
        return values

    header = ints(12)
    n_mel, n_fft = ints(2)
    filters = np.frombuffer(view[offset : offset + 4 * n_mel * n_fft], "<f4").reshape(n_mel, n_fft)
    offset += 4 * n_mel * n_fft
    tokens = []
    for _ in range(ints(1)[0]):
        (length,) = ints(1)
        tokens.append(bytes(view[offset : offset + length]))
        offset += length
    tensors = {}
    while offset < len(data):
        n_dims, length, ttype = ints(3)
        shape = ints(n_dims)
        name = bytes(view[offset : offset + length]).decode()
        offset += length
        count = int(np.prod(shape))
        size = {0: 4 * count, 1: 2 * count, 8: count // 32 * 34}[ttype]
        tensors[name] = (ttype, shape[::-1], bytes(view[offset : offset + size]))
        offset += size
    return header, filters, tokens, tensors


@pytest.fixture(scope="module")
def model() -> tuple[dict, object, str, dict, bytes]:
    files = speech.bundled_files()
    ct2 = read_ct2(files["model.bin"])
    weights, dims = to_openai(ct2)
    return weights, dims, files["vocabulary.txt"].decode(), ct2, files["tokenizer.json"]


@pytest.mark.parametrize("q8_0", [False, True], ids=["f16", "q8_0"])
def test_the_ggml_file_holds_what_whisper_cpp_loads(model, q8_0: bool) -> None:
    weights, dims, vocabulary, _, tokenizer_json = model
    out = io.BytesIO()
    write_ggml(out, weights, dims, vocabulary, q8_0=q8_0)
    header, filters, tokens, tensors = read_ggml(out.getvalue())

    assert header == [0x67676D6C, 51865, 1500, 512, 8, 6, 448, 512, 8, 6, 80, 2007 if q8_0 else 1]
    assert filters.shape == (80, 201) and np.allclose(filters, mel_filters(80))
    # The text tokens, as the upstream converter writes them from multilingual.tiktoken.
    assert len(tokens) == 50257 and tokens[0] == b"!" and tokens[50256] == b""
    # Each token's bytes are what the model's own tokenizer decodes it to.
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(tokenizer_json.decode())
    checked = 0
    for token_id in range(0, 50256, 11):
        text = tokenizer.decode([token_id])
        if "\ufffd" not in text:  # a token that is part of a multi-byte character
            assert tokens[token_id] == text.encode("utf-8"), token_id
            checked += 1
    assert checked > 4000
    assert set(tensors) == expected_names(6)

    ttype, shape, raw = tensors["encoder.conv1.weight"]
    assert (ttype, shape) == (1, [512, 80, 3])
    assert tensors["encoder.conv1.bias"][:2] == (0, [512, 1])
    assert tensors["encoder.positional_embedding"][:2] == (0, [1500, 512])
    ttype, shape, raw = tensors["decoder.blocks.3.attn.key.weight"]
    assert shape == [512, 512]
    expected = weights["decoder.blocks.3.attn.key.weight"].astype(np.float32)
    if q8_0:
        assert ttype == 8
        blocks = np.frombuffer(raw, dtype=[("d", "<f2"), ("qs", "i1", 32)])
        scale = blocks["d"].astype(np.float32)
        got = (blocks["qs"].astype(np.float32) * scale[:, None]).reshape(512, 512)
        step = np.repeat(scale, 32).reshape(512, 512)
        assert np.all(np.abs(got - expected) <= step / 2 + 1e-3 * np.abs(expected) + 1e-6)
    else:
        assert ttype == 1
        assert np.array_equal(np.frombuffer(raw, "<f2").reshape(512, 512), expected.astype("<f2"))


def test_the_fused_attention_splits_into_whisper_names(model) -> None:
    weights, _, _, ct2, _ = model
    fused = ct2["encoder/layer_2/self_attention/linear_0/weight"]
    assert np.array_equal(weights["encoder.blocks.2.attn.query.weight"], fused[:512])
    assert np.array_equal(weights["encoder.blocks.2.attn.value.weight"], fused[1024:])
    cross = ct2["decoder/layer_5/attention/linear_1/weight"]
    assert np.array_equal(weights["decoder.blocks.5.cross_attn.key.weight"], cross[:512])
    assert "encoder.blocks.2.attn.key.bias" not in weights
