"""Mutation fuzzing of what Tessel reads from users: IR and programs.

Two targets, each seeded (the same seed gives the same mutants and the same
report):

- ``opt``: mutants of the lit inputs (``test/**/*.mlir``, split at
  ``// -----``), each run through ``tessel-opt`` three ways: parse and
  verify, the file's own pass flags (from its first RUN line), and
  ``-tessel-lowering-pipeline``. A run must end with exit 0, or exit 1 with
  an ``error:`` diagnostic. Anything else is a finding: a crash (a signal,
  an assertion, a stack dump), a silent failure (a non-zero exit without a
  diagnostic) or a hang (no exit within ``--timeout``). A crash whose stack
  holds no Tessel frame happened in upstream MLIR (docs/fuzzing.md lists
  those) and is counted apart.
- ``program``: corruptions of one compiled program (a byte changed, the
  file cut short, a file emptied), each loaded and simulated. A run must
  end with the original outputs (the change did not matter), or a
  ``ProgramError``. Anything else is a finding: another exception (a
  traceback for the user) or different outputs (a silent wrong answer).
  Every other run corrupts the program with its digests removed first (as
  a program written before them), which the digests then do not stop: the
  validator and the simulator meet the corruption, and only a traceback
  is a finding there (a corrupted count or semaphore that deadlocks the
  program is a ``DeadlockError`` naming who waits on whom, as for any
  program that deadlocks).

    python tools/fuzz/fuzz.py opt --runs 10000 --seed 1
    python tools/fuzz/fuzz.py program --runs 1000 --seed 1

Prints one line per finding (its kind, the reproducer file kept under
``--keep``, the first line of the message) and a summary; exits 1 when
there is a finding in Tessel's own code.
"""

from __future__ import annotations

import argparse
import random
import re
import shlex
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Tokens a mutation replaces a number or a name with: the edges of what
# the verifiers must reject.
NUMBERS = ["0", "-1", "1", "2", "3", "7", "64", "65536", "2147483648",
           "-9223372036854775808", "nan", "1.5"]
TYPES = ["f32", "f16", "bf16", "i1", "i8", "i32", "i64", "index"]


@dataclass
class Report:
    runs: int = 0
    outcomes: Counter = field(default_factory=Counter)
    findings: list[str] = field(default_factory=list)
    upstream: Counter = field(default_factory=Counter)

    def finding(self, kind: str, where: str, message: str) -> None:
        self.outcomes[kind] += 1
        self.findings.append(f"{kind}: {where}: {message}")

    def summary(self) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))
        lines = [f"{self.runs} runs: {counts}"]
        for signature, n in self.upstream.most_common():
            lines.append(f"  upstream crash x{n}: {signature}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------
# tessel-opt over mutated IR.
# ---------------------------------------------------------------------------

def lit_inputs() -> list[tuple[str, str, list[str]]]:
    """(name, text, pass flags) of every split of every lit input."""
    out = []
    for path in sorted((REPO / "test").rglob("*.mlir")):
        text = path.read_text()
        run = re.search(r"//\s*RUN:\s*tessel-opt %s(.*?)(\||$)", text, re.M)
        flags = [f for f in shlex.split(run.group(1)) if f.startswith("-")
                 and f not in ("-split-input-file", "-verify-diagnostics")] if run else []
        for i, split in enumerate(text.split("// -----")):
            body = "\n".join(l for l in split.splitlines()
                             if "expected-" not in l and "RUN:" not in l)
            if body.strip():
                out.append((f"{path.relative_to(REPO)}#{i}", body, flags))
    return out


def mutate_ir(text: str, rng: random.Random) -> str:
    """One random edit: a number, a type or a name replaced, a line dropped
    or doubled, two lines swapped, a bracket removed."""
    lines = text.splitlines()
    kind = rng.randrange(6)
    if kind == 0:
        spots = [m for m in re.finditer(r"(?<![\w%#@])-?\d+(\.\d+)?", text)]
        if spots:
            m = rng.choice(spots)
            return text[:m.start()] + rng.choice(NUMBERS) + text[m.end():]
    if kind == 1:
        spots = [m for m in re.finditer(r"\b(f32|f16|bf16|i1|i8|i32|i64|index)\b", text)]
        if spots:
            m = rng.choice(spots)
            return text[:m.start()] + rng.choice(TYPES) + text[m.end():]
    if kind == 2 and len(lines) > 1:
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines)
    if kind == 3 and lines:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return "\n".join(lines)
    if kind == 4 and len(lines) > 2:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines)
    spots = [m.start() for m in re.finditer(r"[\[\](){}<>]", text)]
    if spots:
        i = rng.choice(spots)
        return text[:i] + text[i + 1:]
    return text + "\n}"


def crash_signature(stderr: str) -> tuple[bool, str]:
    """(whether the crash is in Tessel's code, a one-line signature). The
    frames nearest the crash decide: the first of Tessel's namespace
    (`mlir::tessel::`) or of a parser (upstream's op parsers, which every
    tool's main calls through Tessel's registration) that the stack meets."""
    ours = True
    for frame in re.findall(r"^ *#\d+ 0x[0-9a-f]+ (.*)$", stderr, re.M):
        if "mlir::tessel::" in frame:
            break
        if "::parse(" in frame or "Parser" in frame:
            ours = False
            break
    assertion = re.search(r"Assertion `(.*?)' failed", stderr)
    frame = re.search(r"#\d+ 0x[0-9a-f]+ (mlir::\S+)", stderr)
    what = assertion.group(1) if assertion else (frame.group(1) if frame else "signal")
    return ours, what[:160]


def run_opt(tool: Path, inputs, runs: int, seed: int, timeout: float,
            keep: Path) -> Report:
    rng = random.Random(seed)
    report = Report()
    with tempfile.TemporaryDirectory() as work:
        for n in range(runs):
            name, text, flags = inputs[rng.randrange(len(inputs))]
            mutant = mutate_ir(text, rng)
            path = Path(work) / f"mutant{n}.mlir"
            path.write_text(mutant)
            variant = rng.randrange(3)
            args = ([] if variant == 0 else flags if variant == 1
                    else ["-tessel-lowering-pipeline"])
            cmd = [str(tool), str(path), *args, "-o", "/dev/null"]
            report.runs += 1
            try:
                done = subprocess.run(cmd, capture_output=True, text=True,
                                      timeout=timeout, errors="replace")
            except subprocess.TimeoutExpired:
                kept = _keep(keep, f"hang{n}.mlir", mutant)
                report.finding("hang", f"{name} -> {kept}", " ".join(args))
                continue
            crashed = done.returncode < 0 or done.returncode > 1 or \
                "Stack dump" in done.stderr or "Assertion" in done.stderr
            if crashed:
                ours, what = crash_signature(done.stderr)
                if not ours:
                    report.outcomes["upstream crash"] += 1
                    if not report.upstream[what]:
                        _keep(keep, f"upstream{n}.mlir", mutant)
                    report.upstream[what] += 1
                    continue
                kept = _keep(keep, f"crash{n}.mlir", mutant)
                report.finding("crash", f"{name} -> {kept} ({' '.join(args)})", what)
            elif done.returncode == 1 and "error:" not in done.stderr:
                kept = _keep(keep, f"silent{n}.mlir", mutant)
                report.finding("silent failure", f"{name} -> {kept} ({' '.join(args)})",
                               done.stderr.strip()[:160] or "no output")
            else:
                report.outcomes["rejected" if done.returncode else "accepted"] += 1
    return report


# ---------------------------------------------------------------------------
# The program loader and the simulator over corrupted programs.
# ---------------------------------------------------------------------------

def sample_program():
    """A two-tile program of every kind of instruction the loader checks
    (transfers, a multicast, a matmul, vector operations, a semaphore),
    built with the runtime's ProgramBuilder: no compiler needed."""
    import numpy as np

    from tessel import arch as arch_model
    from tessel.runtime.builder import ProgramBuilder, dram, sram

    b = ProgramBuilder(arch_model.load("tessel-4x4"))
    x = b.add_buffer("x", "input", (16, 16), "f32")
    w = b.add_buffer("w", "weight", (16, 16), "f32",
                     data=np.arange(256, dtype=np.float32).reshape(16, 16) / 256)
    y = b.add_buffer("y", "output", (16, 16), "f32")
    t = b.tile(0, 0, tokens=2, semaphores=(0,))
    u = b.tile(0, 1, tokens=2)
    t.dma(0, 0, "f32", (256,), dram(x.offset, (1,)), sram(0, (1,)))
    t.dma(1, 1, "f32", (256,), dram(w.offset, (1,)), sram(1024, (1,)))
    t.wait(0, 1)
    t.vector_fill("f32", 0.0, (256,), (2048, (1,)))
    t.matmul("f32", 16, 16, 16, (0, (16, 1)), (1024, (16, 1)), (2048, (16, 1)))
    t.vector_unary("exp", "f32", "f32", (256,), (2048, (1,)), (2048, (1,)))
    t.vector_binary_imm("mul", "f32", 0.5, (256,), (2048, (1,)), (2048, (1,)))
    t.dma(0, 0, "f32", (256,), sram(2048, (1,)), dram(y.offset, (1,)))
    t.wait(0)
    u.signal(0, 0, 0, 1)
    t.wait_semaphore(0, 1)
    return b.build(), {"x": np.linspace(-1, 1, 256, dtype=np.float32).reshape(16, 16)}


def corrupt(directory: Path, rng: random.Random) -> str:
    """One corruption of one file of the program; what it did."""
    files = sorted(p for p in directory.rglob("*") if p.is_file())
    path = rng.choice(files)
    data = bytearray(path.read_bytes())
    rel = path.relative_to(directory)
    kind = rng.randrange(4)
    if not data or kind == 3:
        path.write_bytes(b"")
        return f"{rel} emptied"
    if kind == 2:
        cut = rng.randrange(len(data))
        path.write_bytes(bytes(data[:cut]))
        return f"{rel} cut at {cut}"
    i = rng.randrange(len(data))
    data[i] = data[i] ^ (1 << rng.randrange(8)) if kind == 0 else rng.randrange(256)
    path.write_bytes(bytes(data))
    return f"{rel} byte {i} changed"


def run_program(runs: int, seed: int, keep: Path) -> Report:
    import shutil

    import numpy as np

    from tessel.runtime.program import ProgramError
    from tessel.runtime.loader import load_program
    from tessel.runtime.simulator import DeadlockError, simulate

    rng = random.Random(seed)
    report = Report()
    program, inputs = sample_program()
    want = simulate(program, inputs).outputs
    with tempfile.TemporaryDirectory() as work:
        original = program.save(Path(work) / "original")
        for n in range(runs):
            target = Path(work) / f"p{n}"
            shutil.copytree(original, target)
            sealed = n % 2 == 0
            if not sealed:
                _strip_digests(target)
            what = corrupt(target, rng) + ("" if sealed else " (no digests)")
            report.runs += 1
            try:
                got = simulate(load_program(target), inputs).outputs
            except ProgramError:
                report.outcomes["rejected"] += 1
                shutil.rmtree(target)
                continue
            except DeadlockError:
                if sealed:   # the digests should have stopped it
                    kept = _keep_dir(keep, target, f"deadlock{n}")
                    report.finding("deadlock", f"{what} -> {kept}",
                                   "a sealed program's corruption was not rejected")
                else:
                    report.outcomes["deadlock reported, no digests"] += 1
                    shutil.rmtree(target)
                continue
            except Exception as e:   # a traceback the user would see
                kept = _keep_dir(keep, target, f"traceback{n}")
                report.finding("traceback", f"{what} -> {kept}",
                               f"{type(e).__name__}: {str(e).splitlines()[0][:160]}")
                continue
            if all(np.array_equal(got[k], want[k], equal_nan=True) for k in want):
                report.outcomes["harmless"] += 1
                shutil.rmtree(target)
            elif not sealed:
                report.outcomes["other outputs, no digests"] += 1
                shutil.rmtree(target)
            else:
                kept = _keep_dir(keep, target, f"wrong{n}")
                report.finding("silent wrong answer", f"{what} -> {kept}",
                               "the program ran and computed other outputs")
    return report


# ---------------------------------------------------------------------------
# The files beside a compiled program, through the command line.
# ---------------------------------------------------------------------------

SIDE_FILES = ("compile.json", "reference/inputs.npz", "reference/outputs.npz",
              "run/report.json", "run/outputs.npz")
SIDE_DIRS = ("reference", "run")

# What a JSON value is replaced with: the edges of what the readers must
# reject or take.
JSON_VALUES = ["x", "", -1, 0, 2 ** 31, 1e308, float("nan"), float("inf"), None, True,
               [], {}, [1, 2], {"a": "x"}]


def compiled_program(work: Path) -> Path:
    """mlp compiled for tessel-4x4 and simulated once, through the command
    line: the program with every file beside it."""
    from tessel import cli

    out = work / "compiled"
    for args in (["compile", "mlp", "-a", "tessel-4x4", "-o", str(out), "--mapper",
                  "default"], ["simulate", str(out)]):
        rc, _, err = _cli(cli, [*args, "-q"])
        if rc:
            raise RuntimeError(f"tessel {' '.join(args)} failed: {err.strip()}")
    return out


def _cli(cli, argv: list[str]) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()


def _mutate_json(data: bytes, rng: random.Random) -> bytes | None:
    """One value of the JSON document replaced by an edge value, or one
    member removed; None if ``data`` is not JSON."""
    import json

    try:
        doc = json.loads(data)
    except ValueError:
        return None
    spots = []

    def walk(node):
        items = (node.items() if isinstance(node, dict) else enumerate(node)
                 if isinstance(node, list) else ())
        for key, child in list(items):
            spots.append((node, key))
            walk(child)

    walk(doc)
    if not spots:
        return json.dumps(rng.choice(JSON_VALUES)).encode()
    node, key = rng.choice(spots)
    if isinstance(node, dict) and rng.randrange(4) == 0:
        del node[key]
    else:
        node[key] = rng.choice(JSON_VALUES)
    return json.dumps(doc).encode()


def _mutate_npz(path: Path, rng: random.Random) -> str | None:
    """One array of the .npz renamed, dropped, cut, flattened or cast, or
    an array added; None if ``path`` is not an .npz NumPy reads."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except Exception:
        return None
    name = rng.choice(sorted(arrays)) if arrays else None
    kind = rng.randrange(6) if name else 5
    if kind == 0:
        arrays["zzz"] = arrays.pop(name)
        what = f"{name} renamed"
    elif kind == 1:
        del arrays[name]
        what = f"{name} dropped"
    elif kind == 2:
        arrays[name] = arrays[name][:1]
        what = f"{name} cut to one row"
    elif kind == 3:
        arrays[name] = arrays[name].reshape(-1)
        what = f"{name} flattened"
    elif kind == 4:
        dtype = rng.choice(["float16", "float64", "int64", "int8", "bool", "complex64",
                            "<U3"])
        arrays[name] = arrays[name].astype(dtype)
        what = f"{name} cast to {dtype}"
    else:
        arrays["zzz"] = np.zeros(3, np.float32)
        what = "an array zzz added"
    np.savez(path, **arrays)
    return what


def corrupt_side(directory: Path, rng: random.Random) -> tuple[str, str]:
    """One corruption of one file (or folder) beside the program: (what it
    did, the path it changed, relative to ``directory``)."""
    import shutil

    if rng.randrange(10) == 0:
        rel = rng.choice(SIDE_DIRS)
        path = directory / rel
        shutil.rmtree(path, ignore_errors=True)
        path.write_text("x\n")
        return f"{rel}/ replaced by a file", rel
    rel = rng.choice(SIDE_FILES)
    path = directory / rel
    kind = rng.choice(["byte", "cut", "empty", "directory", "removed", "value", "value",
                       "value"])
    data = path.read_bytes()
    if kind == "value":
        if path.suffix == ".json":
            mutated = _mutate_json(data, rng)
            if mutated is not None:
                path.write_bytes(mutated)
                return f"{rel}: a value changed", rel
        else:
            what = _mutate_npz(path, rng)
            if what:
                return f"{rel}: {what}", rel
        kind = "byte"
    if kind == "directory":
        path.unlink()
        path.mkdir()
        return f"{rel} replaced by a directory", rel
    if kind == "removed":
        path.unlink()
        return f"{rel} removed", rel
    if kind == "empty" or not data:
        path.write_bytes(b"")
        return f"{rel} emptied", rel
    if kind == "cut":
        cut = rng.randrange(len(data))
        path.write_bytes(data[:cut])
        return f"{rel} cut at {cut}", rel
    data = bytearray(data)
    i = rng.randrange(len(data))
    data[i] = data[i] ^ (1 << rng.randrange(8)) if rng.randrange(2) else rng.randrange(256)
    path.write_bytes(bytes(data))
    return f"{rel} byte {i} changed", rel


def run_side_files(runs: int, seed: int, keep: Path) -> Report:
    """``runs`` corruptions of the files beside one compiled program, each
    followed by ``tessel report`` (when the corruption is in run/),
    ``simulate``, ``report`` and ``disasm`` through the command line's
    main, in this process."""
    import shutil

    rng = random.Random(seed)
    report = Report()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        base = compiled_program(work)
        for n in range(runs):
            target = work / f"s{n}"
            shutil.copytree(base, target)
            what, rel = corrupt_side(target, rng)
            report.runs += 1
            outcome, problem = _commands_on(target, rel)
            if problem:
                kept = _keep_dir(keep, target, f"side{n}")
                report.finding(outcome, f"{what} -> {kept}", problem)
                continue
            report.outcomes[outcome] += 1
            shutil.rmtree(target)
    return report


def _commands_on(target: Path, rel: str) -> tuple[str, str | None]:
    """Runs the commands that read ``target``'s changed file ``rel``:
    (the outcome, None), or (a finding's kind, what it was)."""
    from tessel import cli

    commands = (["report"] if rel.startswith("run") else []) + \
        ["simulate", "report", "disasm"]
    rejected = failed_check = simulated = False
    for command in commands:
        argv = [command, str(target)] + (["-q"] if command == "simulate" else [])
        try:
            rc, out, err = _cli(cli, argv)
        except Exception as e:   # a traceback the user would see
            return "traceback", f"tessel {command}: {type(e).__name__}: " \
                f"{_first_line(str(e))}"
        if rc and "error:" not in err:
            return "silent failure", f"tessel {command} exited {rc}: " \
                f"{_first_line(err) or 'no output'}"
        if rc and command == "report" and simulated:
            return "unreadable record", "tessel report cannot read what tessel " \
                f"simulate recorded: {_first_line(err)}"
        if rc and Path(rel).name not in err:
            return "unnamed file", f"tessel {command} does not name {rel}: " \
                f"{_first_line(err)}"
        rejected |= bool(rc)
        simulated = command == "simulate" and rc == 0
        failed_check |= simulated and ": FAIL (" in out
    return ("rejected" if rejected else "check fails" if failed_check
            else "accepted"), None


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:160]


def _strip_digests(directory: Path) -> None:
    import json

    manifest = directory / "manifest.json"
    m = json.loads(manifest.read_text())
    m.pop("sha256", None)
    m.pop("manifest_sha256", None)
    manifest.write_text(json.dumps(m, indent=1))


def _keep(keep: Path, name: str, text: str) -> Path:
    keep.mkdir(parents=True, exist_ok=True)
    (keep / name).write_text(text)
    return keep / name


def _keep_dir(keep: Path, directory: Path, name: str) -> Path:
    import shutil

    keep.mkdir(parents=True, exist_ok=True)
    if (keep / name).exists():
        shutil.rmtree(keep / name)
    shutil.copytree(directory, keep / name)
    return keep / name


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("target", choices=("opt", "program"))
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=20.0,
                        help="seconds a tessel-opt run may take (opt)")
    parser.add_argument("--keep", type=Path, default=Path("fuzz-findings"),
                        help="where reproducers of findings are kept")
    args = parser.parse_args(argv)
    if args.target == "opt":
        from tessel._tools import tool_path

        reports = {"": run_opt(tool_path("tessel-opt"), lit_inputs(), args.runs,
                               args.seed, args.timeout, args.keep)}
    else:
        reports = {"the program: ": run_program(args.runs, args.seed, args.keep),
                   "the files beside it: ": run_side_files(args.runs, args.seed,
                                                           args.keep)}
    for report in reports.values():
        for line in report.findings:
            print(line)
    for label, report in reports.items():
        print(label + report.summary())
    return 1 if any(r.findings for r in reports.values()) else 0

if __name__ == "__main__":
    sys.exit(main())
