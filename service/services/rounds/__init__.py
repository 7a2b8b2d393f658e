"""Rounds of either game: scored and stored (store), their records (records), documents
(documents) and voids (voids)."""
