# ipcfuzz: `make fuzz` is the main job, `make test` the whole test suite.
HOST_NODE        ?= node
IPCFUZZ          := $(HOST_NODE) bin/ipcfuzz.js
MOCHA            := $(HOST_NODE) node_modules/mocha/bin/mocha.js
FUZZ_SECONDS     ?= 300
FUZZ_OUT         ?= findings
PROPERTY_SECONDS ?= 300
A                ?= js
B                ?= native
# Empty: ipcfuzz's own default, the newest pinned release (harness/base/binaries.js).
NODE             ?=
BASE_NODE        ?=
GATE_BUDGET      ?= 240
GATE_OUT         ?= gate-out
NATIVE_FUZZ_SECONDS ?= 30
CONFORMANCE_NODES ?=
CONFORMANCE_OUT   ?= .ipcfuzz/conformance
VERSIONS          ?=
BENCH_OUT         ?= bench/results
BENCH_MINUTES     ?= 40
NODE_FLAG         := $(if $(NODE),--node $(NODE))

# .fuzz-run, .properties-run, .gate-run: the runs behind fuzz, properties and gate.
.PHONY: .fuzz-run .properties-run .gate-run lint test-cli bench bench-checks test-bench test-conformance conformance nodes native fuzz-native help install test test-harness test-properties test-fuzzers fuzz properties corpus corpus-merge mutant-hunt gate oss-fuzz-check

help:
	@echo "make fuzz          fuzz js against native with both engines (FUZZ_SECONDS=$(FUZZ_SECONDS), FUZZ_OUT=$(FUZZ_OUT))"
	@echo "make test          the whole test suite, after make lint"
	@echo "make lint          ESLint over the tree (eslint.config.js)"
	@echo "make properties    the differential properties with random seeds (PROPERTY_SECONDS=$(PROPERTY_SECONDS))"
	@echo "make corpus        regenerate the seed corpora and dictionaries"
	@echo "make corpus-merge  merge the grown working corpora into corpus/, minimized"
	@echo "make mutant-hunt   time the Jazzer.js targets to find each mutant adapter"
	@echo "make conformance   vectors and child_process.fork cases on every binary (CONFORMANCE_NODES=pinned, CONFORMANCE_OUT=$(CONFORMANCE_OUT))"
	@echo "make nodes         install more Node binaries into .ipcfuzz/nodes (VERSIONS=\"22 24.19.0\": a line is its newest release)"
	@echo "make bench         fuzzing throughput, time to find the mutants, the codec and transport tables, done within BENCH_MINUTES=$(BENCH_MINUTES) (BENCH_OUT=$(BENCH_OUT))"
	@echo "make bench-checks  the cost of one check with both codecs in-process (CHECK_COST_FLAGS=--cpu-prof)"
	@echo "make gate          the CI gate for a build (NODE=path|version, BASE_NODE=, GATE_BUDGET=$(GATE_BUDGET))"
	@echo "make oss-fuzz-check  build the OSS-Fuzz targets and check them by the platform's rules (OSS_FUZZ_CHECK_SECONDS=20)"

install: node_modules/.package-lock.json harness/run/forkserver/build/forkserver.node

node_modules/.package-lock.json: package.json package-lock.json
	npm ci

# Without cc it is not made, and the synchronous workers start as new node processes.
harness/run/forkserver/build/forkserver.node: harness/run/forkserver/forkserver.c node_modules/.package-lock.json
	@scripts/build-native.sh forkserver

# Lint first: a style or layering error fails before the long suites start.
test: install lint native test-harness test-cli test-properties test-fuzzers test-conformance test-bench

lint: install
	$(HOST_NODE) node_modules/eslint/bin/eslint.js .

# The suites live in test/, one folder per concern (docs/tests.md).
test-harness:
	$(MOCHA) 'test/harness/**/*.test.js'

test-cli:
	$(MOCHA) 'test/cli/**/*.test.js'

test-properties:
	$(MOCHA) 'test/properties/**/*.test.js'

test-fuzzers:
	$(MOCHA) 'test/fuzzers/**/*.test.js'

test-conformance:
	$(MOCHA) test/conformance/vectors.test.js

test-bench:
	$(MOCHA) 'test/bench/**/*.test.js'

# fuzz, properties and gate end in one line that says ipcfuzz's status and
# what it means. GNU make ends any failed recipe with exit 2 and a line of its
# own ("make: *** [...] Error 1") whatever the status, and has no exit status
# but 0 and 2 for a goal (1 only under -q): so each runs ipcfuzz in a step of
# its own (.GOAL-run) that records the status, and the goal says it, with
# $(info) when it is 0 and $(error) otherwise, which is make's exit 2. CI that
# tells 1 from 2 and 3 runs npx ipcfuzz itself.
STATUS_DIR        := .ipcfuzz/make
said-0            := no new differences
said-1-fuzz       := new differences or a crash of the C model, listed above
said-1-properties := new differences, listed above
said-1-gate        = the gate fails: new differences or stale known entries, in $(GATE_OUT)/summary.md
said-2            := a usage or environment error, named above
said-3            := an internal error of ipcfuzz, above
# A recipe's end: `status` recorded for the goal named, by this make (the
# recipe's shell's parent), apart from any other make run in the tree.
MAKE_PID          := $(shell echo $$PPID)
record = mkdir -p $(STATUS_DIR) && echo "$$status" > $(STATUS_DIR)/$(1).$$PPID
# The status the goal's run recorded, in one line (nothing under make -n).
said = $(if $(findstring n,$(firstword -$(MAKEFLAGS))),,$(eval said-status := $(strip \
  $(file <$(STATUS_DIR)/$(1).$(MAKE_PID))))$(shell rm -f $(STATUS_DIR)/$(1).$(MAKE_PID))$(if $(filter 0,$(said-status)), \
  $(info ipcfuzz $(1): $(said-0): exit 0), \
  $(error ipcfuzz $(1): $(or $(said-$(said-status)-$(1)),$(said-$(said-status)),no status recorded): \
  exit $(or $(said-status),unknown))))

# The C model's fuzzers first (a notice and no failure without clang-16; none
# with NATIVE_FUZZ_SECONDS=0), then both engines on the codecs; ipcfuzz's
# status, unless it is 0, wins over theirs.
fuzz: .fuzz-run
	@:$(call said,fuzz)
.fuzz-run: install
	@native=0; [ "$(NATIVE_FUZZ_SECONDS)" = 0 ] || NATIVE_FUZZ_SECONDS=$(NATIVE_FUZZ_SECONDS) FUZZ_OUT=$(FUZZ_OUT) \
	  scripts/fuzz-native.sh || native=$$?; \
	status=0; $(IPCFUZZ) fuzz --engine all --seconds $(FUZZ_SECONDS) --out $(FUZZ_OUT) \
	  --a $(A) --b $(B) $(NODE_FLAG) || status=$$?; [ "$$status" != 0 ] || status=$$native; $(call record,fuzz)

properties: .properties-run
	@:$(call said,properties)
.properties-run: install
	@status=0; $(IPCFUZZ) fuzz --engine fast-check --seconds $(PROPERTY_SECONDS) --out $(FUZZ_OUT) \
	  --a $(A) --b $(B) $(NODE_FLAG) || status=$$?; $(call record,properties)

corpus: install
	$(HOST_NODE) scripts/make-corpus.js

corpus-merge: install
	$(HOST_NODE) scripts/corpus-merge.js $(NODE_FLAG)

mutant-hunt: install
	$(HOST_NODE) scripts/mutant-hunt.js --seconds 60

gate: .gate-run
	@:$(call said,gate)
.gate-run: install
	@status=0; $(IPCFUZZ) gate $(NODE_FLAG) $(if $(BASE_NODE),--base-node $(BASE_NODE)) --a $(A) --b $(B) \
	  --budget $(GATE_BUDGET) --out $(GATE_OUT) || status=$$?; $(call record,gate)

oss-fuzz-check: install
	bash scripts/oss-fuzz-check.sh

native: install
	scripts/build-native.sh all

fuzz-native: native
	NATIVE_FUZZ_SECONDS=$(NATIVE_FUZZ_SECONDS) FUZZ_OUT=$(FUZZ_OUT) scripts/fuzz-native.sh

conformance: install
	$(if $(CONFORMANCE_NODES),$(IPCFUZZ) node add $(CONFORMANCE_NODES))
	$(MOCHA) test/conformance/e2e.test.js
	$(IPCFUZZ) conformance $(addprefix --node ,$(CONFORMANCE_NODES)) --report $(CONFORMANCE_OUT)

nodes: install
	$(IPCFUZZ) node add $(VERSIONS)

# Each stage is given what remains of BENCH_MINUTES; one that cannot finish is cut (bench/deadline.js).
bench: install
	$(HOST_NODE) bench/run.js --out $(BENCH_OUT) --minutes $(BENCH_MINUTES)

# The cost of one check with both codecs in-process (CHECK_COST_FLAGS=--cpu-prof for where the time goes).
bench-checks: install
	$(HOST_NODE) bench/check-cost.js $(CHECK_COST_FLAGS)
