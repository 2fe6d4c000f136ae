"""The needs a script can have of where it runs, by name: a case declares them (case.toml `needs`),
`check` reads them from a script's code (script_needs.py), and each launcher says which it meets
(its `missing`)."""

from __future__ import annotations

CUDA = "cuda"  # a usable CUDA GPU
OPENCV = "opencv"  # OpenCV (the module cv2)
DISTRIBUTED = "distributed"  # torch.distributed: a process group
KNOWN = (CUDA, OPENCV, DISTRIBUTED)
