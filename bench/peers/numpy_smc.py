#!/usr/bin/python3
"""A plain numpy adaptive tempered SMC sampler for the evidence: the peer logz.evidence is
compared with (issue 45), written as a competent user would write one, without tricks.

    pi_beta(x) ~ prior(x) L(x)^beta,  beta: 0 -> 1,  Z = prod_t E_{pi_beta_t}[L^(beta_{t+1} - beta_t)]

- Start: N particles from the prior (sampled directly).
- Next temperature: bisection on the conditional ESS (Zhou, Johansen & Aston 2016) of the
  incremental weights L^(delta beta), targeting `cess_target` * N.
- log Z: the log of the weighted mean of the incremental weights, summed over temperatures.
- Resampling: systematic, when the ESS falls below N/2.
- Moves: HMC on pi_beta, preconditioned by the weighted covariance of the other half of the
  particles (leapfrog in the whitened coordinates z = chol(cov)^-1 x, which is a mass matrix
  cov^-1), `num_moves` moves of about `leapfrog_steps` steps per temperature; the step size is
  adapted after each move towards an acceptance rate of 0.65 (on log step). Each particle
  gets its own step (the common step times U(0.5, 1.5)) and each move a random number of steps
  (L/2 .. 3L/2): with a fixed trajectory length HMC on a well-preconditioned Gaussian can sit
  near its period and barely move (seen here: log Z 0.5 - 0.8 too low at d = 30).
  `schedule` (a list of temperatures) replaces the adaptive choice, for checks.
  A Uniform prior's box is handled by rejection: a trajectory that ends outside is rejected.
- Error bar: the standard deviation of log Z over `replicates` independent runs / sqrt(R);
  the estimate is the log of the mean of the replicates' Z (each replicate's Z is unbiased).

Priors are plain-data descriptions (those of examples/evidence/problems.py):
("normal", mean, cov), ("uniform", low, high), ("student_t", df, loc, scale).

Counting: a likelihood evaluation is one particle's log L, a gradient evaluation one particle's
grad log L; a call on P particles counts P. The prior's density and gradient are not counted
(they are analytic and cheap here, as they are for logz).

    from numpy_smc import smc_evidence
    r = smc_evidence(log_likelihood, grad, prior, seed=0)
    r.log_z, r.std_error, r.num_likelihood, r.num_gradient, r.wall_time
"""
import dataclasses
import math
import time

import numpy as np


def _log_mean_exp(a):
    a = np.asarray(a, float)
    m = a.max()
    return float(m + np.log(np.mean(np.exp(a - m))))


class Prior:
    """Sampling, log density and its gradient for a plain-data prior description."""

    def __init__(self, spec, dim=None):
        kind = spec[0]
        self.kind = kind
        if kind == "normal":
            self.mean = np.atleast_1d(np.asarray(spec[1], float))
            d = dim or len(self.mean)
            self.mean = np.broadcast_to(self.mean, (d,)).copy()
            cov = np.asarray(spec[2], float)
            if cov.ndim == 0:
                cov = float(cov) * np.eye(d)
            elif cov.ndim == 1:
                cov = np.diag(cov)
            self.chol = np.linalg.cholesky(cov)
            self.precision = np.linalg.inv(cov)
            self.log_norm = -np.log(np.diag(self.chol)).sum() - 0.5 * d * math.log(2 * math.pi)
        elif kind == "uniform":
            self.low = np.atleast_1d(np.asarray(spec[1], float))
            self.high = np.atleast_1d(np.asarray(spec[2], float))
            d = dim or len(self.low)
            self.low, self.high = np.broadcast_to(self.low, (d,)).copy(), np.broadcast_to(self.high, (d,)).copy()
            if np.any(self.high <= self.low):
                raise ValueError("Prior: uniform needs high > low in every coordinate")
            self.log_norm = -np.log(self.high - self.low).sum()
        elif kind == "student_t":
            self.df = float(spec[1])
            self.loc = np.atleast_1d(np.asarray(spec[2], float))
            d = dim or len(self.loc)
            self.loc = np.broadcast_to(self.loc, (d,)).copy()
            self.scale = np.broadcast_to(np.asarray(spec[3], float), (d,)).copy()
            nu = self.df
            self.log_norm = d * (math.lgamma(0.5 * (nu + 1)) - math.lgamma(0.5 * nu) - 0.5 * math.log(nu * math.pi)) \
                - np.log(self.scale).sum()
        else:
            raise ValueError(f"Prior: unknown kind {kind!r}; expected normal, uniform or student_t")
        self.dim = d

    def sample(self, rng, n):
        d = self.dim
        if self.kind == "normal":
            return self.mean + rng.standard_normal((n, d)) @ self.chol.T
        if self.kind == "uniform":
            return self.low + (self.high - self.low) * rng.random((n, d))
        chi2 = rng.chisquare(self.df, size=(n, d))
        return self.loc + self.scale * rng.standard_normal((n, d)) / np.sqrt(chi2 / self.df)

    def inside(self, X):
        if self.kind != "uniform":
            return np.ones(len(X), bool)
        return np.all((X >= self.low) & (X <= self.high), axis=1)

    def log_density(self, X):
        if self.kind == "normal":
            diff = X - self.mean
            return -0.5 * np.einsum("pi,ij,pj->p", diff, self.precision, diff) + self.log_norm
        if self.kind == "uniform":
            return np.where(self.inside(X), self.log_norm, -np.inf)
        z = (X - self.loc) / self.scale
        return -0.5 * (self.df + 1) * np.log1p(z ** 2 / self.df).sum(axis=1) + self.log_norm

    def grad_log_density(self, X):
        if self.kind == "normal":
            return -(X - self.mean) @ self.precision
        if self.kind == "uniform":
            return np.zeros_like(X)
        diff = X - self.loc
        return -(self.df + 1) * diff / (self.df * self.scale ** 2 + diff ** 2)


class CountedLikelihood:
    """The user's log L and gradient with per-particle evaluation counts."""

    def __init__(self, log_likelihood, grad):
        self.f, self.g = log_likelihood, grad
        self.num_likelihood = 0
        self.num_gradient = 0

    def __call__(self, X):
        self.num_likelihood += len(X)
        return np.asarray(self.f(X), float)

    def gradient(self, X):
        self.num_gradient += len(X)
        return np.asarray(self.g(X), float)


@dataclasses.dataclass
class SingleRun:
    log_z: float
    num_temperatures: int
    num_likelihood: int
    num_gradient: int
    mean_acceptance: float
    wall_time: float
    betas: list


@dataclasses.dataclass
class SmcResult:
    log_z: float
    std_error: float
    runs: list
    num_likelihood: int
    num_gradient: int
    wall_time: float
    flags: list

    @property
    def num_evaluations(self):
        return self.num_likelihood + self.num_gradient


def _systematic_resample(rng, weights):
    n = len(weights)
    positions = (rng.random() + np.arange(n)) / n
    cum = np.cumsum(weights)
    cum[-1] = 1.0
    return np.searchsorted(cum, positions)


def _ess(log_w):
    w = np.exp(log_w - log_w.max())
    return w.sum() ** 2 / (w ** 2).sum()


def _next_beta(beta, loglik, weights, cess_target):
    """Largest beta' in (beta, 1] with conditional ESS >= cess_target * N (bisection)."""
    n = len(loglik)

    def cess(b):
        inc = (b - beta) * loglik
        inc = inc - inc.max()
        u = np.exp(inc)
        return n * (weights @ u) ** 2 / (weights @ u ** 2)

    if cess(1.0) >= cess_target * n:
        return 1.0
    lo, hi = beta, 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if cess(mid) >= cess_target * n:
            lo = mid
        else:
            hi = mid
    return max(lo, beta + 1e-12)


def smc_run(likelihood, prior, rng, num_particles=1000, cess_target=0.9, num_moves=5,
            leapfrog_steps=10, target_acceptance=0.65, max_temperatures=5000, schedule=None):
    """One tempered SMC run; returns (log Z, number of temperatures, mean acceptance)."""
    t0 = time.perf_counter()
    l0, g0 = likelihood.num_likelihood, likelihood.num_gradient
    n, d = num_particles, prior.dim
    X = prior.sample(rng, n)
    loglik = likelihood(X)
    log_w = np.full(n, -math.log(n))  # normalised log weights
    beta, log_z, temps = 0.0, 0.0, 0
    step = 1.0 / d ** 0.25  # in whitened coordinates; adapted below
    acc_all, betas = [], []
    while beta < 1.0:
        if temps >= max_temperatures:
            raise RuntimeError(f"smc_run: more than {max_temperatures} temperatures")
        weights = np.exp(log_w)
        new_beta = _next_beta(beta, loglik, weights, cess_target) if schedule is None else schedule[temps]
        inc = (new_beta - beta) * loglik
        m = inc.max()
        log_z += m + math.log(weights @ np.exp(inc - m))
        log_w = log_w + inc
        log_w -= m + math.log(np.exp(log_w - m).sum())
        beta = new_beta
        betas.append(beta)
        temps += 1
        # Resample when the ESS falls below N/2.
        if _ess(log_w) < 0.5 * n:
            idx = _systematic_resample(rng, np.exp(log_w))
            X, loglik = X[idx], loglik[idx]
            log_w = np.full(n, -math.log(n))
        # Preconditioner: the weighted covariance of the *other* half of the particles, so that
        # no particle's kernel depends on its own position (each half's move is then exactly
        # pi_beta-invariant given the other half).
        halves = (np.arange(n) % 2 == 0, np.arange(n) % 2 == 1)
        chols = [_weighted_cholesky(X[h], log_w[h]) for h in halves]
        grad_now = [None, None]
        for _ in range(num_moves):
            # Per-particle step jitter and a random number of steps: on a well-preconditioned
            # near-Gaussian target a fixed trajectory length can sit near the period 2 pi and not mix.
            steps = step * rng.uniform(0.5, 1.5, size=(n, 1))
            num_steps = int(rng.integers(max(1, leapfrog_steps // 2), leapfrog_steps + leapfrog_steps // 2 + 1))
            accepted = 0.0
            for i, h in enumerate(halves):
                X[h], loglik[h], grad_now[i], acc = _hmc_move(X[h], loglik[h], grad_now[i], beta, likelihood, prior,
                                                              chols[1 - i], rng, steps[h], num_steps)
                accepted += acc * h.sum()
            acc_all.append(accepted / n)
            step *= math.exp(0.5 * (accepted / n - target_acceptance))  # towards the target acceptance
    return SingleRun(log_z, temps, likelihood.num_likelihood - l0, likelihood.num_gradient - g0,
                     float(np.mean(acc_all)) if acc_all else float("nan"), time.perf_counter() - t0, betas)


def _weighted_cholesky(X, log_w):
    """Cholesky factor of the weighted covariance of X (regularised; diagonal if that fails)."""
    d = X.shape[1]
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    mean = w @ X
    cov = ((X - mean) * w[:, None]).T @ (X - mean)
    cov = 0.5 * (cov + cov.T) + 1e-10 * max(np.trace(cov), 1e-300) / d * np.eye(d)
    try:
        return np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        return np.diag(np.sqrt(np.maximum(np.diag(cov), 1e-12)))


def _hmc_move(X, loglik, grad_ll, beta, likelihood, prior, chol, rng, step, num_steps):
    """One HMC move per particle on prior * L^beta with mass matrix cov^-1 (cov = chol chol^T)."""
    with np.errstate(all="ignore"):  # divergent trajectories overflow; they are rejected below
        return _hmc_move_unguarded(X, loglik, grad_ll, beta, likelihood, prior, chol, rng, step, num_steps)


def _hmc_move_unguarded(X, loglik, grad_ll, beta, likelihood, prior, chol, rng, step, num_steps):
    n, d = X.shape
    if grad_ll is None:
        grad_ll = likelihood.gradient(X)

    def grad_z(gx):  # gradient in whitened coordinates
        return gx @ chol

    g = grad_z(prior.grad_log_density(X) + beta * grad_ll)
    p0 = rng.standard_normal((n, d))
    p = p0 + 0.5 * step * g
    Y = X.copy()
    gl = grad_ll
    for k in range(num_steps):
        Y = Y + step * p @ chol.T
        gl = likelihood.gradient(Y)
        g = grad_z(prior.grad_log_density(Y) + beta * gl)
        p = p + (step if k < num_steps - 1 else 0.5 * step) * g
    inside = prior.inside(Y)
    new_ll = np.full(n, -np.inf)
    if inside.any():
        new_ll[inside] = likelihood(Y[inside])
    log_a = (prior.log_density(Y) + beta * new_ll - 0.5 * (p ** 2).sum(axis=1)
             - prior.log_density(X) - beta * loglik + 0.5 * (p0 ** 2).sum(axis=1))
    log_a = np.where(np.isnan(log_a), -np.inf, log_a)
    accept = np.log(rng.random(n)) < log_a
    X = np.where(accept[:, None], Y, X)
    loglik = np.where(accept, new_ll, loglik)
    grad_ll = np.where(accept[:, None], gl, grad_ll)
    return X, loglik, grad_ll, float(accept.mean())


def smc_evidence(log_likelihood, grad, prior, seed=0, num_particles=1000, replicates=4, **options):
    """log Z by `replicates` independent tempered SMC runs; the standard error from their spread."""
    if replicates < 2:
        raise ValueError("smc_evidence: replicates must be >= 2 (the error bar comes from their spread)")
    t0 = time.perf_counter()
    prior = prior if isinstance(prior, Prior) else Prior(prior)
    likelihood = CountedLikelihood(log_likelihood, grad)
    streams = np.random.SeedSequence(seed).spawn(replicates)
    runs = [smc_run(likelihood, prior, np.random.default_rng(s), num_particles=num_particles, **options)
            for s in streams]
    logs = np.array([r.log_z for r in runs])
    flags = []
    if not np.all(np.isfinite(logs)):
        return SmcResult(float("nan"), float("nan"), runs, likelihood.num_likelihood, likelihood.num_gradient,
                         time.perf_counter() - t0, ["non-finite log Z in a replicate"])
    se = float(logs.std(ddof=1) / math.sqrt(replicates))
    return SmcResult(_log_mean_exp(logs), se, runs, likelihood.num_likelihood, likelihood.num_gradient,
                     time.perf_counter() - t0, flags)


if __name__ == "__main__":
    import argparse
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "evidence"))
    import problems

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("problems", nargs="*", help="names such as shells-d2 (default: the small suite)")
    ap.add_argument("--particles", type=int, default=1000)
    ap.add_argument("--replicates", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    probs = [problems.make(*problems.parse_name(n)) for n in args.problems] or problems.small_suite()
    for p in probs:
        r = smc_evidence(p.log_likelihood, p.grad, p.prior, seed=args.seed, num_particles=args.particles,
                         replicates=args.replicates)
        err = r.log_z - p.exact_log_z
        print(f"{p.name:14s} exact {p.exact_log_z:10.4f} smc {r.log_z:10.4f} err {err:+.4f} se {r.std_error:.4f} "
              f"z {err / r.std_error:+.2f} temps {[x.num_temperatures for x in r.runs]} "
              f"acc {np.mean([x.mean_acceptance for x in r.runs]):.2f} L {r.num_likelihood} G {r.num_gradient} "
              f"{r.wall_time:.1f}s")
