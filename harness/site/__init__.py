"""The documentation site's generated content: case pages, tables and plots from results data."""
