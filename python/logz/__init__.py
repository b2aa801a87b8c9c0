"""logz: log partition functions, log-likelihoods and Bayesian model evidence by Monte Carlo.

Estimators on work values (numpy arrays): estimate, ais, reverse_ais, bar; MBAR on pymbar's
inputs: mbar; runs from configs (a dict with the TOML's structure, or a TOML file): run; the
user's own model as Python functions: Target, annealed by anneal from a GaussianBase.
Errors: logz.Error and its subclasses InvalidArgument and InputError (both ValueErrors) and
NumericalError. See docs/python.md.
"""
import sys
import time

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
    _anneal_target,
    _run,
    estimate,
    mbar,
)


def ais(forward):
    """Annealed importance sampling on forward works: -log mean exp(-W_f) (Jarzynski).

    forward: works W_f with E[exp(-W_f)] = Z1/Z0, a 1-D array. Returns a logz.Estimate of
    log(Z1/Z0).

    >>> import numpy as np, logz
    >>> round(logz.ais(np.zeros(10)).log_z, 12)
    0.0
    """
    return estimate("ais", forward=forward)


def reverse_ais(reverse):
    """Reverse AIS (RAISE) on reverse works: log mean exp(-W_r).

    reverse: works W_r with E[exp(-W_r)] = Z0/Z1, a 1-D array. Returns a logz.Estimate of
    log(Z1/Z0).
    """
    return estimate("raise", reverse=reverse)


def bar(forward, reverse):
    """Bennett's acceptance ratio on forward and reverse works.

    The works follow pymbar's convention (w_F, w_R in units of kT), and logz reports
    log(Z1/Z0) = -DeltaF: `logz.bar(w_F, w_R).log_z == -pymbar.BAR(w_F, w_R)[0]`.
    """
    return estimate("bar", forward=forward, reverse=reverse)


class Progress:
    """Progress of a run on stderr, shown once it has taken a second: a tqdm bar where python3-tqdm
    is installed, else one line that updates. logz calls it as progress(stage, done, total) from
    its threads, holding the GIL."""

    def __init__(self):
        self._start = time.monotonic()
        self._bar = None
        self._stage = None
        self._line = False

    def __call__(self, stage, done, total):
        if time.monotonic() - self._start < 1.0 and self._bar is None and not self._line:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            tqdm = None
        if tqdm is not None:
            if self._bar is None or stage != self._stage:
                self.close()
                self._bar = tqdm(total=total, desc=stage or "logz", unit="chunk", leave=False, file=sys.stderr)
                self._stage = stage
            self._bar.update(done - self._bar.n)
        else:
            sys.stderr.write(f"\r{stage or 'logz'}: {done}/{total}")
            sys.stderr.flush()
            self._line = True

    def close(self):
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


def run(config, *, seed=None, threads=None, progress=True):
    """Runs an experiment from a config, as `logz run` does.

    config: a dict with the TOML's structure ({"model": {"type": "ising", ...}, "run": {...}}),
      or a path to a TOML file (relative paths inside it are relative to the file; in a dict,
      to the working directory). seed and threads override [run] seed and threads.
    progress: True shows progress on stderr for runs over a second (tqdm when installed);
      False silences it; a callable is called as progress(stage, done, total).
    The same config and seed give bitwise the same estimates as the command-line tool, for
    any number of threads. Returns a logz.Result.

    >>> import logz
    >>> r = logz.run({"model": {"type": "ising", "rows": 4, "cols": 4, "beta": 0.4},
    ...               "run": {"num_paths": 20}, "schedule": {"num_steps": 100}}, seed=1)
    >>> sorted(r.estimates)[:1]
    ['ais']
    """
    return _with_progress(progress, lambda shown: _run(config, seed=seed, threads=threads, progress=shown))


class GaussianBase:
    """The isotropic Gaussian N(0, sigma^2 I) in `dim` dimensions that annealing starts from
    (exact samples, exact log Z0)."""

    def __init__(self, dim, sigma=1.0):
        self.dim = int(dim)
        self.sigma = float(sigma)

    def __repr__(self):
        return f"GaussianBase(dim={self.dim}, sigma={self.sigma})"


GRADIENT_KERNELS = ("hais", "hmc")


def anneal(target, base=None, kernel="hais", num_steps=1000, num_paths=100, directions=("forward",), seed=0,
           threads=None, schedule="linear", methods=None, reverse_start="resampled", progress=True,
           **kernel_options):
    """Annealed importance sampling on a logz.Target, from `base` to the target.

    target: a logz.Target (the user's energy, and grad for the gradient kernels).
    base: a logz.GaussianBase of the target's dim (default: sigma 1).
    kernel: "hais" (Hamiltonian AIS, Sohl-Dickstein & Culpepper 2012), "hmc" (AIS with HMC
      moves) or "metropolis" (random-walk Metropolis, no gradient needed); kernel_options are
      its [kernel] keys (hais/hmc: step_size, leapfrog_steps, pilot_paths, ...; metropolis:
      proposal_sd, steps_per_temperature:
      docs/config.md).
    num_steps: temperatures of the `schedule` ("linear", "geometric", "sigmoid").
    num_paths: annealing paths; directions: ("forward",) or ("forward", "reverse"); reverse
      paths start from the forward paths' end states, resampled by their weights.
    methods: the estimators to run (default: those the directions allow).
    seed fixes every number, whatever `threads`. progress: as for logz.run. Ctrl-C stops the
    run at the next call of the target's functions.
    Returns a logz.Result: estimates of the target's log Z (log_z) and of log(Z/Z0)
    (evidence), the works, per-temperature mean energies and acceptance rates, and the
    Target's exact_log_z as reference_log_z.

    >>> import numpy as np, logz
    >>> t = logz.Target(2, lambda X: 0.5 * (X ** 2).sum(axis=1), lambda X: X, exact_log_z=np.log(2 * np.pi))
    >>> r = logz.anneal(t, num_steps=50, num_paths=20, seed=1)
    >>> sorted(r.estimates)
    ['ais']
    """
    if not isinstance(target, Target):
        raise InvalidArgument(f"logz.anneal: target: expected a logz.Target, got {type(target).__name__}")
    base = GaussianBase(target.dim) if base is None else base
    if not isinstance(base, GaussianBase) or base.dim != target.dim:
        raise InvalidArgument(f"logz.anneal: base: expected a logz.GaussianBase of dim {target.dim}, got {base!r}")
    if kernel in GRADIENT_KERNELS and target.grad is None:
        raise InvalidArgument(f'logz.anneal: kernel: "{kernel}" moves particles along the gradient: give '
                              f'logz.Target(dim, energy, grad), or kernel="metropolis"')
    if isinstance(directions, str):
        directions = (directions,)
    run = {"num_paths": num_paths, "directions": list(directions), "seed": seed}
    if "reverse" in directions:
        run["reverse_start"] = reverse_start
    if threads is not None:
        run["threads"] = threads
    config = {
        "base": {"type": "gaussian", "sigma": base.sigma},
        "kernel": {"type": kernel, **kernel_options},
        "schedule": {"type": schedule, "num_steps": num_steps},
        "run": run,
    }
    if methods is not None:
        config["estimators"] = {"methods": [methods] if isinstance(methods, str) else list(methods)}
    return _with_progress(progress, lambda shown: _anneal_target(target, config, progress=shown))
