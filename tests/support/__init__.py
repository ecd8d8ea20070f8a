"""Shared helpers: contracts, errors, URL policy, logs, services, private names."""
