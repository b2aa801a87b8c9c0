"""MBAR analysis on top of a solved MBAR problem (Shirts & Chodera 2008), in logz's conventions.

logz.mbar solves for log Z_k (relative to state 0); the functions here take that answer and
compute what follows from it: the normalized weights of every sample in every state, the
asymptotic covariance of log Z of the sampled states augmented with further states (reweighted
potentials, or observable-weighted states), expectations of observables with their covariance,
log Z of new states, entropies and energies, effective sample numbers and the overlap matrix.

Conventions: log Z (never f = -log Z); u_kn[k, n] is the reduced energy of pooled sample n in
state k; N_k[k] the samples drawn from state k; weights are sample-major, shape (N, K), each
column summing to one. A reduced energy of +inf (a hard wall) gives a weight of exactly zero.
The covariance of log Z equals that of f = -log Z, so covariances carry over to pymbar's f.
"""
from collections import namedtuple

import numpy as np

# Singular values below this fraction of the largest are dropped from the pseudo-inverse: the
# MBAR covariance is singular along the common shift of all log Z (pymbar uses the same cut).
PINV_RCOND = 1.0e-10

COVARIANCE_METHODS = ("svd-ew", "svd", "approximate")

Expectations = namedtuple("Expectations", "mean covariance theta shifted_mean shift")
Expectations.__doc__ = """Expectations of observables and their asymptotic covariance.

Attributes
----------
mean : (S,) ndarray
    The estimates E_l[A_s].
covariance : (S, S) ndarray or None
    Covariance of the estimates (None when not asked for).
theta : (2S, 2S) ndarray
    Covariance of log Z of the augmented states: first the S observable-weighted states
    (density (A_s - shift_s) q_l), then the S states l the observables are averaged in.
shifted_mean : (S,) ndarray
    E_l[A_s] - shift_s, positive.
shift : (S,) ndarray
    The constants subtracted to make every observable positive (log-space averaging).
"""

EntropyAndEnergy = namedtuple(
    "EntropyAndEnergy",
    "log_z energy entropy log_z_covariance energy_covariance entropy_covariance")
EntropyAndEnergy.__doc__ = """Reduced energies, entropies and log Z of states, with covariances.

Attributes
----------
log_z, energy, entropy : (L,) ndarray
    log Z_l, <u_l>_l and the reduced entropy s_l = <u_l>_l + log Z_l.
log_z_covariance, energy_covariance, entropy_covariance : (L, L) ndarray
    Their asymptotic covariances.
"""


def logsumexp(a, *, axis=None):
    """log(sum(exp(a))) along axis, exact where entries or whole slices are -inf.

    Parameters
    ----------
    a : array_like
    axis : int or None

    Returns
    -------
    ndarray or float
        -inf for a slice of -inf only (an empty sum), +inf where a slice holds +inf.
    """
    a = np.asarray(a, dtype=np.float64)
    a_max = np.max(a, axis=axis, keepdims=True)
    # An all -inf (or +inf) slice would give inf - inf = NaN: shift it by 0 instead.
    a_max = np.where(np.isfinite(a_max), a_max, 0.0)
    with np.errstate(divide="ignore", over="ignore"):
        total = np.log(np.sum(np.exp(a - a_max), axis=axis, keepdims=True)) + a_max
    if axis is None:
        return np.float64(total.reshape(()))
    return np.squeeze(total, axis=axis)


def _as_counts(N_k):
    return np.asarray(N_k, dtype=np.float64)


def mixture_log_denominator(u_kn, N_k, log_z):
    """log sum_k N_k exp(-u_kn - log Z_k) for each sample: the log density of the pooled
    samples' mixture, up to a constant.

    Parameters
    ----------
    u_kn : (K, N) array
    N_k : (K,) array
    log_z : (K,) array; only states with N_k > 0 are read

    Returns
    -------
    (N,) ndarray

    Raises
    ------
    ValueError
        when a sample has reduced energy +inf in every sampled state (no state could have drawn it).
    """
    u_kn = np.asarray(u_kn, dtype=np.float64)
    N_k = _as_counts(N_k)
    log_z = np.asarray(log_z, dtype=np.float64)
    sampled = N_k > 0
    terms = (np.log(N_k[sampled]) - log_z[sampled])[:, None] - u_kn[sampled]
    log_denominator = logsumexp(terms, axis=0)
    impossible = np.flatnonzero(np.isneginf(log_denominator))
    if impossible.size:
        raise ValueError(
            f"u_kn: sample {impossible[0]} has reduced energy +inf in every sampled state")
    return log_denominator


def log_weights(u_kn, N_k, log_z, *, log_denominator=None):
    """Normalized log weights of every sample in every state (Shirts & Chodera 2008, eq. 9).

    Parameters
    ----------
    u_kn : (K, N) array
    N_k : (K,) array
    log_z : (K,) array, the MBAR solution (any common offset)
    log_denominator : (N,) array, optional; mixture_log_denominator(u_kn, N_k, log_z) if None

    Returns
    -------
    (N, K) ndarray
        log W_nk; exp of each column sums to one for the states the solution is exact for,
        -inf where u_kn is +inf.
    """
    u_kn = np.asarray(u_kn, dtype=np.float64)
    log_z = np.asarray(log_z, dtype=np.float64)
    if log_denominator is None:
        log_denominator = mixture_log_denominator(u_kn, N_k, log_z)
    log_w_kn = -u_kn - log_z[:, None] - log_denominator[None, :]
    return np.ascontiguousarray(log_w_kn.T)


def reweight(u_ln, log_denominator):
    """log Z and normalized log weights of new states from the pooled samples.

    Parameters
    ----------
    u_ln : (L, N) array, reduced energies of the samples in the new states
    log_denominator : (N,) array, from mixture_log_denominator

    Returns
    -------
    log_w_nl : (N, L) ndarray, normalized log weights (NaN for a state no sample reaches)
    log_z_l : (L,) ndarray, log Z_l in the gauge of the solution (-inf when no sample reaches it)
    """
    u_ln = np.atleast_2d(np.asarray(u_ln, dtype=np.float64))
    log_q = -u_ln - np.asarray(log_denominator, dtype=np.float64)[None, :]
    log_z_l = logsumexp(log_q, axis=1)
    with np.errstate(invalid="ignore"):
        log_w_nl = np.ascontiguousarray((log_q - log_z_l[:, None]).T)
    return log_w_nl, log_z_l


def asymptotic_covariance(weights, N_k, *, method="svd-ew"):
    """Asymptotic covariance of log Z of the states whose weights are the columns of weights.

    Shirts & Chodera 2008, appendix D: Theta = V S pinv(I - S V' N V S) S V', with W = U S V'.
    Columns with N_k = 0 are augmented states (reweighted or observable-weighted): their rows
    give the covariance of their log normalizing constants with everything else.

    Parameters
    ----------
    weights : (N, M) array, normalized weights (not logs)
    N_k : (M,) array, samples drawn from each column's state (0 for augmented ones)
    method : {"svd-ew", "svd", "approximate"}
        svd-ew: eigen-decomposition of W'W (pymbar's default); svd: SVD of W; approximate:
        W'W (Kong et al. 2003, an underestimate).

    Returns
    -------
    (M, M) ndarray
        NaN in the rows and columns of states whose weights are not finite.
    """
    if method not in COVARIANCE_METHODS:
        raise ValueError(f"method: expected one of {COVARIANCE_METHODS}, got {method!r}")
    weights = np.asarray(weights, dtype=np.float64)
    N_k = _as_counts(N_k)
    M = weights.shape[1]
    if N_k.shape != (M,):
        raise ValueError(f"N_k: expected one count per column of weights ({M}), got {N_k.shape}")
    finite = np.all(np.isfinite(weights), axis=0)
    w = weights[:, finite] if not finite.all() else weights
    if method == "svd":
        _, singular, v_t = np.linalg.svd(w, full_matrices=False)
        return _theta(v_t.T * singular, N_k, finite)
    return covariance_from_gram(w.T @ w, N_k, method=method, finite=finite)


def covariance_from_gram(gram, N_k, *, method="svd-ew", finite=None):
    """asymptotic_covariance from the Gram matrix W'W of the weights alone (the svd-ew and
    approximate methods need nothing more; mbar_expectation_sums gives it without W).

    Parameters
    ----------
    gram : (M, M) array, W'W; or, with `finite`, the Gram of the finite columns only
    N_k : (M,) array
    method : {"svd-ew", "approximate"}
    finite : (M,) bool array, optional: the columns whose weights are finite (default: those of
        a finite diagonal)

    Returns
    -------
    (M, M) ndarray, NaN in the rows and columns of the columns not finite
    """
    if method not in ("svd-ew", "approximate"):
        raise ValueError(f"method: expected 'svd-ew' or 'approximate' from a Gram matrix, got {method!r}")
    gram = np.asarray(gram, dtype=np.float64)
    if finite is None:
        finite = np.isfinite(np.diag(gram))
        gram = gram[np.ix_(finite, finite)]
    if method == "approximate":
        theta = np.full((finite.size, finite.size), np.nan)
        theta[np.ix_(finite, finite)] = 0.5 * (gram + gram.T)
        return theta
    eigenvalues, v = np.linalg.eigh(gram)
    return _theta(v * np.sqrt(np.clip(eigenvalues, 0.0, None)), N_k, finite)


def _theta(v_sigma, N_k, finite):
    """Theta = V S pinv(I - S V' N V S) S V' of the finite columns, NaN elsewhere."""
    n = _as_counts(N_k)[finite]
    inner = np.eye(v_sigma.shape[1]) - v_sigma.T @ (n[:, None] * v_sigma)
    part = v_sigma @ np.linalg.pinv(inner, rcond=PINV_RCOND) @ v_sigma.T
    theta = np.full((finite.size, finite.size), np.nan)
    theta[np.ix_(finite, finite)] = 0.5 * (part + part.T)  # symmetric up to rounding: exactly so
    return theta


def error_of_differences(covariance, *, cutoff=1.0e-10):
    """Standard deviations of all pairwise differences x_j - x_i from the covariance of x.

    Parameters
    ----------
    covariance : (K, K) array
    cutoff : float
        squared errors in (-cutoff, 0) are rounding and become 0; more negative ones give NaN.

    Returns
    -------
    (K, K) ndarray
    """
    covariance = np.asarray(covariance, dtype=np.float64)
    variance = np.diag(covariance)
    squared = variance[:, None] + variance[None, :] - 2.0 * covariance
    squared[(squared < 0.0) & (squared > -abs(cutoff))] = 0.0
    with np.errstate(invalid="ignore"):
        return np.sqrt(squared)


def standard_errors(covariance, *, cutoff=1.0e-10):
    """Standard errors from a covariance: the square roots of its diagonal.

    Parameters
    ----------
    covariance : (K, K) array
    cutoff : float
        variances in (-cutoff, 0) are rounding and become 0; more negative ones give NaN.

    Returns
    -------
    (K,) ndarray
    """
    variance = np.array(np.diag(np.asarray(covariance, dtype=np.float64)))
    variance[(variance < 0.0) & (variance > -abs(cutoff))] = 0.0
    with np.errstate(invalid="ignore"):
        return np.sqrt(variance)


def effective_sample_number(log_w_nk):
    """Kish's effective sample number of each state, 1 / sum_n W_nk^2.

    Parameters
    ----------
    log_w_nk : (N, K) array, normalized log weights

    Returns
    -------
    (K,) ndarray
    """
    return np.exp(-logsumexp(2.0 * np.asarray(log_w_nk, dtype=np.float64), axis=0))


def overlap_matrix(weights, N_k):
    """The overlap matrix O = W'W diag(N_k): O[i, j], the probability that a sample from state
    i is observed in state j (rows sum to one).

    Parameters
    ----------
    weights : (N, K) array, normalized weights
    N_k : (K,) array

    Returns
    -------
    (K, K) ndarray
    """
    weights = np.asarray(weights, dtype=np.float64)
    return (weights.T @ weights) * _as_counts(N_k)[None, :]


def overlap_eigenvalues(overlap, N_k):
    """Eigenvalues of the overlap matrix, largest first, and the overlap scalar.

    O = G diag(N) with G symmetric has the eigenvalues of diag(N)^1/2 G diag(N)^1/2, which are
    real and non-negative: computing them from that symmetric form avoids complex rounding.

    Parameters
    ----------
    overlap : (K, K) array, from overlap_matrix
    N_k : (K,) array

    Returns
    -------
    eigenvalues : (K,) ndarray, descending (the first is 1 up to rounding)
    scalar : float
        1 minus the second largest eigenvalue: 0 when some states do not overlap at all.
    """
    overlap = np.asarray(overlap, dtype=np.float64)
    root_n = np.sqrt(_as_counts(N_k))
    scale = np.divide(root_n[:, None], root_n[None, :], out=np.zeros_like(overlap),
                      where=root_n[None, :] > 0)
    symmetric = np.nan_to_num(overlap * scale)  # states without support do not take part
    symmetric = 0.5 * (symmetric + symmetric.T)
    eigenvalues = np.linalg.eigvalsh(symmetric)[::-1]
    second = eigenvalues[1] if eigenvalues.size > 1 else 0.0
    return eigenvalues, np.float64(1.0 - second)


def _positive_shift(observables):
    """Constants below each observable's minimum, so that A - shift > 0 can be averaged in
    log space (as pymbar does, 4 machine epsilons of |min| below the minimum). Infinite values
    are left out: they matter only where a weight is not zero, and then the mean is infinite."""
    finite = np.isfinite(observables)
    minimum = np.min(np.where(finite, observables, np.inf), axis=1)
    minimum[~np.isfinite(minimum)] = 0.0
    margin = np.maximum(4.0 * np.finfo(np.float64).eps * np.abs(minimum),
                        np.finfo(np.float64).tiny)
    return minimum - margin


def _state_columns(log_w_nk, log_w_new, states):
    """The weight columns of the requested states: indices < K are the sampled states', the
    others log_w_new's columns (index - K). Returns (column of each state in the augmented
    weight matrix, the new columns used, their log weights)."""
    K = log_w_nk.shape[1]
    states = np.asarray(states, dtype=np.int64)
    total = K + (0 if log_w_new is None else log_w_new.shape[1])
    if states.size and (states.min() < 0 or states.max() >= total):
        raise ValueError(f"states: expected indices in [0, {total}), got {states}")
    new_used = np.unique(states[states >= K])
    column = np.where(states < K, states, 0)
    for i, state in enumerate(new_used):
        column[states == state] = K + i
    extra = (np.empty((log_w_nk.shape[0], 0)) if new_used.size == 0
             else log_w_new[:, new_used - K])
    return column, extra


def expectations(log_w_nk, N_k, observables, states, *, observable_index=None, log_w_new=None,
                 covariance=True, method="svd-ew"):
    """Expectations of observables in states, E_l[A] = sum_n W_nl A(x_n), with their asymptotic
    covariance (Shirts & Chodera 2008, section IV: each observable is an augmented state of
    density (A - shift) q_l whose log Z, less log Z_l, is log of the shifted expectation).

    Parameters
    ----------
    log_w_nk : (N, K) array, normalized log weights of the solved states
    N_k : (K,) array
    observables : (I, N) array, A_i(x_n)
    states : (S,) int array, the state of each expectation: k < K a solved state, K + l the
        column l of log_w_new
    observable_index : (S,) int array, the observable of each expectation (default arange(S))
    log_w_new : (N, L) array, optional, normalized log weights of further states (reweight)
    covariance : bool
    method : str, see asymptotic_covariance

    Returns
    -------
    Expectations
    """
    log_w_nk = np.asarray(log_w_nk, dtype=np.float64)
    observables = np.atleast_2d(np.asarray(observables, dtype=np.float64))
    states = np.atleast_1d(np.asarray(states, dtype=np.int64))
    if observable_index is None:
        observable_index = np.arange(states.size)
    observable_index = np.atleast_1d(np.asarray(observable_index, dtype=np.int64))
    if observable_index.shape != states.shape:
        raise ValueError("observable_index: expected one observable per state")
    if observables.shape[1] != log_w_nk.shape[0]:
        raise ValueError(f"observables: expected {log_w_nk.shape[0]} samples per observable, "
                         f"got {observables.shape[1]}")
    if log_w_new is not None:
        log_w_new = np.atleast_2d(np.asarray(log_w_new, dtype=np.float64))
    K = log_w_nk.shape[1]
    used = np.unique(observable_index)
    shift = np.zeros(observables.shape[0])
    log_shifted = np.zeros((observables.shape[0], observables.shape[1]))
    shift[used] = _positive_shift(observables[used])
    with np.errstate(divide="ignore", invalid="ignore"):
        log_shifted[used] = np.log(observables[used] - shift[used, None])
    column, extra = _state_columns(log_w_nk, log_w_new, states)
    if covariance and method != "svd":
        # The sums in one pass over the samples, in C++ (no (N, K + S) weight matrix): about a
        # fifth of numpy's time at 100 states x 10^4 samples each (bench/peers/pymbar_expectations_timing.py).
        from ._logz import _mbar_expectation_sums
        log_w_all = log_w_nk if extra.shape[1] == 0 else np.concatenate([log_w_nk, extra], axis=1)
        log_shifted_mean, gram = _mbar_expectation_sums(log_w_all, log_shifted, observable_index, column)
        shifted_mean = np.exp(log_shifted_mean)
        mean = shifted_mean + shift[observable_index]
        counts = np.concatenate([_as_counts(N_k), np.zeros(extra.shape[1] + states.size)])
        return _expectation_covariance(covariance_from_gram(gram, counts, method=method), K + extra.shape[1],
                                       column, mean, shifted_mean, shift[observable_index])
    log_w_state = np.concatenate([log_w_nk, extra], axis=1)[:, column].T  # (S, N)
    # A zero weight makes a zero term whatever the value, +inf included (a hard wall's energy)
    with np.errstate(invalid="ignore"):
        log_terms = np.where(np.isneginf(log_w_state), -np.inf,
                             log_shifted[observable_index] + log_w_state)
    log_shifted_mean = logsumexp(log_terms, axis=1)
    shifted_mean = np.exp(log_shifted_mean)
    mean = shifted_mean + shift[observable_index]
    if not covariance:
        return Expectations(mean, None, None, shifted_mean, shift[observable_index])
    with np.errstate(invalid="ignore"):
        observable_weights = np.exp(log_terms - log_shifted_mean[:, None]).T
    weights = np.concatenate([np.exp(log_w_nk), np.exp(extra), observable_weights], axis=1)
    counts = np.concatenate([_as_counts(N_k), np.zeros(extra.shape[1] + states.size)])
    theta_all = asymptotic_covariance(weights, counts, method=method)
    return _expectation_covariance(theta_all, K + extra.shape[1], column, mean, shifted_mean,
                                   shift[observable_index])


def _expectation_covariance(theta_all, num_columns, column, mean, shifted_mean, shift):
    """Expectations from the covariance of log Z of every weight column (the num_columns states'
    then the expectations'): cov(E_a, E_b) from the log-space covariance of each shifted
    expectation's augmented state less its own state's."""
    S = column.size
    index = np.concatenate([num_columns + np.arange(S), column])
    theta = theta_all[np.ix_(index, index)]
    theta_aa, theta_ll, theta_al = theta[:S, :S], theta[S:, S:], theta[:S, S:]
    log_covariance = theta_aa + theta_ll - theta_al - theta_al.T
    cov = shifted_mean[:, None] * log_covariance * shifted_mean[None, :]
    return Expectations(mean, cov, theta, shifted_mean, shift)


def log_z_covariance(log_w_nk, N_k, states, *, log_w_new=None, method="svd-ew"):
    """Asymptotic covariance of log Z of states: solved ones (index < K) and new ones (K + l,
    column l of log_w_new).

    Parameters
    ----------
    log_w_nk : (N, K) array
    N_k : (K,) array
    states : (L,) int array
    log_w_new : (N, L') array, optional
    method : str, see asymptotic_covariance

    Returns
    -------
    (L, L) ndarray
    """
    log_w_nk = np.asarray(log_w_nk, dtype=np.float64)
    if log_w_new is not None:
        log_w_new = np.atleast_2d(np.asarray(log_w_new, dtype=np.float64))
    column, extra = _state_columns(log_w_nk, log_w_new, states)
    weights = np.concatenate([np.exp(log_w_nk), np.exp(extra)], axis=1)
    counts = np.concatenate([_as_counts(N_k), np.zeros(extra.shape[1])])
    theta = asymptotic_covariance(weights, counts, method=method)
    return theta[np.ix_(column, column)]


def perturbed_log_z(log_w_nk, N_k, u_ln, log_denominator, *, covariance=True, method="svd-ew"):
    """log Z of new states (reduced energies u_ln of the same samples), in the gauge of the
    solution, with their asymptotic covariance.

    Parameters
    ----------
    log_w_nk : (N, K) array, normalized log weights of the solved states
    N_k : (K,) array
    u_ln : (L, N) array; +inf where a new state excludes a sample
    log_denominator : (N,) array, from mixture_log_denominator
    covariance : bool
    method : str, see asymptotic_covariance

    Returns
    -------
    log_z_l : (L,) ndarray
    covariance : (L, L) ndarray or None
    """
    log_w_nl, log_z_l = reweight(u_ln, log_denominator)
    if not covariance:
        return log_z_l, None
    K = np.shape(log_w_nk)[1]
    states = K + np.arange(log_z_l.size)
    return log_z_l, log_z_covariance(log_w_nk, N_k, states, log_w_new=log_w_nl, method=method)


def entropy_and_energy(log_w_nk, N_k, energies, states, log_z_states, *, log_w_new=None,
                       method="svd-ew"):
    """Reduced energies <u_l>_l, entropies s_l = <u_l>_l + log Z_l and log Z_l of states, with
    their asymptotic covariances.

    Parameters
    ----------
    log_w_nk : (N, K) array
    N_k : (K,) array
    energies : (L, N) array, u_l(x_n) for each state l
    states : (L,) int array, each state's index (< K solved, K + l column l of log_w_new)
    log_z_states : (L,) array, log Z of those states
    log_w_new : (N, L') array, optional
    method : str, see asymptotic_covariance

    Returns
    -------
    EntropyAndEnergy
    """
    L = np.size(states)
    result = expectations(log_w_nk, N_k, energies, states, observable_index=np.arange(L),
                          log_w_new=log_w_new, covariance=True, method=method)
    theta = result.theta
    theta_al, theta_ll = theta[:L, L:], theta[L:, L:]
    # cov(<u_s>, log Z_t): <u_s> - shift = exp(log Z_{u s} - log Z_s)
    energy_log_z = result.shifted_mean[:, None] * (theta_al - theta_ll)
    log_z_covariance_ = theta_ll
    entropy_covariance = (result.covariance + log_z_covariance_ + energy_log_z
                          + energy_log_z.T)
    log_z_states = np.asarray(log_z_states, dtype=np.float64)
    return EntropyAndEnergy(log_z_states, result.mean, result.mean + log_z_states,
                            log_z_covariance_, result.covariance, entropy_covariance)
