"""The GE2E encoder as an ONNX graph built from the same weights, run on ONNX Runtime:
its LSTM kernel steps through the 160 frames in C++, where the numpy `Encoder` pays
Python's cost for each of the 480 steps of a batch (the speaker pass spent most of its
time there). `Encoder` stays the reference the graph is checked against
(tests/media/test_speaker_weights.py).

PyTorch orders an LSTM's gates input, forget, cell, output; ONNX's LSTM input, output,
forget, cell: the weight rows are reordered when the graph is built.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from video_research.media.speakers.encoder import LAYERS, N_MELS

HIDDEN = 256


def _onnx_order(matrix: np.ndarray) -> np.ndarray:
    i, f, g, o = np.split(matrix, 4, axis=0)
    return np.concatenate([i, o, f, g], axis=0)


def build(state: dict[str, Any]) -> bytes:
    """The serialized graph: mels (batch, frames, 40) -> embeddings (batch, 256)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes = [helper.make_node("Transpose", ["mels"], ["x0"], perm=[1, 0, 2])]
    inits = []
    source = "x0"
    for n in range(LAYERS):
        w = _onnx_order(state[f"lstm.weight_ih_l{n}"])[None]
        r = _onnx_order(state[f"lstm.weight_hh_l{n}"])[None]
        b = np.concatenate(
            [_onnx_order(state[f"lstm.bias_ih_l{n}"]), _onnx_order(state[f"lstm.bias_hh_l{n}"])]
        )[None]
        for name, value in (("W", w), ("R", r), ("B", b)):
            inits.append(numpy_helper.from_array(value.astype(np.float32), f"{name}{n}"))
        nodes.append(
            helper.make_node(
                "LSTM",
                [source, f"W{n}", f"R{n}", f"B{n}"],
                [f"y{n}", f"h{n}"],
                hidden_size=HIDDEN,
            )
        )
        if n < LAYERS - 1:  # (seq, 1, batch, H) -> (seq, batch, H)
            inits.append(numpy_helper.from_array(np.array([1], np.int64), f"axis{n}"))
            nodes.append(helper.make_node("Squeeze", [f"y{n}", f"axis{n}"], [f"x{n + 1}"]))
            source = f"x{n + 1}"
    inits.append(numpy_helper.from_array(np.array([0], np.int64), "axis_h"))
    inits.append(numpy_helper.from_array(state["linear.weight"].T.astype(np.float32), "LW"))
    inits.append(numpy_helper.from_array(state["linear.bias"].astype(np.float32), "LB"))
    last = f"h{LAYERS - 1}"
    nodes += [
        helper.make_node("Squeeze", [last, "axis_h"], ["hidden"]),
        helper.make_node("Gemm", ["hidden", "LW", "LB"], ["raw"]),
        helper.make_node("Relu", ["raw"], ["positive"]),
        helper.make_node("LpNormalization", ["positive"], ["embeddings"], axis=1, p=2),
    ]
    graph = helper.make_graph(
        nodes,
        "ge2e",
        [helper.make_tensor_value_info("mels", TensorProto.FLOAT, ["batch", "frames", N_MELS])],
        [helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, ["batch", HIDDEN])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


class OnnxEncoder:
    """`Encoder.embed` on ONNX Runtime (one thread: see diarize.turns)."""

    def __init__(self, state: dict[str, Any]) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            build(state), sess_options=options, providers=["CPUExecutionProvider"]
        )

    def embed(self, mels: np.ndarray) -> np.ndarray:
        (out,) = self.session.run(["embeddings"], {"mels": mels.astype(np.float32)})
        return out
