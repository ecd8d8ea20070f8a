"""research_web, research_web_status, research_web_followup, research_web_cancel.

Deep research in the background with the Gemini Deep Research agent: research_web starts
it and answers at once with a task ID; research_web_status polls (optionally waiting up
to `wait_seconds`, with a progress notification per poll) and returns the report and its
sources once done; research_web_followup asks about a finished report; research_web_cancel
stops a running one. Tasks live in SQLite (deep_research.tasks), so a restart between
start and status loses nothing, and a finished task is answered from the database.

Starting, following up and cancelling need the blessed role: one Deep Research task runs
for many minutes and costs dollars, not cents, so a chat user (viewer) must not spend
the owner's quota on it. Polling is a read and open to viewers, who can only poll a task
whose (unguessable) ID they were given.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from video_research.clients.gemini import client as gemini
from video_research.config import Settings
from video_research.deepresearch import agent
from video_research.deepresearch.tasks import Task, get_store
from video_research.handlers.context import CallContext
from video_research.knowledge import writethrough
from video_research.support.errors import ErrorCategory, ToolFailure

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        ResearchWebCancelInput,
        ResearchWebCancelOutput,
        ResearchWebFollowupInput,
        ResearchWebFollowupOutput,
        ResearchWebInput,
        ResearchWebOutput,
        ResearchWebStatusInput,
        ResearchWebStatusOutput,
    )


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _view(task: Task) -> ResearchWebOutput:
    out: ResearchWebOutput = {
        "task_id": task.task_id,
        "status": task.status,
        "done": task.done,
        "topic": task.topic,
        "agent": task.agent,
        "created_at": _iso(task.created_at),
        "finished_at": None if task.finished_at is None else _iso(task.finished_at),
        "elapsed_seconds": round((task.finished_at or time.time()) - task.created_at),
        "report": task.report,
        "sources": task.sources,
        "usage": task.usage,
        "error": task.error,
        "followups": [{"question": f["question"], "answer": f["answer"]} for f in task.followups],
    }
    if not task.done:
        out["hint"] = (
            "Still researching (Deep Research usually takes 5-20 minutes). Call "
            "research_web_status again, or pass wait_seconds to wait here."
        )
    return out


async def _task(task_id: str, settings: Settings) -> Task:
    task = await get_store(settings).get(task_id)
    if task is None:
        raise ToolFailure(
            ErrorCategory.NOT_FOUND,
            f"No Deep Research task {task_id}.",
            hint="Task IDs come from research_web; tasks are kept in DEEP_RESEARCH_DB.",
        )
    return task


async def _refresh(task: Task, settings: Settings) -> Task:
    """Ask the API for the interaction and record what changed; a task that has just
    completed gets its report and sources, and is written to the knowledge base."""
    interaction = await agent.fetch(task.task_id)
    task.status = agent.status(interaction)
    if task.status == "completed":
        task.report, task.sources = agent.read_report(interaction)
        task.usage = agent.usage(interaction)
    elif task.done:
        task.error = agent.failure_reason(interaction) or f"The research ended as {task.status}."
    await get_store(settings).save(task)
    if task.status == "completed":
        await writethrough.store_deep_research(_view(task))
    return task


async def research_web(args: ResearchWebInput, ctx: CallContext) -> ResearchWebOutput:
    gemini.require_api_key(ctx.settings)
    topic = args["topic"].strip()
    prompt = topic
    if args.get("output_format"):
        prompt += f"\n\nFormat the report as follows:\n{args['output_format'].strip()}"
    interaction = await agent.start(prompt)
    task = await get_store(ctx.settings).add(
        Task(
            task_id=str(interaction.id),
            topic=topic,
            prompt=prompt,
            agent=ctx.settings.deep_research_agent,
            status=agent.status(interaction),
            started_by=ctx.caller.username,
        )
    )
    return _view(task)


async def research_web_status(
    args: ResearchWebStatusInput, ctx: CallContext
) -> ResearchWebStatusOutput:
    task = await _task(args["task_id"], ctx.settings)
    if task.done:
        return _view(task)
    gemini.require_api_key(ctx.settings)
    wait = args["wait_seconds"]
    interval = ctx.settings.deep_research_poll_seconds
    started = time.monotonic()
    while True:
        task = await _refresh(task, ctx.settings)
        waited = time.monotonic() - started
        if task.done or waited >= wait:
            break
        await ctx.report_progress(
            round(waited),
            wait,
            f"{task.status}: researching for {round(time.time() - task.created_at) // 60} min",
        )
        await asyncio.sleep(min(interval, wait - waited))
    return _view(task)


async def research_web_followup(
    args: ResearchWebFollowupInput, ctx: CallContext
) -> ResearchWebFollowupOutput:
    task = await _task(args["task_id"], ctx.settings)
    if task.status != "completed":
        raise ToolFailure(
            ErrorCategory.CONFLICT,
            f"Task {task.task_id} is {task.status}: follow-ups need a completed report.",
            hint="Poll research_web_status until status is completed, then ask again.",
        )
    gemini.require_api_key(ctx.settings)
    question = args["question"].strip()
    reply = await agent.follow_up(task.last_interaction_id or task.task_id, question)
    answer, _ = agent.read_report(reply)
    task.followups.append(
        {"interaction_id": str(reply.id), "question": question, "answer": answer, "at": time.time()}
    )
    task.last_interaction_id = str(reply.id)
    await get_store(ctx.settings).save(task)
    return {
        "task_id": task.task_id,
        "question": question,
        "answer": answer,
        "model": ctx.settings.default_model,
        "followup_count": len(task.followups),
    }


async def research_web_cancel(
    args: ResearchWebCancelInput, ctx: CallContext
) -> ResearchWebCancelOutput:
    task = await _task(args["task_id"], ctx.settings)
    if not task.done:
        gemini.require_api_key(ctx.settings)
        try:
            cancelled = await agent.cancel(task.task_id)
            task.status = agent.status(cancelled)
            await get_store(ctx.settings).save(task)
        except ToolFailure as failure:
            if failure.category is not ErrorCategory.INVALID_INPUT:
                raise
            task = await _refresh(task, ctx.settings)  # it finished just before the cancel arrived
    return {
        "task_id": task.task_id,
        "status": task.status,
        "cancelled": task.status == "cancelled",
        "done": task.done,
    }
