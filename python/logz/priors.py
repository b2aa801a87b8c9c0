"""Priors for logz.evidence: normalised densities with exact samplers.

Normal(mean, cov), Uniform(low, high), StudentT(df, loc, scale), the user's own
Custom(sample, log_density, grad_log_density=None), and products of these over consecutive
blocks of coordinates: Product([a, b, ...]) or a & b (the blocks in that order: a's coordinates
first). Every check is made here, when the prior is built: a bad value raises logz.InvalidArgument
(a ValueError) naming the argument.

>>> import numpy as np, logz
>>> p = logz.priors.Normal(np.zeros(2), 1.0) & logz.priors.Uniform(-1.0, 1.0)
>>> p.dim
3
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np
import numpy.typing as npt

from ._logz import InvalidArgument

__all__ = ["Prior", "Normal", "Uniform", "StudentT", "Custom", "Product"]


def _fail(where, argument, expected, got):
    raise InvalidArgument(f"logz.priors.{where}: {argument}: expected {expected}, got {got!r}")


def _finite_array(where, argument, value, max_ndim=1):
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        _fail(where, argument, "numbers", value)
    if a.ndim > max_ndim or a.size == 0 or not np.all(np.isfinite(a)):
        shape = "a finite number or a non-empty vector of them" if max_ndim == 1 else \
            "a finite number, vector or matrix"
        _fail(where, argument, shape, value)
    return a


def _broadcast(where, named):
    """The 1-D arrays of `named` ({argument: array}) broadcast to one length."""
    try:
        shape = np.broadcast_shapes(*(a.shape for a in named.values()))
    except ValueError:
        sizes = ", ".join(f"{k} {a.shape}" for k, a in named.items())
        _fail(where, list(named)[-1], "lengths that agree (or scalars)", sizes)
    if shape == ():
        shape = (1,)
    return [np.ascontiguousarray(np.broadcast_to(a, shape), dtype=np.float64) for a in named.values()]


class Prior:
    """A prior over `dim` coordinates; `a & b` is the product of two priors (a's coordinates
    first)."""

    dim = 0

    def __and__(self, other: Prior) -> Product:
        return Product([self, other])

    def _blocks(self):
        """The blocks as logz._evidence reads them."""
        raise NotImplementedError


class Normal(Prior):
    """N(mean, cov): cov a number (cov I), a vector of variances, or a symmetric positive definite
    matrix; mean a number (the same for every coordinate) or a vector. The dimension is the
    length of mean or of cov (1 where both are numbers)."""

    def __init__(self, mean: npt.ArrayLike = 0.0, cov: npt.ArrayLike = 1.0) -> None:
        mean = _finite_array("Normal", "mean", mean)
        cov = _finite_array("Normal", "cov", cov, max_ndim=2)
        if cov.ndim == 2:
            k = cov.shape[0]
            if cov.shape != (k, k):
                _fail("Normal", "cov", "a square matrix", cov.shape)
            if mean.ndim == 1 and mean.shape[0] != k:
                _fail("Normal", "mean", f"a number or a vector of length {k} (cov is {k} x {k})", mean.shape)
            if not np.allclose(cov, cov.T, rtol=1e-12, atol=0.0):
                _fail("Normal", "cov", "a symmetric matrix", "an asymmetric one")
            try:
                np.linalg.cholesky(cov)
            except np.linalg.LinAlgError:
                _fail("Normal", "cov", "a positive definite matrix", f"eigenvalues {np.linalg.eigvalsh(cov)}")
            self.mean = np.ascontiguousarray(np.broadcast_to(mean, (k,)), dtype=np.float64)
            self.cov = np.ascontiguousarray(cov)
        else:
            if np.any(cov <= 0):
                _fail("Normal", "cov", "variances > 0", cov)
            self.mean, var = _broadcast("Normal", {"mean": mean, "cov": cov})
            self.cov = np.diag(var)
        self.dim = self.mean.shape[0]

    def _blocks(self):
        return [("normal", self.mean, self.cov)]

    def __repr__(self):
        return f"Normal(dim={self.dim})"


class Uniform(Prior):
    """Uniform on the box [low, high] (low < high, finite; numbers or vectors of one length)."""

    def __init__(self, low: npt.ArrayLike, high: npt.ArrayLike) -> None:
        low = _finite_array("Uniform", "low", low)
        high = _finite_array("Uniform", "high", high)
        self.low, self.high = _broadcast("Uniform", {"low": low, "high": high})
        if not np.all(self.low < self.high):
            _fail("Uniform", "high", "high > low in every coordinate", high)
        self.dim = self.low.shape[0]

    def _blocks(self):
        return [("uniform", self.low, self.high)]

    def __repr__(self):
        return f"Uniform(dim={self.dim})"


class StudentT(Prior):
    """Independent Student t per coordinate: df > 0 degrees of freedom, location loc, scale > 0
    (numbers or vectors of one length)."""

    def __init__(self, df: npt.ArrayLike, loc: npt.ArrayLike = 0.0, scale: npt.ArrayLike = 1.0) -> None:
        df = _finite_array("StudentT", "df", df)
        loc = _finite_array("StudentT", "loc", loc)
        scale = _finite_array("StudentT", "scale", scale)
        if np.any(df <= 0):
            _fail("StudentT", "df", "numbers > 0", df)
        if np.any(scale <= 0):
            _fail("StudentT", "scale", "numbers > 0", scale)
        self.df, self.loc, self.scale = _broadcast("StudentT", {"df": df, "loc": loc, "scale": scale})
        self.dim = self.df.shape[0]

    def _blocks(self):
        return [("student_t", self.df, self.loc, self.scale)]

    def __repr__(self):
        return f"StudentT(dim={self.dim})"


class Custom(Prior):
    """The user's own prior: sample(rng) returns one draw, shape (dim,), from a numpy Generator
    rng that logz seeds per particle (so the run stays reproducible); log_density(X), X of shape
    (P, dim), returns the NORMALISED log density of every row, shape (P,) (-inf outside the
    support); grad_log_density(X), optional, its gradient, shape (P, dim). Without it the
    evidence uses gradient-free moves. dim: found from one draw where not given."""

    def __init__(self, sample: Callable[..., Any], log_density: Callable[[np.ndarray], Any],
                 grad_log_density: Optional[Callable[[np.ndarray], Any]] = None, *,
                 dim: Optional[int] = None) -> None:
        if not callable(sample):
            _fail("Custom", "sample", "a function of a numpy Generator", sample)
        if not callable(log_density):
            _fail("Custom", "log_density", "a function of X, shape (P, dim)", log_density)
        if grad_log_density is not None and not callable(grad_log_density):
            _fail("Custom", "grad_log_density", "a function of X, shape (P, dim), or None", grad_log_density)
        if dim is None:
            draw = np.asarray(sample(np.random.default_rng(0)), dtype=np.float64)
            if draw.ndim != 1 or draw.size == 0:
                _fail("Custom", "sample", "a draw of shape (dim,)", draw.shape)
            dim = draw.shape[0]
        if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or dim < 1:
            _fail("Custom", "dim", "an integer >= 1", dim)
        self.sample, self.log_density, self.grad_log_density = sample, log_density, grad_log_density
        self.dim = int(dim)

    def _blocks(self):
        return [("custom", self.dim, self.sample, self.log_density, self.grad_log_density)]

    def __repr__(self):
        return f"Custom(dim={self.dim}{', with grad' if self.grad_log_density else ''})"


class Product(Prior):
    """The product of priors over consecutive blocks of coordinates, in the order given."""

    def __init__(self, priors: Sequence[Prior]) -> None:
        try:
            priors = list(priors)
        except TypeError:
            _fail("Product", "priors", "a list of logz.priors", priors)
        if not priors:
            _fail("Product", "priors", "at least one prior", priors)
        self.priors = []
        for p in priors:
            if not isinstance(p, Prior):
                _fail("Product", "priors", "logz.priors (Normal, Uniform, StudentT, Custom, Product)", p)
            self.priors.extend(p.priors if isinstance(p, Product) else [p])
        self.dim = sum(p.dim for p in self.priors)

    def _blocks(self):
        return [b for p in self.priors for b in p._blocks()]

    def __repr__(self):
        return "Product([" + ", ".join(map(repr, self.priors)) + "])"
