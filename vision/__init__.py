"""Vision: camera sources, board localisation, rectification, square reading, simulated camera.

Does not import `controller`: it reports what it sees, it does not know the rules.
"""

import os

# The square classifier's matrix products are small (64 squares a frame): BLAS threads only spin
# against the camera loop and each other (the record benchmark ran 3x slower with two processes).
# Set before numpy loads BLAS, i.e. before anything imports numpy; an explicit setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
