"""Capsa scoring service: Capsa Susun / Chinese Poker and Capsa Banting (Big Two)."""

ENGINE_VERSION = "1.0.0"

__all__ = ["ENGINE_VERSION"]
