"""Capsa Susun's use cases: server-run games (games) and arranging a hand (arranging)."""
