"""The ledger's reports (reports: players, summaries, entries, statements, CSV) and the
all-time totals the database keeps (rollups)."""
