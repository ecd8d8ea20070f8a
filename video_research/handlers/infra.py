"""infra_cache and infra_configure: the analysis cache, Gemini context caches and the
runtime configuration."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from video_research.config import PRESETS, ConfigError, Settings, with_overrides
from video_research.handlers.context import CallContext
from video_research.support.cache import get_cache
from video_research.support.errors import invalid_input

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        InfraCacheInput,
        InfraCacheOutput,
        InfraConfigureInput,
        InfraConfigureOutput,
    )


async def infra_cache(args: InfraCacheInput, ctx: CallContext) -> InfraCacheOutput:
    cache = get_cache()
    action = args["action"]
    content_id = args.get("content_id")
    if action == "context_list" or action == "context_clear":
        return await _contexts(action, content_id, ctx.settings)
    if action == "stats":
        return {"action": action, "stats": cache.stats()}
    if action == "list":
        entries, total = cache.list_entries(content_id=content_id, limit=args["limit"])
        return {"action": action, "entries": entries, "total": total}
    removed = cache.clear(content_id=content_id)
    return {"action": action, "removed": removed, "content_id": content_id}


async def _contexts(
    action: Literal["context_list", "context_clear"], content_id: str | None, settings: Settings
) -> InfraCacheOutput:
    """The Gemini context caches this server created: list them, or delete them."""
    from video_research.clients.gemini import caching as gemini_caching
    from video_research.clients.gemini import client as gemini

    if action == "context_list":
        return {
            "action": action,
            "contexts": await gemini_caching.list_caches(settings, content_id=content_id),
        }
    gemini.require_api_key(settings)
    removed = await gemini_caching.clear_caches(settings, content_id=content_id)
    return {"action": action, "removed": removed, "content_id": content_id}


def _active_preset(cfg: Settings) -> str | None:
    for name, preset in PRESETS.items():
        if (
            preset["default_model"] == cfg.default_model
            and preset["flash_model"] == cfg.flash_model
        ):
            return name
    return None


def _report(cfg: Settings, changed: list[str]) -> InfraConfigureOutput:
    return {
        "current_config": {
            "default_model": cfg.default_model,
            "flash_model": cfg.flash_model,
            "default_thinking_level": cfg.default_thinking_level,
            "default_temperature": cfg.default_temperature,
            "gemini_api_key_set": bool(cfg.gemini_api_key.get_secret_value()),
        },
        "active_preset": _active_preset(cfg),
        "available_presets": {
            name: {
                "default_model": p["default_model"],
                "flash_model": p["flash_model"],
                "description": p["description"],
            }
            for name, p in PRESETS.items()
        },
        "changed": changed,
    }


async def infra_configure(args: InfraConfigureInput, ctx: CallContext) -> InfraConfigureOutput:
    overrides: dict[str, Any] = {}
    preset = args.get("preset")
    if preset is not None:
        overrides["default_model"] = PRESETS[preset]["default_model"]
        overrides["flash_model"] = PRESETS[preset]["flash_model"]
    if args.get("model") is not None:
        overrides["default_model"] = args["model"]
    if args.get("thinking_level") is not None:
        overrides["default_thinking_level"] = args["thinking_level"]
    if args.get("temperature") is not None:
        overrides["default_temperature"] = args["temperature"]
    before = ctx.settings
    if not overrides:
        return _report(before, [])
    try:
        after = with_overrides(before, **overrides)
    except ConfigError as exc:
        raise invalid_input(str(exc)) from None
    # Through the services, so the next call's ctx.settings sees the change (and so does
    # code that still reads the live configuration, since the server's services follow it).
    ctx.services.replace_settings(after)
    changed = sorted(k for k in overrides if getattr(before, k) != getattr(after, k))
    return _report(after, changed)
