"""Charts drawn from engine results: altair specs and the self-contained pyvis graph."""
