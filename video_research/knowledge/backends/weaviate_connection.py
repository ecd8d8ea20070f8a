"""How this server reaches Weaviate (WEAVIATE_URL set), and what the client's errors mean.

Connection by URL pattern:

| WEAVIATE_URL                                      | connection                        |
|---------------------------------------------------|-----------------------------------|
| http(s)://localhost:PORT, http(s)://127.0.0.1:PORT | connect_to_local                  |
| https://*.weaviate.network, https://*.weaviate.cloud | connect_to_weaviate_cloud       |
| anything else                                     | connect_to_custom (same host)     |

The gRPC port is WEAVIATE_GRPC_PORT, or Weaviate's standard 50051 when unset; a
WEAVIATE_API_KEY becomes an API-key credential. `connection_plan` decides without a
server, so the tests check it without one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

from video_research.config import Settings
from video_research.support import errors
from video_research.support.errors import ErrorCategory, ToolFailure, config_error
from video_research.support.redact import redact

DEFAULT_GRPC_PORT = 50051
CLOUD_SUFFIXES = (".weaviate.network", ".weaviate.cloud")
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


def connection_plan(url: str, grpc_port: int = 0) -> tuple[str, dict[str, Any]]:
    """Which weaviate.connect_to_* to call for `url`, and its keyword arguments (sans auth)."""
    parsed = urlparse(_with_scheme(url))
    host = parsed.hostname or ""
    secure = parsed.scheme == "https"
    try:
        port = parsed.port
    except ValueError:  # not a number, or beyond 65535
        port = -1
    if not host or port == -1:
        raise config_error(
            f"WEAVIATE_URL={redact(_with_scheme(url))!r} has "
            f"{'no host name' if not host else 'an invalid port'}.",
            hint="Use a URL such as http://localhost:8080 or https://my-cluster.weaviate.cloud.",
        )
    grpc = grpc_port or DEFAULT_GRPC_PORT
    if host in LOCAL_HOSTS:
        return "local", {"host": host, "port": port or 8080, "grpc_port": grpc}
    if host.endswith(CLOUD_SUFFIXES):
        return "cloud", {"cluster_url": url}
    return "custom", {
        "http_host": host,
        "http_port": port or (443 if secure else 80),
        "http_secure": secure,
        "grpc_host": host,
        "grpc_port": grpc,
        "grpc_secure": secure,
    }


def safe_location(url: str) -> str:
    """WEAVIATE_URL fit to show, read as `connection_plan` reads it: scheme, host, port and
    path only (no user:password, query or fragment), known secrets redacted."""
    parsed = urlparse(_with_scheme(url))
    host = parsed.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parsed.port
    except ValueError:
        port = None
    netloc = host + (f":{port}" if port else "")
    return redact(parsed._replace(netloc=netloc, query="", fragment="", params="").geturl())


def _with_scheme(url: str) -> str:
    return url if "://" in url else f"http://{url}"


def connect(settings: Settings) -> Any:
    """A connected WeaviateClient for the settings; a `network` failure otherwise."""
    import weaviate
    from weaviate.classes.init import AdditionalConfig, Auth, Timeout

    kind, kwargs = connection_plan(settings.weaviate_url, settings.weaviate_grpc_port)
    key = settings.weaviate_api_key.get_secret_value()
    if key:
        kwargs["auth_credentials"] = Auth.api_key(key)
    elif kind == "cloud":
        raise config_error(
            "Weaviate Cloud needs an API key.",
            hint="Set WEAVIATE_API_KEY to the cluster's API key.",
        )
    kwargs["additional_config"] = AdditionalConfig(timeout=Timeout(init=20, query=60, insert=120))
    connectors: dict[str, Callable[..., Any]] = {
        "local": weaviate.connect_to_local,
        "cloud": weaviate.connect_to_weaviate_cloud,
        "custom": weaviate.connect_to_custom,
    }
    return connectors[kind](**kwargs)


def failure(exc: Exception) -> ToolFailure:
    """A weaviate-client exception as the ToolError category a caller can act on."""
    from weaviate import exceptions as wx

    text = str(exc)
    if isinstance(
        exc, wx.WeaviateConnectionError | wx.WeaviateStartUpError | wx.WeaviateTimeoutError
    ):
        return ToolFailure(
            ErrorCategory.NETWORK, f"Weaviate: {text}", hint=errors.WEAVIATE_CONNECTION_HINT
        )
    elif isinstance(exc, wx.WeaviateInsertManyAllFailedError | wx.WeaviateBatchError):
        return ToolFailure(
            ErrorCategory.STORE_ERROR, f"Weaviate: {text}", hint=errors.WEAVIATE_IMPORT_HINT
        )
    elif isinstance(exc, wx.UnexpectedStatusCodeError) and exc.status_code in (401, 403):
        return ToolFailure(
            ErrorCategory.UNAUTHORIZED,
            f"Weaviate refused the credentials: {text}",
            hint="Check WEAVIATE_API_KEY.",
        )
    return ToolFailure(
        ErrorCategory.STORE_ERROR, f"Weaviate: {text}", hint=errors.WEAVIATE_QUERY_HINT
    )
