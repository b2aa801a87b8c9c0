#!/usr/bin/python3
"""The main job of `make run` from Python: log Z of the 32 x 32 Ising model at the critical
temperature by annealing both ways (multispin Metropolis, 1024 paths each way, about a second
on 2 cores), beside Kaufman's exact value. examples/ising-32.toml is the paper's setting, far
from enough for BAR at this size: its estimates carry flags that say so.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/ising.py
"""
import os

import logz

config = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ising-32-multispin.toml")
result = logz.run(config)
print(f"exact log Z = {result.reference_log_z:.4f}")
for method, e in result.estimates.items():
    flags = f"  ({', '.join(e.flags)})" if e.flags else ""
    print(f"{method:12s} {e.log_z:12.4f} +- {e.std_error:.4f}{flags}")
print(f"{len(result.forward_works)} forward paths, {result.runtime_s:.1f} s")
