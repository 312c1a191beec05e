"""Each fixture name has one definition: no conftest.py redefines a fixture of another
conftest.py (one folder's would shadow the other's for its tests, so the same name would
mean two things), and no test module redefines a conftest fixture."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _fixture_name(node: ast.FunctionDef) -> str | None:
    """The name ``node`` is a fixture under (``@pytest.fixture(name=...)`` or its own), or
    None when it is not a fixture."""
    for decorator in node.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        target = call.func if call else decorator
        if ast.unparse(target) not in ("pytest.fixture", "fixture"):
            continue
        for keyword in call.keywords if call else ():
            if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                return str(keyword.value.value)
        return node.name
    return None


def fixtures(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    return [name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
            if (name := _fixture_name(node)) is not None]


def definitions() -> dict[str, list[str]]:
    """Fixture name -> the files defining it (relative to tests/)."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(TESTS.rglob("*.py")):
        if path.name == "conftest.py" or path.name.startswith("test_"):
            for name in fixtures(path):
                found[name].append(str(path.relative_to(TESTS)))
    return found


def test_the_scan_finds_fixtures():
    found = definitions()
    assert "conftest.py" in found["library"]
    assert "oplib/conftest.py" in found["check_op"]  # a fixture under name=


def test_no_conftest_fixture_is_defined_twice():
    shadowed = {name: files for name, files in definitions().items()
                if len(files) > 1 and any(f.endswith("conftest.py") for f in files)}
    assert not shadowed, f"fixtures defined more than once: {shadowed}"
