"""logz: log partition functions, log-likelihoods and Bayesian model evidence by Monte Carlo.

Estimators on work values (numpy arrays): estimate (an Estimate, or Bounds and Cumulant for the
methods of several estimates), ais, reverse_ais, bar; MBAR on pymbar's
inputs: mbar; runs from configs (a dict with the TOML's structure, or a TOML file): run; the
user's own model as Python functions: Target; logz's native models from arrays: logz.models
(RBM, Ising, Potts, ProductOfExperts, GaussianMixture, Model); annealing (AIS, HAIS, RAISE,
BAR, ...) and simulated tempering (RTS, TI, MBAR) on either: anneal, temper; the evidence of a
prior (logz.priors) and a likelihood given as Python functions: evidence.
Errors: logz.Error and its subclasses InvalidArgument and InputError (both ValueErrors) and
NumericalError. See docs/python.md.
"""
from __future__ import annotations

import difflib
import inspect
import os
import re
import sys
import time
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import models  # noqa: F401
from . import priors  # noqa: F401
from ._logz import (  # noqa: F401
    Error,
    Estimate,
    InputError,
    InvalidArgument,
    MbarResult,
    NumericalError,
    Result,
    Target,
    __version__,
    _defaults,
    _estimate,
    _estimator_names,
    _exact_log_z,
    _gradient_kernels,
    _run,
    _run_target,
    mbar,
)
from .estimates import Bounds, Cumulant, estimate  # noqa: F401
from .evidence import EvidenceResult, evidence  # noqa: F401

# progress=: True (shown on stderr), False or None (silent), or progress(stage, done, total).
ProgressArgument = Union[bool, None, Callable[[str, int, int], Any]]
# A Target's functions: of the particles X, shape (P, dim), returning (P,), (P, dim) or both.
BatchFunction = Callable[[np.ndarray], Any]


def _from_log_prob(dim: int, log_prob: BatchFunction, grad_log_prob: Optional[BatchFunction] = None, *,
                   log_prob_and_grad: Optional[BatchFunction] = None, exact_log_z: Optional[float] = None) -> Target:
    """A logz.Target from an unnormalised log density, the form users write (a sign slip between
    log density and energy is the commonest mistake): U = -log_prob, dU/dx = -grad_log_prob.

    Parameters
    ----------
    dim : int
        The dimension.
    log_prob : callable
        log_prob(X), X of shape (P, dim); returns log p~(x) of every row, shape (P,).
    grad_log_prob : callable, optional
        grad_log_prob(X), d log p~ / dx of every row, shape (P, dim); None: gradient-free
        kernels only.
    log_prob_and_grad : callable, optional
        Both at once as a pair.
    exact_log_z : float, optional
        log of integral p~(x) dx where it is known.

    Returns
    -------
    logz.Target

    Examples
    --------

    >>> import numpy as np, logz
    >>> t = logz.Target.from_log_prob(2, lambda X: -0.5 * (X ** 2).sum(axis=1), lambda X: -X)
    >>> float(t.energy(np.ones((1, 2)))[0])
    1.0
    """
    for name, f in (("log_prob", log_prob), ("grad_log_prob", grad_log_prob),
                    ("log_prob_and_grad", log_prob_and_grad)):
        if f is not None and not callable(f):
            raise InvalidArgument(f"logz.Target.from_log_prob: {name}: expected a function of X, "
                                  f"shape (P, dim), got {f!r}")
    if log_prob is None:
        raise InvalidArgument("logz.Target.from_log_prob: log_prob: expected a function of X, "
                              "shape (P, dim), got None")

    def energy(X):
        return np.negative(np.asarray(log_prob(X), dtype=np.float64))

    def grad(X):
        return np.negative(np.asarray(grad_log_prob(X), dtype=np.float64))

    def energy_and_grad(X):
        answer = log_prob_and_grad(X)
        if not isinstance(answer, tuple) or len(answer) != 2:
            return answer  # the Target's own check names the shape it expects
        return (np.negative(np.asarray(answer[0], dtype=np.float64)),
                np.negative(np.asarray(answer[1], dtype=np.float64)))

    return Target(dim, energy, grad if grad_log_prob is not None else None,
                  energy_and_grad=energy_and_grad if log_prob_and_grad is not None else None,
                  exact_log_z=exact_log_z)


_from_log_prob.__name__, _from_log_prob.__qualname__ = "from_log_prob", "Target.from_log_prob"
Target.from_log_prob = staticmethod(_from_log_prob)


def _optional_import(name: str, function: str) -> Any:
    """import name, or an ImportError of one line saying what function needs and how to get it."""
    try:
        return __import__(name)
    except ImportError:
        raise ImportError(f"{function} needs {name}, which is not installed (Debian: apt-get install "
                          f"python3-{name}; or pip install {name})") from None


def _result_to_dataframe(self: Result) -> Any:
    """The estimates as a pandas DataFrame, one row per estimate.

    pandas is imported when this is called; logz does not need it otherwise.

    Returns
    -------
    pandas.DataFrame
        Indexed by method ("ais", "bar", ...), with the columns log_z, evidence, std_error,
        se_method and flags; attrs holds reference_log_z, base_log_z and runtime_s.

    Raises
    ------
    ImportError
        pandas is not installed.
    """
    pd = _optional_import("pandas", "logz.Result.to_dataframe")
    estimates = self.estimates
    frame = pd.DataFrame(
        {"log_z": [e.log_z for e in estimates.values()],
         "evidence": [e.evidence for e in estimates.values()],
         "std_error": [e.std_error for e in estimates.values()],
         "se_method": [e.se_method for e in estimates.values()],
         "flags": [list(e.flags) for e in estimates.values()]},
        index=pd.Index(list(estimates), name="method"))
    frame.attrs.update(reference_log_z=self.reference_log_z, base_log_z=self.base_log_z, runtime_s=self.runtime_s)
    return frame


def _result_to_xarray(self: Result) -> Any:
    """The result as an xarray Dataset.

    xarray is imported when this is called; logz does not need it otherwise.

    Returns
    -------
    xarray.Dataset
        log_z, evidence and std_error along the dimension "method"; fractions, mean_energy and
        acceptance along "temperature"; forward_works along "forward_path" and reverse_works
        along "reverse_path" where that direction ran. attrs: base_log_z, runtime_s and
        reference_log_z (left out where logz knows none).

    Raises
    ------
    ImportError
        xarray is not installed.
    """
    xr = _optional_import("xarray", "logz.Result.to_xarray")
    estimates = self.estimates
    methods = list(estimates)
    variables = {name: ("method", np.array([getattr(e, name) for e in estimates.values()], dtype=np.float64))
                 for name in ("log_z", "evidence", "std_error")}
    variables.update(fractions=("temperature", self.fractions), mean_energy=("temperature", self.mean_energy),
                     acceptance=("temperature", self.acceptance))
    if self.forward_works is not None:
        variables["forward_works"] = ("forward_path", self.forward_works)
    if self.reverse_works is not None:
        variables["reverse_works"] = ("reverse_path", self.reverse_works)
    attrs = {"base_log_z": self.base_log_z, "runtime_s": self.runtime_s}
    if self.reference_log_z is not None:
        attrs["reference_log_z"] = self.reference_log_z
    return xr.Dataset(variables, coords={"method": methods}, attrs=attrs)


_result_to_dataframe.__name__, _result_to_dataframe.__qualname__ = "to_dataframe", "Result.to_dataframe"
_result_to_xarray.__name__, _result_to_xarray.__qualname__ = "to_xarray", "Result.to_xarray"
Result.to_dataframe = _result_to_dataframe
Result.to_xarray = _result_to_xarray


def ais(forward: npt.ArrayLike) -> Estimate:
    """Annealed importance sampling on forward works: -log mean exp(-W_f) (Jarzynski).

    Parameters
    ----------
    forward : array_like of float, shape (N,)
        Works W_f with E[exp(-W_f)] = Z1/Z0 (pymbar's w_F).

    Returns
    -------
    Estimate
        log(Z1/Z0), logz.estimate("ais", forward).

    Examples
    --------
    >>> import numpy as np, logz
    >>> round(logz.ais(np.zeros(10)).log_z, 12)
    0.0
    """
    return _estimate("logz.ais", "ais", forward=forward)


def reverse_ais(reverse: npt.ArrayLike) -> Estimate:
    """Reverse AIS (RAISE) on reverse works: log mean exp(-W_r).

    Parameters
    ----------
    reverse : array_like of float, shape (N,)
        Works W_r with E[exp(-W_r)] = Z0/Z1 (pymbar's w_R).

    Returns
    -------
    Estimate
        log(Z1/Z0), logz.estimate("raise", reverse=reverse).
    """
    return _estimate("logz.reverse_ais", "raise", reverse=reverse)


def bar(forward: npt.ArrayLike, reverse: npt.ArrayLike) -> Estimate:
    """Bennett's acceptance ratio on forward and reverse works.

    The works follow pymbar's convention (w_F, w_R in units of kT), and logz reports
    log(Z1/Z0) = -DeltaF: `logz.bar(w_F, w_R).log_z == -pymbar.BAR(w_F, w_R)[0]`.

    Parameters
    ----------
    forward : array_like of float, shape (N,)
        Works W_f with E[exp(-W_f)] = Z1/Z0 (pymbar's w_F).
    reverse : array_like of float, shape (M,)
        Works W_r with E[exp(-W_r)] = Z0/Z1 (pymbar's w_R).

    Returns
    -------
    Estimate
        log(Z1/Z0) with BAR's asymptotic standard error.
    """
    return _estimate("logz.bar", "bar", forward=forward, reverse=reverse)


class Progress:
    """Progress of a run on stderr, shown once it has taken a second: a tqdm bar where python3-tqdm
    is installed, else one line that updates. logz calls it as progress(stage, done, total) from
    its threads, holding the GIL."""

    def __init__(self) -> None:
        self._start = time.monotonic()
        self._bar = None
        self._stage = None
        self._line = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        if time.monotonic() - self._start < 1.0 and self._bar is None and not self._line:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            tqdm = None
        # "name [unit]": a stage that counts something other than chunks ("parallel tempering [scans]").
        name, unit = stage or "logz", "chunks"
        if name.endswith("]") and " [" in name:
            name, unit = name[:-1].rsplit(" [", 1)
        if tqdm is not None:
            if self._bar is None or stage != self._stage:
                self.close()
                self._bar = tqdm(total=total, desc=name, unit=unit, leave=False, file=sys.stderr)
                self._stage = stage
            self._bar.update(done - self._bar.n)
        else:
            sys.stderr.write(f"\r{name}: {done}/{total} {unit}")
            sys.stderr.flush()
            self._line = True

    def close(self) -> None:
        """Ends the bar or the line."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._line:
            sys.stderr.write("\n")
            self._line = False


def _with_progress(progress, call):
    """Runs call(progress_object): progress True shows Progress, False or None nothing, and a
    callable progress(stage, done, total) is called as it is."""
    if progress is True:
        shown = Progress()
        try:
            return call(shown)
        finally:
            shown.close()
    return call(progress if callable(progress) else None)


# {section: {key: default}}: the config keys' defaults (the registry's, as `logz list --json`
# shows them). An argument of logz.run, anneal or temper that is None leaves its key out of the
# config, which then takes this default, the one `logz run` takes; the docstrings show it.
_DEFAULTS = _defaults()


def _python_literal(value):
    """A default as Python writes it: 1, "linear", ("forward", "reverse")."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        items = ", ".join(_python_literal(v) for v in value)
        return f"({items},)" if len(value) == 1 else f"({items})"
    return repr(value)


def _shows_defaults(function):
    """Writes the registry's values into function's docstring: "(default [run] seed)" becomes
    "(default 1)", "(the [tempered] estimators)" the names of the tempered-sample estimators and
    "(the default [tempered] estimators)" those run when none are named."""
    def key_default(m):
        return f"(default {_python_literal(_DEFAULTS[m.group(1)][m.group(2)])}"

    def estimators(m):
        names = _estimator_names(m.group(2), run_by_default=bool(m.group(1)))
        return ", ".join(f'"{name}"' for name in names)

    doc = re.sub(r"\(default \[(\w+)\] (\w+)", key_default, function.__doc__)
    function.__doc__ = re.sub(r"\(the (default )?\[(\w+)\] estimators\)", estimators, doc)
    return function


def _given(**arguments):
    """The arguments that are not None: the keys a config states (the rest keep their defaults)."""
    return {key: value for key, value in arguments.items() if value is not None}


@_shows_defaults
def run(config: Union[Mapping[str, Any], str, os.PathLike, models.Model], *, seed: Optional[int] = None,
        threads: Optional[int] = None, progress: ProgressArgument = True,
        arrays: Optional[Mapping[str, Mapping[str, Any]]] = None) -> Result:
    """Runs an experiment from a config, as `logz run` does.

    The same config and seed give bitwise the same estimates as the command-line tool, for any
    number of threads. Every argument after config is a keyword.

    Parameters
    ----------
    config : dict, str, path or logz.models.Model
        A dict with the TOML's structure ({"model": {"type": "ising", ...}, "run": {...}}; numpy
        arrays may stand for lists), the path of a TOML file (relative paths inside it are
        relative to the file; in a dict, to the working directory), or a model of logz.models
        (its config and arrays).
    seed : int, optional
        Overrides [run] seed; None keeps the config's, or the key's default (default [run] seed).
    threads : int, optional
        Overrides [run] threads; None keeps the config's, or the key's default
        (default [run] threads: every hardware thread).
    progress : bool or callable, default True
        True shows progress on stderr for runs over a second (tqdm when installed); False
        silences it; a callable is called as progress(stage, done, total).
    arrays : dict, optional
        Numpy arrays the config names as "memory:NAME.npz" (an archive {NAME.npz: {key: array}})
        or "memory:NAME.npy" ({NAME.npy: {"data": array}}) instead of files, as logz.models does.

    Returns
    -------
    Result

    Raises
    ------
    logz.InputError
        A malformed config: an unknown section or key, a value out of its range, a file.

    Examples
    --------
    >>> import logz
    >>> r = logz.run({"model": {"type": "ising", "rows": 4, "cols": 4, "beta": 0.4},
    ...               "run": {"num_paths": 20}, "schedule": {"num_steps": 100}}, seed=1)
    >>> sorted(r.estimates)[:1]
    ['ais']
    """
    if isinstance(config, models.Model):
        config, arrays = config.config(), config.arrays()
    return _with_progress(progress, lambda shown: _run(config, seed=seed, threads=threads, progress=shown,
                                                       arrays=arrays))


class GaussianBase:
    """The isotropic Gaussian N(0, sigma^2 I) in `dim` dimensions that annealing starts from
    (exact samples, exact log Z0)."""

    def __init__(self, dim: int, *, sigma: float = 1.0) -> None:
        self.dim = int(dim)
        self.sigma = float(sigma)

    def __repr__(self):
        return f"GaussianBase(dim={self.dim}, sigma={self.sigma})"


GRADIENT_KERNELS = tuple(_gradient_kernels())  # from the kernel registry
# Particles per call of a Target's functions: Python's cost per call is paid once per 100.
TARGET_CHUNK_SIZE = 100


def _common_sections(target, base, kernel, kernel_options, seed, threads, methods, function):
    """The config sections anneal and temper share: the model (or the Target's [base]), the
    kernel, [run] seed and threads, [estimators] methods; and the arrays the config names."""
    if isinstance(target, models.Model):
        config, arrays = target.config(), target.arrays()
        if base is not None:
            if not isinstance(base, GaussianBase):
                raise InvalidArgument(f"{function}: base: expected a logz.GaussianBase, got {base!r}")
            config["base"] = {"type": "gaussian", "sigma": base.sigma}
    elif isinstance(target, Target):
        config, arrays = {}, None
        base = GaussianBase(target.dim) if base is None else base
        if not isinstance(base, GaussianBase) or base.dim != target.dim:
            raise InvalidArgument(f"{function}: base: expected a logz.GaussianBase of dim {target.dim}, got {base!r}")
        if kernel in GRADIENT_KERNELS and target.grad is None and target.energy_and_grad is None:
            raise InvalidArgument(f'{function}: kernel: "{kernel}" moves particles along the gradient: give '
                                  f'logz.Target(dim, energy, grad), or kernel="metropolis"')
        config["base"] = {"type": "gaussian", "sigma": base.sigma}
    else:
        raise InvalidArgument(f"{function}: target: expected a logz.Target or a model of logz.models, "
                              f"got {type(target).__name__}")
    if kernel is not None or kernel_options:
        config["kernel"] = ({"type": kernel} if kernel is not None else {}) | kernel_options
    config["run"] = _given(seed=seed, threads=threads)
    if methods is not None:
        config["estimators"] = {"methods": [methods] if isinstance(methods, str) else list(methods)}
    return config, arrays


# The sections anneal and temper fill from their arguments, and the argument of a key where the
# two names differ; a model's own sections ([model], [data]) keep their InputError.
_ARGUMENT_SECTIONS = ("run", "schedule", "kernel", "tempering", "estimators", "base", "smc", "pt")
_ARGUMENT_OF_KEY = {("kernel", "type"): "kernel", ("schedule", "type"): "schedule",
                    ("schedule", "fractions"): "schedule", ("base", "sigma"): "base"}


def _argument_error(error, function):
    """An InputError in the config that anneal or temper built from its arguments, as the
    InvalidArgument of the argument: "logz.temper config: [tempering] num_chains: expected ..."
    becomes "logz.temper: num_chains: expected ..."; None for any other error."""
    m = re.match(r"\S+ config: \[(\w+)\] (\w+): (.*)", str(error), re.S)
    if not m or m.group(1) not in _ARGUMENT_SECTIONS:
        return None
    section, key, rest = m.groups()
    if section == "kernel" and rest.startswith("unknown key"):
        # An unknown keyword lands among the kernel's options: it may be a misspelt argument.
        arguments = [p for p in inspect.signature(globals()[function.split(".")[1]]).parameters
                     if p not in ("target", "kernel_options")]
        kernel_keys = re.findall(r'"(\w+)"', rest)
        close = difflib.get_close_matches(key, arguments + kernel_keys, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        return InvalidArgument(f"{function}: {key}: no such argument, nor a [kernel] key of this kernel{hint} "
                               f"(arguments: {', '.join(arguments)}; [kernel] keys: {', '.join(kernel_keys)})")
    return InvalidArgument(f"{function}: {_ARGUMENT_OF_KEY.get((section, key), key)}: {rest}")


def _run_config(target, config, arrays, progress, function):
    try:
        if isinstance(target, Target):
            return _with_progress(progress,
                                  lambda shown: _run_target(target, config, progress=shown, function=function))
        return _with_progress(progress, lambda shown: _run(config, progress=shown, arrays=arrays, function=function))
    except InputError as error:
        argument_error = _argument_error(error, function)
        if argument_error is None:
            raise
        raise argument_error from None


@_shows_defaults
def anneal(target: Union[Target, models.Model], *, base: Optional[GaussianBase] = None, kernel: Optional[str] = None,
           num_steps: Optional[int] = None, num_paths: Optional[int] = None,
           directions: Union[str, Sequence[str], None] = None, seed: Optional[int] = None,
           threads: Optional[int] = None, schedule: Union[str, Mapping[str, Any], npt.ArrayLike, None] = None,
           methods: Union[str, Sequence[str], None] = None, reverse_start: Optional[str] = None,
           chunk_size: Optional[int] = None, progress: ProgressArgument = True, **kernel_options: Any) -> Result:
    """Annealed importance sampling from a base distribution to `target`.

    Every argument after `target` is a keyword. None (the default of most) stands for the
    config key's default, the one `logz run` uses, so that logz.anneal(model) and `logz run` on
    the model's config give the same numbers.

    Parameters
    ----------
    target : logz.Target or a model of logz.models
        A Target (the user's energy, and grad for the gradient kernels) is annealed from
        `base` with the continuous models' kernels; a model (RBM, Ising, Potts,
        ProductOfExperts, ...) runs natively, with no Python in the loop, from its own base.
    base : logz.GaussianBase, optional
        A Target's default: sigma 1; for the models that take a Gaussian base.
    kernel : str, optional
        For a Target "hais" (the default; Hamiltonian AIS, Sohl-Dickstein & Culpepper 2012),
        "hmc" (AIS with HMC moves) or "metropolis" (random-walk Metropolis, no gradient
        needed); for a model one of its kernels (None: its default; `logz list` shows them).
        The gradient kernels' step size adapts per temperature by default (a pilot run
        measures one for every temperature, the run follows them); a step_size given is kept
        fixed unless step_size_adaptation is given too (docs/hais.md, Step sizes).
    num_steps : int, optional
        Steps (default [schedule] num_steps) of the `schedule`.
    schedule : str, dict or array_like, optional
        "adaptive" (the default for a Target and the continuous models: temperatures placed
        from a pilot run; "linear" for the others), "geometric", "sigmoid", ...; a dict of
        [schedule] keys; or the path fractions themselves, e.g. np.linspace(0, 1, 21), rising
        from 0 to 1.
    num_paths : int, optional
        Annealing paths in each direction (default [run] num_paths).
    directions : tuple of str, optional
        ("forward",), ("reverse",) or both (default [run] directions).
    reverse_start : str, optional
        Where reverse paths start: "resampled" (the forward paths' end states, resampled by
        their weights; a Target's default) or what the model offers ("exact", "data",
        "ground_state": its default where it has one). Resampled starts inherit the forward
        run's bias, which the SEs of RAISE, BAR and the upper bound do not include: those
        estimates carry the flag "reverse_starts_resampled". Every estimate carries
        "frozen_sampler" when the kernel's acceptance fell below 0.05 at some temperature.
    methods : str or sequence of str, optional
        The estimators to run (default: those the directions allow), any of
        (the [works] estimators).
    chunk_size : int, optional
        Particles moved together (in one call of a Target's functions; default 100 for a
        Target, the registry's default for a model). Numbers do not depend on it except in the
        last bits of per-temperature sums; it is fixed, never derived from `threads`.
    seed : int, optional
        The Philox key of every random number (default [run] seed); it fixes every number,
        whatever `threads`.
    threads : int, optional
        Default [run] threads (every hardware thread).
    progress : bool or callable
        As for logz.run. Ctrl-C stops the run within a step (KeyboardInterrupt).
    **kernel_options
        The [kernel] keys (hais/hmc: step_size, leapfrog_steps, momentum_refresh,
        step_size_adaptation, ...; metropolis: proposal_sd, steps_per_temperature; lattices:
        steps_per_temperature, site_order: docs/config.md).

    Returns
    -------
    logz.Result
        Estimates of the target's log Z (log_z) and of log(Z/Z0) (evidence), the works,
        per-temperature mean energies and acceptance rates, and the exact log Z as
        reference_log_z where it is known (a Target's exact_log_z).

    Raises
    ------
    logz.InvalidArgument
        For an argument outside its range, naming the argument.

    Examples
    --------

    >>> import numpy as np, logz
    >>> t = logz.Target(2, lambda X: 0.5 * (X ** 2).sum(axis=1), lambda X: X, exact_log_z=np.log(2 * np.pi))
    >>> r = logz.anneal(t, num_steps=50, num_paths=20, directions=("forward",), seed=1)
    >>> sorted(r.estimates)
    ['ais']
    """
    if isinstance(target, Target) and kernel is None:
        kernel = "hais"
    config, arrays = _common_sections(target, base, kernel, kernel_options, seed, threads, methods, "logz.anneal")
    if isinstance(directions, str):
        directions = (directions,)
    config["run"] |= _given(num_paths=num_paths,
                            directions=None if directions is None else list(directions))
    if chunk_size is not None or isinstance(target, Target):
        config["run"]["chunk_size"] = chunk_size or TARGET_CHUNK_SIZE
    if reverse_start is not None:
        config["run"]["reverse_start"] = reverse_start
    if schedule is None or isinstance(schedule, str):
        config["schedule"] = _given(type=schedule, num_steps=num_steps)
    elif isinstance(schedule, dict):
        config["schedule"] = dict(schedule)
    else:  # the path fractions themselves: np.linspace(0, 1, 21), a list, ...
        if num_steps is not None:
            raise InvalidArgument("logz.anneal: num_steps: expected None with a schedule of path fractions "
                                  "(their number sets the steps)")
        fractions = np.asarray(schedule, dtype=float)
        if fractions.ndim != 1:
            raise InvalidArgument(f"logz.anneal: schedule: expected a 1-d array of path fractions, got shape "
                                  f"{fractions.shape}")
        config["schedule"] = {"type": "list", "fractions": fractions.tolist()}
    return _run_config(target, config, arrays, progress, "logz.anneal")


@_shows_defaults
def temper(target: Union[Target, models.Model], *, base: Optional[GaussianBase] = None, kernel: Optional[str] = None,
           num_temperatures: Optional[int] = None, num_chains: Optional[int] = None,
           num_sweeps: Optional[int] = None, seed: Optional[int] = None, threads: Optional[int] = None,
           schedule: Union[str, Mapping[str, Any]] = "geometric", methods: Union[str, Sequence[str], None] = None,
           progress: ProgressArgument = True, initialization: Optional[str] = None,
           sweeps_per_iteration: Optional[int] = None, max_initial_iterations: Optional[int] = None,
           **kernel_options: Any) -> Result:
    """Simulated tempering on `target`, with the tempered-sample estimators of Carlson et al.
    (2016): Rao-Blackwellized tempered sampling (RTS), TS, thermodynamic integration and MBAR.

    Every argument after `target` is a keyword; None stands for the config key's default, the
    one `logz run` uses with [run] method = "tempering".

    Parameters
    ----------
    target : logz.Target or a model of logz.models
        A Target is tempered between `base` and the target along the geometric path, moved by
        `kernel` "hmc" (the default) or "metropolis" at each chain's level; a model must
        support tempering (RBM, Ising, Potts, GaussianMixture, ...).
    num_temperatures : int, optional
        K levels of the ladder (default [tempering] num_temperatures).
    schedule : str or dict
        "geometric" (beta from 0.01 to 1, plus 0; the default here, where a config's is
        "linear"), "linear", or a dict of [schedule] keys.
    num_chains : int, optional
        Independent chains (default [tempering] num_chains).
    num_sweeps : int, optional
        Sweeps of the final run after the initial iterations (default [tempering] num_sweeps).
    initialization : str, optional
        "iterations", "wang_landau" or "none" (default [tempering] initialization).
    sweeps_per_iteration : int, optional
        Sweeps of each initial iteration (default [tempering] sweeps_per_iteration).
    max_initial_iterations : int, optional
        At most this many initial iterations (default [tempering] max_initial_iterations).
    methods : str or sequence of str, optional
        The estimators, by default (the default [tempered] estimators); any of
        (the [tempered] estimators).
    base, kernel, seed, threads, progress
        As for logz.anneal (default seed: [run] seed).
    **kernel_options
        The [kernel] keys (hmc: step_size, leapfrog_steps; a fixed step size).

    Returns
    -------
    logz.Result
        Estimates of the target's log Z (log_z) and log(Z/Z0) (evidence); to_json() has every
        level's estimates. Per level of the ladder (fractions holds its t_k): mean_energy[k]
        is the mean of dU_t(x)/dt at t_k over the final run's samples at level k (on the
        geometric path U_target(x) - U_base(x), what logz.anneal's mean_energy traces, and
        what thermodynamic integration integrates: log(Z/Z0) = -integral over t); NaN at a
        level no sample visited, or where the run kept no TI integrands (a model whose path is
        not linear in t, without a "ti_*" method). acceptance[k] is the kernel's acceptance
        rate over the final run's moves made at level k; NaN at a level no chain visited, or
        at every level where the kernel reports no acceptance per chain.

    Raises
    ------
    logz.InvalidArgument
        For an argument outside its range, naming the argument.

    Examples
    --------

    >>> import numpy as np, logz
    >>> t = logz.Target(2, lambda X: 0.5 * (X ** 2).sum(axis=1), lambda X: X, exact_log_z=np.log(2 * np.pi))
    >>> r = logz.temper(t, num_temperatures=5, num_chains=8, num_sweeps=50, max_initial_iterations=3, seed=1)
    >>> "rts" in r.estimates
    True
    """
    if isinstance(target, Target) and kernel is None:
        kernel = "hmc"
    config, arrays = _common_sections(target, base, kernel, kernel_options, seed, threads, methods, "logz.temper")
    config["run"]["method"] = "tempering"
    config["tempering"] = _given(num_temperatures=num_temperatures, num_chains=num_chains,
                                 num_sweeps=num_sweeps, initialization=initialization,
                                 sweeps_per_iteration=sweeps_per_iteration,
                                 max_initial_iterations=max_initial_iterations)
    config["schedule"] = {"type": schedule} if isinstance(schedule, str) else dict(schedule)
    return _run_config(target, config, arrays, progress, "logz.temper")


@_shows_defaults
def smc(target: Union[Target, models.Model], *, base: Optional[GaussianBase] = None,
        num_particles: Optional[int] = None, pilot_base: Optional[bool] = None, seed: Optional[int] = None,
        threads: Optional[int] = None, progress: ProgressArgument = True, **smc_options: Any) -> Result:
    """Adaptive tempered SMC from a base distribution to `target`: log Z with an error bar from
    one run, nothing to tune (docs/smc.md).

    Parameters
    ----------
    target : logz.Target or a continuous model of logz.models
        A Target (the user's energy; with grad the moves are HMC, without it random-walk
        Metropolis) or a model such as ProductOfExperts or GaussianMixture.
    base : logz.GaussianBase, optional
        The start of the path (a Target's default: N(0, I)).
    pilot_base : bool, optional
        For a Target without a base given, True by default: a pilot run from N(0, I)
        (max(256, 8 dim) particles, a seed of its own) is fitted by a Gaussian (its particles'
        weighted mean and covariance, the standard deviations widened 1.2 times), and the run
        starts from that Gaussian, which the result's model.base states; when the pilot's and
        the run's log Z differ by more than their errors allow (the run below the pilot by 4
        combined SEs + 0.05, or above it by twice that: a small pilot reads low) the estimate is
        flagged "pilot_disagrees". False: the run starts from `base` itself.
    num_particles : int, optional
        Particles of the run (default [smc] num_particles).
    seed : int, optional
        Fixes every number whatever `threads` (default [run] seed).
    threads : int, optional
        Default [run] threads. For a Target, None also sets [smc] choose_threads: the first
        moves, timed on every thread and on one, choose the faster (the same bits either way).
    progress : bool or callable
        As for logz.run.
    **smc_options
        The other [smc] keys of docs/config.md (cess_target, resample_threshold, resampling,
        move, leapfrog_steps, preconditioner, decorrelation, min_moves, max_moves,
        max_temperatures, frozen_acceptance, waste_free_chain_length, choose_threads,
        pilot_particles, pilot_widening).

    Returns
    -------
    logz.Result
        The estimate "smc" (log_z and evidence = log(Z / Z_base)), the temperatures, ESS,
        moves, step sizes and acceptance per temperature (result.kernel) and the evaluations
        spent (result.budget, the pilot's included).

    Examples
    --------

    >>> import numpy as np, logz
    >>> t = logz.Target(2, lambda X: 0.5 * ((X - 3) ** 2).sum(axis=1), lambda X: X - 3,
    ...                 exact_log_z=np.log(2 * np.pi))
    >>> r = logz.smc(t, num_particles=200, seed=1, progress=False)
    >>> abs(r.estimates["smc"].log_z - np.log(2 * np.pi)) < 0.2
    True
    """
    if pilot_base is None:
        pilot_base = isinstance(target, Target) and base is None
    config, arrays = _common_sections(target, base, None, {}, seed, threads, None, "logz.smc")
    config["run"]["method"] = "smc"
    if isinstance(target, Target):
        config["run"]["chunk_size"] = TARGET_CHUNK_SIZE
    config["smc"] = _given(num_particles=num_particles) | dict(smc_options)
    if isinstance(target, Target) and threads is None:
        # A Python energy runs under the GIL: one thread is faster where it is cheap (logz.evidence).
        config["smc"].setdefault("choose_threads", True)
    if isinstance(target, Target) and target.grad is None and target.energy_and_grad is None:
        config["smc"].setdefault("move", "random_walk")  # HMC needs the gradient
    if pilot_base:
        config["smc"]["pilot_base"] = True
    return _run_config(target, config, arrays, progress, "logz.smc")


@_shows_defaults
def pt(target: Union[Target, models.Model], *, base: Optional[GaussianBase] = None, kernel: Optional[str] = None,
       num_replicas: Optional[int] = None, rounds: Optional[int] = None, num_chains: Optional[int] = None,
       scheme: Optional[str] = None, estimators: Union[str, Sequence[str], None] = None,
       target_samples: Optional[int] = None, seed: Optional[int] = None, threads: Optional[int] = None,
       progress: ProgressArgument = True, **kernel_options: Any) -> Result:
    """Parallel tempering with non-reversible swaps and an adaptive ladder (Syed et al. 2021, as
    Pigeons.jl runs it): log Z by stepping stone, TI and MBAR from every replica
    (docs/parallel_tempering.md).

    Every argument after `target` is a keyword; None stands for the [pt] key's default, the one
    `logz run` uses with [run] method = "parallel_tempering".

    Parameters
    ----------
    target : logz.Target or a model of logz.models
        A Target is tempered between `base` and the target along the geometric path, moved by
        `kernel` "hmc" (the default) or "metropolis"; a model must temper (Ising, Potts,
        PairwiseMrf, ProductOfExperts, GaussianMixture, ...).
    num_replicas : int, optional
        Replicas per chain, both ends included (default [pt] num_replicas); 0 chooses
        max(8, ceil(2 Lambda) + 1) after every round from the measured global barrier Lambda.
    rounds : int, optional
        Round r has 2^r scans (default [pt] rounds); the ladder adapts after each, the last
        round's samples give the estimates.
    num_chains : int, optional
        Independent PT runs (default [pt] num_chains); their spread gives the error bars.
    scheme : str, optional
        "nonreversible" (deterministic even-odd swaps) or "reversible" (stochastic even-odd)
        (default [pt] scheme).
    estimators : sequence of str, optional
        Any of "stepping_stone", "ti_trapezoid", "ti_riemann", "ti_corrected", "mbar"
        (default [pt] estimators).
    target_samples : int, optional
        About this many positions of the target replica (t = 1) from the last round (default
        0), evenly spaced over scans and chains, as details["pt"]["target_samples"] (rows of d
        numbers: np.array(...) is (n, d)); a logz.Target or a continuous model only.
    base, kernel, seed, threads, progress
        As for logz.anneal (default seed: [run] seed).
    **kernel_options
        The [kernel] keys (hmc: leapfrog_steps, step_size: without it, a pilot measures a step
        size along t and every replica takes the one at its t; a step_size given is kept at
        every replica; lattices: steps_per_temperature, the updates of one scan).

    Returns
    -------
    logz.Result
        estimates["stepping_stone"] and ["mbar"] (or those named), fractions (the last round's
        ladder), mean_energy and acceptance per replica, and details["pt"]: the global
        barrier, the barrier profile, swap acceptance per pair, round trips and their rate
        beside the rate predicted from the swap rejections and the limit 1 / (2 + 2 Lambda).

    Examples
    --------

    >>> import logz
    >>> r = logz.pt(logz.models.Ising(4, 4, beta=0.4), rounds=6, seed=1, progress=False)
    >>> abs(r.estimates["stepping_stone"].log_z - r.reference_log_z) < 5 * r.estimates["stepping_stone"].std_error
    True
    """
    if isinstance(target, Target) and kernel is None:
        kernel = "hmc"
    config, arrays = _common_sections(target, base, kernel, kernel_options, seed, threads, None, "logz.pt")
    config["run"]["method"] = "parallel_tempering"
    if isinstance(estimators, str):
        estimators = [estimators]
    config["pt"] = _given(num_replicas=num_replicas, rounds=rounds, num_chains=num_chains, scheme=scheme,
                          estimators=None if estimators is None else list(estimators),
                          target_samples=target_samples)
    return _run_config(target, config, arrays, progress, "logz.pt")
