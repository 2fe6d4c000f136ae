"""Running one script in isolation: launch, watch, stop, and what it showed."""
