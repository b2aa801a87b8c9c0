#!/usr/bin/python3
"""The test log-likelihood of an RBM from its numpy weights: W (visible x hidden), a, b and
binary test rows, the way a paper reports it (mean log p(v) over the test set, nats per
example, with its standard error). log Z by AIS on the marginal p(v) path from a base-rate
base fitted to training rows, and RAISE from those rows; beside the exact log Z, which
logz enumerates here because the RBM is small (16 visible units).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/rbm_test_loglik.py

With your own model, W, a and b come from your training code (any float arrays) and
train / test are your binary data rows.
"""
import os

import numpy as np

import logz

here = os.path.dirname(os.path.abspath(__file__))
weights = np.load(os.path.join(here, "..", "rbm-random-20.npz"))
rows = np.load(os.path.join(here, "..", "rbm-random-20-data.npz"))["data"]
train, test = rows[:400], rows[400:]

rbm = logz.models.RBM(weights["W"], weights["a"], weights["b"], train=train, test=test)
result = logz.anneal(rbm, num_steps=1000, num_paths=200, directions=("forward", "reverse"),
                     reverse_start="data", seed=1)
for method in ("ais", "raise", "bar"):
    e = result.estimates[method]
    print(f"log Z {method:6s} {e.log_z:10.4f} +- {e.std_error:.4f}")
print(f"log Z exact  {rbm.exact_log_z():10.4f}")
t = result.test_log_likelihood
print(f"test log-likelihood {t['mean']:.4f} +- {t['std_error']:.4f} nats per example "
      f"({t['num_examples']} rows, log Z from {t['log_z_source']})")
