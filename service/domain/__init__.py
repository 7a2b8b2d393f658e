"""Pure game domain, no I/O: the shared pieces here, one package per game (`susun`, `banting`)."""
