"""LoCoMo harness: subject-scoped vs flat retrieval, a deterministic reader, the official F1.

Run ``python -m bench.locomo --data PATH --out DIR``. The data is CC BY-NC 4.0 and is read
from the path given; nothing of it is copied into the repository or the package.
"""
