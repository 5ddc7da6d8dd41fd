"""The typing stubs describe what the module really has: the same names, the same class members."""

import ast
import pathlib

import oatf

STUBS = pathlib.Path(__file__).resolve().parents[1] / "python" / "oatf" / "__init__.pyi"


def stub_tree():
    return ast.parse(STUBS.read_text())


def test_package_is_typed():
    assert (STUBS.parent / "py.typed").exists()


def test_stubs_name_every_export():
    tree = stub_tree()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    helpers = {"JSON", "Source", "TraceEntry", "SemanticEvaluator"}
    assert names - helpers == set(oatf.__all__)
    for name in oatf.__all__:
        assert hasattr(oatf, name), name


def test_stub_classes_have_the_runtime_members():
    for node in stub_tree().body:
        if not isinstance(node, ast.ClassDef) or node.name == "SemanticEvaluator":
            continue
        runtime = getattr(oatf, node.name)
        stubbed = {
            item.name if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) else item.target.id
            for item in node.body
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.AnnAssign))
        }
        if issubclass(runtime, BaseException):
            continue  # their fields are set on each instance
        public = {n for n in dir(runtime) if not n.startswith("_")}
        assert public == {n for n in stubbed if not n.startswith("_")}, node.name
