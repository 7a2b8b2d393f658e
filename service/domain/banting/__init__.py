"""Capsa Banting / Big Two: plays, the referee and settlement, the rules."""
