"""Small helpers that the fixed cases use; each module stands alone, to copy into your project."""
