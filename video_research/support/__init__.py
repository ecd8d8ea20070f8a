"""Small shared helpers every layer may use: errors, paths, URL policy, redaction, logs, retries."""
