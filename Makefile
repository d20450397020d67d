# The two commands of a fresh clone are `make demo` and `make test`; every other target is a
# step of those or a tool for developers. Each target creates and uses .venv by itself.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.installed
# What generating and building need (the project's dependencies, not its test extras): make test
# installs the extras (torch, torch-npu, pytest, ...) while it generates and compiles.
CORE_STAMP := $(VENV)/.core-installed
# The demo's extras (torch, torch-npu), a part of the test extras: make demo installs only these, as
# a fresh clone's build leaves little CPU to spare for the rest (mypy, hypothesis, pytest: ~10 CPU-s).
DEMO_STAMP := $(VENV)/.demo-installed
# --no-compile: pip byte-compiles every module it installs, ~7,600 of them for torch alone (31 of the
# 54 CPU-s of installing torch and torch-npu, measured); Python compiles the few hundred a run
# imports on first use and caches them as usual.
PIP_INSTALL = $(PY) -m pip install --quiet --disable-pip-version-check --no-compile
# One ninja (the venv's) for CMake's runs and ours: two versions rewrite each other's .ninja_log.
CMAKE := $(VENV)/bin/cmake
NINJA := $(abspath $(VENV)/bin/ninja)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD := build/main
DOCS ?= op_docs
# Empty: gen/locations.py finds the shared corpus (ACLNN_CORPUS, else ../shared/corpus).
CORPUS ?=
# torch_npu, which make test installs to run it on the simulator, makes `import torch` load it, and
# its loading needs a CANN toolkit: everything else here uses torch as the CPU golden only. The
# torch_npu tests start their processes with the simulator's set_env.sh environment instead.
export TORCH_DEVICE_BACKEND_AUTOLOAD := 0
# Python caches the bytecode of the modules a run imports (__pycache__, which git ignores), and every
# process of make test after the first reads it: an environment that sets PYTHONDONTWRITEBYTECODE (this
# workplace's machines do) would have each of the processes that import torch and torch_npu compile
# them again from source (import torch: 5.7 CPU-s without a cache, 3.1 with one, measured here).
unexport PYTHONDONTWRITEBYTECODE
# pytest exits 5 when it collects nothing (e.g. a docs directory without simulated ops): not a failure.
PYTEST = $(PY) -m pytest -p no:cacheprovider
define run_pytest
	$(PYTEST) $(1) || { rc=$$?; [ $$rc -eq 5 ] && echo "pytest: no tests collected in $(1)" || exit $$rc; }
endef
# The generated suites, every file once, in two pytest processes at once (each one core): half of the
# files asynchronously on the CPU's widest kernel path, the other half synchronously (ACLNN_SIM_SYNC=1:
# every kernel run in its launching call) on the AVX2 path, the one AVX2-only CPUs take. Running every
# file in both modes cost ~70 CPU-s that make test's 10 minutes on 2 cores do not have; make test-paths
# runs each half in its other mode, and everything on the baseline path. Each half is split by
# sorted position, so an op keeps its mode from run to run (a failure reproduces). No xdist: on
# ~26,000 short tests its per-test traffic costs a third more CPU than the tests. The suites log
# nothing, and pytest's log capture (set up and torn down around every test) cost ~12% of a pass's
# CPU: it is off. Each half's output is shown when both have ended, in build/test-generated-*.log too.
GENERATED_PYTEST = $(PYTEST) -p no:logging
GENERATED_HALF = $$(ls $(1)/test_*.py 2>/dev/null | sort | awk 'NR % 2 == $(2)')
# $(2) and $(3): the halves (by sorted position, odd 1, even 0) run asynchronously and synchronously.
define run_generated_halves
	@mkdir -p build; async_files="$(call GENERATED_HALF,$(1),$(2))"; sync_files="$(call GENERATED_HALF,$(1),$(3))"; \
	echo "generated suites: half asynchronously, half synchronously on the AVX2 path, at once ($(1))"; \
	run() { [ -n "$$1" ] || { echo "pytest: no test files"; return 5; }; shift; $(GENERATED_PYTEST) "$$@"; }; \
	run "$$async_files" $$async_files > build/test-generated-async.log 2>&1 & async=$$!; \
	ACLNN_SIM_SYNC=1 ACLNN_SIM_ISA=avx2 run "$$sync_files" $$sync_files > build/test-generated-sync-avx2.log 2>&1 & sync=$$!; \
	wait $$async; async_rc=$$?; wait $$sync; sync_rc=$$?; failed=0; \
	for half in async:$$async_rc sync-avx2:$$sync_rc; do \
	  name=$${half%:*}; rc=$${half#*:}; echo "--- generated suites, $$name half (exit status $$rc)"; \
	  cat build/test-generated-$$name.log; \
	  case $$rc in 0) ;; 5) echo "pytest: no tests collected in that half of $(1)" ;; *) failed=1 ;; esac; \
	done; exit $$failed
endef

.PHONY: venv generate check-generated package build demo test test-generator test-generated test-paths examples \
        golden corpus bench fuzz asan clean

venv: $(VENV_STAMP)

$(CORE_STAMP): pyproject.toml
	@echo "venv: installing the generator and its dependencies into $(VENV) (pip)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -e .
	@touch $@

$(VENV_STAMP): $(CORE_STAMP)
	$(PIP_INSTALL) -e '.[test]'
	touch $@ $(DEMO_STAMP)

$(DEMO_STAMP): $(CORE_STAMP)
	$(PIP_INSTALL) -e '.[demo]'
	touch $@

# Pages of $(DOCS) -> generated/ (only changed files are written; stale ones are removed). build/cache
# keeps the pages' IR and what the emitters rendered, so a run redoes only what changed.
# GENERATE_LOG=file: the parser's diagnostics about the pages go there, its errors and the count
# of its warnings to the terminal (make demo's and make test's: the warnings, ~330 lines, are the same
# in every clone).
GENERATE = $(PY) -m gen generate $(DOCS) --out generated --jobs $(JOBS) --cache build/cache
generate: $(CORE_STAMP)
ifeq ($(GENERATE_LOG),)
	$(GENERATE)
else
	@echo "generate: the pages of $(DOCS)/ -> generated/ (the parser's warnings about them: $(GENERATE_LOG))"
	@mkdir -p $(dir $(GENERATE_LOG)); $(GENERATE) 2> $(GENERATE_LOG) || { cat $(GENERATE_LOG); exit 1; }
	@grep ': error: ' $(GENERATE_LOG) || true
	@echo "generate: $$(grep -c ': warning: ' $(GENERATE_LOG)) warnings about the pages, in $(GENERATE_LOG)"
endif

# CI's guarantee: the committed generated/ is exactly what the committed pages give.
check-generated: generate
	@git diff --exit-code --stat -- generated/ && test -z "$$(git status --porcelain --untracked-files=all -- generated/)" \
	  || { echo "generated/ differs from what 'make generate' gives: regenerate and commit it"; exit 1; }

# The simulator, the extension aclnn._C (next to generated/aclnn/) and the pages' examples. `package`
# builds the first two only (what `import aclnn` and the simulator's toolkit need): make demo's.
# Ninja's steps are shown one short line each (SHORT_STEPS), its exit status kept through the pipe.
# A .pth makes generated/ importable from the venv: `import aclnn`.
define configure_and_build
	@mkdir -p $(BUILD)
	@echo "build: configuring CMake in $(BUILD) (its output: $(BUILD).configure.log)"
	@$(CMAKE) -S . -B $(BUILD) -G Ninja -DCMAKE_MAKE_PROGRAM=$(NINJA) -DPython_EXECUTABLE=$(abspath $(PY)) \
	  -DCMAKE_BUILD_TYPE=Release > $(BUILD).configure.log 2>&1 || { cat $(BUILD).configure.log; exit 1; }
	@echo "build: compiling $(1), $(JOBS) jobs (a few minutes from a fresh clone on 2 cores)"
	@{ $(NINJA) -C $(BUILD) -j $(JOBS) $(2) 2>&1; echo $$? > $(BUILD).ninja-status; } | $(SHORT_STEPS); \
	  exit "$$(cat $(BUILD).ninja-status)"
	@$(PY) -c "import site, pathlib; pathlib.Path(site.getsitepackages()[0], 'aclnn-generated.pth').write_text('$(abspath generated)\n')"
endef
# "[12/148] Building CXX object runtime/sim/CMakeFiles/aclsim_opapi_core.dir/src/opapi/families/norm.cpp.o"
# becomes "[12/148] compiling runtime/sim/src/opapi/families/norm.cpp" (CMake's ../ is __/ in
# object paths), a link step names what it links; the compiler's messages pass unchanged.
SHORT_STEPS = sed -u -E \
  -e '/^ninja: Entering directory/d' \
  -e 's|^(\[[0-9]+/[0-9]+\]) Building C(XX)? object (.*)/CMakeFiles/[^/]+\.dir/(.*)\.o$$|\1 compiling \3/\4|' \
  -e 's|^(\[[0-9]+/[0-9]+\]) Linking C(XX)? [a-z ]+ (.*)$$|\1 linking \3|' \
  -e 's|^(\[[0-9]+/[0-9]+\] [a-z]+ )$(CURDIR)/|\1|' \
  -e ':collapse' -e 's|^(\[[0-9]+/[0-9]+\] compiling ([^ ]*/)?)[^/ _][^/ ]*/__/|\1|' -e 't collapse'

package: generate
	$(call configure_and_build,the extension and the simulator's libraries only,aclnn_package)

build: generate
	$(call configure_and_build,everything: the extension and the simulator and the pages' examples,)

# The main job: generate, build, call every op of $(DOCS) on the simulator with its page's
# example inputs, print inputs and results; one Llama layer through the bindings, and the same
# layer in plain PyTorch through torch_npu on the simulator (its toolkit's set_env.sh sourced).
# The demo's extras (torch, torch-npu) install while the pages generate and the C++ builds, as for test.
demo: $(CORE_STAMP)
	@echo "demo: the demo's extras (torch, torch-npu) install meanwhile, in the background (build/venv-extras.log)"
	@mkdir -p build; $(MAKE) --no-print-directory $(DEMO_STAMP) > build/venv-extras.log 2>&1 & extras=$$!; \
	$(MAKE) --no-print-directory package GENERATE_LOG=build/generate-warnings.log; built=$$?; \
	echo "demo: waiting for the demo's extras to finish installing"; \
	wait $$extras; installed=$$?; cat build/venv-extras.log; \
	[ $$installed -eq 0 ] && [ $$built -eq 0 ]
	$(PY) -m gen.demo
	$(PY) examples/llama_block.py
	. "$$($(PY) -m aclnn.sim home)/set_env.sh" && $(PY) examples/llama_torch_npu.py

# Everything: the generator's own tests, the generated suites (half on the asynchronous simulator
# with the CPU's widest kernel path, half with every kernel run in its launching call,
# ACLNN_SIM_SYNC=1, on the AVX2 path: the one AVX2-only CPUs take), the pages' examples.
# tests/sim/test_kernel_paths.py compares the baseline, AVX2 and AVX-512 paths with each other.
# The test extras install (mostly unpacking torch, one core) while the generation and the build run.
test: $(CORE_STAMP)
	@mkdir -p build; $(MAKE) --no-print-directory $(VENV_STAMP) > build/venv-extras.log 2>&1 & extras=$$!; \
	$(MAKE) --no-print-directory check-generated build GENERATE_LOG=build/generate-warnings.log; built=$$?; \
	wait $$extras; installed=$$?; cat build/venv-extras.log; \
	[ $$installed -eq 0 ] && [ $$built -eq 0 ]
	$(call run_pytest,-n $(JOBS) tests)
	$(call run_generated_halves,generated/tests,1,0)

# The pages' C++ examples, unmodified, built against the simulator, run and checked against the golden.
examples: build $(VENV_STAMP)
	$(PYTEST) tests/project/test_examples.py

test-generator: build $(VENV_STAMP)
	$(call run_pytest,-n $(JOBS) tests)

test-generated: build $(VENV_STAMP)
	$(call run_pytest,-n $(JOBS) generated/tests)

# What make test leaves out of ACLNN_SIM_ISA's paths and modes (it runs everything on the CPU's
# widest path, and each generated suite once: half of them asynchronously there, half synchronously
# on the AVX2 path): each half of the generated suites in its other mode, the generated suites and the
# family tests on the baseline path, the family tests on the AVX2 path. A tool for a change to a
# kernel with code per path or to the runtime's modes, not part of make test (~2.5 min on 2 cores once
# built: the other halves 59 s, the baseline path 69 s, the family tests on AVX2 17 s).
test-paths: build $(VENV_STAMP)
	$(call run_generated_halves,generated/tests,0,1)
	ACLNN_SIM_ISA=baseline $(call run_pytest,-n $(JOBS) tests/families generated/tests)
	ACLNN_SIM_ISA=avx2 $(call run_pytest,-n $(JOBS) tests/families)

# Rewrites tests/parse/golden/ from the seed pages; review the diff before committing.
golden: $(VENV_STAMP)
	$(PY) -m tests.parse.update_golden

# Every API of a directory of pages (default: the shared corpus): parsed, generated, compiled,
# phase 1 run on the simulator; build/corpus-report.json and build/corpus-report.md.
corpus: $(VENV_STAMP)
	$(PY) -m gen.corpus $(CORPUS) --jobs $(JOBS)

# Generator, build and call-overhead/kernel benchmarks: prints a table, writes bench/results.json.
bench: build $(VENV_STAMP)
	$(PY) -m bench

# The fuzzers with a long budget (make test runs them briefly); figures in build/fuzz/*.json. The
# binding fuzzer calls every API of op_docs' package and, when the shared corpus is there, of the
# corpus build (make corpus, incremental after its first run).
fuzz: build $(VENV_STAMP)
	@if [ -d "$$($(PY) -c 'from gen.locations import shared_corpus; print(shared_corpus())')" ]; then \
	  $(MAKE) corpus; else echo "fuzz: no shared corpus: the corpus build is not fuzzed"; fi
	FUZZ_BUDGET=long $(PYTEST) -n $(JOBS) tests/fuzz/test_fuzz_parser.py tests/fuzz/test_fuzz_bindings.py

# ASan + UBSan build of the simulator and the extension, running the generated suites, the fuzzers,
# the reliability tests and the asynchronous runtime's.
asan: generate $(VENV_STAMP)
	$(PY) -m tests.support.asan

clean:
	rm -rf build generated/aclnn/_C*.so generated/aclnn/_sim
