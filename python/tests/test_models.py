"""logz.models: native registry models from numbers and numpy arrays. Their runs equal the CLI's
on the same parameters written to files (bitwise), their exact log Z equals independent
computations, and their estimates agree with it within 5 standard errors."""
import json
import os
import signal
import threading
import time

import numpy as np
import pytest

import logz
from test_run import to_toml


def rbm_log_z_by_enumeration(W, a, b):
    """log sum_v exp(a'v) prod_j (1 + exp(b_j + v'W_j)), over every visible state."""
    nv = W.shape[0]
    V = ((np.arange(2 ** nv)[:, None] >> np.arange(nv)) & 1).astype(float)
    terms = V @ a + np.logaddexp(0.0, V @ W + b).sum(axis=1)
    top = terms.max()
    return top + np.log(np.exp(terms - top).sum())


def small_rbm(seed=0, nv=8, nh=5):
    rng = np.random.default_rng(seed)
    return 0.5 * rng.standard_normal((nv, nh)), 0.2 * rng.standard_normal(nv), 0.2 * rng.standard_normal(nh)


def test_ising_exact_log_z_is_kaufmans(cli, tmp_path):
    cli("exact", "ising", "--rows", 6, "--cols", 8, "--beta", 0.35, "--coupling", 0.9, "-o", tmp_path / "k.json")
    expected = json.loads((tmp_path / "k.json").read_text())["reference"]["log_z"]
    assert logz.models.Ising(6, 8, coupling=0.9, beta=0.35).exact_log_z() == expected


def test_a_model_anneals_bitwise_as_the_command_line_runs_its_config(cli, tmp_path):
    ising = logz.models.Ising(6, 6, beta=0.3)
    r = logz.anneal(ising, num_steps=60, num_paths=24, directions=("forward", "reverse"), seed=4,
                    steps_per_temperature=36, progress=False)
    config = ising.config() | {"kernel": {"steps_per_temperature": 36},
                               "schedule": {"type": "linear", "num_steps": 60},
                               "run": {"num_paths": 24, "directions": ["forward", "reverse"], "seed": 4}}
    (tmp_path / "ising.toml").write_text(to_toml(config))
    cli("run", tmp_path / "ising.toml", "--output", tmp_path / "out.json")
    expected = json.loads((tmp_path / "out.json").read_text())
    assert {k: e.log_z for k, e in r.estimates.items()} == {k: v["log_z"] for k, v in expected["estimates"].items()}
    assert r.reference_log_z == ising.exact_log_z()


def test_rbm_from_arrays_equals_the_rbm_from_an_npz_file(cli, tmp_path):
    W, a, b = small_rbm()
    rows = (np.random.default_rng(3).random((30, 8)) < 0.4).astype(float)
    rbm = logz.models.RBM(W, a, b, train=rows, test=rows[:10])
    r = logz.anneal(rbm, num_steps=200, num_paths=40, directions=("forward", "reverse"), reverse_start="data",
                    seed=5, progress=False)
    np.savez(tmp_path / "rbm.npz", W=W, a=a, b=b)
    np.save(tmp_path / "train.npy", rows)
    np.save(tmp_path / "test.npy", rows[:10])
    config = {"model": {"type": "rbm", "weights": "rbm.npz"}, "data": {"train": "train.npy", "test": "test.npy"},
              "schedule": {"num_steps": 200},
              "run": {"num_paths": 40, "directions": ["forward", "reverse"], "reverse_start": "data", "seed": 5}}
    (tmp_path / "rbm.toml").write_text(to_toml(config))
    cli("run", tmp_path / "rbm.toml", "--output", tmp_path / "out.json")
    expected = json.loads((tmp_path / "out.json").read_text())
    assert {k: e.log_z for k, e in r.estimates.items()} == {k: v["log_z"] for k, v in expected["estimates"].items()}
    assert r.test_log_likelihood["mean"] == expected["model"]["test_log_likelihood"]
    assert r.test_log_likelihood["num_examples"] == 10


def test_rbm_exact_log_z_is_the_enumeration_and_ais_agrees():
    W, a, b = small_rbm(seed=1)
    rbm = logz.models.RBM(W, a, b)
    exact = rbm_log_z_by_enumeration(W, a, b)
    assert rbm.exact_log_z() == pytest.approx(exact, abs=1e-9)
    e = logz.anneal(rbm, num_steps=500, num_paths=200, seed=2, progress=False).estimates["ais"]
    assert abs(e.log_z - exact) <= 5 * e.std_error + 0.02  # allowance: AIS's small downward bias
    assert logz.models.RBM(W, a, b, exact_max_units=2).exact_log_z() is None


def laplace_poe(dim=6, seed=0):
    Phi = np.linalg.qr(np.random.default_rng(seed).standard_normal((dim, dim)))[0] * 1.3
    lam = np.linspace(1.0, 2.0, dim)
    exact = np.sum(np.log(2.0 / lam)) - np.log(abs(np.linalg.det(Phi)))  # prod_j int exp(-lam_j |u|) du / |det Phi|
    return Phi, lam, exact


def test_product_of_experts_exact_log_z_and_hais_within_5_se():
    Phi, lam, exact = laplace_poe()
    poe = logz.models.ProductOfExperts(Phi, lam, expert="laplace")
    assert poe.exact_log_z() == pytest.approx(exact, abs=1e-10)
    e = logz.anneal(poe, base=logz.GaussianBase(6, sigma=1.5), num_steps=1000, num_paths=200, seed=3,
                    progress=False).estimates["ais"]
    assert abs(e.log_z - exact) <= 5 * e.std_error + 0.02
    overcomplete = logz.models.ProductOfExperts(np.vstack([Phi, Phi[:2]]), np.r_[lam, lam[:2]])
    assert overcomplete.exact_log_z() is None  # not complete: no formula


def test_poe_in_single_precision_within_5_se_and_near_the_double_run():
    Phi, lam, exact = laplace_poe(dim=6, seed=1)
    kwargs = dict(base=logz.GaussianBase(6, sigma=1.5), num_steps=1000, num_paths=200, seed=3, progress=False)
    single = logz.anneal(logz.models.ProductOfExperts(Phi, lam, precision="float"), **kwargs)
    e = single.estimates["ais"]
    assert abs(e.log_z - exact) <= 5 * e.std_error + 0.02
    double = logz.anneal(logz.models.ProductOfExperts(Phi, lam), **kwargs).estimates["ais"]
    # The same random numbers; energies differ by float rounding (about 1e-7 relative).
    assert e.log_z == pytest.approx(double.log_z, abs=1e-3)
    assert '"precision": "float"' in single.to_json()
    with pytest.raises(logz.InputError, match="precision"):
        logz.anneal(logz.models.ProductOfExperts(Phi, lam, precision="half"), **kwargs)


def test_the_native_poe_and_the_same_energy_as_a_target_give_the_same_answer():
    Phi, lam, exact = laplace_poe(dim=4, seed=2)
    target = logz.Target(4, lambda X: np.abs(X @ Phi.T) @ lam, lambda X: (np.sign(X @ Phi.T) * lam) @ Phi)
    native = logz.models.ProductOfExperts(Phi, lam)
    # A fixed schedule and step size: the pilots' choices would differ where the energies' last
    # bits flip a Metropolis decision, and the runs with them.
    kwargs = dict(base=logz.GaussianBase(4, sigma=1.5), kernel="hais", num_steps=300, num_paths=50, seed=8,
                  progress=False, schedule="linear", step_size=0.2)
    a = logz.anneal(target, **kwargs).estimates["ais"]
    b = logz.anneal(native, **kwargs).estimates["ais"]
    # The same algorithm and random numbers; energies summed in a different order.
    assert a.log_z == pytest.approx(b.log_z, abs=1e-6)


def test_gaussian_mixture_by_tempering_within_5_se():
    mix = logz.models.GaussianMixture([3.0, 7.0], [[-2.0] * 3, [2.0] * 3], [1.0, 0.5])
    assert mix.exact_log_z() == pytest.approx(np.log(10.0), abs=1e-12)
    r = logz.temper(mix, base=logz.GaussianBase(3, sigma=3.0), kernel="hmc", step_size=0.25, leapfrog_steps=10,
                    num_temperatures=10, num_chains=40, num_sweeps=400, max_initial_iterations=20, seed=6,
                    progress=False)
    e = r.estimates["rts"]
    assert abs(e.log_z - np.log(10.0)) <= 5 * e.std_error + 0.02
    assert r.reference_log_z == pytest.approx(np.log(10.0))


def test_a_user_target_by_tempering_within_5_se():
    # An anisotropic Gaussian, U(x) = sum x_i^2 / (2 s_i^2): log Z = sum log(sqrt(2 pi) s_i).
    s = np.array([0.5, 1.0, 2.0])
    exact = np.sum(np.log(np.sqrt(2 * np.pi) * s))
    t = logz.Target(3, lambda X: (X ** 2 / (2 * s ** 2)).sum(axis=1), lambda X: X / s ** 2, exact_log_z=exact)
    r = logz.temper(t, base=logz.GaussianBase(3, sigma=2.0), step_size=0.3, leapfrog_steps=5, num_temperatures=8,
                    num_chains=32, num_sweeps=300, max_initial_iterations=20, seed=2, progress=False,
                    methods=["rts", "mbar"])
    for name in ("rts", "mbar"):
        e = r.estimates[name]
        assert abs(e.log_z - exact) <= 5 * e.std_error + 0.02, name
    assert r.reference_log_z == exact


@pytest.mark.parametrize("model, exact", [
    (logz.models.Model("pairwise_mrf"), 12.2865),
    (logz.models.Model("gaussian_toy"), 0.918939),
    (logz.models.Model("linear_generative"), -31.9135),
    (logz.models.Model("gaussian_toy", mu_end=3.0, sigma_end=2.5), 0.5 * np.log(2 * np.pi) + np.log(2.5)),
    (logz.models.Model("pairwise_mrf", units=8, scale=0.7, parameter_seed=3, beta=0.5), None),
    (logz.models.Model("linear_generative", data_dim=6, latent_dim=3, parameter_seed=2), None),
])
def test_exact_log_z_is_the_reference_the_run_reports(model, exact):
    """exact_log_z() and a run's reference_log_z come from the same code: equal to the bit."""
    value = model.exact_log_z()
    assert value is not None
    if exact is not None:
        assert value == pytest.approx(exact, abs=1e-4)
    r = logz.anneal(model, num_steps=5, num_paths=4, progress=False)
    assert r.reference_log_z == value


def test_pairwise_mrf_exact_log_z_is_an_enumeration_up_to_exact_max_units():
    assert logz.models.Model("pairwise_mrf", units=12, exact_max_units=11).exact_log_z() is None
    m = logz.models.Model("pairwise_mrf", units=3, scale=1.0)
    assert m.exact_log_z() is not None
    r = logz.anneal(logz.models.Model("pairwise_mrf", units=12, exact_max_units=11), num_steps=5, num_paths=4,
                    progress=False)
    assert r.reference_log_z is None


def test_tempering_a_native_model_reports_mean_energy_and_acceptance_per_level():
    ising = logz.models.Ising(4, 4, beta=0.3)
    r = logz.temper(ising, num_temperatures=5, num_chains=8, num_sweeps=50, max_initial_iterations=3, seed=1,
                    progress=False)
    assert r.fractions.shape == r.mean_energy.shape == r.acceptance.shape == (5,)
    assert np.all(np.isfinite(r.mean_energy))
    # U_t = t beta E on the Ising path: the mean of beta E, at most 0 in the mean on a ferromagnet
    # with uniform spins at t = 0 (mean 0) and lower as t grows.
    assert r.mean_energy[-1] < r.mean_energy[0] + 1e-9
    # Acceptance by level: t = 0 is the uniform distribution, where Metropolis accepts every flip;
    # flips are rarer as the coupling grows (about 1, 0.9999, 0.999, 0.98 and 0.47 on this
    # geometric ladder); and the levels' rates, weighted by the moves made at each (the visit
    # counts), give the run's rate.
    assert r.acceptance[0] == 1.0 and np.all(np.diff(r.acceptance) <= 0) and r.acceptance[-1] < 0.9, r.acceptance
    t = json.loads(r.to_json())["details"]["tempering"]
    assert t["level_acceptance"] == pytest.approx(list(r.acceptance), abs=0)
    counts = np.array(t["counts"], dtype=float)
    assert np.dot(counts, r.acceptance) / counts.sum() == pytest.approx(t["kernel_acceptance"], rel=1e-12)


def test_potts_exact_log_z_where_affordable():
    assert logz.models.Potts(3, 4, q=3, coupling=1.0, beta=0.5).exact_log_z() is not None
    assert logz.models.Potts(64, 64).exact_log_z() is None


def test_potts_around_its_transition_with_a_field():
    # The paper's ten-state model on a 3 x 4 torus: the field path's BAR within 5 SE + SE^2 (the bias
    # allowance of a log mean) of the transfer matrix, and the same config refused with another kernel.
    potts = logz.models.Potts(3, 4, path="field", field=6.0)
    r = logz.anneal(potts, kernel="heat_bath", num_steps=200, num_paths=200, directions=("forward", "reverse"),
                    seed=3, site_order="checkerboard", steps_per_temperature=2, progress=False)
    bar = r.estimates["bar"]
    assert bar.std_error < 0.1
    assert abs(bar.log_z - potts.exact_log_z()) <= 5 * bar.std_error + bar.std_error ** 2
    with pytest.raises(logz.InvalidArgument, match="heat_bath"):
        logz.anneal(potts, kernel="metropolis", num_steps=20, num_paths=8, progress=False)


def test_any_registry_model_by_its_keys():
    m = logz.models.Model("ising", rows=4, cols=4, beta=0.4)
    assert m.exact_log_z() == logz.models.Ising(4, 4, beta=0.4).exact_log_z()
    r = logz.anneal(m, num_steps=20, num_paths=8, progress=False)
    assert "ais" in r.estimates


def test_bad_model_arguments_name_the_argument():
    W, a, b = small_rbm()
    with pytest.raises(logz.InvalidArgument, match=r"logz.models.RBM: b: expected shape \(5,\)"):
        logz.models.RBM(W, a, b[:3])
    with pytest.raises(logz.InvalidArgument, match="W: expected shape"):
        logz.models.RBM(W.ravel(), a, b)
    with pytest.raises(logz.InvalidArgument, match="test: expected shape"):
        logz.models.RBM(W, a, b, test=np.zeros((3, 7)))
    with pytest.raises(logz.InvalidArgument, match="lam: expected shape"):
        logz.models.ProductOfExperts(np.eye(3), [1.0, 2.0])
    with pytest.raises(logz.InputError, match="model"):
        logz.models.Model("no_such_model").exact_log_z()
    with pytest.raises(logz.InvalidArgument, match="logz.anneal: kernel: expected one of"):  # the registry's line
        logz.anneal(logz.models.Ising(4, 4), kernel="hais", progress=False)
    with pytest.raises(logz.InvalidArgument, match="target"):
        logz.anneal("ising")


def test_non_binary_rbm_data_is_refused_with_where():
    W, a, b = small_rbm()
    with pytest.raises(logz.InputError, match="row 0 column 0"):
        logz.anneal(logz.models.RBM(W, a, b, test=np.full((2, 8), 0.5)), num_steps=10, num_paths=4, progress=False)


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_a_native_run_within_a_second(threads):
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.5, interrupt)
    timer.start()
    with pytest.raises(KeyboardInterrupt):  # the run alone would take minutes
        logz.anneal(logz.models.Ising(32, 32, beta=0.4), num_steps=10 ** 4, num_paths=64, threads=threads,
                    steps_per_temperature=10 ** 4, progress=False)
    timer.join()
    assert time.monotonic() - sent[0] < 1.0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
