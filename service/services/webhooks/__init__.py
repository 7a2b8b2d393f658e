"""Settlement events and their delivery: the endpoints (endpoints), the events (events) and
the dispatcher that delivers them (dispatcher)."""
