"""The chain export's format name, apart from the export's writer (receipts, which reads the
database) so that the offline verifier (exportcheck, `capsa audit verify-file`) loads no
database layer."""

from __future__ import annotations

EXPORT_FORMAT = "capsa-export-v1"
