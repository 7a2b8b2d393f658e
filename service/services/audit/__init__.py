"""The audit's use cases: verifying chains and rounds (chains, record_checks), receipts, signed
heads and the export (receipts), and checking a restored database (restores)."""
