"""takboard: the service that sits beside a real Tak board (camera in, LEDs and web page out)."""

import os

# One BLAS thread, set before anything imports numpy (why: vision/__init__.py, which the service
# imports only after numpy).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

__version__ = "0.1.0"
