"""The knowledge store, embeddings, transcripts, local files, documents and catalog settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator

from video_research.config.common import (
    Role,
    env_field,
    parse_http_tokens,
    split_list,
)


class StoreSettings(BaseModel):
    """The knowledge store, embeddings, transcripts, local files, documents and catalog settings."""

    # --- knowledge store ---
    weaviate_url: str = Field(
        default="",
        json_schema_extra=env_field(
            "WEAVIATE_URL", "Use Weaviate at this URL instead of the embedded store"
        ),
    )
    weaviate_api_key: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=env_field("WEAVIATE_API_KEY", "Weaviate API key", secret=True),
    )

    # --- queue / sessions registry ---
    nats_url: str = Field(
        default="",
        json_schema_extra=env_field(
            "NATS_URL", "Keep the watch queue in NATS JetStream KV at this URL"
        ),
    )

    # --- knowledge store and embeddings: add fields here ---
    knowledge_db_path: str = Field(
        default="",
        json_schema_extra=env_field(
            "KNOWLEDGE_DB",
            "Embedded knowledge store file (default: knowledge.db in the data dir)",
        ),
    )
    knowledge_write_through: bool = Field(
        default=True,
        json_schema_extra=env_field(
            "KNOWLEDGE_WRITE_THROUGH",
            "Store every producer tool's result in the knowledge store (true/false)",
        ),
    )
    embedding_provider: Literal["local", "gemini"] = Field(
        default="local",
        json_schema_extra=env_field(
            "KNOWLEDGE_EMBEDDING_PROVIDER",
            "local (KNOWLEDGE_EMBEDDING_MODEL on CPU, offline; use-multilingual by default) or gemini (gemini-embedding)",
        ),
    )
    embedding_model: str = Field(
        default="",
        json_schema_extra=env_field(
            "KNOWLEDGE_EMBEDDING_MODEL",
            "Embedding model (local: use-multilingual, the default, multilingual-e5-small or all-MiniLM-L6-v2; gemini: default gemini-embedding-001)",
        ),
    )
    embedding_dimensions: int = Field(
        default=0,
        ge=0,
        json_schema_extra=env_field(
            "KNOWLEDGE_EMBEDDING_DIMENSIONS",
            "Vector size (default: 384 local; 768, 1536 or 3072 for gemini, default 768)",
        ),
    )
    embedding_batch_size: int = Field(
        default=32,
        ge=1,
        le=1024,
        json_schema_extra=env_field(
            "KNOWLEDGE_EMBEDDING_BATCH_SIZE", "Texts embedded per model call (1-1024)"
        ),
    )
    weaviate_grpc_port: int = Field(
        default=0,
        ge=0,
        le=65535,
        json_schema_extra=env_field(
            "WEAVIATE_GRPC_PORT", "Weaviate gRPC port (default 50051; cloud URLs need none)"
        ),
    )
    weaviate_distance: Literal["cosine", "dot", "l2-squared"] = Field(
        default="cosine",
        json_schema_extra=env_field(
            "WEAVIATE_DISTANCE", "HNSW distance metric for new Weaviate collections"
        ),
    )
    weaviate_max_connections: int = Field(
        default=32,
        ge=4,
        le=2048,
        json_schema_extra=env_field(
            "WEAVIATE_HNSW_MAX_CONNECTIONS", "HNSW max connections per node (new collections)"
        ),
    )
    weaviate_ef_construction: int = Field(
        default=128,
        ge=4,
        le=4096,
        json_schema_extra=env_field(
            "WEAVIATE_HNSW_EF_CONSTRUCTION", "HNSW build-time candidate list size (new collections)"
        ),
    )
    weaviate_ef: int = Field(
        default=-1,
        ge=-1,
        le=4096,
        json_schema_extra=env_field(
            "WEAVIATE_HNSW_EF", "HNSW query-time candidate list size; -1 lets Weaviate pick"
        ),
    )
    embedding_local_precision: Literal["", "fp32", "int8"] = Field(
        default="",
        json_schema_extra=env_field(
            "KNOWLEDGE_LOCAL_EMBEDDING_PRECISION",
            "Local models on ONNX Runtime: fp32 (exact) or int8 documents (faster, cosine ~0.99); "
            "default fp32 for all-MiniLM-L6-v2, int8 for multilingual-e5-small",
        ),
    )
    knowledge_model_cache_dir: str = Field(
        default="",
        json_schema_extra=env_field(
            "KNOWLEDGE_MODEL_CACHE_DIR",
            "Where the local model's ONNX graph is built once and kept (default: models/ in the data dir)",
        ),
    )
    knowledge_ann: bool = Field(
        default=True,
        json_schema_extra=env_field(
            "KNOWLEDGE_ANN",
            "Approximate nearest-neighbour index (faiss HNSW) beside the embedded store (true/false)",
        ),
    )
    knowledge_keyword_index: bool = Field(
        default=True,
        json_schema_extra=env_field(
            "KNOWLEDGE_KEYWORD_INDEX",
            "Exact BM25 top-k from a Tantivy index beside the embedded store (true/false)",
        ),
    )
    knowledge_ann_min_objects: int = Field(
        default=20000,
        ge=100,
        json_schema_extra=env_field(
            "KNOWLEDGE_ANN_MIN_OBJECTS",
            "Collections smaller than this are searched exactly (numpy), without an ANN index",
        ),
    )
    knowledge_ann_ef_search: int = Field(
        default=256,
        ge=16,
        le=4096,
        json_schema_extra=env_field(
            "KNOWLEDGE_ANN_EF_SEARCH", "HNSW query-time candidate list size of the embedded index"
        ),
    )

    # --- transcripts: add fields here ---
    transcript_languages: list[str] = Field(
        default_factory=lambda: ["en"],
        json_schema_extra=env_field(
            "TRANSCRIPT_LANGUAGES",
            "Comma list of preferred transcript languages, best first (default en)",
        ),
    )
    transcript_proxy_url: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=env_field(
            "TRANSCRIPT_PROXY_URL",
            "HTTP(S) proxy for YouTube transcript requests, e.g. http://user:pass@host:port",
            secret=True,
        ),
    )
    webshare_proxy_username: str = Field(
        default="",
        json_schema_extra=env_field(
            "WEBSHARE_PROXY_USERNAME", "Webshare rotating residential proxy username"
        ),
    )
    webshare_proxy_password: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=env_field(
            "WEBSHARE_PROXY_PASSWORD", "Webshare rotating residential proxy password", secret=True
        ),
    )
    webshare_proxy_locations: list[str] = Field(
        default_factory=list,
        json_schema_extra=env_field(
            "WEBSHARE_PROXY_LOCATIONS", "Comma list of country codes the Webshare IPs come from"
        ),
    )
    transcript_endpoint: str = Field(
        default="",
        json_schema_extra=env_field(
            "YOUTUBE_TRANSCRIPT_ENDPOINT",
            "Fetch transcripts from this origin instead of https://www.youtube.com (mirrors, stubs)",
        ),
    )
    transcript_fetch_concurrency: int = Field(
        default=2,
        ge=1,
        le=8,
        json_schema_extra=env_field(
            "TRANSCRIPT_FETCH_CONCURRENCY", "Transcripts fetched from YouTube at a time (1-8)"
        ),
    )
    transcript_chunk_tokens: int = Field(
        default=200,
        ge=64,
        le=254,
        json_schema_extra=env_field(
            "TRANSCRIPT_CHUNK_TOKENS",
            "Target chunk size in the embedding model's tokens, title included (64-254)",
        ),
    )
    transcript_chunk_overlap: int = Field(
        default=40,
        ge=0,
        le=120,
        json_schema_extra=env_field(
            "TRANSCRIPT_CHUNK_OVERLAP", "Word pieces of whole cues repeated between chunks (0-120)"
        ),
    )
    transcript_file_budget_seconds: float = Field(
        default=120.0,
        ge=0.1,
        le=3600.0,
        json_schema_extra=env_field(
            "TRANSCRIPT_FILE_BUDGET_SECONDS",
            "Wall time one transcript file may take to parse and chunk before it fails on its "
            "own (seconds; embedding not included)",
        ),
    )

    # --- local files ---
    file_roots: list[str] = Field(
        default_factory=lambda: [str(Path.home())],
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_FILE_ROOTS",
            "Comma list of directories the local-file tools may read (default: home)",
        ),
    )
    url_allowlist: list[str] = Field(
        default_factory=list,
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_URL_ALLOWLIST",
            "Comma list of hosts (*.corp.example) and address ranges (10.0.0.0/8) that URLs may "
            "name although they are private (local deployments)",
        ),
    )
    url_resolve_timeout_seconds: float = Field(
        default=3.0,
        gt=0,
        le=60,
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_URL_RESOLVE_TIMEOUT",
            "Longest wait, in seconds, for the name lookup of a URL's host",
        ),
    )

    @field_validator("url_allowlist", mode="before")
    @classmethod
    def _split_allowlist(cls, value: Any) -> Any:
        return split_list(value)

    # --- documents: add fields here ---
    documents_chunk_tokens: int = Field(
        default=200,
        ge=32,
        le=2048,
        json_schema_extra=env_field(
            "DOCUMENTS_CHUNK_TOKENS",
            "Most tokens of the embedding model per document chunk, heading path included (MiniLM: at most 254 are used)",
        ),
    )
    documents_max_file_mb: float = Field(
        default=100.0,
        gt=0,
        json_schema_extra=env_field(
            "DOCUMENTS_MAX_FILE_MB",
            "Largest file document_ingest reads, in MB (larger ones fail per file)",
        ),
    )
    documents_max_unpacked_mb: float = Field(
        default=200.0,
        gt=0,
        json_schema_extra=env_field(
            "DOCUMENTS_MAX_UNPACKED_MB",
            "Most a DOCX/PPTX (a ZIP archive) may unpack to, in MB, checked before extraction "
            "(larger ones fail per file: zip bombs)",
        ),
    )
    documents_max_compression_ratio: float = Field(
        default=100.0,
        gt=1,
        json_schema_extra=env_field(
            "DOCUMENTS_MAX_COMPRESSION_RATIO",
            "Highest unpacked/packed size ratio of a DOCX/PPTX and of any of its parts over "
            "1 MB (Office XML packs about 10x; zip bombs 1000x)",
        ),
    )

    # --- parser workers (untrusted files are parsed in bounded worker processes) ---
    parser_workers: int = Field(
        default=2,
        ge=1,
        le=64,
        json_schema_extra=env_field(
            "PARSER_WORKERS",
            "Worker processes that parse untrusted files (documents, media), started on first use",
        ),
    )
    worker_priority: Literal["normal", "low"] = Field(
        default="normal",
        json_schema_extra=env_field(
            "WORKER_PRIORITY",
            "CPU priority of parser and media workers: normal (the server's own, a full "
            "share beside other processes) or low (niceness 10: they yield to every other "
            "process, and starve on a busy machine)",
        ),
    )
    parser_memory_mb: int = Field(
        default=2048,
        ge=256,
        json_schema_extra=env_field(
            "PARSER_MEMORY_MB",
            "Address space one parser worker may use, in MB (RLIMIT_AS); a file that needs more "
            "(a decompression bomb) fails on its own",
        ),
    )
    parser_cpu_seconds: int = Field(
        default=300,
        ge=1,
        json_schema_extra=env_field(
            "PARSER_CPU_SECONDS",
            "CPU seconds a parser worker may spend on one file (RLIMIT_CPU)",
        ),
    )
    parser_timeout_seconds: float = Field(
        default=600.0,
        gt=0,
        json_schema_extra=env_field(
            "PARSER_TIMEOUT_SECONDS",
            "Wall-clock seconds one file may take in a parser worker before the worker is replaced",
        ),
    )

    # --- catalog, queue, roles, HTTP auth: add fields here ---
    catalog_db_path: str = Field(
        default="",
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_CATALOG_DB",
            "Catalog database file: videos, playlists, marathons, queue, sessions, audit "
            "(default: catalog.db in the data dir)",
        ),
    )
    nats_subject_prefix: str = Field(
        default="kryten",
        pattern=r"^[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*$",
        json_schema_extra=env_field(
            "NATS_SUBJECT_PREFIX", "First tokens of the queue command subject (default kryten)"
        ),
    )
    queue_channel: str = Field(
        default="default",
        pattern=r"^[A-Za-z0-9_\-]{1,64}$",
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_QUEUE_CHANNEL",
            "Which channel's queue this server manages (KV key and subject token; default 'default')",
        ),
    )
    nats_queue_bucket: str = Field(
        default="video_research_queue",
        pattern=r"^[A-Za-z0-9_\-]{1,64}$",
        json_schema_extra=env_field("NATS_QUEUE_BUCKET", "JetStream KV bucket holding the queue"),
    )
    nats_sessions_bucket: str = Field(
        default="video_research_sessions",
        pattern=r"^[A-Za-z0-9_\-]{1,64}$",
        json_schema_extra=env_field(
            "NATS_SESSIONS_BUCKET", "JetStream KV bucket holding the session registry"
        ),
    )
    nats_timeout_seconds: float = Field(
        default=5.0,
        gt=0,
        le=120,
        json_schema_extra=env_field(
            "NATS_TIMEOUT_SECONDS", "Connect and per-operation timeout for NATS calls"
        ),
    )
    audit_log_path: str = Field(
        default="",
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_AUDIT_LOG",
            "Append audit JSON lines to this file (default: JSON lines on stderr)",
        ),
    )
    http_tokens: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_HTTP_TOKENS",
            'Bearer tokens for --transport http/sse: JSON {"token": {"username": ..., "role": ...}}',
            secret=True,
        ),
    )

    @field_validator("http_tokens", mode="after")
    @classmethod
    def _check_tokens(cls, value: SecretStr) -> SecretStr:
        """Fail at start-up on a malformed token map, and mask every token in logs."""
        parse_http_tokens(value.get_secret_value())
        return value

    @property
    def catalog_db(self) -> str:
        return self.catalog_db_path or str(self.data_dir / "catalog.db")

    @property
    def token_identities(self) -> dict[str, tuple[str, Role]]:
        """bearer token -> (username, role), from VIDEO_RESEARCH_HTTP_TOKENS."""
        return parse_http_tokens(self.http_tokens.get_secret_value())
