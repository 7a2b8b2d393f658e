"""Use cases: take validated input and a unit of work, call the domain, persist, return results."""
