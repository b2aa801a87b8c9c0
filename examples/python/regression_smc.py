#!/usr/bin/python3
"""The log evidence of a Bayesian linear regression a user writes in Python, by logz.smc with
nothing tuned: issue 45's problem (n = 100 observations, noise sd 1, prior N(0, I) on d
coefficients), the prior folded into the energy, so that log Z of exp(-U) is the log evidence.
logz.smc fits its base to a pilot run (the default for a logz.Target) and runs from it.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/regression_smc.py [d] [seeds]

e.g. `... regression_smc.py 50 1,2,3`; d = 50 and seed 1 by default (about a second on 2 cores).
"""
import math
import sys
import time

import numpy as np

import logz

d = int(sys.argv[1]) if len(sys.argv) > 1 else 50
seeds = [int(s) for s in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1]
n = 100
rng = np.random.default_rng(4501 + d)  # the data of examples/evidence's linear_regression(d, n=100)
phi = rng.standard_normal((n, d))
y = phi @ rng.normal(0.0, 1.0, size=d) + rng.normal(0.0, 1.0, size=n)


def energy(X):
    """-log p(y | x) - log p(x), both normalised, for a batch X (P, d)."""
    resid = y[None, :] - X @ phi.T
    return 0.5 * (resid ** 2).sum(axis=1) + 0.5 * (X ** 2).sum(axis=1) + 0.5 * (n + d) * math.log(2 * math.pi)


def grad(X):
    return -(y[None, :] - X @ phi.T) @ phi + X


# y ~ N(0, I + phi phi^T): the exact log evidence.
cov = np.eye(n) + phi @ phi.T
exact = -0.5 * (n * math.log(2 * math.pi) + np.linalg.slogdet(cov)[1] + y @ np.linalg.solve(cov, y))
target = logz.Target(d, energy, grad, exact_log_z=exact)
for seed in seeds:
    start = time.time()
    r = logz.smc(target, seed=seed, progress=False)
    e = r.estimates["smc"]
    print(f"d = {d}, seed {seed}: log evidence {e.log_z:.4f} +- {e.std_error:.4f}, exact {exact:.4f} "
          f"(error {e.log_z - exact:+.4f}), flags {e.flags}, {r.to_dict()['budget']['total']} evaluations, "
          f"{time.time() - start:.1f} s")
