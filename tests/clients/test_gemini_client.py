"""The Gemini client against the REST stub, driven by the real google-genai SDK:
what is sent, what comes back, retries and their limits, files, embeddings."""

from __future__ import annotations

import logging
import os

import pytest

from tests.stubs.gemini import BAD_REQUEST, OVERLOADED, QUOTA, Close, Status, error
from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import files as gemini_files
from video_research.support.errors import ErrorCategory, ToolFailure


async def test_request_carries_model_thinking_schema_and_system(gemini_stub):
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    data, generation = await gemini.generate_json(
        "question",
        schema=schema,
        model="gemini-x",
        thinking_level="low",
        temperature=0.2,
        system_instruction="be brief",
    )
    assert data == {"a": "stub a value"}
    sent = gemini_stub.calls("generateContent")[-1]
    assert sent.model == "gemini-x"
    config = sent.generation_config
    assert (
        config["thinkingConfig"] == {"thinking_level": "LOW"}
        or config["thinkingConfig"].get("thinkingLevel") == "LOW"
    )
    assert config["responseJsonSchema"] == schema
    assert config["responseMimeType"] == "application/json"
    assert config["temperature"] == 0.2
    assert sent.body["systemInstruction"]["parts"][0]["text"] == "be brief"
    assert sent.headers["x-goog-api-key"] == "[set]"


async def test_thought_parts_are_stripped(gemini_stub):
    generation = await gemini.generate("hello")
    assert "My Thought Process" not in generation.text
    assert generation.text.startswith("This video demonstrates")
    assert generation.finish_reason == "STOP"


async def test_defaults_come_from_config(gemini_stub, configure):
    configure(GEMINI_THINKING_LEVEL="medium", GEMINI_MODEL="gemini-configured")
    await gemini.generate("hello")
    sent = gemini_stub.calls("generateContent")[-1]
    assert sent.model == "gemini-configured"
    assert "MEDIUM" in str(sent.generation_config["thinkingConfig"])


async def test_429_is_retried_after_the_servers_retry_delay(gemini_stub, caplog):
    gemini_stub.enqueue("generateContent", error(QUOTA, retry_delay="0.3s"))
    with caplog.at_level(logging.WARNING, logger="video_research.clients.gemini.client"):
        generation = await gemini.generate("hello")
    assert generation.text
    first, second = gemini_stub.calls("generateContent")
    assert second.at - first.at >= 0.3, "retried before the server's retryDelay"
    assert any("server asked 0.3 s" in r.getMessage() for r in caplog.records)


async def test_503_storm_ends_in_a_clean_retryable_error(gemini_stub):
    gemini_stub.enqueue("generateContent", *[error(OVERLOADED)] * 5)
    with pytest.raises(ToolFailure) as info:
        await gemini.generate("hello")
    assert info.value.category is ErrorCategory.UNAVAILABLE
    assert info.value.retryable
    assert len(gemini_stub.calls("generateContent")) == 3, "GEMINI_RETRY_MAX_ATTEMPTS defaults to 3"


async def test_quota_exhausted_reports_retry_after(gemini_stub):
    gemini_stub.enqueue("generateContent", *[error(QUOTA, retry_delay="0.05s")] * 3)
    with pytest.raises(ToolFailure) as info:
        await gemini.generate("hello")
    error_json = info.value.to_tool_error()
    assert error_json.category == "rate_limited"
    assert error_json.retryable and error_json.retry_after_seconds == 1


@pytest.mark.parametrize(
    ("reply", "category"),
    [
        (error(BAD_REQUEST), ErrorCategory.INVALID_INPUT),
        (
            Status(
                403,
                {
                    "error": {
                        "code": 403,
                        "message": "Permission denied on resource",
                        "status": "PERMISSION_DENIED",
                    }
                },
            ),
            ErrorCategory.UNAUTHORIZED,
        ),
        (
            Status(
                404,
                {
                    "error": {
                        "code": 404,
                        "message": "models/nope is not found",
                        "status": "NOT_FOUND",
                    }
                },
            ),
            ErrorCategory.NOT_FOUND,
        ),
    ],
)
async def test_client_errors_are_not_retried(gemini_stub, reply, category):
    gemini_stub.enqueue("generateContent", reply)
    with pytest.raises(ToolFailure) as info:
        await gemini.generate("hello")
    assert info.value.category is category
    assert not info.value.retryable
    assert len(gemini_stub.calls("generateContent")) == 1


async def test_connection_dropped_mid_response_is_retried(gemini_stub):
    gemini_stub.enqueue("generateContent", Close())
    generation = await gemini.generate("hello")
    assert generation.text
    assert len(gemini_stub.calls("generateContent")) == 2


async def test_connection_dropped_every_time_is_a_network_error(gemini_stub):
    gemini_stub.enqueue("generateContent", Close(), Close(), Close())
    with pytest.raises(ToolFailure) as info:
        await gemini.generate("hello")
    assert info.value.category is ErrorCategory.NETWORK and info.value.retryable


async def test_blocked_prompt_and_empty_answer(gemini_stub):
    from tests.helpers import api_sample

    gemini_stub.enqueue(
        "generateContent", api_sample("gemini/generateContent_prompt_blocked.cookbook.json")
    )
    with pytest.raises(ToolFailure, match="blocked"):
        await gemini.generate("hello")
    gemini_stub.enqueue(
        "generateContent",
        api_sample("gemini/generateContent_max_tokens_thinking_empty_response.gemini-2.5-pro.json"),
    )
    with pytest.raises(ToolFailure, match="MAX_TOKENS") as info:
        await gemini.generate("hello")
    assert info.value.retryable


async def test_answer_that_breaks_the_schema_is_rejected(gemini_stub):
    reply = {
        "candidates": [
            {"content": {"parts": [{"text": '{"a": 5}'}], "role": "model"}, "finishReason": "STOP"}
        ]
    }
    gemini_stub.enqueue("generateContent", reply)
    with pytest.raises(ToolFailure, match=r"\$\.a") as info:
        await gemini.generate_json(
            "q", schema={"type": "object", "properties": {"a": {"type": "string"}}}
        )
    assert info.value.retryable


async def test_missing_key_is_a_config_error_with_a_hint(monkeypatch):
    with pytest.raises(ToolFailure) as info:
        await gemini.generate("hello")
    assert info.value.category is ErrorCategory.CONFIG_ERROR
    assert "GEMINI_API_KEY" in info.value.hint


async def test_upload_polls_until_active(gemini_stub, tmp_path):
    video = tmp_path / "clip.mp4"
    video.write_bytes(os.urandom(3000))
    gemini_stub.default_file_states = ["PROCESSING", "PROCESSING", "ACTIVE"]
    uploaded = await gemini_files.upload_file(video, "video/mp4")
    assert uploaded.uri.endswith(uploaded.name.split("/")[-1])
    routes = [r.route for r in gemini_stub.requests]
    assert routes[:2] == ["upload_start", "upload_chunk"]
    assert routes.count("files.get") == 3


async def test_upload_failed_file_is_a_clear_error(gemini_stub, tmp_path):
    video = tmp_path / "broken.mp4"
    video.write_bytes(b"x" * 100)
    gemini_stub.default_file_states = ["FAILED"]
    with pytest.raises(ToolFailure, match="could not process broken.mp4"):
        await gemini_files.upload_file(video, "video/mp4")


async def test_upload_stuck_processing_gives_up_in_bounded_time(gemini_stub, tmp_path, configure):
    configure(GEMINI_FILE_POLL_TIMEOUT="0.3")
    video = tmp_path / "slow.mp4"
    video.write_bytes(b"x" * 100)
    gemini_stub.default_file_states = ["PROCESSING"]
    with pytest.raises(ToolFailure) as info:
        await gemini_files.upload_file(video, "video/mp4")
    assert info.value.category is ErrorCategory.TIMEOUT
    assert "GEMINI_FILE_POLL_TIMEOUT" in info.value.hint


async def test_embeddings_use_the_requested_dimension(gemini_stub):
    vectors = await gemini.embed_content(
        ["alpha", "beta"], model="gemini-embedding-001", output_dimensionality=768
    )
    assert [len(v) for v in vectors] == [768, 768]
    sent = gemini_stub.calls("batchEmbedContents")[-1]
    assert sent.body["requests"][0]["outputDimensionality"] == 768
    assert "gemini-embedding-001" in sent.path


async def test_inline_bytes_part_is_sent_base64(gemini_stub):
    await gemini.generate(
        [gemini.user_content(gemini.bytes_part(b"\x00video", "video/mp4"), gemini.text_part("q"))]
    )
    sent = gemini_stub.calls("generateContent")[-1]
    assert sent.inline_bytes(0) == b"\x00video"
    assert sent.parts[0]["inlineData"]["mimeType"] == "video/mp4"
