"""Parameters of Python functions and of pybind11's builtins, for test_signatures.py and
test_stubs.py.

pybind11 gives its functions no __signature__; it writes the signature as the first line of the
docstring, `name(a: T, b: T = v, *, opt: T = v, **kwargs) -> R` (methods start with `self: C`).
"""
import inspect

POSITIONAL, KEYWORD_ONLY, VAR_POSITIONAL, VAR_KEYWORD = "positional", "keyword_only", "*args", "**kwargs"

_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: POSITIONAL,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: POSITIONAL,
    inspect.Parameter.KEYWORD_ONLY: KEYWORD_ONLY,
    inspect.Parameter.VAR_POSITIONAL: VAR_POSITIONAL,
    inspect.Parameter.VAR_KEYWORD: VAR_KEYWORD,
}


def split_top_level(text, separator=","):
    """text split at `separator` outside brackets and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            if c == quote and text[i - 1] != "\\":
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def pybind_parameters(function):
    """[(name, kind)] of a pybind11 builtin, from the first line of its docstring; None where
    pybind11 wrote no signature there (a class without a constructor)."""
    first = (function.__doc__ or "").lstrip().split("\n", 1)[0]
    name = getattr(function, "__name__", "")
    if not first.startswith(name + "("):
        return None
    depth = 0
    for end, c in enumerate(first):  # the parenthesis that closes the parameter list
        depth += c == "("
        depth -= c == ")"
        if depth == 0 and c == ")":
            break
    inside = first[len(name) + 1:end]
    out, kind = [], POSITIONAL
    for part in split_top_level(inside):
        if part == "*":
            kind = KEYWORD_ONLY
        elif part.startswith("**"):
            out.append((part[2:].split(":")[0].strip(), VAR_KEYWORD))
        elif part.startswith("*"):
            out.append((part[1:].split(":")[0].strip(), VAR_POSITIONAL))
            kind = KEYWORD_ONLY
        else:
            out.append((part.split(":")[0].split("=")[0].strip(), kind))
    return out


def is_pybind(function):
    return inspect.isbuiltin(function) or type(function).__name__ in ("instancemethod", "builtin_function_or_method")


def parameters(function):
    """[(name, kind)] of any function, builtin or Python; None where none can be read, and for
    object.__init__, the constructor of a class that defines none."""
    if (function.__doc__ or "").startswith("Initialize self."):
        return None
    if is_pybind(function):
        return pybind_parameters(function)
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    return [(p.name, _KINDS[p.kind]) for p in signature.parameters.values()]
