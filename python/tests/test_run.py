"""logz.run on a dict or a TOML file: bitwise the CLI's estimates for the same config and
seed, whatever the thread count, and one-line errors naming the key."""
import json

import numpy as np
import pytest

import logz

# A small Ising run with both directions (exact log Z from Kaufman's formula).
ISING = {
    "model": {"type": "ising", "rows": 6, "cols": 6, "beta": 0.3},
    "schedule": {"type": "linear", "num_steps": 60},
    "kernel": {"type": "metropolis", "steps_per_temperature": 36},
    "run": {"num_paths": 24, "directions": ["forward", "reverse"], "seed": 4},
    "estimators": {"methods": ["ais", "raise", "bar", "bounds"]},
}


def to_toml(config):
    """The dict as TOML text (strings, numbers, booleans and lists of them)."""
    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return repr(v)
    return "".join(f"[{section}]\n" + "".join(f"{k} = {value(v)}\n" for k, v in keys.items()) + "\n"
                   for section, keys in config.items())


def test_run_from_a_dict_equals_the_command_line(cli, tmp_path):
    (tmp_path / "ising.toml").write_text(to_toml(ISING))
    cli("run", tmp_path / "ising.toml", "--seed", 9, "--output", tmp_path / "out.json")
    expected = json.loads((tmp_path / "out.json").read_text())
    r = logz.run(ISING, seed=9)
    assert sorted(r.estimates) == sorted(expected["estimates"])
    for name, e in r.estimates.items():
        assert e.log_z == expected["estimates"][name]["log_z"], name
        assert e.evidence == expected["estimates"][name]["evidence"], name
        assert e.std_error == expected["estimates"][name]["std_error"], name
    assert r.forward_works.tolist() == expected["forward"]["works"]
    assert r.reverse_works.tolist() == expected["reverse"]["works"]
    assert r.reference_log_z == expected["reference"]["log_z"]
    got = json.loads(r.to_json())
    assert got["estimates"] == expected["estimates"]


def test_run_from_a_file_equals_the_run_from_the_dict(tmp_path):
    (tmp_path / "ising.toml").write_text(to_toml(ISING))
    a = logz.run(str(tmp_path / "ising.toml"))
    b = logz.run(ISING)
    assert {k: e.log_z for k, e in a.estimates.items()} == {k: e.log_z for k, e in b.estimates.items()}


def test_seed_and_threads_are_keywords():
    """logz.run(config, *, seed=None, threads=None, ...): every option a keyword (issue 43)."""
    a = logz.run(ISING, seed=7, progress=False)
    b = logz.run(ISING, seed=7, threads=2, progress=False)
    assert np.array_equal(a.forward_works, b.forward_works)
    assert not np.array_equal(a.forward_works, logz.run(ISING, seed=8, progress=False).forward_works)
    with pytest.raises(TypeError, match="positional"):
        logz.run(ISING, 7, progress=False)


def test_thread_count_does_not_change_a_bit():
    one = logz.run(ISING, threads=1)
    two = logz.run(ISING, threads=2)
    assert np.array_equal(one.forward_works, two.forward_works)
    assert np.array_equal(one.reverse_works, two.reverse_works)


def test_result_fields_and_the_exact_answer():
    r = logz.run(ISING, seed=2)
    assert r.reference_log_z is not None
    bar = r.estimates["bar"]
    assert abs(bar.log_z - r.reference_log_z) <= 5 * bar.std_error + 0.05
    assert bar.log_z == pytest.approx(bar.evidence + r.base_log_z, abs=1e-9)
    k = ISING["schedule"]["num_steps"]
    assert r.fractions.shape == (k + 1,) and r.fractions[0] == 0 and r.fractions[-1] == 1
    assert r.mean_energy.shape == (k + 1,) and r.acceptance.shape == (k + 1,)
    assert r.forward_works.shape == (24,)
    assert r.runtime_s > 0
    assert "reference=" in repr(r)


def test_numpy_values_in_a_config_are_taken_as_lists():
    """A mixture whose masses and means come as numpy arrays: Z = the sum of the masses."""
    config = {"model": {"type": "gaussian_mixture", "weights": np.array([3.0, 7.0]), "means": np.array([-2.0, 2.0]),
                        "covariances": [1.0, 0.5], "dim": 2},
              "kernel": {"type": "hmc", "step_size": 0.25, "leapfrog_steps": 10},
              "run": {"num_paths": 8}, "schedule": {"num_steps": 20}}
    r = logz.run(config)
    assert r.reference_log_z == pytest.approx(np.log(10.0), abs=1e-12)


@pytest.mark.parametrize("config, error, message", [
    ({"model": {"type": "isin"}}, logz.InputError, '[model] type: expected one of "ising"'),
    ({"model": {"type": "ising", "rows": 0}}, logz.InputError, "[model] rows"),
    ({"model": {"type": "ising", "rows": None}}, logz.InvalidArgument, "at model.rows"),
    ({"model": "ising"}, logz.InputError, "model: expected a [section] table"),
    (42, logz.InvalidArgument, "config: expected a dict"),
    ("/nonexistent/config.toml", logz.InputError, "/nonexistent/config.toml"),
])
def test_bad_configs_raise_one_line_naming_the_key(config, error, message):
    with pytest.raises(error) as info:
        logz.run(config)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_population_annealing_from_a_dict():
    # The Ising model near its critical point by population annealing: within 5 SE (rho_f's, which
    # is conservative) + 0.05 of Kaufman's log Z, the population's record in the result's JSON.
    config = {"model": {"type": "ising", "size": 12, "beta": 0.44},
              "kernel": {"type": "heat_bath", "site_order": "checkerboard", "steps_per_temperature": 2},
              "run": {"method": "population_annealing", "seed": 4},
              "population_annealing": {"num_replicas": 512}}
    r = logz.run(config, progress=False)
    e = r.estimates["population_annealing"]
    assert abs(e.log_z - r.reference_log_z) <= 5 * e.std_error + 0.05
    assert json.loads(r.to_json())["kernel"]["population_annealing"]["num_replicas"] == 512
