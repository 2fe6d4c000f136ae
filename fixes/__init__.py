"""The course's recipes as helpers to copy into your project or import (installed:
`dataloader_pitfalls.fixes`). Where a fixed script spells the same lines out (cases 09 and 10), so
that it pastes alone, tests/harness/test_fixes.py holds the helper to it; the others (worker logging
through a queue, case 18's other recipe; the num_workers autotune) are taught from here."""
