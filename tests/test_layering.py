"""Imports run one way between the subpackages of ``tessel``
(docs/Rationale.md, "Subpackages in layers"): a module imports only from
layers below its own, never from a sibling in its layer nor from above.
Read from the source's ``import`` statements, those inside functions
included, so a cycle fails here before it fails at run time."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "tessel"

# Lowest first: the package's base (errors, the extension finder), MLIR's
# Python bindings (``ir``, ``passmanager``, ...), Tessel's dialect, then the
# subpackages, and on top the entry points: the command line, the
# torch.compile backend, its registration hook, and the package's lazy
# re-exports.
LAYERS = [
    {"errors", "_binding", "_tools"},
    {"_mlir_libs", "ir", "passmanager", "execution_engine", "rewrite", "extras"},
    {"dialects"},
    {"arch"},
    {"runtime", "report"},
    {"frontend"},
    {"compiler", "mapper", "zoo"},
    {"driver"},
    {"sweeps"},
    {"coverage", "dynamo", "cli"},
    {"_dynamo_hook"},
    {"__init__"},
]
LAYER_OF = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _unit(parts: tuple[str, ...]) -> str:
    """The subpackage (or top-level module) a module path inside tessel
    belongs to."""
    return parts[0].removesuffix(".py")


def _imported_units(path: Path):
    """``(line, unit)`` for each import of another part of tessel in the
    file at ``path``."""
    parts = path.relative_to(PACKAGE).parts
    package = list(parts[:-1])
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                target = base + (node.module.split(".") if node.module else [])
                if not target:           # from . import x (at the top)
                    for alias in node.names:
                        yield node.lineno, alias.name
                    continue
                yield node.lineno, target[0]
            elif node.module and node.module.split(".")[0] == "tessel":
                names = node.module.split(".")[1:] or [a.name for a in node.names]
                yield node.lineno, names[0]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names = alias.name.split(".")
                if names[0] == "tessel" and len(names) > 1:
                    yield node.lineno, names[1]


def test_imports_run_down_the_layers():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        unit = _unit(path.relative_to(PACKAGE).parts)
        assert unit in LAYER_OF, f"{path}: part '{unit}' of tessel has no layer in LAYERS"
        for line, target in _imported_units(path):
            if target == unit:
                continue
            assert target in LAYER_OF, f"{path}:{line}: imports '{target}', which has no layer"
            if LAYER_OF[target] >= LAYER_OF[unit]:
                wrong.append(f"{path.relative_to(PACKAGE)}:{line}: '{unit}' (layer "
                             f"{LAYER_OF[unit]}) imports '{target}' (layer {LAYER_OF[target]})")
    assert not wrong, "imports against the layering:\n" + "\n".join(wrong)


def _top_level_runtime_imports(path: Path) -> set[str]:
    """The modules of tessel.runtime that ``path`` imports at its top level
    (not inside a function)."""
    found = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found


def test_the_program_model_imports_none_of_its_users():
    # runtime/program.py holds the program's data; its validation, loader,
    # builder, the simulator and the emulators import it, and it reaches
    # them only inside the methods that hand over to them
    # (Program.validate, simulate, emulate), so the modules load one way.
    users = {"validation", "loader", "builder", "simulator", "emulator", "footprint"}
    top = _top_level_runtime_imports(PACKAGE / "runtime" / "program.py")
    assert not top & users, f"runtime/program.py imports {sorted(top & users)} at load"
    for user in ("validation", "loader", "builder", "simulator"):
        assert "program" in _top_level_runtime_imports(PACKAGE / "runtime" / f"{user}.py")
