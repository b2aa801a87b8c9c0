#!/usr/bin/python3
"""A Bayes factor between two models a user writes in Python: the evidence
p(y | M) = integral p(y | theta, M) p(theta | M) dtheta of each model for the same data, by
annealing from the prior (a Gaussian base) to the posterior, and log B = log Z_1 - log Z_2.

Data: y_i ~ N(mu, 1), i = 1..n. Model 1: mu ~ N(0, 1). Model 2: mu ~ N(0, 10^2), a vaguer
prior, which the Bayes factor penalises (the Occam factor). Both evidences are Gaussian
integrals with closed forms, printed beside the estimates.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/bayes_factor.py
"""
import numpy as np

import logz

rng = np.random.default_rng(7)
y = rng.normal(0.8, 1.0, size=20)
n = len(y)


def model(prior_sd):
    """The unnormalised posterior exp(-U(mu)) = p(y | mu) p(mu) (normalised prior), whose
    integral is the evidence; energy and gradient for a batch of particles (P, 1)."""
    def energy(X):
        mu = X[:, 0]
        return (0.5 * ((y[None, :] - mu[:, None]) ** 2).sum(axis=1) + 0.5 * n * np.log(2 * np.pi)
                + 0.5 * mu ** 2 / prior_sd ** 2 + np.log(np.sqrt(2 * np.pi) * prior_sd))

    def grad(X):
        mu = X[:, 0]
        return (-(y.sum() - n * mu) + mu / prior_sd ** 2)[:, None]

    # The exact evidence: y ~ N(0, I + prior_sd^2 11').
    cov = np.eye(n) + prior_sd ** 2
    exact = -0.5 * (y @ np.linalg.solve(cov, y) + np.linalg.slogdet(2 * np.pi * cov)[1])
    return logz.Target(1, energy, grad, exact_log_z=exact)


# A geometric schedule: the likelihood of 20 points sharpens the prior most at small t.
evidence, exact = {}, {}
for name, prior_sd in (("M1: mu ~ N(0, 1)", 1.0), ("M2: mu ~ N(0, 10^2)", 10.0)):
    target = model(prior_sd)
    result = logz.anneal(target, base=logz.GaussianBase(1, sigma=prior_sd), kernel="hais", num_steps=2000, schedule="geometric",
                         num_paths=200, directions=("forward", "reverse"), seed=11,
                         step_size_adaptation="pilot", progress=False)
    e = result.estimates["bar"]
    evidence[name], exact[name] = e, target.exact_log_z
    print(f"{name:22s} log p(y) = {e.log_z:9.4f} +- {e.std_error:.4f}   exact {target.exact_log_z:9.4f}")

(n1, e1), (n2, e2) = evidence.items()
print(f"log Bayes factor M1 vs M2 = {e1.log_z - e2.log_z:.4f} +- {np.hypot(e1.std_error, e2.std_error):.4f}   "
      f"exact {exact[n1] - exact[n2]:.4f}")
