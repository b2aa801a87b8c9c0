"""Every option of logz's public API is keyword-only (issue 43): the test walks every public
callable of logz, logz.priors, logz.models and logz.mbar_analysis, their constructors and methods, with inspect (and
pybind11's docstring signatures for the compiled ones). The first parameter may be positional,
and so may the data arguments listed in DATA_ARGUMENTS, which belong to the call's meaning
(bar(forward, reverse), mbar(u_kn, N_k), ...). logz.compat.pymbar keeps pymbar 3's own
positional signatures on purpose and is not walked."""
import inspect
import types

import pytest

import logz
import logz.mbar_analysis
from pybind_signatures import KEYWORD_ONLY, POSITIONAL, VAR_KEYWORD, VAR_POSITIONAL, parameters, pybind_parameters

# Positional parameters after the first: the data a call is about, never an option.
DATA_ARGUMENTS = {
    "logz.bar": ["reverse"],
    "logz.estimate": ["forward", "reverse"],
    "logz.mbar": ["N_k"],
    "logz.evidence": ["prior"],
    "logz.Target": ["energy", "grad"],
    "logz.Target.from_log_prob": ["log_prob", "grad_log_prob"],
    "logz.Bounds": ["upper"],
    "logz.Cumulant": ["reverse", "two_sided"],
    "logz.priors.Normal": ["cov"],
    "logz.priors.Uniform": ["high"],
    "logz.priors.StudentT": ["loc", "scale"],
    "logz.priors.Custom": ["log_density", "grad_log_density"],
    "logz.models.RBM": ["a", "b"],
    "logz.models.Ising": ["cols"],
    "logz.models.Potts": ["cols"],
    "logz.models.ProductOfExperts": ["lam"],
    "logz.models.GaussianMixture": ["means", "covariances"],
    # logz.mbar_analysis: the solved problem's arrays (docs/python.md)
    "logz.mbar_analysis.mixture_log_denominator": ["N_k", "log_z"],
    "logz.mbar_analysis.log_weights": ["N_k", "log_z"],
    "logz.mbar_analysis.reweight": ["log_denominator"],
    "logz.mbar_analysis.asymptotic_covariance": ["N_k"],
    "logz.mbar_analysis.covariance_from_gram": ["N_k"],
    "logz.mbar_analysis.overlap_matrix": ["N_k"],
    "logz.mbar_analysis.overlap_eigenvalues": ["N_k"],
    "logz.mbar_analysis.expectations": ["N_k", "observables", "states"],
    "logz.mbar_analysis.log_z_covariance": ["N_k", "states"],
    "logz.mbar_analysis.perturbed_log_z": ["N_k", "u_ln", "log_denominator"],
    "logz.mbar_analysis.entropy_and_energy": ["N_k", "energies", "states", "log_z_states"],
}

MODULES = [logz, logz.priors, logz.models, logz.mbar_analysis]


def _methods(cls, qualname):
    """(qualname, function, drop_self) of a class's public methods that logz defines."""
    for name in dir(cls):
        if name.startswith("_"):
            continue
        attribute = inspect.getattr_static(cls, name)
        owner = next(c for c in cls.__mro__ if name in vars(c))
        if not owner.__module__.startswith("logz"):
            continue
        if isinstance(attribute, staticmethod):
            yield f"{qualname}.{name}", attribute.__func__, False
        elif isinstance(attribute, classmethod):
            yield f"{qualname}.{name}", attribute.__func__, True
        elif callable(attribute) and not isinstance(attribute, type):
            yield f"{qualname}.{name}", attribute, True


def public_callables():
    """(qualname, function, drop_self): every public function, constructor and method of MODULES."""
    seen = set()
    for module in MODULES:
        for name in sorted(vars(module)):
            value = getattr(module, name)
            if name.startswith("_") or id(value) in seen or inspect.ismodule(value):
                continue
            if not callable(value) or not getattr(value, "__module__", "").startswith("logz"):
                continue
            seen.add(id(value))
            qualname = f"{module.__name__}.{name}"
            if isinstance(value, type):
                if issubclass(value, BaseException):
                    continue  # exceptions take the message, as Python's own do
                if issubclass(value, tuple):
                    continue  # result records (named tuples) take their fields in order
                yield qualname, value.__init__, True
                yield from _methods(value, qualname)
            else:
                yield qualname, value, False


def positional_options(qualname, function, drop_self, allowed=DATA_ARGUMENTS):
    """The names of the parameters that should be keyword-only and are not; None where the
    function has no signature to read (a compiled class without a constructor)."""
    found = parameters(function)
    if found is None:
        return None
    if drop_self and found:
        found = found[1:]
    positional = [(name, kind) for name, kind in found if kind in (POSITIONAL, VAR_POSITIONAL)]
    data = set(allowed.get(qualname, []))
    return [name for i, (name, kind) in enumerate(positional)
            if kind == VAR_POSITIONAL or (i > 0 and name not in data)]


CALLABLES = list(public_callables())


def test_the_walk_reaches_the_whole_api():
    names = {qualname for qualname, _, _ in CALLABLES}
    for expected in ("logz.estimate", "logz.mbar", "logz.run", "logz.anneal", "logz.temper", "logz.smc",
                     "logz.evidence", "logz.bar", "logz.Target", "logz.Target.from_log_prob",
                     "logz.Estimate.to_dict", "logz.Result.to_json", "logz.MbarResult.to_dict",
                     "logz.Bounds", "logz.GaussianBase", "logz.priors.Normal", "logz.models.Ising",
                     "logz.models.RBM.exact_log_z"):
        assert expected in names, expected
    # The compiled functions' signatures are read from pybind11's docstrings.
    assert parameters(logz.mbar) == [("u_kn", POSITIONAL), ("N_k", POSITIONAL), ("tolerance", KEYWORD_ONLY),
                                     ("max_iterations", KEYWORD_ONLY), ("initial_log_z", KEYWORD_ONLY)]


@pytest.mark.parametrize("qualname, function, drop_self", CALLABLES, ids=[c[0] for c in CALLABLES])
def test_every_option_is_keyword_only(qualname, function, drop_self):
    offending = positional_options(qualname, function, drop_self)
    if offending is None:
        # Results built by logz only (no constructor), and the abstract base of the priors.
        assert qualname in ("logz.Estimate", "logz.Result", "logz.MbarResult", "logz.priors.Prior"), \
            f"{qualname}: no signature to check"
        return
    assert not offending, f"{qualname}: options taken positionally: {', '.join(offending)} (make them keyword-only, " \
                          f"or list them in DATA_ARGUMENTS if they are the call's data)"


def test_data_arguments_name_real_positional_parameters():
    """The allow-list stays exact: each name is a positional parameter of the function it is listed for."""
    by_name = {qualname: (function, drop_self) for qualname, function, drop_self in CALLABLES}
    for qualname, names in DATA_ARGUMENTS.items():
        assert qualname in by_name, f"DATA_ARGUMENTS: {qualname} is not a public callable"
        function, drop_self = by_name[qualname]
        found = parameters(function)[1 if drop_self else 0:]
        positional = [name for name, kind in found if kind == POSITIONAL]
        for name in names:
            assert name in positional[1:], f"DATA_ARGUMENTS: {qualname}: {name} is not positional after the first"


def test_the_check_catches_a_positional_option():
    def f(data, option=1, *, other=2):
        pass

    def g(data, *rest, option=1):
        pass

    assert positional_options("f", f, False) == ["option"]
    assert positional_options("f", f, False, allowed={"f": ["option"]}) == []
    assert positional_options("g", g, False) == ["rest"]

    # A pybind11 function as its docstring shows it.
    builtin = types.SimpleNamespace(__name__="h", __doc__="h(x: object, n: Tuple[int, int] = (1, 2), *, "
                                                          "seed: int = 1, **kwargs) -> object\n\nDoes h.")
    assert pybind_parameters(builtin) == [("x", POSITIONAL), ("n", POSITIONAL), ("seed", KEYWORD_ONLY),
                                          ("kwargs", VAR_KEYWORD)]


def test_run_refuses_seed_given_positionally():
    with pytest.raises(TypeError):
        logz.run({"model": {"type": "ising", "rows": 4, "cols": 4}}, 7)
