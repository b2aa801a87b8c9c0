"""logz: log partition functions, log-likelihoods and Bayesian model evidence by Monte Carlo.

Estimators on work values (numpy arrays): estimate, ais, reverse_ais, bar; MBAR on pymbar's
inputs: mbar; runs from configs (a dict with the TOML's structure, or a TOML file): run.
Errors: logz.Error and its subclasses InvalidArgument and InputError (both ValueErrors) and
NumericalError. See docs/python.md.
"""
from ._logz import (  # noqa: F401
    Error,
    Estimate,
    InputError,
    InvalidArgument,
    MbarResult,
    NumericalError,
    Result,
    __version__,
    estimate,
    mbar,
    run,
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
