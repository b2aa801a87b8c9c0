#!/usr/bin/python3
"""The cost of calling a Python logz.Target from logz's drivers, per call.

Usage: PYTHONPATH=build/python bench/python/target_overhead.py

Anneals a target whose energy does as little as numpy allows (returns a preallocated array of
the right shape) with random-walk Metropolis (energy calls only) on one thread and counts the
calls. Prints two figures per call: the whole run's CPU time over the calls (an upper bound on
what a call costs: all of logz's own annealing work is in it), and the same after subtracting
the function's own time (called from a Python loop) and the time of the same run on a native
target (a one-component Gaussian mixture of the same dimension): an estimate of what logz adds
per call (the view of the particles, the GIL, the shape check, the copy of the answer). The
native target does a little more work than the trivial one, so the second figure is a lower
estimate. A script to run by hand, not a ctest.
"""
import time

import numpy as np

import logz

DIM, PATHS, STEPS = 8, 64, 2000


def main():
    calls = [0]
    answers = {}

    def energy(X):
        calls[0] += 1
        e = answers.get(len(X))
        if e is None:
            e = answers[len(X)] = np.zeros(len(X))
        return e

    target = logz.Target(DIM, energy)
    best_run, n_calls = float("inf"), 0
    for _ in range(3):
        calls[0] = 0
        t0 = time.process_time()
        logz.anneal(target, kernel="metropolis", num_steps=STEPS, num_paths=PATHS, threads=1, seed=1)
        best_run = min(best_run, time.process_time() - t0)
        n_calls = calls[0]
    # The same function called from Python on arrays of a typical batch size.
    batch = np.zeros((4, DIM))
    t0 = time.process_time()
    for _ in range(n_calls):
        energy(batch)
    python_only = time.process_time() - t0
    # The run with no Python at all: the same work on the native Gaussian of logz.run.
    native = {"model": {"type": "gaussian_mixture", "weights": [1.0], "means": [0.0], "covariances": [1.0],
                        "dim": DIM},
              "kernel": {"type": "metropolis"}, "schedule": {"type": "linear", "num_steps": STEPS},
              "run": {"num_paths": PATHS, "directions": ["forward"], "threads": 1, "seed": 1},
              "base": {"type": "gaussian", "sigma": 1.0}}
    best_native = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        logz.run(native)
        best_native = min(best_native, time.process_time() - t0)
    per_call = (best_run - python_only - best_native) / n_calls
    print(f"{n_calls} calls of energy (P up to {PATHS}, dim {DIM}); run {best_run:.3f} s, "
          f"the function alone {python_only:.3f} s, a native target {best_native:.3f} s")
    print(f"per call: whole run {best_run / n_calls * 1e6:.2f} us (upper bound); "
          f"minus the function and a native run {per_call * 1e6:.2f} us")


if __name__ == "__main__":
    main()
