"""Background web research with the Gemini Deep Research agent.

- `tasks`: the tasks, kept in SQLite (DEEP_RESEARCH_DB) so a server restart between
  research_web and research_web_status loses nothing.
- `agent`: the Interactions API calls (start in the background, poll, cancel, follow
  up) through gemini.py's client and retry policy, and the report and its sources read
  out of a finished interaction.
"""
