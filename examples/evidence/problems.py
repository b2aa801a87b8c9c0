"""The evidence benchmark suite of issue 45: problems with exact log evidence.

A Problem is a likelihood L(x) (log, vectorised: X (P, d) -> (P,), and its gradient (P, d)), a
prior described as plain data, and the exact log Z = log integral L(x) prior(x) dx. The prior
descriptions are tuples, so that the suite needs nothing from logz to state a problem:

    ("normal", mean (d,), cov)            cov: scalar, vector of variances (d,) or matrix (d, d)
    ("uniform", low (d,), high (d,))
    ("student_t", df, loc (d,), scale (d,))  independent coordinates

`logz_prior(problem)` turns one into the logz prior object. Six classes, each at several
dimensions between 2 and 100 (constructors below; `suite()` lists the default set):

    linear_regression(d)        Bayesian linear regression, Gaussian prior       analytic
    rotated_gaussian(d)         rotated Gaussian likelihood, condition 4e4       analytic
    gaussian_mixture(d)         3 well-separated modes, weights .6/.3/.1         analytic
    gaussian_shells(d)          Feroz & Hobson's two shells on U[-6, 6]^d        radial quadrature
    banana(d)                   Haario's twisted Gaussian, b = 0.1, Normal prior 1-D quadrature
    student_t(d)                rotated product of Student-t (df 2) factors      1-D quadrature/coord

Data and rotations come from fixed seeds, so a problem is the same on every machine.
"""
import dataclasses
import math
from typing import Callable, Optional

import numpy as np

from quadrature import log_integrate, log_sum_exp

LOG_2PI = math.log(2.0 * math.pi)


@dataclasses.dataclass
class Problem:
    name: str  # class and dimension, e.g. "shells-d10"
    kind: str  # the class, e.g. "shells"
    dim: int
    prior: tuple  # plain-data description, see the module docstring
    log_likelihood: Callable  # X (P, d) -> (P,)
    grad: Callable  # X (P, d) -> (P, d), gradient of log_likelihood
    exact_log_z: float
    published_log_z: Optional[float] = None  # from the literature, where there is one
    notes: str = ""


def logz_prior(problem_or_prior):
    """The logz prior object for a Problem (or a prior description tuple)."""
    import logz  # only here: the suite's problems do not need logz
    spec = problem_or_prior.prior if isinstance(problem_or_prior, Problem) else problem_or_prior
    kind = spec[0]
    if kind == "normal":
        return logz.priors.Normal(spec[1], spec[2])
    if kind == "uniform":
        return logz.priors.Uniform(spec[1], spec[2])
    if kind == "student_t":
        return logz.priors.StudentT(spec[1], spec[2], spec[3])
    raise ValueError(f"logz_prior: unknown prior kind {kind!r}; expected normal, uniform or student_t")


def random_rotation(d, seed):
    """A fixed random orthogonal matrix (Haar: QR of a Gaussian matrix, signs fixed)."""
    rng = np.random.default_rng(seed)
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diag(r))[None, :]


def gaussian_log_density(x, mean, cov):
    """log N(x; mean, cov) for one point x (d,) and a matrix cov."""
    diff = np.asarray(x, float) - np.asarray(mean, float)
    chol = np.linalg.cholesky(cov)
    z = np.linalg.solve(chol, diff)
    return float(-0.5 * z @ z - np.log(np.diag(chol)).sum() - 0.5 * len(diff) * LOG_2PI)


def normal_prior_covariance(prior, d):
    """The prior covariance of a ("normal", mean, cov) description as a (d, d) matrix."""
    cov = np.asarray(prior[2], float)
    if cov.ndim == 0:
        return float(cov) * np.eye(d)
    if cov.ndim == 1:
        return np.diag(cov)
    return cov


# ---------------------------------------------------------------------------------------------
# Bayesian linear regression: y = Phi theta + noise, noise ~ N(0, sigma^2 I), theta ~ N(0, a^2 I).
# Evidence p(y) = N(y; 0, sigma^2 I + a^2 Phi Phi^T).

def linear_regression(d, n=None, noise_sd=1.0, prior_sd=1.0, seed=4501):
    n = n if n is not None else 2 * d + 20
    rng = np.random.default_rng(seed + d)
    phi = rng.standard_normal((n, d))
    theta_true = rng.normal(0.0, prior_sd, size=d)
    y = phi @ theta_true + rng.normal(0.0, noise_sd, size=n)
    const = -0.5 * n * (LOG_2PI + 2.0 * math.log(noise_sd))

    def log_likelihood(X):
        resid = y[None, :] - X @ phi.T
        return -0.5 * np.einsum("pi,pi->p", resid, resid) / noise_sd ** 2 + const

    def grad(X):
        return ((y[None, :] - X @ phi.T) @ phi) / noise_sd ** 2

    exact = gaussian_log_density(y, np.zeros(n), noise_sd ** 2 * np.eye(n) + prior_sd ** 2 * phi @ phi.T)
    p = Problem(f"linreg-d{d}", "linreg", d, ("normal", np.zeros(d), prior_sd ** 2), log_likelihood, grad, exact,
                notes=f"n = {n} observations, noise sd {noise_sd}, prior N(0, {prior_sd}^2 I)")
    p.data = dict(phi=phi, y=y, noise_sd=noise_sd, prior_sd=prior_sd)
    return p


# ---------------------------------------------------------------------------------------------
# A rotated ill-conditioned Gaussian likelihood L(x) = N(x; mu, C), C = R diag(s^2) R^T with the
# standard deviations s log-spaced over [0.005, 1] (condition number of C: 4e4; of the posterior
# precision C^-1 + I/25: 3.8e4). Prior N(0, 5^2 I). Z = N(mu; 0, C + 25 I).

def rotated_gaussian(d, smallest_sd=0.005, largest_sd=1.0, prior_sd=5.0, seed=4502):
    rng = np.random.default_rng(seed + d)
    rot = random_rotation(d, seed + 1000 + d)
    sds = np.geomspace(largest_sd, smallest_sd, d)
    cov = (rot * sds ** 2) @ rot.T
    precision = (rot / sds ** 2) @ rot.T
    mu = rng.normal(0.0, 1.0, size=d)
    const = -np.log(sds).sum() - 0.5 * d * LOG_2PI

    def log_likelihood(X):
        z = (X - mu) @ rot / sds  # whitened coordinates
        return -0.5 * np.einsum("pi,pi->p", z, z) + const

    def grad(X):
        return -(X - mu) @ precision

    exact = gaussian_log_density(mu, np.zeros(d), cov + prior_sd ** 2 * np.eye(d))
    p = Problem(f"rotated-d{d}", "rotated", d, ("normal", np.zeros(d), prior_sd ** 2), log_likelihood, grad, exact,
                notes=f"likelihood sds geomspace({largest_sd}, {smallest_sd}), condition number "
                      f"{(largest_sd / smallest_sd) ** 2:.3g}; prior N(0, {prior_sd}^2 I)")
    p.data = dict(mu=mu, cov=cov, rot=rot, sds=sds, prior_sd=prior_sd)
    return p


# ---------------------------------------------------------------------------------------------
# A mixture likelihood L(x) = sum_k w_k N(x; mu_k, s^2 I), weights 0.6, 0.3, 0.1, modes at
# +4 e1, -4 e1 and +4 e2 (8 and 5.7 apart: 27 and 19 component sds), s = 0.3; prior N(0, 3^2 I).
# Z = sum_k w_k N(mu_k; 0, (s^2 + 9) I).

def gaussian_mixture(d, weights=(0.6, 0.3, 0.1), distance=4.0, component_sd=0.3, prior_sd=3.0):
    if d < 2:
        raise ValueError("gaussian_mixture: d must be >= 2")
    weights = np.asarray(weights, float)
    means = np.zeros((len(weights), d))
    means[0, 0], means[1, 0], means[2, 1] = distance, -distance, distance
    log_w = np.log(weights)
    const = -d * math.log(component_sd) - 0.5 * d * LOG_2PI

    def component_logs(X):
        sq = ((X[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)  # (P, K)
        return log_w[None, :] - 0.5 * sq / component_sd ** 2 + const

    def log_likelihood(X):
        return log_sum_exp(component_logs(X), axis=1)

    def grad(X):
        c = component_logs(X)
        resp = np.exp(c - log_sum_exp(c, axis=1)[:, None])  # responsibilities
        return -(X - resp @ means) / component_sd ** 2

    var = component_sd ** 2 + prior_sd ** 2
    comp = [log_w[k] - 0.5 * (means[k] @ means[k]) / var - 0.5 * d * (LOG_2PI + math.log(var))
            for k in range(len(weights))]
    exact = log_sum_exp(np.array(comp))
    p = Problem(f"mixture-d{d}", "mixture", d, ("normal", np.zeros(d), prior_sd ** 2), log_likelihood, grad, exact,
                notes=f"weights {tuple(weights)}, modes +-{distance} e1 and {distance} e2, component sd "
                      f"{component_sd}; prior N(0, {prior_sd}^2 I)")
    p.data = dict(weights=weights, means=means, component_sd=component_sd, prior_sd=prior_sd)
    return p


# ---------------------------------------------------------------------------------------------
# Feroz & Hobson (2008) Gaussian shells: L(x) = sum_{i=1,2} (2 pi w^2)^-1/2 exp(-(|x - c_i| - r)^2 / 2w^2),
# c = (+-3.5, 0, ..., 0), r = 2, w = 0.1, prior U[-6, 6]^d. Each shell integrates (over R^d) to
# the radial integral of N(rho; r, w^2) S_{d-1} rho^(d-1); the box cuts off a fraction bounded by
# `shell_mass_outside_box_bound` (< 1e-6 for every d here), so log Z = log 2 + log I_d - d log 12.

SHELLS_PUBLISHED = {2: -1.75, 5: -5.67, 10: -14.59, 20: -36.09, 30: -60.13, 50: -112.42, 100: -264.93}


def log_unit_sphere_area(d):
    """log of the surface area of the unit sphere S^(d-1) in R^d: 2 pi^(d/2) / Gamma(d/2)."""
    return math.log(2.0) + 0.5 * d * math.log(math.pi) - math.lgamma(0.5 * d)


def shell_log_radial_density(rho, d, radius=2.0, width=0.1):
    """log of N(rho; r, w^2) S_{d-1} rho^(d-1): the mass of one shell per unit radius."""
    rho = np.asarray(rho, float)
    with np.errstate(divide="ignore"):
        log_rho = np.log(rho)
    return (-0.5 * ((rho - radius) / width) ** 2 - 0.5 * LOG_2PI - math.log(width)
            + log_unit_sphere_area(d) + (d - 1) * log_rho)


def shell_log_mass(d, radius=2.0, width=0.1):
    """log of the integral of one shell over R^d (radial quadrature on [0, r + 60 w + tilt])."""
    # The rho^(d-1) factor moves the radial mode out to about r + (d-1) w^2 / r.
    upper = radius + 60.0 * width + 2.0 * (d - 1) * width ** 2 / radius
    return log_integrate(lambda rho: shell_log_radial_density(rho, d, radius, width), 0.0, upper, panels=400)


def shell_mass_outside_box_bound(d, radius=2.0, width=0.1, centre=3.5, half_width=6.0):
    """An upper bound on the fraction of one shell's mass outside the box [-6, 6]^d.

    A point c + rho u (u uniform on the sphere) leaves the box through the near face of x1 only
    if rho u1 > 6 - 3.5, and through any other face only if rho > 6 - 0 (the other coordinates
    of c are 0; the far x1 face needs rho > 9.5). So the fraction is at most
    P(rho u1 > 2.5) + P(rho > 6), with rho from the radial density and u1 independent of it,
    u1 = cos(theta), theta having density proportional to sin(theta)^(d-2) on [0, pi]."""
    gap = half_width - centre
    log_mass = shell_log_mass(d, radius, width)
    rho, w_rho = _nodes_log(0.0, radius + 60.0 * width + 2.0 * (d - 1) * width ** 2 / radius, 400)
    log_p_rho = shell_log_radial_density(rho, d, radius, width) + np.log(w_rho) - log_mass
    theta, w_theta = _nodes_log(0.0, math.pi, 400)
    log_sin = (d - 2) * np.log(np.maximum(np.sin(theta), 1e-300)) + np.log(w_theta)
    log_norm = log_sum_exp(log_sin)
    tails = []
    for lp, r in zip(log_p_rho, rho):
        if r <= gap:
            continue
        inside = theta < math.acos(gap / r)  # u1 > gap / rho
        if inside.any():
            tails.append(lp + log_sum_exp(log_sin[inside]) - log_norm)
    p_face = math.exp(log_sum_exp(np.array(tails))) if tails else 0.0
    upper = max(half_width, radius + 60.0 * width + 2.0 * (d - 1) * width ** 2 / radius)
    p_far = math.exp(log_integrate(lambda r: shell_log_radial_density(r, d, radius, width), half_width,
                                   upper + half_width, panels=200) - log_mass)
    return p_face + p_far


def _nodes_log(low, high, panels):
    from quadrature import composite_nodes
    return composite_nodes(low, high, panels)


def gaussian_shells(d, radius=2.0, width=0.1, centre=3.5, half_width=6.0):
    centres = np.zeros((2, d))
    centres[0, 0], centres[1, 0] = centre, -centre
    const = -0.5 * LOG_2PI - math.log(width)

    def parts(X):
        diff = X[:, None, :] - centres[None, :, :]  # (P, 2, d)
        dist = np.sqrt((diff ** 2).sum(axis=2))
        return diff, dist, -0.5 * ((dist - radius) / width) ** 2 + const

    def log_likelihood(X):
        return log_sum_exp(parts(X)[2], axis=1)

    def grad(X):
        diff, dist, logs = parts(X)
        resp = np.exp(logs - log_sum_exp(logs, axis=1)[:, None])
        factor = -resp * (dist - radius) / width ** 2 / np.maximum(dist, 1e-300)
        return (factor[:, :, None] * diff).sum(axis=1)

    exact = math.log(2.0) + shell_log_mass(d, radius, width) - d * math.log(2.0 * half_width)
    lo, hi = -half_width * np.ones(d), half_width * np.ones(d)
    p = Problem(f"shells-d{d}", "shells", d, ("uniform", lo, hi), log_likelihood, grad, exact,
                published_log_z=SHELLS_PUBLISHED.get(d),
                notes=f"two shells r = {radius}, w = {width}, centres +-{centre} e1; prior U[-{half_width}, {half_width}]^d")
    p.data = dict(radius=radius, width=width, centres=centres, half_width=half_width)
    return p


# ---------------------------------------------------------------------------------------------
# Haario's twisted ("banana") Gaussian: L(x) = N(phi(x); 0, diag(100, 1, ..., 1)) with
# phi(x) = (x1, x2 + b x1^2 - 100 b, x3, ..., xd), b = 0.1; phi has unit Jacobian, so L is a
# normalised density. Prior N(0, 10^2 I). Integrating x2 first (Gaussian in x2):
#   Z = prod_{j>=3} N(0; 0, 1 + 100) * int N(x1; 0, 100) N(x1; 0, 100) N(b (x1^2 - 100); 0, 1 + 100) dx1.

def banana(d, twist=0.1, prior_sd=10.0):
    if d < 2:
        raise ValueError("banana: d must be >= 2")
    var = np.ones(d)
    var[0] = 100.0
    const = -0.5 * np.log(var).sum() - 0.5 * d * LOG_2PI

    def warped(X):
        y = X.copy()
        y[:, 1] = X[:, 1] + twist * X[:, 0] ** 2 - 100.0 * twist
        return y

    def log_likelihood(X):
        y = warped(X)
        return -0.5 * (y ** 2 / var).sum(axis=1) + const

    def grad(X):
        gy = -warped(X) / var  # gradient in phi coordinates; chain rule through x2 + b x1^2
        g = gy.copy()
        g[:, 0] += gy[:, 1] * 2.0 * twist * X[:, 0]
        return g

    pv = prior_sd ** 2

    def log_integrand(x1):
        return (-0.5 * x1 ** 2 / pv - 0.5 * (LOG_2PI + math.log(pv))
                - 0.5 * x1 ** 2 / 100.0 - 0.5 * (LOG_2PI + math.log(100.0))
                - 0.5 * (twist * (x1 ** 2 - 100.0)) ** 2 / (1.0 + pv) - 0.5 * (LOG_2PI + math.log(1.0 + pv)))

    span = 40.0 * min(prior_sd, 10.0)
    exact = log_integrate(log_integrand, -span, span, panels=2000)
    exact += (d - 2) * (-0.5 * (LOG_2PI + math.log(1.0 + pv)))
    p = Problem(f"banana-d{d}", "banana", d, ("normal", np.zeros(d), pv), log_likelihood, grad, exact,
                notes=f"Haario twisted Gaussian, b = {twist}, var (100, 1, ...); prior N(0, {prior_sd}^2 I)")
    p.data = dict(twist=twist, var=var, prior_sd=prior_sd)
    return p


# ---------------------------------------------------------------------------------------------
# A heavy-tailed Student-t likelihood: L(x) = prod_i t_df(z_i; 0, s_i), z = R^T (x - m), df = 2,
# scales s geomspace(0.3, 1); prior N(0, 3^2 I), isotropic, so in z the prior is N(-R^T m, 9 I)
# and Z = prod_i int t_df(z; 0, s_i) N(z; a_i, 9) dz, a = -R^T m, each by 1-D quadrature.

def student_t_log_density(z, df, scale):
    return (math.lgamma(0.5 * (df + 1)) - math.lgamma(0.5 * df) - 0.5 * math.log(df * math.pi)
            - np.log(scale) - 0.5 * (df + 1) * np.log1p((z / scale) ** 2 / df))


def student_t_factor_log_z(scale, shift, df, prior_sd, panels=4000):
    """log int t_df(z; 0, scale) N(z; shift, prior_sd^2) dz."""
    def log_f(z):
        return (student_t_log_density(z, df, scale) - 0.5 * ((z - shift) / prior_sd) ** 2
                - 0.5 * LOG_2PI - math.log(prior_sd))
    half = 40.0 * prior_sd + abs(shift)
    return log_integrate(log_f, -half, half, panels=panels)


def student_t(d, df=2.0, smallest_scale=0.3, largest_scale=1.0, prior_sd=3.0, seed=4506):
    rng = np.random.default_rng(seed + d)
    rot = random_rotation(d, seed + 1000 + d)
    scales = np.geomspace(smallest_scale, largest_scale, d)
    m = rng.normal(0.0, 1.0, size=d)
    const = d * (math.lgamma(0.5 * (df + 1)) - math.lgamma(0.5 * df) - 0.5 * math.log(df * math.pi)) - np.log(scales).sum()

    def log_likelihood(X):
        z = (X - m) @ rot / scales
        return -0.5 * (df + 1) * np.log1p(z ** 2 / df).sum(axis=1) + const

    def grad(X):
        z = (X - m) @ rot
        gz = -(df + 1) * z / (df * scales ** 2 + z ** 2)
        return gz @ rot.T

    shift = -(m @ rot)
    exact = float(sum(student_t_factor_log_z(scales[i], shift[i], df, prior_sd) for i in range(d)))
    p = Problem(f"student-d{d}", "student", d, ("normal", np.zeros(d), prior_sd ** 2), log_likelihood, grad, exact,
                notes=f"rotated product of t_{df:g} factors, scales geomspace({smallest_scale}, {largest_scale}); "
                      f"prior N(0, {prior_sd}^2 I)")
    p.data = dict(df=df, rot=rot, scales=scales, m=m, shift=shift, prior_sd=prior_sd)
    return p


# ---------------------------------------------------------------------------------------------

CONSTRUCTORS = {
    "linreg": linear_regression,
    "rotated": rotated_gaussian,
    "mixture": gaussian_mixture,
    "shells": gaussian_shells,
    "banana": banana,
    "student": student_t,
}

DEFAULT_DIMS = {
    "linreg": (2, 10, 30, 100),
    "rotated": (2, 10, 30, 100),
    "mixture": (2, 10, 30, 100),
    "shells": (2, 5, 10, 20, 30, 50, 100),
    "banana": (2, 10, 30, 100),
    "student": (2, 10, 30, 100),
}

SMALL = (("linreg", 2), ("rotated", 5), ("mixture", 2), ("shells", 2), ("banana", 2), ("student", 5))


def make(kind, d):
    if kind not in CONSTRUCTORS:
        raise ValueError(f"make: unknown problem class {kind!r}; expected one of {', '.join(CONSTRUCTORS)}")
    return CONSTRUCTORS[kind](d)


def parse_name(name):
    """("shells", 10) from "shells-d10"."""
    kind, _, dim = name.rpartition("-d")
    if not kind or not dim.isdigit():
        raise ValueError(f"parse_name: {name!r} is not CLASS-dD (e.g. shells-d10)")
    return kind, int(dim)


def suite(kinds=None, dims=None):
    """The problems of the full suite (each class at its DEFAULT_DIMS, or at `dims`)."""
    out = []
    for kind in (kinds or CONSTRUCTORS):
        for d in (dims or DEFAULT_DIMS[kind]):
            out.append(make(kind, d))
    return out


def small_suite():
    return [make(kind, d) for kind, d in SMALL]
