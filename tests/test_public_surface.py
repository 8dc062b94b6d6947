"""Bad input on the whole public surface of ``ldp`` is refused by ``ldp`` with a message naming the parameter.

The public callables are found by walking the package, as the contract suite (``tests/test_contract.py``)
finds the mechanism classes: every public function of every module, and every public method of every
mechanism instance that the contract suite builds (:data:`tests.test_contract.CASES`).

Each parameter is given a *kind* by its name (:data:`KINDS`: a budget, a size, a probability, a seed, ...).
A callable whose required parameters all have a kind is called once with valid values (:data:`KINDS`' first
entry, or the parameter's default); if that call succeeds quickly, every parameter with a kind is then made
bad, one at a time, with the standard bad values of its kind (None, NaN, inf, negative, wrong type, huge, ...),
and the call must raise ``ValueError`` or ``TypeError`` *from inside ldp* (not a raw error from numpy or
Python) whose message names the parameter (its own name, as the caller spelt it).  None is a bad value only
for a parameter whose default is not None.  Array arguments of the mechanisms (reports, counts, codes) get
the bad values of :data:`ARRAY_BAD`.

A callable that needs an argument of an unknown kind, or whose valid call fails, is left to its own tests (the
choice never depends on timing: a callable that was slow on one xdist worker once made the two workers collect
different tests, which fails the whole run); :func:`test_the_surface_is_covered` keeps a floor on how many
callables and bad calls are checked, so the suite cannot silently become empty.
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
import pkgutil
import re
import traceback
import warnings
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pytest
from test_contract import CASES, EPSILON

import ldp
from ldp.mechanism import Mechanism

#: modules left out: the data loaders and the claims tables are reworked elsewhere (their own tests cover them),
#: plotting and pages draw figures and glue values (no numeric parameters of these kinds)
EXCLUDED_MODULES = ("ldp.plotting", "ldp.progress")

NAN, INF = float("nan"), float("inf")
#: kind -> (valid value, bad values); the same bad values for every parameter of the kind
BUDGET = (1.0, [NAN, INF, -1.0, "1", [1.0]])
SIZE = (4, [NAN, -1, 2.5, "4", 10**12])
COUNT = (20, [NAN, -1, 2.5, "20"])
PROB = (0.5, [NAN, -0.5, 1.5, "0.5"])
SEED = (0, [-1, 2.5, "0"])
KINDS: dict[str, tuple[Any, list[Any]]] = {
    "epsilon": BUDGET,
    "epsilon1": (0.5, BUDGET[1]),
    "epsilon2": (0.5, BUDGET[1]),
    "d": SIZE,
    "c": (3, SIZE[1]),
    "m": SIZE,
    "k": (2, SIZE[1]),
    "g": (3, SIZE[1]),
    "h": (2, SIZE[1]),
    "K": SIZE,
    "m_label": (2, SIZE[1]),
    "m_attr": (3, SIZE[1]),
    "n": COUNT,
    "N": COUNT,
    "trials": (2, COUNT[1]),
    "max_iter": (10, COUNT[1]),
    "delta": (0.01, [NAN, -0.5, 1.5, "0.01"]),
    "f": PROB,
    "phi": PROB,
    "omega": PROB,
    "p": (0.75, PROB[1]),
    "q": (0.25, PROB[1]),
    "tol": (1e-6, [NAN, -1.0, "1e-6"]),
    "total": (1.0, [NAN, INF, -1.0, 0.0, "1"]),
    "seed": SEED,
    "rng": (0, SEED[1]),  # rng=None is valid everywhere: a fresh stream (the package's convention for rng)
    "prime": (7, [8, -1, 2.5, "7"]),
}
#: bad values of the array arguments of a mechanism's methods (reports, counts, codes)
ARRAY_BAD = [None, "x", 5, np.array([[0.5, 1.5]]), np.array([np.nan, 1.0])]


def _module_names() -> list[str]:
    out = []
    for info in pkgutil.walk_packages(ldp.__path__, "ldp."):
        if info.name.endswith("__main__") or info.name.startswith(EXCLUDED_MODULES):
            continue
        out.append(info.name)
    return sorted(out)


def public_functions() -> dict[str, Callable[..., Any]]:
    """Every public function of every (non-excluded) ``ldp`` module, by qualified name."""
    found = {}
    for name in _module_names():
        module = importlib.import_module(name)
        for attr, obj in vars(module).items():
            if not attr.startswith("_") and inspect.isfunction(obj) and obj.__module__ == name:
                found[f"{name}.{attr}"] = obj
    return found


def _default(param: inspect.Parameter) -> Any:
    return param.default if param.default is not inspect.Parameter.empty else KINDS[param.name][0]


#: parameters whose name has a kind above but which mean something else in one function (no kind there)
NOT_THE_KIND = {
    "ldp.metrics.total_variation": ("p", "q"),  # two vectors to compare, raw estimates allowed (not probabilities)
}


def _bad_values(param: inspect.Parameter) -> list[Any]:
    bad = list(KINDS[param.name][1])
    if param.default is not None and param.name != "rng":  # None is "not given" only where it is the default
        bad.insert(0, None)
    return bad


def _plan(func: Callable[..., Any]) -> tuple[dict[str, Any], list[str]] | None:
    """Valid keyword arguments of ``func`` and the parameters to make bad; None if some argument has no kind."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    other = NOT_THE_KIND.get(f"{func.__module__}.{func.__name__}", ())
    kwargs, checked = {}, []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name in ("self", "cls"):
            continue
        if p.name in KINDS and p.name not in other:
            kwargs[p.name] = _default(p)
            checked.append(p.name)
        elif p.default is inspect.Parameter.empty:
            return None
    return (kwargs, checked) if checked else None


def _call(func: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return func(**kwargs)


def _is_valid(func: Callable[..., Any], kwargs: dict[str, Any]) -> bool:
    """Whether the valid call succeeds (never timed: every xdist worker must collect the same cases)."""
    try:
        _call(func, kwargs)
    except Exception:
        return False
    return True


def _raised_inside_ldp(exc: BaseException) -> bool:
    """True when the innermost frame that raised ``exc`` is a file of the ``ldp`` package."""
    frames = traceback.extract_tb(exc.__traceback__)
    root = os.path.dirname(ldp.__file__)
    return bool(frames) and os.path.abspath(frames[-1].filename).startswith(root)


def refusal_problem(func: Callable[..., Any], kwargs: dict[str, Any], name: str, bad: Any) -> str | None:
    """None if ``func(**kwargs)`` with ``name=bad`` is refused properly; otherwise what went wrong."""
    call = dict(kwargs, **{name: bad})
    try:
        _call(func, call)
    except (ValueError, TypeError) as exc:
        if not _raised_inside_ldp(exc):
            return f"raw {type(exc).__name__} from outside ldp: {exc}"
        if not re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", str(exc)):
            return f"{type(exc).__name__} does not name {name!r}: {exc}"
        return None
    except Exception as exc:  # noqa: BLE001 (any other exception is the failure being reported)
        return f"{type(exc).__name__}: {exc}"
    return "accepted silently"


@cache
def function_cases() -> tuple[tuple[str, str, int], ...]:
    """``(function, parameter, index of the bad value)`` for every checked bad call of a public function."""
    cases = []
    for qual, func in public_functions().items():
        plan = _plan(func)
        if plan is None or not _is_valid(func, plan[0]):
            continue
        for name in plan[1]:
            sig = inspect.signature(func).parameters[name]
            cases.extend((qual, name, i) for i in range(len(_bad_values(sig))))
    return tuple(cases)


def _grouped() -> list[Any]:
    by_func: dict[str, list[tuple[str, int]]] = {}
    for qual, name, i in function_cases():
        by_func.setdefault(qual, []).append((name, i))
    return [pytest.param(q, v, id=q.removeprefix("ldp.")) for q, v in sorted(by_func.items())]


@pytest.mark.parametrize("qual, calls", _grouped())
def test_public_function_refuses_bad_scalars(qual, calls):
    func = public_functions()[qual]
    kwargs, _ = _plan(func)
    problems = []
    for name, i in calls:
        bad = _bad_values(inspect.signature(func).parameters[name])[i]
        problem = refusal_problem(func, kwargs, name, bad)
        if problem:
            problems.append(f"{name}={bad!r}: {problem}")
    assert not problems, f"{qual}: " + "; ".join(problems)


# ---------------------------------------------------------------------------- mechanisms
def _valid_variance_f(mech: Mechanism) -> Any:
    """A valid ``f`` of ``mech.variance``: a scalar frequency or the uniform table of one of the usual shapes."""
    shapes = [getattr(mech, "shape", None)]
    if hasattr(mech, "d"):
        shapes += [(mech.c, mech.d)] if hasattr(mech, "c") else [(mech.d,), (mech.d + 1,)]
    candidates = [0.1] + [np.full(s, 1.0 / math.prod(s)) for s in shapes if s is not None]
    for f in candidates:
        try:
            _call(mech.variance, {"n": 20, "f": f})
        except (ValueError, TypeError):
            continue
        return f
    return None


@pytest.mark.parametrize("cls", [pytest.param(c, id=c.__name__) for c in CASES])
def test_mechanism_methods_refuse_bad_arrays_and_sizes(cls):
    mech = CASES[cls].build(EPSILON)
    problems = []
    for bad in ARRAY_BAD:
        problems += [f"estimate({bad!r}): {p}" for p in [refusal_problem(mech.estimate, {}, "reports", bad)] if p]
        p = refusal_problem(mech.estimate_counts, {"n": 20}, "counts", bad)
        if p:
            problems.append(f"estimate_counts({bad!r}, 20): {p}")
        p = refusal_problem(
            mech.simulate_counts if mech.has_count_sampler else mech.sample_support, {"rng": 0}, "true_counts", bad
        )
        if p:
            problems.append(f"true_counts={bad!r}: {p}")
    f = _valid_variance_f(mech)
    assert f is not None, f"{cls.__name__}.variance accepts neither a scalar nor a uniform frequency table"
    for bad in [None, *COUNT[1]]:
        p = refusal_problem(mech.variance, {"f": f}, "n", bad)
        if p:
            problems.append(f"variance(n={bad!r}): {p}")
    for bad in [None, NAN, -0.5, "x"]:
        p = refusal_problem(mech.variance, {"n": 20}, "f", bad)
        if p:
            problems.append(f"variance(f={bad!r}): {p}")
    assert not problems, f"{cls.__name__}: " + "; ".join(problems)


def test_the_surface_is_covered():
    """A floor on the coverage, so that a change of the enumeration cannot empty the suite unnoticed."""
    functions = {q for q, _, _ in function_cases()}
    assert len(public_functions()) >= 500
    assert len(functions) >= 60, f"only {len(functions)} public functions reach the bad-value checks"
    assert len(function_cases()) >= 650
