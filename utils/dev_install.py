"""Makes the build tree the venv's `tessel`: a development install.

CMake assembles the whole package (pure-Python sources symlinked, extensions
built) under <build>/python_packages/tessel. A .pth file puts that directory on
the venv's sys.path, tessel-opt and tessel-translate are linked into the
venv's bin/ and a `tessel` launcher written there (what `pip install .` makes
from [project.scripts]), so edits to Python sources take effect at once and
C++ edits after `make build`.
"""

import argparse
import os
import sys
import sysconfig
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-dir", type=Path, required=True)
    args = parser.parse_args()

    build = args.build_dir.resolve()
    packages = build / "python_packages"
    tools = [build / "bin" / name for name in ("tessel-opt", "tessel-translate")]
    for path in (packages / "tessel" / "__init__.py", *tools):
        if not path.exists():
            print(f"error: {path} is missing; run `make build` first",
                  file=sys.stderr)
            return 1

    site = Path(sysconfig.get_paths()["purelib"])
    pth = site / "tessel-dev.pth"
    if not pth.exists() or pth.read_text().strip() != str(packages):
        pth.write_text(f"{packages}\n")

    bin_dir = Path(sys.prefix) / "bin"
    launcher = bin_dir / "tessel"
    script = (f"#!{sys.executable}\n"
              "import sys\nfrom tessel.cli import main\nsys.exit(main())\n")
    if not launcher.exists() or launcher.read_text() != script:
        launcher.write_text(script)
        launcher.chmod(0o755)

    for tool in tools:
        link = bin_dir / tool.name
        if link.is_symlink() or link.exists():
            if link.resolve() == tool:
                continue
            link.unlink()
        os.symlink(tool, link)
    return 0


if __name__ == "__main__":
    sys.exit(main())
