"""Bad input across every tool: hostile files, names, arguments and the audit log."""
