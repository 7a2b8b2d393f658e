"""Subcommands of the `capsa` CLI, one module per feature."""
