"""The engine stays pure: nothing under planner/engine imports Django (or the ORM-side packages)."""

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "planner" / "engine"
FORBIDDEN = ("django", "rest_framework", "hardware_catalog", "api", "frontend", "celery")


def _imports(path: Path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
        elif isinstance(node, ast.ImportFrom) and node.level > 0 and node.module and node.level > 1:
            yield "planner." + node.module  # a relative import climbing out of the engine


def test_engine_imports_no_django_or_orm_side_code():
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) >= 8, "expected the engine modules"
    offenders = []
    for path in files:
        for name in _imports(path):
            top = name.split(".")[0]
            if top in FORBIDDEN or name.startswith("planner.") and not name.startswith("planner.engine"):
                offenders.append(f"{path.name}: {name}")
    assert offenders == []


def test_engine_runs_in_a_fresh_interpreter_without_django():
    """Importing and running the engine must not pull Django into sys.modules."""
    import subprocess
    import sys

    code = (
        "import sys; import planner.engine as e; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules), 'django imported'; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ENGINE.parents[1], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
