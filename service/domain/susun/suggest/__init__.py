"""Auto-arrange (`POST /v1/arrangements/suggest`): the best legal settings of a 13-card hand."""
