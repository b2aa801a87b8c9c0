"""pymbar 3's API (MBAR, BAR, BARoverlap, BARzero, EXP, EXPGauss) on logz's solvers.

Change one import line, `from pymbar import MBAR, BAR, EXP` to
`from logz.compat.pymbar import MBAR, BAR, EXP`, and keep the rest: pymbar 3.0.5's signatures,
keyword names and returns (tuples, or dicts with return_dict=True; f = -log Z; K x K matrices
with Delta_f[i, j] = f_j - f_i; np.matrix where pymbar returns one).

The free energies come from logz.mbar (and BAR's from logz.bar where its inputs can say the
same); everything after them (weights, expectations, covariances, the PMF, entropies) from
logz.mbar_analysis, in log space, so that reduced energies of +inf (hard walls) give weights
of zero. States that no chain of overlapping states links to state 0 get f_k = NaN (pymbar
answers numbers for them: 0 +- 0, 0 +- NaN or worse), and MBAR.flags says "disconnected"
(logz's other flags: "not_converged", "poor_overlap"); free energies within such a group of
states are still given relative to each other, and expectations in them are given. Bad input
raises ValueErrors that name the argument (ParameterError and DataError are ValueErrors).

Known differences from pymbar 3.0.5: computeMultipleExpectations(compute_covariance=True)
returns the covariance of the estimates (pymbar returns its log-weight Theta block);
computePMF(uncertainties='all-differences') works (pymbar's raises); BAR solves works of +inf
(pymbar answers 0 +- 0); EXP(is_timeseries=True) works (pymbar's fails to import its helper);
MBAR's solver_protocol and relative_tolerance are unused (logz's solver is Newton's);
nothing is printed (warnings instead, for non-convergence and disconnected states).
"""
import warnings

import numpy as np

from .. import bar as _logz_bar
from .. import mbar as _logz_mbar
from .. import mbar_analysis as analysis

__all__ = ["MBAR", "BAR", "BARoverlap", "BARzero", "EXP", "EXPGauss", "ParameterError",
           "DataError"]

DEFAULT_SOLVER_TOLERANCE = 1.0e-12

# A new state whose samples lie in more than one group of mutually linked states has no single
# normalization: its mass outside the main group must be below this fraction.
_COMPONENT_LEAK = 1.0e-10

_INITIALIZERS = ("zeros", "BAR", "mean-reduced-potential")
_BAR_METHODS = ("false-position", "self-consistent-iteration", "bisection")


class ParameterError(ValueError):
    """A bad argument (pymbar's ParameterError; a ValueError here)."""


class DataError(ValueError):
    """Data that do not fit together (pymbar's DataError; a ValueError here)."""


def _matrix(array):
    """np.matrix, as pymbar returns, without numpy's pending-deprecation warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.asmatrix(np.asarray(array, dtype=np.float64))


def _differences(values):
    """pymbar's difference matrices: D[i, j] = values[j] - values[i]."""
    values = np.asarray(values, dtype=np.float64)
    return values[None, :] - values[:, None]


def _covariance_method(uncertainty_method):
    method = "svd-ew" if uncertainty_method is None else uncertainty_method
    if method not in analysis.COVARIANCE_METHODS:
        raise ParameterError(f"uncertainty_method: expected None or one of "
                             f"{analysis.COVARIANCE_METHODS}, got {uncertainty_method!r}")
    return method


def _numbers(values, name):
    """values as a new float64 array, or a ValueError naming them."""
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name}: expected an array of numbers ({error})") from None


def _energies(values, name):
    """A float64 array of reduced energies: +inf is allowed (zero weight), NaN and -inf not."""
    values = _numbers(values, name)
    for bad, test in (("NaN", np.isnan), ("-inf", np.isneginf)):
        where = np.argwhere(test(values))
        if where.size:
            raise ValueError(f"{name}: expected reduced energies that are numbers or +inf, "
                             f"got {bad} at {tuple(int(i) for i in where[0])}")
    return values


def _observable(values, name, samples):
    """An observable's values on the N samples, shape (..., N), no NaN (infinite values count
    only where a weight is not zero: a hard wall's +inf energy where the state has none)."""
    values = _numbers(values, name)
    if values.ndim == 0 or values.shape[-1] != samples:
        raise ValueError(f"{name}: expected {samples} values (one per sample) along the last "
                         f"axis, got shape {values.shape}")
    if np.isnan(values).any():
        raise ValueError(f"{name}: expected numbers, got NaN")
    return values


def _counts(N_k, K):
    counts = np.asarray(N_k)
    if counts.ndim != 1 or counts.size != K:
        raise ParameterError(f"N_k: expected one count per state ({K}), got shape {counts.shape}")
    try:
        as_float = counts.astype(np.float64)
    except (TypeError, ValueError):
        raise ParameterError(f"N_k: expected whole numbers >= 0, got {counts!r}") from None
    bad = ~np.isfinite(as_float) | (as_float < 0) | (as_float != np.round(as_float))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ParameterError(f"N_k: expected whole numbers >= 0, got {as_float[i]} at [{i}]")
    return as_float.astype(np.int64)


def _kln_to_kn(kln, N_k):
    """pymbar's old (K, L, N_max) layout to (L, N): the first N_k[k] samples of each k."""
    kln = np.asarray(kln, dtype=np.float64)
    return np.concatenate([kln[k, :, :N_k[k]] for k in range(kln.shape[0])], axis=1)


def _kn_to_n(kn, N_k):
    """pymbar's old (K, N_max) layout to (N,): the first N_k[k] values of each row k."""
    kn = np.asarray(kn)
    return np.concatenate([kn[k, :N_k[k]] for k in range(kn.shape[0])])


def _cross_group(component):
    """True for pairs of states in different groups (or none): their free energy difference
    has no estimate."""
    component = np.asarray(component)
    return ((component[:, None] != component[None, :]) | (component[:, None] < 0)
            | (component[None, :] < 0))


def _masked(matrix, cross):
    matrix = np.array(matrix, dtype=np.float64)
    matrix[cross] = np.nan
    return matrix


class _Solution:
    """logz.mbar's answer, split into groups of states linked by overlap ("components").

    log_z: relative to state 0 (NaN for states cut off from it); gauge: log Z within each
    component, relative to its first state (equal to log_z in component 0); component: each
    state's group (-1: no sample reaches it); covariance: of log Z, NaN across components.
    """

    def __init__(self, log_z, gauge, component, covariance, overlap, flags, converged,
                 disconnected):
        self.log_z = log_z
        self.gauge = gauge
        self.component = component
        self.covariance = covariance
        self.overlap = overlap
        self.flags = flags
        self.converged = converged
        self.disconnected = disconnected


class MBAR:
    """Multistate Bennett acceptance ratio (Shirts & Chodera 2008), pymbar 3's MBAR class.

    The free energies are logz.mbar's (f_k = -log_z); the samples must be uncorrelated.
    Attributes as pymbar's: f_k, N_k, K, N, u_kn, Log_W_nk, W_nk, x_kindices,
    states_with_samples, K_nonzero, nbootstraps, f_k_boots; and logz's diagnostics: flags,
    converged, disconnected.
    """

    def __init__(self, u_kn, N_k, maximum_iterations=10000, relative_tolerance=1.0e-7,
                 solver_tolerance=DEFAULT_SOLVER_TOLERANCE, verbose=False, initial_f_k=None,
                 solver_protocol=None, initialize="zeros", x_kindices=None, nbootstraps=None,
                 rseed=None, **kwargs):
        """Solve MBAR on u_kn (K, N) (or pymbar's old (K, K, N_max) u_kln) with N_k samples
        drawn from each state, in the order of u_kn's columns.

        relative_tolerance, verbose and solver_protocol are accepted for pymbar's sake and
        unused (logz.mbar has its own solver); solver_tolerance and maximum_iterations are
        passed to it.
        """
        for key in kwargs:
            warnings.warn(f"MBAR: parameter {key!r} is unrecognized and unused", stacklevel=2)
        del relative_tolerance, solver_protocol  # logz's solver has its own
        u_kn = _energies(u_kn, "u_kn")
        if u_kn.ndim == 3:
            self.N_k = _counts(N_k, u_kn.shape[1])
            u_kn = _kln_to_kn(u_kn, self.N_k)
        elif u_kn.ndim != 2:
            raise ParameterError(f"u_kn: expected shape (K, N) or (K, K, N_max), "
                                 f"got shape {u_kn.shape}")
        else:
            self.N_k = _counts(N_k, u_kn.shape[0])
        self.u_kn = u_kn
        self.K, self.N = u_kn.shape
        if int(self.N_k.sum()) != self.N:
            raise ParameterError(f"N_k: expected counts that add up to the samples in u_kn "
                                 f"({self.N}), got {int(self.N_k.sum())}")
        if x_kindices is None:
            x_kindices = np.repeat(np.arange(self.K), self.N_k)
        else:
            x_kindices = np.asarray(x_kindices, dtype=np.int64)
            if (x_kindices.shape != (self.N,)
                    or np.any(np.bincount(x_kindices, minlength=self.K) != self.N_k)):
                raise ParameterError("x_kindices: expected the state of each sample, N_k[k] "
                                     "of them equal to k")
        self.x_kindices = x_kindices
        self.verbose = verbose
        self.samestates = []
        self.states_with_samples = np.flatnonzero(self.N_k > 0).astype(np.int64)
        self.K_nonzero = self.states_with_samples.size
        self._tolerance = float(solver_tolerance)
        self._max_iterations = int(maximum_iterations)

        if initial_f_k is not None:
            initial_f_k = np.array(initial_f_k, dtype=np.float64)
            if initial_f_k.shape != (self.K,):
                raise ParameterError(f"initial_f_k: expected shape ({self.K},), "
                                     f"got {initial_f_k.shape}")
            if not np.all(np.isfinite(initial_f_k)):
                raise ParameterError("initial_f_k: expected finite values")
            initial_log_z = -(initial_f_k - initial_f_k[0])
        else:
            if initialize not in _INITIALIZERS:
                raise ParameterError(f"initialize: expected one of {_INITIALIZERS}, "
                                     f"got {initialize!r}")
            initial_log_z = self._initial_log_z(initialize)

        solution = self._solve(self.u_kn, initial_log_z)
        self._solution = solution
        self.f_k = -solution.log_z
        self.flags = list(solution.flags)
        self.converged = solution.converged
        self.disconnected = solution.disconnected
        if not solution.converged:
            warnings.warn("MBAR: logz.mbar did not converge (flag 'not_converged')",
                          RuntimeWarning, stacklevel=2)
        if solution.disconnected.size:
            warnings.warn(f"MBAR: states {solution.disconnected.tolist()} have no overlap path "
                          "to state 0: their f_k are NaN (flag 'disconnected')",
                          RuntimeWarning, stacklevel=2)
        self._sample_component = solution.component[self.x_kindices]
        self._log_denominator, self.Log_W_nk = self._weights(solution)

        self.nbootstraps = None
        if nbootstraps is not None:
            if int(nbootstraps) != nbootstraps or nbootstraps < 1:
                raise ParameterError(f"nbootstraps: expected a whole number >= 1 or None, "
                                     f"got {nbootstraps!r}")
            self.nbootstraps = int(nbootstraps)
            self._bootstrap(rseed)

    # -- solving ----------------------------------------------------------------------------

    def _mbar(self, u_kn, N_k, initial_log_z=None):
        return _logz_mbar(u_kn, N_k, tolerance=self._tolerance,
                          max_iterations=self._max_iterations, initial_log_z=initial_log_z)

    def _initial_log_z(self, initialize):
        """A warm start for logz.mbar, or None for its own."""
        if initialize == "zeros":
            return None
        log_z = np.zeros(self.K)
        sampled = self.states_with_samples
        if initialize == "mean-reduced-potential":
            for k in sampled:
                log_z[k] = -np.mean(self.u_kn[k, self.x_kindices == k])
        else:  # BAR between consecutive sampled states
            for k, l in zip(sampled[:-1], sampled[1:]):
                w_F = self.u_kn[l, self.x_kindices == k] - self.u_kn[k, self.x_kindices == k]
                w_R = self.u_kn[k, self.x_kindices == l] - self.u_kn[l, self.x_kindices == l]
                try:
                    log_z[l] = log_z[k] - BAR(w_F, w_R, compute_uncertainty=False)
                except ValueError:  # NaN works (+inf - +inf): logz's own start instead
                    return None
        log_z -= log_z[0]
        return log_z if np.all(np.isfinite(log_z)) else None

    def _solve(self, u_kn, initial_log_z=None):
        """logz.mbar on u_kn; states it finds cut off from state 0 are solved again among
        themselves (group by group), so that their weights and relative free energies exist."""
        N_k = self.N_k
        result = self._mbar(u_kn, N_k, initial_log_z)
        log_z = np.array(result.log_z, dtype=np.float64)
        gauge = log_z.copy()
        covariance = np.array(result.covariance, dtype=np.float64)
        component = np.zeros(self.K, dtype=np.int64)
        flags = list(result.flags)
        converged = bool(result.converged)
        disconnected = np.array(sorted(result.disconnected), dtype=np.int64)
        if disconnected.size == 0:
            return _Solution(log_z, gauge, component, covariance,
                             np.array(result.overlap, dtype=np.float64), flags, converged,
                             disconnected)
        component[disconnected] = -1
        remaining = disconnected
        group = 0
        while remaining.size:
            sampled = remaining[N_k[remaining] > 0]
            if sampled.size == 0:
                break  # no sample reaches these states
            group += 1
            order = np.concatenate([sampled, remaining[N_k[remaining] == 0]])
            columns = np.concatenate([np.flatnonzero(self.x_kindices == k) for k in sampled])
            sub = self._mbar(u_kn[np.ix_(order, columns)], N_k[order])
            cut = np.zeros(order.size, dtype=bool)
            cut[np.asarray(sub.disconnected, dtype=np.int64)] = True
            members = np.flatnonzero(~cut)
            states = order[members]
            component[states] = group
            gauge[states] = np.asarray(sub.log_z)[members]
            covariance[np.ix_(states, states)] = np.asarray(sub.covariance)[
                np.ix_(members, members)]
            converged = converged and bool(sub.converged)
            flags += [flag for flag in sub.flags if flag not in flags]
            remaining = np.sort(order[cut])
        gauge[component < 0] = np.nan
        return _Solution(log_z, gauge, component, covariance, None, flags, converged,
                         disconnected)

    def _weights(self, solution):
        """(log mixture denominator of each sample, Log_W_nk) from a solution, group by group:
        a sample has weight only in the states of its own group."""
        u_kn, N_k = self.u_kn, self.N_k
        supported = np.isfinite(solution.gauge)
        if np.all(solution.component == 0) and supported.all():
            log_denominator = analysis.mixture_log_denominator(u_kn, N_k, solution.gauge)
            return log_denominator, analysis.log_weights(u_kn, N_k, solution.gauge,
                                                         log_denominator=log_denominator)
        log_denominator = np.empty(self.N)
        log_w_nk = np.full((self.N, self.K), -np.inf)
        for group in range(solution.component.max() + 1):
            states = np.flatnonzero((solution.component == group) & supported)
            samples = np.flatnonzero(self._sample_component == group)
            u_group = u_kn[np.ix_(states, samples)]
            denominator = analysis.mixture_log_denominator(u_group, N_k[states],
                                                           solution.gauge[states])
            log_denominator[samples] = denominator
            log_w_nk[np.ix_(samples, states)] = analysis.log_weights(
                u_group, N_k[states], solution.gauge[states], log_denominator=denominator)
        log_w_nk[:, ~supported] = np.nan
        return log_denominator, log_w_nk

    def _single_component(self):
        return self.disconnected.size == 0

    def _bootstrap(self, rseed):
        """Re-solve on resamples drawn with replacement within each state's samples, with
        pymbar's random stream (the same resamples as pymbar for the same rseed)."""
        random = np.random.RandomState(rseed)
        self.rstate = random.get_state()
        own = [np.flatnonzero(self.x_kindices == k) for k in range(self.K)]
        warm = np.where(np.isfinite(self._solution.gauge), self._solution.gauge, 0.0)
        self.f_k_boots = np.zeros((self.nbootstraps, self.K))
        self._f_gauge_boots = np.zeros((self.nbootstraps, self.K))
        index = np.arange(self.N)
        resampled = np.empty_like(self.u_kn)  # one buffer for every resample: no fresh pages
        for b in range(self.nbootstraps):
            for k in range(self.K):
                # Each state's resample in ascending order (MBAR does not depend on the order):
                # the gather then reads u_kn's rows forward, faster than in random order.
                index[own[k]] = np.sort(own[k][random.randint(int(self.N_k[k]), size=int(self.N_k[k]))])
            np.take(self.u_kn, index, axis=1, out=resampled)
            solution = self._solve(resampled, warm)
            self.f_k_boots[b] = -solution.log_z
            self._f_gauge_boots[b] = -solution.gauge

    # -- states for new potentials ----------------------------------------------------------

    def _reweight(self, u_ln):
        """New states from the samples: their normalized log weights (N, L), log Z in the
        gauge of their group and the group (-1 where undefined: no sample reaches the state,
        or its mass is spread over several groups)."""
        if self._single_component():
            log_w_nl, log_z_l = analysis.reweight(u_ln, self._log_denominator)
            reached = np.isfinite(log_z_l)
            return (log_w_nl, np.where(reached, log_z_l, np.nan),
                    np.where(reached, 0, -1).astype(np.int64))
        log_q = -u_ln - self._log_denominator[None, :]
        groups = self._solution.component.max() + 1
        mass = np.stack([analysis.logsumexp(log_q[:, self._sample_component == g], axis=1)
                         for g in range(groups)])  # (groups, L)
        main = np.argmax(mass, axis=0)
        main_mass = mass[main, np.arange(u_ln.shape[0])]
        others = analysis.logsumexp(np.where(np.arange(groups)[:, None] == main[None, :],
                                             -np.inf, mass), axis=0)
        with np.errstate(invalid="ignore"):
            undefined = (~(others - main_mass < np.log(_COMPONENT_LEAK))
                         | ~np.isfinite(main_mass))
            inside = self._sample_component[:, None] == main[None, :]
            log_w_nl = np.where(inside, log_q.T - main_mass[None, :], -np.inf)
        log_w_nl[:, undefined] = np.nan
        return (np.ascontiguousarray(log_w_nl), np.where(undefined, np.nan, main_mass),
                np.where(undefined, -1, main).astype(np.int64))

    def _states_for(self, u_ln):
        """Each row of u_ln as a state: the solved state k where row k equals u_kn[k] (no
        reweighting needed), else a new state. Returns (state indices for mbar_analysis,
        log weights of the new states (N, L') or None, log Z of every row in its group's
        gauge, its group)."""
        L = u_ln.shape[0]
        same = np.array([l < self.K and np.array_equal(u_ln[l], self.u_kn[l])
                         for l in range(L)], dtype=bool)
        states = np.arange(L, dtype=np.int64)
        gauge = np.full(L, np.nan)
        component = np.full(L, -1, dtype=np.int64)
        gauge[same] = self._solution.gauge[states[same]]
        component[same] = self._solution.component[states[same]]
        new = np.flatnonzero(~same)
        log_w_new = None
        if new.size:
            log_w_new, gauge[new], component[new] = self._reweight(u_ln[new])
            states[new] = self.K + np.arange(new.size)
        return states, log_w_new, gauge, component

    def _potentials(self, u_ln, name):
        """Reduced energies of the samples in some states, shape (L, N)."""
        u_ln = _energies(u_ln, name)
        if u_ln.ndim == 3:
            u_ln = _kln_to_kn(u_ln, self.N_k)
        u_ln = np.atleast_2d(u_ln)
        if u_ln.ndim != 2 or u_ln.shape[1] != self.N:
            raise ParameterError(f"{name}: expected shape (L, {self.N}) (every sample in each "
                                 f"state), got {u_ln.shape}")
        return u_ln

    # -- pymbar's API -----------------------------------------------------------------------

    @property
    def W_nk(self):
        """The normalized weights, shape (N, K): column k sums to one."""
        return np.exp(self.Log_W_nk)

    def getWeights(self):
        """The normalized weights W_nk, shape (N, K)."""
        return self.W_nk

    def computeEffectiveSampleNumber(self, verbose=False):
        """Kish's effective sample number of each state, 1 / sum_n W_nk^2, shape (K,)."""
        return analysis.effective_sample_number(self.Log_W_nk)

    def computeOverlap(self, return_dict=True):
        """The overlap matrix O (np.matrix, O[i, j]: the probability that a sample from state i
        is seen in state j), its eigenvalues (descending) and the scalar 1 - second largest
        eigenvalue. Returns a dict ('scalar', 'eigenvalues', 'matrix') or that tuple."""
        overlap = self._solution.overlap
        if overlap is None:
            overlap = analysis.overlap_matrix(np.nan_to_num(self.W_nk), self.N_k)
        eigenvalues, scalar = analysis.overlap_eigenvalues(overlap, self.N_k)
        matrix = _matrix(overlap)
        if return_dict:
            return {"scalar": scalar, "eigenvalues": eigenvalues, "matrix": matrix}
        return scalar, eigenvalues, matrix

    def _theta(self, method):
        """Covariance of f_k: logz's (svd-ew) or mbar_analysis's (svd, approximate)."""
        if method == "svd-ew":
            return self._solution.covariance
        theta = analysis.asymptotic_covariance(np.nan_to_num(self.W_nk), self.N_k, method=method)
        component = self._solution.component
        theta[component[:, None] != component[None, :]] = np.nan
        theta[component < 0] = np.nan
        theta[:, component < 0] = np.nan
        return theta

    def getFreeEnergyDifferences(self, compute_uncertainty=True, uncertainty_method=None,
                                 warning_cutoff=1.0e-10, return_theta=False, return_dict=False):
        """Delta_f[i, j] = f_j - f_i (K x K) and its standard errors dDelta_f (asymptotic, or
        from the bootstraps with uncertainty_method='bootstrap'); Theta, the covariance of f,
        with return_theta. NaN for pairs of states with no overlap path between them."""
        bootstrap = uncertainty_method == "bootstrap"
        if bootstrap and self.nbootstraps is None:
            raise ParameterError("uncertainty_method: 'bootstrap' needs MBAR(..., "
                                 "nbootstraps=n)")
        cross = _cross_group(self._solution.component)
        delta_f = _differences(-self._solution.gauge)
        delta_f[cross] = np.nan
        results = {"Delta_f": delta_f}
        if compute_uncertainty and bootstrap:
            boots = self._f_gauge_boots
            spread = np.std(boots[:, None, :] - boots[:, :, None], axis=0)
            spread[cross] = np.nan
            results["dDelta_f"] = spread
        theta = None
        if (compute_uncertainty or return_theta) and not bootstrap:
            theta = self._theta(_covariance_method(uncertainty_method))
        if compute_uncertainty and not bootstrap:
            results["dDelta_f"] = _masked(analysis.error_of_differences(theta, cutoff=warning_cutoff),
                                          cross)
        if return_theta:
            if theta is None:
                theta = self._theta("svd-ew")
            results["Theta"] = _matrix(theta)
        if return_dict:
            return results
        return tuple(results[key] for key in ("Delta_f", "dDelta_f", "Theta") if key in results)

    def computeExpectationsInner(self, A_n, u_ln, state_map, uncertainty_method=None,
                                 warning_cutoff=1.0e-10, return_theta=False):
        """Expectations of observables A_n[i] (I x N) in states u_ln[l] (L x N): state_map
        (2 x S) pairs state_map[0, s] (a row of u_ln) with state_map[1, s] (an observable); a
        1-D state_map lists states only (their free energies). Returns a dict: 'observables'
        (S,), 'f' (f of the listed states), with return_theta 'Theta' (covariance of log Z of
        the S observable-weighted states, then of their S states) and 'Amin' (the shifts:
        observables - Amin are the positive averages Theta refers to)."""
        method = _covariance_method(uncertainty_method)
        u_ln = self._potentials(u_ln, "u_ln")
        state_map = np.asarray(state_map, dtype=np.int64)
        if state_map.ndim < 2:
            state_list, observable_index = state_map.reshape(-1), None
        else:
            if state_map.shape[0] < 2:
                raise ParameterError("state_map: expected shape (2, S) or (S,)")
            state_list, observable_index = state_map[0], state_map[1]
        if state_list.size and (state_list.min() < 0 or state_list.max() >= u_ln.shape[0]):
            raise ParameterError(f"state_map: states must be rows of u_ln (0..{u_ln.shape[0]-1})")
        states, log_w_new, gauge, component = self._states_for(u_ln)
        results = {}
        if observable_index is not None and observable_index.size:
            A_n = np.atleast_2d(_observable(A_n, "A_n", self.N))
            if observable_index.min() < 0 or observable_index.max() >= A_n.shape[0]:
                raise ParameterError(f"state_map: observables must be rows of A_n "
                                     f"(0..{A_n.shape[0] - 1})")
            expect = analysis.expectations(self.Log_W_nk, self.N_k, A_n, states[state_list],
                                           observable_index=observable_index, log_w_new=log_w_new,
                                           covariance=return_theta, method=method)
            results["observables"] = expect.mean
            if return_theta:
                results["Theta"] = _matrix(expect.theta)
                results["Amin"] = expect.shift
        elif return_theta:
            results["Theta"] = _matrix(analysis.log_z_covariance(
                self.Log_W_nk, self.N_k, states[state_list], log_w_new=log_w_new, method=method))
        # f relative to state 0: only for states in its group
        results["f"] = -np.where(component == 0, gauge, np.nan)[state_list]
        return results

    def _expectations(self, A_in, u_ln, states_of, observable_index, compute, method):
        states, log_w_new, _, _ = self._states_for(u_ln)
        return analysis.expectations(self.Log_W_nk, self.N_k, A_in, states[states_of],
                                     observable_index=observable_index, log_w_new=log_w_new,
                                     covariance=compute, method=method)

    @staticmethod
    def _scaled_theta(expect):
        """pymbar's Theta of expectations: the log-Z covariance scaled by the positive means."""
        scale = np.concatenate([expect.shifted_mean, expect.shifted_mean])
        return _matrix(scale[:, None] * expect.theta * scale[None, :])

    def computeExpectations(self, A_n, u_kn=None, output="averages", state_dependent=False,
                            compute_uncertainty=True, uncertainty_method=None,
                            warning_cutoff=1.0e-10, return_theta=False, return_dict=False):
        """The expectation of A(x) (A_n, shape (N,)) in every state of u_kn (default: the K
        states), or of A_k(x) in state k (state_dependent=True, A_n shape (K, N)).
        output='averages': 'mu' (K,), 'sigma' (K,); 'differences': mu[i, j] = A_j - A_i and
        its standard errors (K x K). 'Theta' with return_theta."""
        if output not in ("averages", "differences"):
            raise ParameterError(f"output: expected 'averages' or 'differences', got {output!r}")
        method = _covariance_method(uncertainty_method)
        A_n = _numbers(A_n, "A_n")
        if u_kn is not None:
            u_kn = _energies(u_kn, "u_kn")
        if not state_dependent and A_n.ndim == 2:
            A_n = _kn_to_n(A_n, self.N_k)  # pymbar's old (K, N_max) layout
            if u_kn is not None and u_kn.ndim == 2:
                u_kn = _kn_to_n(u_kn, self.N_k)
        elif state_dependent and A_n.ndim == 3:
            A_n = _kln_to_kn(A_n, self.N_k)
        u_ln = self.u_kn if u_kn is None else self._potentials(u_kn, "u_kn")
        L = u_ln.shape[0]
        A_n = _observable(A_n, "A_n", self.N)
        if state_dependent:
            A_n = np.atleast_2d(A_n)
            if A_n.shape[0] != L:
                raise ParameterError(f"A_n: expected one observable per state ({L}) with "
                                     f"state_dependent=True, got {A_n.shape[0]}")
            observable_index = np.arange(L)
        else:
            if A_n.ndim != 1:
                raise ParameterError(f"A_n: expected shape ({self.N},), got {A_n.shape}")
            A_n, observable_index = A_n[None, :], np.zeros(L, dtype=np.int64)
        want_theta = compute_uncertainty or return_theta
        expect = self._expectations(A_n, u_ln, np.arange(L), observable_index, want_theta,
                                    method)
        results = {}
        if output == "averages":
            results["mu"] = expect.mean
            if compute_uncertainty:
                results["sigma"] = analysis.standard_errors(expect.covariance, cutoff=warning_cutoff)
        else:
            results["mu"] = _differences(expect.mean)
            if compute_uncertainty:
                results["sigma"] = analysis.error_of_differences(expect.covariance,
                                                                 cutoff=warning_cutoff)
        if return_theta:
            results["Theta"] = self._scaled_theta(expect)
        if return_dict:
            return results
        return tuple(results[key] for key in ("mu", "sigma", "Theta") if key in results)

    def computeMultipleExpectations(self, A_in, u_n, compute_uncertainty=True,
                                    compute_covariance=False, uncertainty_method=None,
                                    warning_cutoff=1.0e-10, return_theta=False,
                                    return_dict=False):
        """Expectations of I observables A_in (I x N) in the one state of u_n (N,): 'mu' (I,),
        'sigma' (I,), with compute_covariance 'covariances' (I x I, of the estimates), with
        return_theta 'Theta'."""
        method = _covariance_method(uncertainty_method)
        A_in = _numbers(A_in, "A_in")
        if A_in.ndim == 3:
            A_in = np.stack([_kn_to_n(a, self.N_k) for a in A_in])
        A_in = np.atleast_2d(_observable(A_in, "A_in", self.N))
        u_n = _energies(u_n, "u_n")
        if u_n.ndim == 2:
            u_n = _kn_to_n(u_n, self.N_k)
        if u_n.shape != (self.N,):
            raise ParameterError(f"u_n: expected shape ({self.N},), got {u_n.shape}")
        I = A_in.shape[0]
        want_theta = compute_uncertainty or compute_covariance or return_theta
        expect = self._expectations(A_in, u_n[None, :], np.zeros(I, dtype=np.int64),
                                    np.arange(I), want_theta, method)
        results = {"mu": expect.mean}
        if compute_uncertainty:
            results["sigma"] = analysis.standard_errors(expect.covariance, cutoff=warning_cutoff)
        if compute_covariance:
            results["covariances"] = _matrix(expect.covariance)
        if return_theta:
            results["Theta"] = self._scaled_theta(expect)
        if return_dict:
            return results
        return tuple(results[key] for key in ("mu", "sigma", "covariances", "Theta")
                     if key in results)

    def computePerturbedFreeEnergies(self, u_ln, compute_uncertainty=True,
                                     uncertainty_method=None, warning_cutoff=1.0e-10,
                                     return_dict=False):
        """Free energy differences among new states u_ln (L x N, every sample in each):
        Delta_f[i, j] = f_j - f_i and dDelta_f (L x L)."""
        method = _covariance_method(uncertainty_method)
        u_ln = _energies(u_ln, "u_ln")
        if u_ln.ndim == 3:
            u_ln = _kln_to_kn(u_ln, self.N_k)
        u_ln = np.atleast_2d(u_ln)
        if u_ln.ndim != 2 or u_ln.shape[1] < self.N:
            raise DataError(f"u_ln: expected shape (L, {self.N}): the new states' reduced "
                            f"energies of all the samples, got {u_ln.shape}")
        u_ln = u_ln[:, :self.N]
        states, log_w_new, gauge, component = self._states_for(u_ln)
        cross = _cross_group(component)
        results = {"Delta_f": _masked(_differences(-gauge), cross)}
        if compute_uncertainty:
            theta = analysis.log_z_covariance(self.Log_W_nk, self.N_k, states,
                                              log_w_new=log_w_new, method=method)
            results["dDelta_f"] = _masked(
                analysis.error_of_differences(theta, cutoff=warning_cutoff), cross)
        if return_dict:
            return results
        return tuple(results[key] for key in ("Delta_f", "dDelta_f") if key in results)

    def computeEntropyAndEnthalpy(self, u_kn=None, uncertainty_method=None, verbose=False,
                                  warning_cutoff=1.0e-10, return_dict=False):
        """Free energy, reduced energy and reduced entropy (s = u - f) differences among the
        states of u_kn (default: the K states), each K x K with standard errors: Delta_f,
        dDelta_f, Delta_u, dDelta_u, Delta_s, dDelta_s."""
        method = _covariance_method(uncertainty_method)
        u_ln = self.u_kn if u_kn is None else self._potentials(u_kn, "u_kn")
        states, log_w_new, gauge, component = self._states_for(u_ln)
        result = analysis.entropy_and_energy(self.Log_W_nk, self.N_k, u_ln, states, gauge,
                                             log_w_new=log_w_new, method=method)
        # f and s = u - f carry the gauge of their group; u does not
        cross = _cross_group(component)
        errors = analysis.error_of_differences
        results = {
            "Delta_f": _masked(_differences(-result.log_z), cross),
            "dDelta_f": _masked(errors(result.log_z_covariance, cutoff=warning_cutoff), cross),
            "Delta_u": _differences(result.energy),
            "dDelta_u": errors(result.energy_covariance, cutoff=warning_cutoff),
            "Delta_s": _masked(_differences(result.entropy), cross),
            "dDelta_s": _masked(errors(result.entropy_covariance, cutoff=warning_cutoff), cross),
        }
        if return_dict:
            return results
        return tuple(results[key] for key in ("Delta_f", "dDelta_f", "Delta_u", "dDelta_u",
                                              "Delta_s", "dDelta_s"))

    def computePMF(self, u_n, bin_n, nbins, uncertainties="from-lowest", pmf_reference=None,
                   return_dict=False):
        """The free energy f_i of each bin i in state u_n (N,), for bin_n[n] in
        range(nbins) (every bin needs a sample), and its uncertainty df_i: 'from-lowest' and
        'from-specified' (f_i relative to the lowest bin or bin pmf_reference),
        'from-normalization', or 'all-differences' (df_ij, nbins x nbins)."""
        modes = ("from-lowest", "from-specified", "from-normalization", "all-differences")
        if uncertainties not in modes:
            raise ParameterError(f"uncertainties: expected one of {modes}, got {uncertainties!r}")
        if int(nbins) != nbins or nbins < 1:
            raise ParameterError(f"nbins: expected a whole number >= 1, got {nbins!r}")
        nbins = int(nbins)
        u_n = _energies(u_n, "u_n")
        if u_n.ndim == 2:
            u_n = _kn_to_n(u_n, self.N_k)
        bin_n = np.asarray(bin_n)
        if bin_n.ndim == 2:
            bin_n = _kn_to_n(bin_n, self.N_k)
        if u_n.shape != (self.N,):
            raise ParameterError(f"u_n: expected shape ({self.N},), got {u_n.shape}")
        if bin_n.shape != (self.N,) or np.any(bin_n != np.round(bin_n)):
            raise ParameterError(f"bin_n: expected {self.N} whole-number bin indices")
        bin_n = bin_n.astype(np.int64)
        inside = (bin_n >= 0) & (bin_n < nbins)
        filled = np.bincount(bin_n[inside], minlength=nbins)
        if np.any(filled == 0):
            raise ParameterError(f"bin_n: bin {int(np.flatnonzero(filled == 0)[0])} has no "
                                 "samples; every bin in range(nbins) needs at least one")
        if uncertainties == "from-specified":
            if pmf_reference is None or not 0 <= int(pmf_reference) < nbins:
                raise ParameterError(f"pmf_reference: expected a bin in range({nbins}) with "
                                     f"uncertainties='from-specified', got {pmf_reference!r}")
        # Bin i is the state of potential u_n inside the bin and +inf outside it.
        u_bins = np.where(bin_n[None, :] == np.arange(nbins)[:, None], u_n[None, :], np.inf)
        log_w_bins, gauge, component = self._reweight(u_bins)
        theta = analysis.log_z_covariance(self.Log_W_nk, self.N_k,
                                          self.K + np.arange(nbins), log_w_new=log_w_bins)
        cross = _cross_group(component)
        df_ij = _masked(analysis.error_of_differences(theta), cross)
        f_i = -np.where(component == 0, gauge, np.nan)  # relative to state 0, as pymbar's
        results = {}
        if uncertainties in ("from-lowest", "from-specified"):
            if uncertainties == "from-lowest":
                j = int(np.argmin(np.where(component >= 0, -gauge, np.inf)))
            else:
                j = int(pmf_reference)
            f_i = np.where(cross[j], np.nan, gauge[j] - gauge)
            results["f_i"], results["df_i"] = f_i, df_ij[j]
        elif uncertainties == "from-normalization":
            # f_i = -log p_i: var f_i = v' Theta v with v = p - e_i (the normalization's share)
            p_i = np.exp(-f_i - analysis.logsumexp(-f_i))
            v = p_i[None, :] - np.eye(nbins)
            with np.errstate(invalid="ignore"):
                results["f_i"] = f_i
                results["df_i"] = np.sqrt(np.einsum("ki,ij,kj->k", v, theta, v))
        else:
            results["f_i"], results["df_ij"] = f_i, df_ij
        if return_dict:
            return results
        return tuple(results.values())

    def computeCovarianceOfSums(self, d_ij, K, a):
        """Standard errors (K x K) of sum_m a_m (x_{i + mK} - x_{j + mK}) from the standard
        errors d_ij of all pairwise differences of the len(a) * K quantities x."""
        a = np.asarray(a, dtype=np.float64)
        n = a.size
        var = np.square(np.asarray(d_ij, dtype=np.float64)).reshape(n, K, n, K)
        same = np.einsum("m,mimj->ij", a * a, var)
        # 2 cov(x_i - x_j, y_i - y_j) = -var(x_i - y_i) + var(x_i - y_j) + var(x_j - y_i)
        # - var(x_j - y_j) (pymbar's identity)
        own = np.einsum("k,l,kili->i", a, a, var)
        cross = (np.einsum("k,l,kilj->ij", a, a, var) + np.einsum("k,l,kjli->ij", a, a, var)
                 - own[:, None] - own[None, :])
        with np.errstate(invalid="ignore"):
            return np.sqrt(same + cross)


# -- two states: BAR and EXP ----------------------------------------------------------------

def _works(values, name):
    """Works in units of kT, 1-D: +inf allowed (a sample the other state cannot hold)."""
    values = _energies(values, name)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"{name}: expected a non-empty 1-D array of works, "
                         f"got shape {values.shape}")
    return values


def _bar_residual(w_F, w_R, delta_f):
    """BAR's equation in log space, increasing in delta_f, zero at the BAR estimate:
    log sum_F fermi(M + w_F - dF) - log sum_R fermi(-(M - w_R - dF))."""
    M = np.log(w_F.size / w_R.size)
    log_numerator = analysis.logsumexp(-np.logaddexp(0.0, M + w_F - delta_f))
    log_denominator = analysis.logsumexp(-np.logaddexp(0.0, w_R - M + delta_f))
    return log_numerator - log_denominator


def BARzero(w_F, w_R, DeltaF):
    """BAR's equation at DeltaF (zero at the BAR estimate), pymbar's BARzero."""
    return _bar_residual(_works(w_F, "w_F"), _works(w_R, "w_R"), float(DeltaF))


def _exp_delta_f(w):
    return -(analysis.logsumexp(-w) - np.log(w.size))


def _bar_root(w_F, w_R):
    """BAR's estimate by bracketing and Illinois false position (works of +inf included)."""
    if np.all(np.isposinf(w_F)):
        return np.float64(np.inf)
    if np.all(np.isposinf(w_R)):
        return np.float64(-np.inf)
    lower, upper = -_exp_delta_f(w_R), _exp_delta_f(w_F)
    lower, upper = min(lower, upper), max(lower, upper)
    f_lower, f_upper = _bar_residual(w_F, w_R, lower), _bar_residual(w_F, w_R, upper)
    width = max(upper - lower, 1.0)
    while f_lower > 0:
        lower, width = lower - width, 2 * width
        f_lower = _bar_residual(w_F, w_R, lower)
    while f_upper < 0:
        upper, width = upper + width, 2 * width
        f_upper = _bar_residual(w_F, w_R, upper)
    side = 0
    x = lower
    for _ in range(200):
        if f_upper == f_lower:
            break
        x = upper - f_upper * (upper - lower) / (f_upper - f_lower)
        if not lower <= x <= upper:
            x = 0.5 * (lower + upper)
        f_x = _bar_residual(w_F, w_R, x)
        if f_x == 0 or upper - lower <= 4e-16 * max(1.0, abs(x)):
            break
        if f_x < 0:
            lower, f_lower = x, f_x
            if side == -1:
                f_upper *= 0.5  # Illinois: keep the stale end from stalling the steps
            side = -1
        else:
            upper, f_upper = x, f_x
            if side == 1:
                f_lower *= 0.5
            side = 1
    return np.float64(x)


def _bar_uncertainty(w_F, w_R, delta_f, method):
    """BAR's asymptotic standard error at delta_f: Bennett's (method 'BAR') or MBAR's for two
    states ('MBAR'), from the Fermi functions of the works, in log space."""
    T_F, T_R = float(w_F.size), float(w_R.size)
    C = np.log(T_F / T_R) - delta_f
    x_F, x_R = w_F + C, w_R - C
    log_f_F, log_f_R = -np.logaddexp(0.0, x_F), -np.logaddexp(0.0, x_R)
    n_ratio = (T_F + T_R) / (T_F * T_R)
    if method == "BAR":
        # <f^2> / <f>^2 / T for each side
        ratio_F = np.exp(analysis.logsumexp(2 * log_f_F) - 2 * analysis.logsumexp(log_f_F))
        ratio_R = np.exp(analysis.logsumexp(2 * log_f_R) - 2 * analysis.logsumexp(log_f_R))
        variance = ratio_F + ratio_R - n_ratio
    else:
        # f (1 - f) = fermi(x) fermi(-x): no cancellation
        log_ff_F = log_f_F - np.logaddexp(0.0, -x_F)
        log_ff_R = log_f_R - np.logaddexp(0.0, -x_R)
        total = np.exp(analysis.logsumexp(log_ff_F)) + np.exp(analysis.logsumexp(log_ff_R))
        with np.errstate(divide="ignore"):
            variance = 1.0 / total - n_ratio
    with np.errstate(invalid="ignore"):
        return np.float64(np.sqrt(variance))


def BAR(w_F, w_R, DeltaF=0.0, compute_uncertainty=True, uncertainty_method="BAR",
        maximum_iterations=500, relative_tolerance=1.0e-12, verbose=False,
        method="false-position", iterated_solution=True, return_dict=False):
    """Bennett's acceptance ratio: DeltaF = f_1 - f_0 from forward works w_F (samples of state
    0 into state 1) and reverse works w_R, in kT; its standard error with
    compute_uncertainty ('BAR': Bennett's, 'MBAR': MBAR's for two states). Returns
    (DeltaF, dDeltaF), DeltaF alone without uncertainty, or a dict with return_dict.

    The estimate is logz.bar's; works of +inf, and iterated_solution=False (one
    self-consistent step from DeltaF), are solved here. method, maximum_iterations and
    relative_tolerance are accepted for pymbar's sake: every method finds the same root.
    """
    w_F, w_R = _works(w_F, "w_F"), _works(w_R, "w_R")
    if uncertainty_method not in ("BAR", "MBAR"):
        raise ParameterError(f"uncertainty_method: expected 'BAR' or 'MBAR', "
                             f"got {uncertainty_method!r}")
    if method not in _BAR_METHODS:
        raise ParameterError(f"method: expected one of {_BAR_METHODS}, got {method!r}")
    if not iterated_solution:
        # One self-consistent step; pymbar evaluates the error at the starting value
        start = float(DeltaF)
        delta_f = np.float64(start - _bar_residual(w_F, w_R, start))
        error_at = start
    else:
        delta_f = np.float64(np.nan)
        if np.all(np.isfinite(w_F)) and np.all(np.isfinite(w_R)):
            delta_f = np.float64(-_logz_bar(w_F, w_R).log_z)
        if not np.isfinite(delta_f):
            delta_f = _bar_root(w_F, w_R)
        error_at = delta_f
    results = {"Delta_f": delta_f}
    if compute_uncertainty:
        results["dDelta_f"] = _bar_uncertainty(w_F, w_R, error_at, uncertainty_method)
    if return_dict:
        return results
    if compute_uncertainty:
        return results["Delta_f"], results["dDelta_f"]
    return results["Delta_f"]


def BARoverlap(w_F, w_R):
    """MBAR's overlap scalar of the two states of BAR's works (0: none, 1: complete)."""
    w_F, w_R = _works(w_F, "w_F"), _works(w_R, "w_R")
    N_k = np.array([w_F.size, w_R.size])
    u_kn = np.zeros((2, N_k.sum()))
    u_kn[1, :w_F.size] = w_F
    u_kn[0, w_F.size:] = w_R
    return MBAR(u_kn, N_k).computeOverlap()["scalar"]


def _statistical_inefficiency(x, minimum_lag=3):
    """g = 1 + 2 sum_t (1 - t/T) C(t) of a time series, summed until the normalized
    autocorrelation C(t) first drops to zero after minimum_lag (Chodera et al. 2007)."""
    x = np.asarray(x, dtype=np.float64)
    T = x.size
    dx = x - x.mean()
    variance = np.mean(dx * dx)
    if variance == 0:
        return 1.0
    g = 1.0
    for t in range(1, T - 1):
        correlation = np.dot(dx[:T - t], dx[t:]) / ((T - t) * variance)
        if correlation <= 0 and t > minimum_lag:
            break
        g += 2.0 * correlation * (1.0 - t / T)
    return max(g, 1.0)


def EXP(w_F, compute_uncertainty=True, is_timeseries=False, return_dict=False):
    """Exponential averaging (Zwanzig): DeltaF = -log <exp(-w_F)>, with its delta-method
    standard error (from the statistical inefficiency of exp(-w_F) with is_timeseries)."""
    w_F = _works(w_F, "w_F")
    T = float(w_F.size)
    delta_f = np.float64(_exp_delta_f(w_F))
    results = {"Delta_f": delta_f}
    if compute_uncertainty:
        x = np.exp(-w_F - np.max(-w_F))  # scaled so that the largest term is 1
        g = _statistical_inefficiency(x) if is_timeseries else 1.0
        results["dDelta_f"] = np.float64(np.std(x) / np.sqrt(T / g) / np.mean(x))
    if return_dict:
        return results
    return tuple(results.values())


def EXPGauss(w_F, compute_uncertainty=True, is_timeseries=False, return_dict=False):
    """The Gaussian approximation of EXP: DeltaF = <w_F> - var(w_F) / 2, with its standard
    error."""
    w_F = _works(w_F, "w_F")
    T = float(w_F.size)
    variance = np.var(w_F)
    results = {"Delta_f": np.float64(np.mean(w_F) - 0.5 * variance)}
    if compute_uncertainty:
        T_eff = T / _statistical_inefficiency(w_F) if is_timeseries else T
        results["dDelta_f"] = np.float64(np.sqrt(variance / T_eff
                                                 + 0.5 * variance ** 2 / (T_eff - 1)))
    if return_dict:
        return results
    return tuple(results.values())


# pymbar 2's names, which pymbar 3 keeps
computeBAR = BAR
computeEXP = EXP
computeEXPGauss = EXPGauss
