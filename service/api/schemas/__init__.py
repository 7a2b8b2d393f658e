"""Request and response schemas, one module per resource (structure only: game rules live in
the domain, which owns every enum value and bound a schema names)."""
