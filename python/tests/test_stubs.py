"""The type stub of the extension, logz/_logz.pyi, and the PEP 561 marker py.typed (issue 43):
the stub names exactly what logz._logz exports, each class's methods and properties, and each
function's parameters as the runtime has them (names and kinds, read from pybind11's docstring
signatures); both files are beside the module where it was built."""
import ast
import os

import pytest

import logz
from logz import _logz
from pybind_signatures import KEYWORD_ONLY, POSITIONAL, VAR_KEYWORD, VAR_POSITIONAL, parameters

PACKAGE = os.path.dirname(logz.__file__)
STUB = os.path.join(PACKAGE, "_logz.pyi")
MODULE_ATTRIBUTES = {"__doc__", "__file__", "__loader__", "__name__", "__package__", "__spec__"}
# Methods every class has from object, which the stub need not repeat.
INHERITED = {"__repr__"}


def stub_tree():
    with open(STUB) as f:
        return ast.parse(f.read(), STUB)


def stub_parameters(node):
    """[(name, kind)] of a function in the stub, as pybind_signatures.parameters gives them."""
    a = node.args
    out = [(p.arg, POSITIONAL) for p in a.posonlyargs + a.args]
    if a.vararg:
        out.append((a.vararg.arg, VAR_POSITIONAL))
    out += [(p.arg, KEYWORD_ONLY) for p in a.kwonlyargs]
    if a.kwarg:
        out.append((a.kwarg.arg, VAR_KEYWORD))
    return out


def is_property(node):
    return any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list)


def stub_names(body):
    """{name: node} of the definitions and annotated names of a module's or class's body."""
    out = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
    return out


def runtime_members(cls):
    """(methods, properties): a compiled class's own methods (public, the constructor where it
    has one, the protocol methods it defines) and properties."""
    methods, properties = {}, set()
    for name, value in vars(cls).items():
        if isinstance(value, property):
            properties.add(name)
        elif isinstance(value, staticmethod):
            methods[name] = value.__func__
        elif callable(value) and name not in INHERITED and (not name.startswith("_") or name.startswith("__")):
            if name == "__init__" and parameters(value) is None:
                continue  # no constructor: pybind11's stand-in
            if name.startswith("__") and not getattr(value, "__doc__", None):
                continue
            methods[name] = value
    return methods, properties


def test_the_stub_and_py_typed_are_beside_the_module():
    assert os.path.isfile(STUB), "build/python/logz has no _logz.pyi: re-run cmake"
    marker = os.path.join(PACKAGE, "py.typed")
    assert os.path.isfile(marker) and os.path.getsize(marker) == 0


def test_the_stub_names_exactly_what_the_extension_exports():
    exported = {name for name in vars(_logz) if name not in MODULE_ATTRIBUTES}
    assert {"estimate_doc", "mbar", "Estimate", "Target"} - {n.lstrip("_") for n in exported} == set()
    # Definitions and annotated names; a plain assignment (_BatchFunction = ...) is the stub's own alias.
    stubbed = set(stub_names(stub_tree().body))
    missing, extra = exported - stubbed, stubbed - exported
    assert not missing, f"_logz.pyi lacks {sorted(missing)}"
    assert not extra, f"_logz.pyi names what the extension does not export: {sorted(extra)}"


def module_functions():
    names = stub_names(stub_tree().body)
    return [(name, node) for name, node in names.items() if isinstance(node, ast.FunctionDef)]


@pytest.mark.parametrize("name, node", module_functions(), ids=[n for n, _ in module_functions()])
def test_each_stubbed_function_has_the_runtime_parameters(name, node):
    runtime = parameters(getattr(_logz, name))
    assert runtime is not None, f"{name}: no signature in its docstring"
    assert stub_parameters(node) == runtime, name


def stub_classes():
    return [(name, node) for name, node in stub_names(stub_tree().body).items()
            if isinstance(node, ast.ClassDef) and not issubclass(getattr(_logz, name, object), BaseException)]


@pytest.mark.parametrize("name, node", stub_classes(), ids=[n for n, _ in stub_classes()])
def test_each_stubbed_class_has_the_runtime_methods_and_properties(name, node):
    cls = getattr(_logz, name)
    methods, properties = runtime_members(cls)
    members = stub_names(node.body)
    stub_properties = {n for n, m in members.items() if isinstance(m, ast.FunctionDef) and is_property(m)}
    stub_methods = {n: m for n, m in members.items() if isinstance(m, ast.FunctionDef) and not is_property(m)}
    assert stub_properties == properties, name
    assert set(stub_methods) == set(methods), name
    for method, stub in stub_methods.items():
        runtime = parameters(methods[method])
        assert runtime is not None, f"{name}.{method}: no signature to compare"
        is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in stub.decorator_list)
        expected = runtime if is_static else [("self", POSITIONAL)] + runtime[1:]
        assert stub_parameters(stub) == expected, f"{name}.{method}"


def test_the_exceptions_keep_their_bases():
    for name, node in stub_names(stub_tree().body).items():
        if isinstance(node, ast.ClassDef) and issubclass(getattr(_logz, name, object), BaseException):
            stub_bases = [b.id for b in node.bases]
            runtime_bases = [b.__name__ for b in getattr(_logz, name).__bases__]
            assert stub_bases == runtime_bases, name


def test_every_name_the_stub_uses_is_defined_or_imported():
    tree = stub_tree()
    defined = set(stub_names(tree.body)) | {t.id for node in tree.body if isinstance(node, ast.Assign)
                                            for t in node.targets}
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in node.names}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            assert node.id in defined | imported | {"property", "staticmethod", "RuntimeError", "ValueError",
                                                    "ArithmeticError", "str", "int", "float", "bool", "bytes",
                                                    "object"}, node.id
