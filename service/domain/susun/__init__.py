"""Capsa Susun / Chinese Poker: hands, rows, naturals, scoring, the round request, auto-arrange."""
