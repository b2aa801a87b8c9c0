"""logz.mbar on pymbar's (u_kn, N_k): the same free energies and errors as pymbar's MBAR to
1e-8 on shared data, exact answers on harmonic oscillators, and errors naming the argument."""
import math

import numpy as np
import pytest

import logz


def harmonic_samples(seed=3, n_per_state=300):
    """Samples of K one-dimensional harmonic oscillators u_k(x) = k_k x^2 / 2, exact
    log Z_k - log Z_0 = -log(k_k / k_0) / 2."""
    rng = np.random.default_rng(seed)
    springs = np.array([1.0, 1.6, 2.5, 4.0])
    x = np.concatenate([rng.normal(0.0, 1.0 / math.sqrt(k), n_per_state) for k in springs])
    u_kn = 0.5 * springs[:, None] * x[None, :] ** 2
    N_k = np.full(len(springs), n_per_state)
    exact = -0.5 * np.log(springs / springs[0])
    return u_kn, N_k, exact


def test_mbar_matches_the_exact_answer():
    u_kn, N_k, exact = harmonic_samples()
    m = logz.mbar(u_kn, N_k)
    assert m.converged and m.flags == []
    assert m.log_z[0] == 0
    assert np.all(np.abs(m.log_z - exact) <= 5 * m.std_error + 1e-12)
    assert m.overlap.shape == (4, 4)
    assert np.allclose(m.overlap.sum(axis=1), 1.0)  # rows of pymbar's overlap matrix sum to 1


def test_mbar_equals_pymbar_to_1e8():
    pymbar = pytest.importorskip("pymbar")
    u_kn, N_k, _ = harmonic_samples(seed=8)
    reference = pymbar.MBAR(u_kn, N_k, relative_tolerance=1e-14)
    delta_f, d_delta_f = reference.getFreeEnergyDifferences()[:2]
    m = logz.mbar(u_kn, N_k, tolerance=1e-12)
    assert np.max(np.abs(m.log_z - (-delta_f[0]))) < 1e-8
    assert np.max(np.abs(m.std_error - d_delta_f[0])) < 1e-8
    assert np.max(np.abs(m.overlap - reference.computeOverlap()["matrix"])) < 1e-8
    # Every pair, pymbar's Delta_f_ij with the sign of log Z, and the overlap's spectrum.
    assert np.max(np.abs(m.delta_log_z - (-delta_f))) < 1e-8
    assert np.max(np.abs(m.delta_std_error - d_delta_f)) < 1e-8
    assert np.allclose(m.overlap_eigenvalues, reference.computeOverlap()["eigenvalues"], atol=1e-8)


def test_infinite_energies_are_zero_weights():
    """A hard wall (u = +inf where x < 0, x < 0.5) is what a huge finite energy is, whose weights
    underflow to 0: the same answer to the last bits, and near the exact one."""
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.normal(0, 1, 400), np.abs(rng.normal(0, 1, 400))])
    u_kn = np.vstack([0.5 * x ** 2, np.where(x >= 0, 0.5 * x ** 2, np.inf),
                      np.where(x >= 0.5, 0.5 * x ** 2, np.inf)])
    N_k = np.array([400, 400, 0])
    m = logz.mbar(u_kn, N_k)
    huge = logz.mbar(np.where(np.isinf(u_kn), 1e6, u_kn), N_k)
    assert m.converged and m.flags == []
    assert np.allclose(m.log_z, huge.log_z, rtol=0, atol=1e-12)
    assert np.allclose(m.std_error, huge.std_error, rtol=0, atol=1e-12)
    exact = np.log([1.0, 0.5, 0.5 * math.erfc(0.5 / math.sqrt(2))])
    assert np.all(np.abs(m.log_z - exact) <= 5 * m.std_error)
    # An unsampled state where every sample is +inf has Z = 0 there: no estimate, flagged.
    u_kn[2] = np.inf
    cut = logz.mbar(u_kn, N_k)
    assert cut.disconnected == [2] and np.isnan(cut.log_z[2]) and "disconnected" in cut.flags
    assert np.isfinite(cut.log_z[1])


@pytest.mark.parametrize("u, n, message", [
    (np.zeros(5), np.array([5]), "u_kn: expected an array of shape (K, N)"),
    (np.zeros((2, 4)), np.array([4]), "N_k: expected one count per row of u_kn (2), got 1"),
    (np.zeros((2, 4)), np.array([2, 1]), "logz.mbar: N_k: expected counts that add up to the columns of u_kn (4), got 3"),
    (np.zeros((2, 4)), np.array([5, -1]), "logz.mbar: N_k: expected whole numbers >= 0 (samples per state), got -1.0 at [1]"),
    (np.zeros((3, 30)), [10, 10, 11], "logz.mbar: N_k: expected counts that add up to the columns of u_kn (30), got 31"),
    (np.zeros((3, 30)), [10.5, 10, 9.5], "logz.mbar: N_k: expected whole numbers >= 0 (samples per state), got 10.5 at [0]"),
    (np.zeros((2, 4)), [np.nan, 4], "logz.mbar: N_k: expected whole numbers >= 0"),
    (np.zeros((2, 4)), [0, 0], "logz.mbar: N_k: expected counts that add up"),
    (np.zeros((2, 0)), [0, 0], "logz.mbar: N_k: expected at least one sampled state"),
    (np.array([[0.0, np.nan], [0.0, 1.0]]), np.array([1, 1]),
     "logz.mbar: u_kn: expected reduced energies that are finite or +inf, got nan at [0, 1]"),
    (np.array([[0.0, 1.0], [-np.inf, 1.0]]), np.array([1, 1]), "got -inf at [1, 0]"),
    (np.array([[0.0, np.inf], [0.0, np.inf]]), np.array([1, 1]),
     "logz.mbar: u_kn: expected every sample finite in some sampled state, got +inf in every "
     "state with N_k > 0 at column 1"),
    (np.array([[0.0, 1.0, 2.0], [0.0, np.inf, np.inf]]), np.array([1, 2]),
     "logz.mbar: u_kn: expected finite energies in state 1 for its 2 own samples, got 1"),
])
def test_bad_input_names_the_argument(u, n, message):
    with pytest.raises(logz.InvalidArgument) as info:
        logz.mbar(u, n)
    assert message in str(info.value)
    assert "num_samples" not in str(info.value) and "logz::" not in str(info.value)  # the Python names


def test_a_wrong_length_initial_log_z_names_it():
    with pytest.raises(logz.InvalidArgument, match=r"logz.mbar: initial_log_z: expected one value per row of u_kn \(3\), got 2"):
        logz.mbar(np.zeros((3, 30)), [10, 10, 10], initial_log_z=[0.0, 1.0])


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_non_finite_initial_log_z_names_it_and_the_index(bad):
    # Once taken: NaN log Z "converged", no flag.
    u_kn, N_k, _ = harmonic_samples()
    with pytest.raises(logz.InvalidArgument, match=rf"logz.mbar: initial_log_z: expected finite values, got {bad} at \[1\]"):
        logz.mbar(u_kn, N_k, initial_log_z=[0.0, bad, 0.0, 0.0])


def test_states_cut_off_from_state_0_are_nan_and_flagged():
    # States 1 and 2 (means 1000, 1000.5) overlap each other but no sample links them to
    # state 0 (mean 0): once 0 +- 0 for state 1 and 0 +- 0.025 for state 2, converged, no flag.
    rng = np.random.default_rng(5)
    mu = np.array([0.0, 1000.0, 1000.5])
    x = np.concatenate([rng.normal(m, 1.0, 300) for m in mu])
    u_kn = 0.5 * (x[None, :] - mu[:, None]) ** 2
    m = logz.mbar(u_kn, np.full(3, 300))
    assert m.disconnected == [1, 2]
    assert "disconnected" in m.flags
    assert m.log_z[0] == 0 and np.all(np.isnan(m.log_z[1:])) and np.all(np.isnan(m.std_error[1:]))
    assert "disconnected=[1, 2]" in repr(m)
    # Two states, none of whose samples has weight under the other: the overlap is the identity.
    two = logz.mbar(u_kn[:2, :600], np.full(2, 300))
    assert np.allclose(two.overlap, np.eye(2))
    assert two.disconnected == [1] and np.isnan(two.log_z[1]) and np.isnan(two.std_error[1])
    # Connected states: no flag.
    u_ok, N_ok, _ = harmonic_samples()
    assert logz.mbar(u_ok, N_ok).disconnected == []


def test_whole_counts_of_any_dtype_are_accepted():
    u_kn, N_k, _ = harmonic_samples()
    a = logz.mbar(u_kn, N_k)
    assert np.array_equal(a.log_z, logz.mbar(u_kn, np.asarray(N_k, dtype=float)).log_z)
    assert np.array_equal(a.log_z, logz.mbar(u_kn, [int(n) for n in N_k]).log_z)


def test_mbar_reads_a_memory_mapped_u_kn_as_it_reads_an_array(tmp_path):
    # np.load(..., mmap_mode="r") gives a read-only C-order view of the file: read in place,
    # block by block, so u_kn larger than memory works; the same numbers to the bit.
    u_kn, N_k, _ = harmonic_samples(seed=5)
    np.save(tmp_path / "u_kn.npy", u_kn)
    mapped = np.load(tmp_path / "u_kn.npy", mmap_mode="r")
    assert not mapped.flags.writeable
    a, b = logz.mbar(u_kn, N_k), logz.mbar(mapped, N_k)
    assert np.array_equal(a.log_z, b.log_z) and np.array_equal(a.std_error, b.std_error)
    # A Fortran-order array (u_kn of an (N, K) array's transpose) is converted once: same answer.
    c = logz.mbar(np.asfortranarray(u_kn), N_k)
    assert np.array_equal(a.log_z, c.log_z)
