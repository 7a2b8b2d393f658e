"""Auto-arrange's bounds, apart from the search so that naming them loads no numpy (`capsa
arrange --help`, `capsa --help`)."""

from __future__ import annotations

LIMIT_MAX = 20  # suggestions one request may ask for
LIMIT_DEFAULT = 3  # suggestions a request gets unless it asks for more or fewer
