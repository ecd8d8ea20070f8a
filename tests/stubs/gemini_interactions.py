"""The Gemini Interactions API (`/v1beta/interactions`) on top of the Gemini stub, for the
real google-genai SDK's `client.aio.interactions` (create, get, cancel).

Kept apart from tests/stubs/gemini.py so both can grow independently: `InteractionsStub`
is a GeminiStub (generateContent, embeddings, files still work) that also serves

- `POST /v1beta/interactions` (route `interactions.create`): with `agent` and
  `background: true` it answers the interaction `in_progress`; it turns `completed` after
  `polls_until_done` GETs, with the steps a Deep Research run records (a search call and
  its result, a URL-context result, a model output whose text carries `url_citation`
  annotations) and its usage. With `model` (a follow-up, `previous_interaction_id` set)
  it answers `completed` at once with one model output.
- `GET /v1beta/interactions/{id}` (route `interactions.get`): the interaction, or the
  API's 404 for an unknown id.
- `POST /v1beta/interactions/{id}/cancel` (route `interactions.cancel`): a running
  background interaction becomes `cancelled`; a finished one is a 400.

Shapes follow the SDK's generated types (google/genai/_gaos/types/interactions): snake_case
fields, `steps` as a tagged union on `type`, content blocks `{type: text, text,
annotations}`. `interactions` holds every interaction by id, so a test can inspect or
change one (e.g. make it fail).
"""

from __future__ import annotations

import copy
import itertools
import re
import threading
from typing import Any

from tests.stubs.base import Recorded, Status
from tests.stubs.gemini import GeminiStub

__all__ = ["REPORT", "SOURCES", "InteractionsStub"]

_ONE = re.compile(r"^/v1(?:beta|alpha)?/interactions/([^/:]+)$")
_CANCEL = re.compile(r"^/v1(?:beta|alpha)?/interactions/([^/:]+)(?:/cancel|:cancel)$")
_CREATE = re.compile(r"^/v1(?:beta|alpha)?/interactions$")

SOURCES = [
    ("https://www.iea.org/reports/global-ev-outlook-2025", "Global EV Outlook 2025 - IEA"),
    ("https://www.nature.com/articles/s41560-024-01234-5", "Battery supply chains - Nature Energy"),
]
REPORT = (
    "# EV battery supply chains\n\n"
    "## Summary\nLithium refining is concentrated in a few countries [1]. "
    "Recycling capacity is growing but small [2].\n"
)


def _error(code: int, status: str, message: str) -> Status:
    return Status(code, {"error": {"code": code, "message": message, "status": status}})


class InteractionsStub(GeminiStub):
    def __init__(self) -> None:
        super().__init__()
        self.interactions: dict[str, dict[str, Any]] = {}
        self.polls: dict[str, int] = {}
        self.polls_until_done = 2
        self._ids = itertools.count(1)
        self._lock_interactions = threading.Lock()

    def reset(self) -> None:
        super().reset()
        with self._lock_interactions:
            self.interactions.clear()
            self.polls.clear()
        self.polls_until_done = 2

    def route(self, method: str, path: str, headers: dict[str, str]) -> str:
        if method == "POST" and _CREATE.match(path):
            return "interactions.create"
        if method == "POST" and _CANCEL.match(path):
            return "interactions.cancel"
        if method == "GET" and _ONE.match(path):
            return "interactions.get"
        return super().route(method, path, headers)

    def default(self, request: Recorded) -> Any:  # type: ignore[override]
        handler = {
            "interactions.create": self._create,
            "interactions.get": self._get,
            "interactions.cancel": self._cancel,
        }.get(request.route)
        return handler(request) if handler else super().default(request)

    # --- the resource ---
    def _new_id(self) -> str:
        return f"v1_stubInteraction{next(self._ids):04d}"

    def completed_steps(self, prompt: str) -> list[dict[str, Any]]:
        """What a finished Deep Research run records, in order."""
        annotations = []
        for n, (url, title) in enumerate(SOURCES, start=1):
            start = REPORT.index(f"[{n}]")
            annotations.append(
                {
                    "type": "url_citation",
                    "url": url,
                    "title": title,
                    "start_index": start,
                    "end_index": start + 3,
                }
            )
        return [
            {"type": "user_input", "content": [{"type": "text", "text": prompt}]},
            {"type": "thought", "summary": [{"type": "text", "text": "Planning the research."}]},
            {
                "type": "google_search_call",
                "id": "call_1",
                "arguments": {"queries": ["EV battery supply chain 2025"]},
            },
            {
                "type": "google_search_result",
                "call_id": "call_1",
                "result": [{"search_suggestions": "<div>...</div>"}],
            },
            {
                "type": "url_context_result",
                "call_id": "call_2",
                "result": [{"url": SOURCES[0][0], "status": "success"}],
            },
            {
                "type": "model_output",
                "content": [{"type": "text", "text": REPORT, "annotations": annotations}],
            },
        ]

    def _create(self, request: Recorded) -> Any:
        body = request.body or {}
        prompt = body.get("input")
        text = prompt if isinstance(prompt, str) else str(prompt)
        interaction_id = self._new_id()
        now = "2026-01-01T00:00:00Z"
        if body.get("agent"):
            if not body.get("background"):
                return _error(
                    400, "INVALID_ARGUMENT", "Agent interactions must run with background=true."
                )
            interaction = {
                "id": interaction_id,
                "status": "in_progress",
                "agent": body["agent"],
                "created": now,
                "updated": now,
                "_prompt": text,
            }
        elif body.get("model"):
            previous = body.get("previous_interaction_id")
            if previous and previous not in self.interactions:
                return _error(404, "NOT_FOUND", f"Interaction {previous} not found.")
            answer = f"Follow-up answer to: {text}"
            interaction = {
                "id": interaction_id,
                "status": "completed",
                "model": body["model"],
                "previous_interaction_id": previous,
                "created": now,
                "updated": now,
                "steps": [
                    {"type": "user_input", "content": [{"type": "text", "text": text}]},
                    {"type": "model_output", "content": [{"type": "text", "text": answer}]},
                ],
                "usage": {
                    "total_input_tokens": 900,
                    "total_output_tokens": 40,
                    "total_tokens": 940,
                },
            }
        else:
            return _error(400, "INVALID_ARGUMENT", "Either model or agent must be set.")
        with self._lock_interactions:
            self.interactions[interaction_id] = interaction
        return self._public(interaction)

    def _get(self, request: Recorded) -> Any:
        interaction_id = _ONE.match(request.path).group(1)
        with self._lock_interactions:
            interaction = self.interactions.get(interaction_id)
            if interaction is None:
                return _error(404, "NOT_FOUND", f"Interaction {interaction_id} not found.")
            if interaction["status"] == "in_progress":
                self.polls[interaction_id] = self.polls.get(interaction_id, 0) + 1
                if self.polls[interaction_id] >= self.polls_until_done:
                    interaction.update(
                        status="completed",
                        updated="2026-01-01T00:12:00Z",
                        steps=self.completed_steps(interaction["_prompt"]),
                        usage={
                            "total_input_tokens": 250000,
                            "total_output_tokens": 9000,
                            "total_tokens": 259000,
                        },
                    )
            return self._public(interaction)

    def _cancel(self, request: Recorded) -> Any:
        interaction_id = _CANCEL.match(request.path).group(1)
        with self._lock_interactions:
            interaction = self.interactions.get(interaction_id)
            if interaction is None:
                return _error(404, "NOT_FOUND", f"Interaction {interaction_id} not found.")
            if interaction["status"] != "in_progress":
                return _error(
                    400,
                    "FAILED_PRECONDITION",
                    "Only running background interactions can be cancelled.",
                )
            interaction.update(status="cancelled", updated="2026-01-01T00:01:00Z")
            return self._public(interaction)

    @staticmethod
    def _public(interaction: dict[str, Any]) -> dict[str, Any]:
        return {k: copy.deepcopy(v) for k, v in interaction.items() if not k.startswith("_")}
