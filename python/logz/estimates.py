"""logz.estimate and the result types of the works estimators that give several estimates at once:
logz.Bounds ("bounds": the sandwich of a lower and an upper bound) and logz.Cumulant
("cumulant": the second-order cumulant estimates, forward, reverse and two-sided).

Every other works estimator returns one logz.Estimate. Bounds and Cumulant hold Estimates,
pickle (so joblib and multiprocessing can return them), have to_dict() and a repr with the
numbers.
"""
from __future__ import annotations

import warnings
from typing import Any, Dict, Iterator, Optional, Union

from ._logz import Estimate, _estimate, _estimate_default_seed, _estimate_doc

__all__ = ["Bounds", "Cumulant", "estimate"]


def _number(e: Optional[Estimate]) -> str:
    """An estimate as "log_z ± std_error" with format(x, ".6g"), as MbarResult's repr writes it."""
    if e is None:
        return "None"
    return f"{format(e.log_z, '.6g')} ± {format(e.std_error, '.6g')}"


class _DictAccess:
    """Dict-style access by the estimates' names, as logz.estimate's dict answered before
    (r["lower_bound"], r.values(), ...): kept for this release, with a DeprecationWarning."""

    _names: Dict[str, str]  # the estimate's name -> the attribute holding it

    def _by_name(self) -> Dict[str, Estimate]:
        return {name: getattr(self, attribute) for name, attribute in self._names.items()
                if getattr(self, attribute) is not None}

    def _warn(self) -> None:
        attributes = " / ".join(f".{a}" for a in self._names.values())
        warnings.warn(f"logz.{type(self).__name__}: dict-style access is deprecated and will be removed "
                      f"in the next release; use {attributes} (or .estimates)", DeprecationWarning, stacklevel=3)

    def __getitem__(self, name: str) -> Estimate:
        self._warn()
        return self._by_name()[name]

    def __contains__(self, name: object) -> bool:
        self._warn()
        return name in self._by_name()

    def __iter__(self) -> Iterator[str]:
        self._warn()
        return iter(self._by_name())

    def __len__(self) -> int:
        self._warn()
        return len(self._by_name())

    def keys(self):  # type: ignore[no-untyped-def]
        self._warn()
        return self._by_name().keys()

    def values(self):  # type: ignore[no-untyped-def]
        self._warn()
        return self._by_name().values()

    def items(self):  # type: ignore[no-untyped-def]
        self._warn()
        return self._by_name().items()

    @property
    def estimates(self) -> Dict[str, Estimate]:
        """The estimates by their names ("lower_bound", "cumulant_forward", ...), the keys of the
        JSON `logz estimate --output` writes; estimates not made are left out."""
        return self._by_name()


class Bounds(_DictAccess):
    """The sandwich -mean W_f <= log(Z1/Z0) <= mean W_r of logz.estimate("bounds", forward, reverse).

    Parameters
    ----------
    lower : Estimate
        The lower bound -mean W_f (Jensen's inequality on the forward works), the estimate named
        "lower_bound".
    upper : Estimate
        The upper bound mean W_r, "upper_bound".

    Attributes
    ----------
    lower, upper : Estimate
        As above, each with log_z, std_error, flags and diagnostics.
    width : float
        upper.log_z - lower.log_z: how far apart the bounds are (the dissipated work).
    estimates : dict of str to Estimate
        {"lower_bound": lower, "upper_bound": upper}.

    Notes
    -----
    ``r["lower_bound"]``, ``r.values()`` and the other dict methods, as logz.estimate's dict
    answered before, still work in this release with a DeprecationWarning; they go in the next
    release.

    Examples
    --------
    >>> import numpy as np, logz
    >>> b = logz.estimate("bounds", np.full(10, 1.0), np.full(10, 2.0))
    >>> b.lower.log_z, b.upper.log_z
    (-1.0, 2.0)
    """

    method = "bounds"
    _names = {"lower_bound": "lower", "upper_bound": "upper"}

    def __init__(self, lower: Estimate, upper: Estimate) -> None:
        for name, e in (("lower", lower), ("upper", upper)):
            if not isinstance(e, Estimate):
                raise TypeError(f"logz.Bounds: {name}: expected a logz.Estimate, got {type(e).__name__}")
        self.lower = lower
        self.upper = upper

    @property
    def width(self) -> float:
        """upper.log_z - lower.log_z."""
        return self.upper.log_z - self.lower.log_z

    def to_dict(self) -> Dict[str, Any]:
        """The bounds as a dict: {"method": "bounds", "lower": lower.to_dict(), "upper": upper.to_dict()}.

        Returns
        -------
        dict
        """
        return {"method": self.method, "lower": self.lower.to_dict(), "upper": self.upper.to_dict()}

    def __repr__(self) -> str:
        return f"Bounds(lower={_number(self.lower)}, upper={_number(self.upper)})"


class Cumulant(_DictAccess):
    """The second-order cumulant estimates of logz.estimate("cumulant", forward, reverse), as the
    works given allow.

    Parameters
    ----------
    forward : Estimate or None
        -mean W_f + var W_f / 2 ("cumulant_forward"), where forward works were given.
    reverse : Estimate or None
        mean W_r - var W_r / 2 ("cumulant_reverse"), where reverse works were given.
    two_sided : Estimate or None
        The two-sided cumulant estimate ("cumulant"), where both were given.

    Attributes
    ----------
    forward, reverse, two_sided : Estimate or None
        As above.
    estimates : dict of str to Estimate
        Those made, by their names: "cumulant_forward", "cumulant_reverse", "cumulant".

    Notes
    -----
    ``r["cumulant"]``, ``r.values()`` and the other dict methods, as logz.estimate's dict
    answered before, still work in this release with a DeprecationWarning; they go in the next
    release.
    """

    method = "cumulant"
    _names = {"cumulant_forward": "forward", "cumulant_reverse": "reverse", "cumulant": "two_sided"}

    def __init__(self, forward: Optional[Estimate] = None, reverse: Optional[Estimate] = None,
                 two_sided: Optional[Estimate] = None) -> None:
        for name, e in (("forward", forward), ("reverse", reverse), ("two_sided", two_sided)):
            if e is not None and not isinstance(e, Estimate):
                raise TypeError(f"logz.Cumulant: {name}: expected a logz.Estimate or None, got {type(e).__name__}")
        self.forward = forward
        self.reverse = reverse
        self.two_sided = two_sided

    def to_dict(self) -> Dict[str, Any]:
        """The estimates as a dict: {"method": "cumulant", "forward": ..., "reverse": ...,
        "two_sided": ...}, each an Estimate's to_dict() or None.

        Returns
        -------
        dict
        """
        return {"method": self.method,
                **{a: None if getattr(self, a) is None else getattr(self, a).to_dict()
                   for a in self._names.values()}}

    def __repr__(self) -> str:
        return (f"Cumulant(forward={_number(self.forward)}, reverse={_number(self.reverse)}, "
                f"two_sided={_number(self.two_sided)})")


# The methods of several estimates and how their answer is held.
_GROUPS = {"bounds": Bounds, "cumulant": Cumulant}


def _grouped(method: str, answer: Union[Estimate, Dict[str, Estimate]]) -> Union[Estimate, Bounds, Cumulant]:
    if isinstance(answer, Estimate):
        return answer
    group = _GROUPS[method]
    return group(**{attribute: answer.get(name) for name, attribute in group._names.items()})


def estimate(method: str, forward: Any = None, reverse: Any = None, *, seed: int = _estimate_default_seed,
             **options: int) -> Union[Estimate, Bounds, Cumulant]:
    return _grouped(method, _estimate("logz.estimate", method, forward, reverse, seed=seed, **options))


estimate.__doc__ = _estimate_doc
