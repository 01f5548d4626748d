# Tessel's entry points. On a fresh machine `make demo` and `make test` do all
# the set-up themselves: a virtual environment with pinned packages, the C++
# build (incremental, ccache'd) and a development install of the package.

PYTHON ?= python3
VENV   := .venv
BUILD  := build
JOBS   ?= $(shell nproc)
# pytest workers: one per core, at most 4 (each holds PyTorch, torch-mlir and
# the frameworks: about 3 GiB).
TEST_JOBS ?= $(shell n=$$(nproc); echo $$(( n < 4 ? n : 4 )))

VPY    := $(VENV)/bin/python
VBIN   := $(abspath $(VENV)/bin)
STAMP  := $(VENV)/.requirements-installed

# The build's own tools come from the venv (cmake, ninja, ccache, lit).
export PATH := $(VBIN):$(PATH)

.PHONY: setup build test lit pytest demo docs fuzz clean

setup: build
	@$(VPY) utils/dev_install.py --build-dir $(BUILD)

$(VPY):
	$(PYTHON) -m venv $(VENV)

# Reinstalled only when the pins change.
$(STAMP): requirements.txt constraints.txt | $(VPY)
	$(VPY) -m pip install --quiet --disable-pip-version-check \
	    -r requirements.txt -c constraints.txt
	@touch $@

$(BUILD)/build.ninja: | $(STAMP)
	cmake -G Ninja -S . -B $(BUILD) \
	    -DCMAKE_BUILD_TYPE=Release \
	    -DPython3_EXECUTABLE=$(abspath $(VPY)) \
	    -DCMAKE_C_COMPILER_LAUNCHER=ccache \
	    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache

# ninja re-runs cmake itself when a CMakeLists.txt changes.
build: $(STAMP) $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

test: setup
	$(MAKE) --no-print-directory lit pytest

lit:
	lit -sv $(BUILD)/test

pytest:
	$(VPY) -m pytest -q -n $(TEST_JOBS) --dist worksteal --durations=15 tests

# A small transformer block from PyTorch to a checked simulation, with the
# report, the trace and the plots (examples/demo.py).
demo: setup
	@$(VPY) examples/foundation_demo.py
	@$(VPY) examples/demo.py

# The long fuzzing run (docs/fuzzing.md); `make test` runs a short one.
fuzz: setup
	$(VPY) tools/fuzz/fuzz.py opt --runs 10000 --seed 1
	$(VPY) tools/fuzz/fuzz.py program --runs 1000 --seed 1

# Regenerates the dialect and pass reference committed under docs/generated.
docs: build
	cmake --build $(BUILD) --target mlir-doc
	@mkdir -p docs/generated
	cp $(BUILD)/docs/Dialects/TesselDialect.md docs/generated/TesselDialect.md
	cp $(BUILD)/docs/Passes/TesselPasses.md docs/generated/TesselPasses.md

clean:
	rm -rf $(BUILD)
