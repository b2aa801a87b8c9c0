"""logz's native models, built from numbers and numpy arrays.

Each is a model of logz's registry (the models `logz list` shows and TOML configs name), so
logz.anneal and logz.temper run it with no Python in the loop, with the same kernels, defaults
and checks as the command-line tool; exact_log_z() gives its exact log Z where logz knows one.

::

    RBM(W, a, b)                     binary restricted Boltzmann machine
    Ising(rows, cols, *, coupling, beta) and Potts(rows, cols, *, q, coupling, beta) on a torus
    ProductOfExperts(Phi, lam, *, expert="laplace", precision="double")
    GaussianMixture(weights, means, covariances)
    Model(type, **keys)              any other registry model by its [model] keys (docs/config.md)

Arrays are copied once when a run starts; a model's arrays reach the C++ readers as in-memory
.npz archives, so they are checked as a weights file would be.
"""
from __future__ import annotations

import itertools
from typing import Any, Dict, Optional

import numpy as np
import numpy.typing as npt

from ._logz import InvalidArgument, _exact_log_z

_archive_numbers = itertools.count()


def _float_array(value, name, ndim, shape_text, where):
    try:
        a = np.ascontiguousarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidArgument(f"{where}: {name}: expected an array of numbers of shape {shape_text}") from None
    if a.ndim != ndim:
        raise InvalidArgument(f"{where}: {name}: expected shape {shape_text}, got {a.shape}")
    return a


class Model:
    """A model of logz's registry: its [model] keys (and any other sections it fills, such as an
    RBM's [data]) and the arrays those sections name.

    ``Model(type, **keys)`` is any registry model by its [model] keys as docs/config.md lists
    them; the classes below build the keys from arrays. Usable wherever logz.anneal and logz.temper
    take a target.

    >>> import logz
    >>> m = logz.models.Model("ising", rows=4, cols=4, beta=0.4)
    >>> round(m.exact_log_z(), 6) == round(logz.models.Ising(4, 4, beta=0.4).exact_log_z(), 6)
    True
    """

    def __init__(self, type: str, **keys: Any) -> None:
        self._sections = {"model": {"type": type, **keys}}
        self._arrays = {}

    @property
    def type(self) -> str:
        """The registry's name of the model ([model] type)."""
        return self._sections["model"]["type"]

    def config(self) -> Dict[str, Dict[str, Any]]:
        """The config sections that describe the model (a dict of dicts, the TOML's structure)."""
        return {name: dict(section) for name, section in self._sections.items()}

    def arrays(self) -> Dict[str, Dict[str, np.ndarray]]:
        """The arrays the config names as "memory:NAME": {NAME: {key: array}}."""
        return self._arrays

    def exact_log_z(self) -> Optional[float]:
        """The exact log Z where logz knows one for these parameters (Kaufman's formula, a
        transfer matrix, an enumeration, a closed form), else None: the reference_log_z that
        logz.anneal(model) reports, computed by the same code.

        For the generative models ("linear_generative", "bilinear_generative") log Z is the
        evidence log p(x) of one data point: the [data] point a run of this model uses (the
        default [data]: points drawn from the model with [data] seed, index 0), exact with the
        Gaussian prior (linear) or Phi = 0 (bilinear). A run whose config names other [data]
        (logz.run) reports that point's log p(x) instead."""
        return _exact_log_z(self.config(), self._arrays)

    def _hold(self, suffix, arrays):
        """Registers arrays under a fresh name ending in suffix (".npz" or ".npy"); returns the
        path a config gives for them."""
        name = f"{self.type}-{next(_archive_numbers)}{suffix}"
        self._arrays[name] = arrays
        return "memory:" + name

    def __repr__(self):
        keys = ", ".join(f"{k}={v!r}" for k, v in self._sections["model"].items()
                         if k != "type" and not str(v).startswith("memory:"))
        return f"{type(self).__name__}({keys})"


class RBM(Model):
    """A binary restricted Boltzmann machine, E(v, h) = -v'Wh - a'v - b'h with v, h in {0, 1}.

    Parameters
    ----------
    W : (num_visible, num_hidden) array_like
        The weights.
    a : (num_visible,) array_like
        Visible biases.
    b : (num_hidden,) array_like
        Hidden biases.
    path : str
        The annealing path, "marginal_v" (default: h summed out), "marginal_h" or "full".
    train : (n, num_visible) array_like, optional
        Binary training rows: the base-rate base is fitted to them and reverse runs can start
        from them (reverse_start="data").
    test : (n, num_visible) array_like, optional
        Binary test rows: the run's Result then has test_log_likelihood (mean log p(v) over
        them, nats per example).
    base : str, optional
        "uniform" or "base_rate" (default: base_rate with train, else uniform).
    precision : str
        "double" or "float" for the GEMMs.
    exact_max_units : int
        Enumerate the exact log Z when the smaller layer has at most this many units (25).

    Examples
    --------

    >>> import numpy as np, logz
    >>> rbm = logz.models.RBM(np.zeros((6, 4)), np.zeros(6), np.zeros(4))  # every state equally likely
    >>> bool(np.isclose(rbm.exact_log_z(), 10 * np.log(2)))
    True
    """

    def __init__(self, W: npt.ArrayLike, a: npt.ArrayLike, b: npt.ArrayLike, *, path: str = "marginal_v",
                 train: Optional[npt.ArrayLike] = None, test: Optional[npt.ArrayLike] = None,
                 base: Optional[str] = None, precision: str = "double", exact_max_units: int = 25) -> None:
        where = "logz.models.RBM"
        W = _float_array(W, "W", 2, "(num_visible, num_hidden)", where)
        nv, nh = W.shape
        a = _float_array(a, "a", 1, f"({nv},)", where)
        b = _float_array(b, "b", 1, f"({nh},)", where)
        if a.shape != (nv,):
            raise InvalidArgument(f"{where}: a: expected shape ({nv},) (one bias per visible unit), got {a.shape}")
        if b.shape != (nh,):
            raise InvalidArgument(f"{where}: b: expected shape ({nh},) (one bias per hidden unit), got {b.shape}")
        super().__init__("rbm", path=path, precision=precision, exact_max_units=exact_max_units)
        self.W, self.a, self.b = W, a, b
        self._sections["model"]["weights"] = self._hold(".npz", {"W": W, "a": a, "b": b})
        if base is not None:
            self._sections["model"]["base"] = base
        data = {}
        for name, rows in (("train", train), ("test", test)):
            if rows is None:
                continue
            rows = _float_array(rows, name, 2, f"(n, {nv})", where)
            if rows.shape[1] != nv:
                raise InvalidArgument(f"{where}: {name}: expected shape (n, {nv}), one row per example, got {rows.shape}")
            data[name] = self._hold(".npy", {"data": rows})
        if data:
            self._sections["data"] = data

    @property
    def num_visible(self) -> int:
        """The number of visible units (rows of W)."""
        return self.W.shape[0]

    @property
    def num_hidden(self) -> int:
        """The number of hidden units (columns of W)."""
        return self.W.shape[1]


class Ising(Model):
    """The Ising model on a rows x cols torus, E(s) = -J sum over bonds s_i s_j, p(s) ~ exp(-beta E),
    annealed from uniform spins. exact_log_z(): Kaufman's formula.

    >>> import logz
    >>> round(logz.models.Ising(32, 32, beta=0.4).exact_log_z(), 4)
    900.4783
    """

    def __init__(self, rows: int, cols: int, *, coupling: float = 1.0, beta: float = 1.0) -> None:
        super().__init__("ising", rows=int(rows), cols=int(cols), coupling=float(coupling), beta=float(beta))


class Potts(Model):
    """The q-state Potts model on a rows x cols torus, E(x) = -J sum over bonds delta(x_i, x_j),
    annealed from uniform colours (path="temperature"), or around its transition from a field on
    colour 0 (path="field", with the base's field h0 = field; heat bath only; docs/config.md).
    exact_log_z(): a transfer matrix (narrow lattices) or an enumeration (tiny ones), else None.
    """

    def __init__(self, rows: int, cols: int, *, q: int = 10, coupling: float = 2.0, beta: float = 1.0,
                 path: str = "temperature", field: Optional[float] = None) -> None:
        keys = dict(rows=int(rows), cols=int(cols), q=int(q), coupling=float(coupling), beta=float(beta), path=str(path))
        if field is not None:
            keys["field"] = float(field)
        super().__init__("potts", **keys)


class ProductOfExperts(Model):
    """A product of experts on linear filters, E(x) = sum_j lam_j e(phi_j . x), with Laplace experts
    e(u) = ``|u|`` or Student-t experts e(u) = log(1 + u^2) (Sohl-Dickstein & Culpepper).
    exact_log_z() is exact when Phi is square and invertible (complete), else None.

    Parameters
    ----------
    Phi : (num_experts, dim) array_like
        The filters, one per row.
    lam : (num_experts,) array_like or float
        The experts' weights.
    expert : str
        "laplace" or "student_t".
    precision : str
        "double", or "float" for the filter products and experts in single precision (about
        twice as fast; energies summed and works accumulated in double).
    """

    def __init__(self, Phi: npt.ArrayLike, lam: npt.ArrayLike = 1.0, *, expert: str = "laplace",
                 precision: str = "double") -> None:
        where = "logz.models.ProductOfExperts"
        Phi = _float_array(Phi, "Phi", 2, "(num_experts, dim)", where)
        lam = np.broadcast_to(np.asarray(lam, dtype=np.float64), (Phi.shape[0],)) if np.ndim(lam) == 0 else lam
        lam = _float_array(lam, "lam", 1, f"({Phi.shape[0]},)", where)
        if lam.shape != (Phi.shape[0],):
            raise InvalidArgument(f"{where}: lam: expected shape ({Phi.shape[0]},) (one per expert), got {lam.shape}")
        super().__init__("poe", expert=expert, precision=precision)
        self.Phi, self.lam = Phi, lam
        self._sections["model"]["parameters"] = self._hold(".npz", {"Phi": Phi, "lambda": lam})

    @property
    def dim(self) -> int:
        """The dimension of x (columns of Phi)."""
        return self.Phi.shape[1]


class GaussianMixture(Model):
    """A mixture of Gaussians, f(x) = sum_j w_j N(x; mu_j, Sigma_j), so Z = sum_j w_j exactly.

    weights: (n,) masses; means: (n, dim); covariances: (n, dim, dim) matrices, (n, dim)
    diagonals or (n,) multiples of the identity.
    """

    def __init__(self, weights: npt.ArrayLike, means: npt.ArrayLike, covariances: npt.ArrayLike) -> None:
        where = "logz.models.GaussianMixture"
        weights = _float_array(weights, "weights", 1, "(n,)", where)
        means = _float_array(means, "means", 2, "(n, dim)", where)
        covariances = np.asarray(covariances, dtype=np.float64)
        if means.shape[0] != weights.shape[0] or covariances.shape[:1] != weights.shape:
            raise InvalidArgument(f"{where}: means, covariances: expected one per weight ({weights.shape[0]})")
        super().__init__("gaussian_mixture", weights=weights.tolist(), means=means.tolist(),
                         covariances=covariances.tolist(), dim=means.shape[1])

    @property
    def dim(self) -> int:
        """The dimension of x."""
        return self._sections["model"]["dim"]
