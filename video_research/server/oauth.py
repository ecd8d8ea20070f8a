"""Bearer tokens on the HTTP transports: static tokens and OAuth 2.1 JWT access tokens.

The server is an OAuth resource server (MCP authorization spec): it never issues
tokens, it checks them. Both kinds go through the SDK's auth pieces
(`mcp.server.auth`): a `TokenVerifier` here, the SDK's `BearerAuthBackend` (extended in
token_gate.py to note why a token was refused) and token_gate's `RequireToken`, which
answers 401 with `WWW-Authenticate: Bearer ... resource_metadata="..."` and says whether
the token was missing, invalid or expired.

- Static tokens (VIDEO_RESEARCH_HTTP_TOKENS) name a username and role directly.
- JWT access tokens (VIDEO_RESEARCH_OAUTH_ISSUER) are verified with PyJWT against the
  issuer's keys: the issuer's metadata is discovered (RFC 8414, then OpenID discovery),
  its JWKS fetched and cached (fetched again when a token names a key not seen yet, at
  most once a minute). A token must be signed by one of those keys with an asymmetric
  algorithm, name this issuer (`iss`) and this server's resource URL (`aud`, RFC 8707),
  and be unexpired (`exp`). Its scopes map to a role (VIDEO_RESEARCH_OAUTH_SCOPES; the
  highest wins); a valid token with none of them is answered 403 insufficient_scope.

Why PyJWT: the mcp SDK already depends on it, it verifies `exp`/`iss`/`aud` itself and
reads JWK sets; the `cryptography` extra adds RSA, EC and EdDSA.
"""

from __future__ import annotations

import logging
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from mcp.server.auth.provider import AccessToken

from video_research.config import ROLE_RANK, Settings
from video_research.server import auth

logger = logging.getLogger(__name__)

ALGORITHMS = [
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
]
"""Asymmetric algorithms only: `none` and HMAC (which would take the public key as a
shared secret) are never accepted."""
KEY_REFRESH_SECONDS = 60.0
HTTP_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class Rejection:
    """Why a bearer token was refused, for the 401's words (never the token itself).

    `reason` is "missing" (no bearer token), "invalid" (unknown, malformed, forged, or
    for another server or issuer) or "expired" (genuine, signature checked, but past its
    `exp`): three different things for the user to do, so three different messages.
    """

    reason: str
    expired_at: int | None = None
    detail: str = ""


rejection: ContextVar[Rejection | None] = ContextVar("video_research_token_rejection", default=None)
"""Set by a verifier that refuses a token, read by the backend in the same task."""


def _highest_role(scopes: list[str], scope_roles: dict[str, str]) -> str | None:
    roles = [scope_roles[s] for s in scopes if s in scope_roles]
    return max(roles, key=lambda role: ROLE_RANK[role]) if roles else None


class StaticTokenVerifier:
    """VIDEO_RESEARCH_HTTP_TOKENS: each token names a username and role."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def verify_token(self, token: str) -> AccessToken | None:
        caller = auth.token_identity(token, self.settings)
        if caller is None:
            return None
        return AccessToken(
            token=token,
            client_id=caller.username,
            scopes=[],
            subject=caller.username,
            claims={"username": caller.username, "role": caller.role, "kind": "static"},
        )


class JwtVerifier:
    """JWT access tokens of one issuer, for one audience (this server's resource URL)."""

    def __init__(
        self,
        issuer: str,
        audience: str,
        scope_roles: dict[str, str],
        username_claim: str = "sub",
    ) -> None:
        self.issuer = issuer
        self.audience = audience
        self.scope_roles = scope_roles
        self.username_claim = username_claim
        self._keys: dict[str, Any] = {}
        self._jwks_uri: str | None = None
        self._fetched_at = 0.0

    async def verify_token(self, token: str) -> AccessToken | None:
        import jwt

        if token.count(".") != 2:
            return None
        try:
            header = jwt.get_unverified_header(token)
            key = await self._key(header.get("kid"))
            if key is None:
                logger.info(
                    "OAuth token rejected: signed with a key %s does not publish", self.issuer
                )
                return None
            claims = jwt.decode(
                token,
                key=key,
                algorithms=ALGORITHMS,
                audience=[self.audience.rstrip("/"), self.audience.rstrip("/") + "/"],
                issuer=self.issuer,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.ExpiredSignatureError:  # raised only after the signature checked out
            expired_at = jwt.decode(token, options={"verify_signature": False}).get("exp")
            rejection.set(Rejection("expired", int(expired_at) if expired_at else None))
            logger.info("OAuth token rejected: expired")
            return None
        except jwt.InvalidAudienceError:
            rejection.set(Rejection("invalid", detail="it was issued for another server"))
            logger.info("OAuth token rejected: wrong audience")
            return None
        except jwt.InvalidIssuerError:
            rejection.set(Rejection("invalid", detail="it was issued by another issuer"))
            logger.info("OAuth token rejected: wrong issuer")
            return None
        except jwt.PyJWTError as exc:
            logger.info("OAuth token rejected: %s", exc)
            return None
        except (OSError, ValueError) as exc:  # the issuer or its keys are unreachable
            logger.warning("OAuth token not verified: %s", exc)
            return None
        scopes = _scopes(claims)
        username = str(
            claims.get(self.username_claim) or claims.get("sub") or claims.get("client_id") or ""
        )[:100]
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id") or claims.get("azp") or username or "oauth"),
            scopes=scopes,
            expires_at=int(claims["exp"]),
            resource=self.audience,
            subject=str(claims["sub"]) if claims.get("sub") is not None else None,
            claims={
                "username": username or "oauth-client",
                "role": _highest_role(scopes, self.scope_roles),
                "iss": claims["iss"],
                "kind": "oauth",
            },
        )

    async def _key(self, kid: str | None) -> Any:
        key = self._lookup(kid)
        if key is None and time.monotonic() - self._fetched_at > KEY_REFRESH_SECONDS:
            await self._refresh()
            key = self._lookup(kid)
        return key

    def _lookup(self, kid: str | None) -> Any:
        if kid is not None:
            return self._keys.get(kid)
        return next(iter(self._keys.values())) if len(self._keys) == 1 else None

    async def _refresh(self) -> None:
        import httpx2
        import jwt

        self._fetched_at = time.monotonic()
        async with httpx2.AsyncClient(timeout=HTTP_TIMEOUT_SECONDS) as http:
            if self._jwks_uri is None:
                self._jwks_uri = await self._discover(http)
            response = await http.get(self._jwks_uri)
            response.raise_for_status()
            jwks = jwt.PyJWKSet.from_dict(response.json())
        self._keys = {
            key.key_id or f"#{n}": key.key
            for n, key in enumerate(jwks.keys)
            if key.public_key_use in (None, "sig")
        }

    async def _discover(self, http: Any) -> str:
        """The issuer's jwks_uri, from its RFC 8414 or OpenID Connect metadata."""
        for url in discovery_urls(self.issuer):
            response = await http.get(url)
            if response.status_code != 200:
                continue
            metadata = response.json()
            if metadata.get("issuer") != self.issuer:
                raise ValueError(
                    f"{url} names issuer {metadata.get('issuer')!r}, not {self.issuer!r}"
                )
            if not metadata.get("jwks_uri"):
                raise ValueError(f"{url} has no jwks_uri")
            return str(metadata["jwks_uri"])
        raise ValueError(f"no authorization server metadata found for {self.issuer}")


def discovery_urls(issuer: str) -> list[str]:
    """RFC 8414 section 3 and OpenID Connect discovery URLs for `issuer`, in that order."""
    from urllib.parse import urlsplit

    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    origin = f"{parts.scheme}://{parts.netloc}"
    urls = [f"{origin}/.well-known/oauth-authorization-server{path}"]
    if path:
        urls.append(f"{origin}/.well-known/openid-configuration{path}")
    urls.append(f"{issuer.rstrip('/')}/.well-known/openid-configuration")
    return list(dict.fromkeys(urls))


def _scopes(claims: dict[str, Any]) -> list[str]:
    """RFC 9068 `scope` (space-separated), or the `scp` list some issuers use."""
    raw = claims.get("scope", claims.get("scp", ""))
    if isinstance(raw, str):
        return raw.split()
    if isinstance(raw, list):
        return [str(s) for s in raw]
    return []


class CombinedVerifier:
    """Static tokens first (exact match, constant time), then JWTs of the issuer."""

    def __init__(self, verifiers: list[Any]) -> None:
        self.verifiers = verifiers

    async def verify_token(self, token: str) -> AccessToken | None:
        for verifier in self.verifiers:
            verified = await verifier.verify_token(token)
            if verified is not None:
                return verified
        return None


def verifier_for(settings: Settings, resource: str | None) -> CombinedVerifier | None:
    """The token verifier the HTTP transports use, or None when no auth is configured."""
    verifiers: list[Any] = []
    if settings.token_identities:
        verifiers.append(StaticTokenVerifier(settings))
    if settings.oauth_issuer and resource:
        verifiers.append(
            JwtVerifier(
                settings.oauth_issuer,
                resource,
                dict(settings.scope_roles),
                settings.oauth_username_claim,
            )
        )
    return CombinedVerifier(verifiers) if verifiers else None
