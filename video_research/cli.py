"""Command line: `video-research [serve|tools|call|doctor|backup|restore|setup]`.

With no subcommand it serves MCP on stdio, which is what MCP clients spawn
(`python -m video_research`). Anything meant for a person goes to stdout only for the
`tools`, `call`, `doctor`, `backup`, `restore` and `setup` subcommands; `serve` writes
nothing but protocol to stdout.

Exit codes: 0 ok, 1 the tool call failed (its ToolError JSON is printed), 2 usage or
configuration error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from video_research import __version__
from video_research.config import ConfigError, Settings, env_names, get_config, secret_fields
from video_research.support.backup import hold_server_lock
from video_research.support.logs import setup_logging

EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="video-research",
        description="MCP server for video research. Without a subcommand, serves MCP on stdio.",
    )
    parser.add_argument("--version", action="version", version=f"video-research {__version__}")
    sub = parser.add_subparsers(dest="command")

    serve = sub.add_parser("serve", help="serve MCP (stdio by default)")
    serve.add_argument("--transport", choices=["stdio", "http", "sse"], default="stdio")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address for http/sse (default 127.0.0.1)"
    )
    serve.add_argument("--port", type=int, default=None, help="port for http/sse (default 8089)")

    tools = sub.add_parser("tools", help="list the tools with one-line descriptions")
    tools.add_argument("--json", action="store_true", help="print the tools as JSON")
    tools.add_argument(
        "--all",
        action="store_true",
        help="every tool, not only those a session starts with (VIDEO_RESEARCH_TOOLSETS)",
    )

    call = sub.add_parser("call", help="run one tool in-process and print its JSON result")
    call.add_argument("tool")
    call.add_argument(
        "--json", dest="arguments", default="{}", help="tool arguments as a JSON object"
    )

    doctor = sub.add_parser(
        "doctor",
        help="run each engine once on a tiny input and check the stores; exit 1 when broken",
    )
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    doctor.add_argument(
        "--verbose",
        action="store_true",
        help="also show keys (set or not), paths, services and every setting with its source",
    )
    doctor.add_argument(
        "--stores-only",
        action="store_true",
        help="check the stores and the configuration, not the engines (a second)",
    )

    backup = sub.add_parser(
        "backup", help="copy every store, consistently, while the server serves"
    )
    backup.add_argument("dest", help="a new (or empty) folder for the copies and manifest.json")
    restore = sub.add_parser("restore", help="bring back the stores from a backup folder")
    restore.add_argument("src", help="a folder `video-research backup` wrote")
    restore.add_argument(
        "--force",
        action="store_true",
        help="restore even while a server serves from the data dir (restart it afterwards)",
    )
    _add_setup(sub)
    return parser


def _add_setup(sub: Any) -> None:
    from video_research.client_setup import CLIENTS, SERVER_NAME

    setup = sub.add_parser(
        "setup",
        help="write this server into an MCP client's configuration",
        description="Add this server to a client's MCP configuration, merged with what is "
        "there (other servers untouched, the old file backed up as <file>.bak-<time>).",
    )
    setup.add_argument("client", choices=CLIENTS)
    setup.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a variable for the server, e.g. GEMINI_API_KEY=... (repeat for more)",
    )
    setup.add_argument(
        "--file-root",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder the local-file tools may read (repeat for more; default: your home)",
    )
    setup.add_argument(
        "--scope",
        default="user",
        choices=["user", "local", "project"],
        help="user (default): for you everywhere; project: this folder's shared file "
        "(Claude Code, Cursor, VS Code); local: Claude Code, you in this folder",
    )
    setup.add_argument("--name", default=SERVER_NAME, help="the server's name in the client")
    setup.add_argument(
        "--config", type=Path, default=None, help="another configuration file of that client"
    )
    setup.add_argument(
        "--launcher",
        default="auto",
        choices=["auto", "python", "uvx"],
        help="auto (default): the command of this install (a checkout's venv, a pip venv, "
        "`uv tool`, `uvx --from <wheel>`, the published package); python: this "
        "environment's video-research; uvx: `uvx video-research` (the published package)",
    )
    setup.add_argument(
        "--print", action="store_true", help="show the entry and the file; change nothing"
    )
    setup.add_argument(
        "--check",
        action="store_true",
        help="start the command as the client will and list its tools first; write "
        "nothing if it does not start",
    )


def _setup(args: argparse.Namespace) -> int:
    from video_research import client_setup

    try:
        env = client_setup.parse_env(args.env, args.file_root)
        outcome = client_setup.setup(
            args.client,
            env=env,
            scope=args.scope,
            config=args.config,
            name=args.name,
            launcher=args.launcher,
            write=not args.print,
            check=args.check,
        )
    except client_setup.SetupError as exc:
        print(f"video-research setup: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if outcome.tools:
        print(
            f"checked: the command started and listed {len(outcome.tools)} tools",
            file=sys.stderr if args.print else sys.stdout,
        )
    if args.print:
        print(f"# add to {outcome.path}", file=sys.stderr)
        print(json.dumps(outcome.document, indent=2, ensure_ascii=False))
        return EXIT_OK
    print(f"{outcome.action} {args.name!r} in {outcome.path}")
    if outcome.backup:
        print(f"the previous file is kept as {outcome.backup}")
    print(f"restart {args.client} (or reload its MCP servers) to connect")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except BrokenPipeError:
        # stdout went away (`video-research tools | head`): stop quietly. Point stdout at
        # /dev/null so the interpreter's final flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


def _main(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "setup":  # before the settings: it configures a client, not this server
        return _setup(args)
    try:
        settings = get_config()
    except ConfigError as exc:
        print(f"video-research: {exc}", file=sys.stderr)
        return EXIT_USAGE
    setup_logging(settings.log_level, settings.log_format)
    if settings.notes:
        import logging

        for note in settings.notes:
            logging.getLogger("video_research.config").warning("%s", note)
    command = args.command or "serve"
    try:
        if command == "serve":
            return _serve(
                settings,
                getattr(args, "transport", "stdio"),
                getattr(args, "host", "127.0.0.1"),
                getattr(args, "port", None),
            )
        if command == "tools":
            return _tools(settings, args.json, args.all)
        if command == "call":
            return asyncio.run(_call(settings, args.tool, args.arguments))
        if command == "doctor":
            return _doctor(settings, args.json, args.verbose, args.stores_only)
        if command in ("backup", "restore"):
            return _backup_or_restore(settings, command, args)
    except ConfigError as exc:
        print(f"video-research: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    return EXIT_USAGE


def _serve(settings: Settings, transport: str, host: str, port: int | None) -> int:
    from video_research.server import transports
    from video_research.tools import dispatch

    dispatch.enabled_tools(settings)  # fail fast on a bad VIDEO_RESEARCH_TOOLSETS
    # Held shared while serving: `restore` needs it alone, so it never swaps the stores
    # under a running server by accident.
    hold_server_lock(settings.data_dir)
    _check_stores_in_background(settings)
    transports.run(settings, transport, host, port or transports.DEFAULT_PORT)
    return EXIT_OK


def _check_stores_in_background(settings: Settings) -> None:
    """Name a damaged store in the log at start, beside serving (never delaying it)."""
    import threading

    from video_research.server.stores import store_files
    from video_research.support import store_check

    stores = [(store.name, store.path) for store in store_files(settings)]
    threading.Thread(
        target=store_check.log_damaged, args=(stores,), name="store-check", daemon=True
    ).start()


def _backup_or_restore(settings: Settings, command: str, args: argparse.Namespace) -> int:

    from video_research.server.stores import store_files
    from video_research.support import backup
    from video_research.support.errors import ToolFailure

    stores = store_files(settings)
    try:
        if command == "backup":
            result = backup.backup(stores, Path(args.dest).expanduser(), version=__version__)
        else:
            result = backup.restore(
                Path(args.src).expanduser(), stores, settings.data_dir, force=args.force
            )
    except ToolFailure as exc:
        print(f"video-research {command}: {exc.message}\n  hint: {exc.hint}", file=sys.stderr)
        return EXIT_TOOL_ERROR
    print(json.dumps(result, indent=2, sort_keys=True))
    return EXIT_OK


def _tools(settings: Settings, as_json: bool, every: bool = False) -> int:
    from video_research.tools import dispatch

    specs = list(dispatch.TOOLS.values()) if every else dispatch.enabled_tools(settings)
    listed = dispatch.base_names(settings)
    if as_json:
        rows = [
            {
                "name": s.name,
                "toolset": s.toolset,
                "role": s.role,
                "listed": s.name in listed,
                "description": s.summary,
            }
            for s in specs
        ]
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    width = max((len(s.name) for s in specs), default=0)
    sets = max((len(s.toolset) for s in specs), default=0)
    for spec in specs:
        mark = ("  " if spec.name in listed else "+ ") if every else ""
        print(f"{mark}{spec.name.ljust(width)}  {spec.toolset.ljust(sets)}  {spec.summary}")
    if every:
        print(
            "\n+ not listed by default: run it through tool_call (any protocol revision), or "
            "turn its toolset on with toolset_enable (a 2025-11-25 session)"
        )
    return EXIT_OK


async def _call(settings: Settings, tool: str, raw_arguments: str) -> int:
    from video_research.handlers.context import CallContext
    from video_research.server import auth
    from video_research.support.services import Services, use_services
    from video_research.tools import dispatch

    spec = dispatch.reachable(tool, settings)
    if spec is None:
        from video_research.tools import toolsets

        print(f"video-research: {toolsets.unknown_tool_message(tool, settings)}", file=sys.stderr)
        return EXIT_USAGE
    try:
        arguments = json.loads(raw_arguments)
    except json.JSONDecodeError as exc:
        print(f"video-research: --json is not valid JSON: {exc}", file=sys.stderr)
        return EXIT_USAGE

    async def progress(done: float, total: float | None, message: str | None) -> None:
        of = f"/{total:g}" if total is not None else ""
        print(f"progress {done:g}{of} {message or ''}".rstrip(), file=sys.stderr)

    # The services of this one call (following the live settings, as the server's do),
    # closed on this event loop before asyncio.run ends it.
    with use_services(Services()) as services:
        try:
            caller = await auth.resolve_caller(None, settings)
            ctx = CallContext(tool=tool, caller=caller, progress_fn=progress, services=services)
            outcome = await dispatch.call(spec, arguments, ctx)
        finally:
            await services.aclose()
    if outcome.error is not None:
        print(json.dumps(outcome.error.to_json_dict(), indent=2, ensure_ascii=False))
        return EXIT_TOOL_ERROR
    print(json.dumps(outcome.result, indent=2, ensure_ascii=False, default=str))
    return EXIT_OK


def _reachable(url: str, default_port: int, timeout: float = 2.0) -> str:
    parsed = urlparse(url if "://" in url else f"tcp://{url}")
    host = parsed.hostname
    if not host:
        return "invalid URL"
    port = parsed.port or (443 if parsed.scheme == "https" else default_port)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return "reachable"
    except OSError as exc:
        return f"unreachable ({exc.__class__.__name__})"


def doctor_report(settings: Settings, services: bool = True) -> dict[str, Any]:
    """The configuration as it resolved and the stores' health; `services`: also try to
    reach the network services (up to seconds each when offline)."""
    from video_research.tools import dispatch

    names = env_names()
    secrets = secret_fields()
    keys = {names[f]: bool(getattr(settings, f).get_secret_value()) for f in sorted(secrets)}
    paths = {
        "data_dir": str(settings.data_dir),
        "cache_dir": str(settings.cache_dir),
        "session_db": settings.session_db,
    }
    reached: dict[str, str] = (
        {}
        if not services
        else {
            "gemini": _reachable(
                settings.gemini_base_url or "https://generativelanguage.googleapis.com", 443
            ),
        }
    )
    if services:
        reached["weaviate"] = (
            _reachable(settings.weaviate_url, 8080)
            if settings.weaviate_url
            else "not configured (embedded store)"
        )
        reached["nats"] = (
            _reachable(settings.nats_url, 4222)
            if settings.nats_url
            else "not configured (SQLite queue)"
        )
    settings_view = {k: v for k, v in settings.public_dict().items() if not k.endswith("_set")}
    from video_research.server.stores import store_files
    from video_research.support import store_check

    stores: dict[str, dict[str, Any]] = {}
    for store in store_files(settings):
        health = store_check.check(store.path)
        stores[store.name] = {
            "path": str(store.path),
            "state": health.state,
            "detail": health.detail,
            "check_seconds": health.seconds,
            "derived": [str(p) for p in store.derived],
        }
    from video_research.config import config_dir

    return {
        "version": __version__,
        "keys_set": keys,
        "paths": paths,
        "services": reached,
        "stores": stores,
        "toolsets": settings.toolsets,
        "tools_enabled": len(dispatch.enabled_tools(settings)),
        "settings": settings_view,
        "sources": {names[name]: where for name, where in settings.sources.items()},
        "config_dir": str(config_dir()),
        "notes": settings.notes,
    }


def _doctor(settings: Settings, as_json: bool, verbose: bool, stores_only: bool) -> int:
    """The engines' and stores' table (and with --verbose the configuration); exit 1 when
    a row is broken, so a script can tell."""
    from video_research import doctor

    report = doctor_report(settings, services=verbose or as_json)
    checks = [] if stores_only else doctor.engine_checks(settings)
    checks += doctor.store_rows(report["stores"])
    code = EXIT_TOOL_ERROR if any(check.broken for check in checks) else EXIT_OK
    if as_json:
        report["checks"] = [check.to_dict() for check in checks]
        print(json.dumps(report, indent=2, default=str))
        return code
    print(f"video-research {report['version']}\n")
    print(doctor.table(checks))
    broken = [check.name for check in checks if check.broken]
    print(f"\n{len(broken)} broken: {', '.join(broken)}" if broken else "\nall ok")
    if verbose:
        _print_configuration(report)
    else:
        print("(doctor --verbose shows the keys, paths, services and settings)")
    return code


def _print_configuration(report: dict[str, Any]) -> None:
    print("\nKeys (set or not; values are never shown):")
    for name, is_set in report["keys_set"].items():
        print(f"  {name:<20} {'set' if is_set else 'not set'}")
    print("\nPaths:")
    for name, path in report["paths"].items():
        print(f"  {name:<20} {path}")
    print("\nServices:")
    for name, state in report["services"].items():
        print(f"  {name:<20} {state}")
    print(f"\nToolsets: {', '.join(report['toolsets'])} ({report['tools_enabled']} tools enabled)")
    print(f"\nSettings (source in brackets; .env is read from {report['config_dir']}):")
    sources = report["sources"]
    names = env_names()
    for name, value in report["settings"].items():
        print(f"  {name:<24} {value}  [{sources.get(names.get(name, name), 'default')}]")
    for name in sorted(secret_fields()):
        where = sources.get(names[name], "default")
        if where != "default":
            print(f"  {name:<24} (secret)  [{where}]")
    for note in report["notes"]:
        print(f"\nNote: {note}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
