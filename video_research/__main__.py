"""`python -m video_research` runs the stdio server (or any CLI subcommand)."""

from video_research.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
