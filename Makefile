# ipcfuzz: `make fuzz` is the main job, `make test` the whole test suite.
HOST_NODE        ?= node
IPCFUZZ          := $(HOST_NODE) bin/ipcfuzz.js
MOCHA            := $(HOST_NODE) node_modules/mocha/bin/mocha.js
FUZZ_SECONDS     ?= 300
FUZZ_OUT         ?= findings
PROPERTY_SECONDS ?= 300
A                ?= js
B                ?= native
# Empty: ipcfuzz's own default, the newest pinned release (harness/binaries.js).
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

.PHONY: lint test-cli bench bench-checks test-bench test-conformance conformance nodes native fuzz-native help install test test-harness test-properties test-fuzzers fuzz properties corpus corpus-merge mutant-hunt gate oss-fuzz-check

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

install: node_modules/.package-lock.json harness/forkserver/build/forkserver.node

node_modules/.package-lock.json: package.json package-lock.json
	npm ci

# Without cc it is not made, and the synchronous workers start as new node processes.
harness/forkserver/build/forkserver.node: harness/forkserver/forkserver.c node_modules/.package-lock.json
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

# The C model's fuzzers first (a notice and no failure without clang-16),
# then both engines on the codecs; the worst exit status wins.
fuzz: install
	@native=0; NATIVE_FUZZ_SECONDS=$(NATIVE_FUZZ_SECONDS) FUZZ_OUT=$(FUZZ_OUT) scripts/fuzz-native.sh || native=$$?; \
	$(IPCFUZZ) fuzz --engine all --seconds $(FUZZ_SECONDS) --out $(FUZZ_OUT) \
	  --a $(A) --b $(B) $(NODE_FLAG) || exit $$?; exit $$native

properties: install
	$(IPCFUZZ) fuzz --engine fast-check --seconds $(PROPERTY_SECONDS) --out $(FUZZ_OUT) \
	  --a $(A) --b $(B) $(NODE_FLAG)

corpus: install
	$(HOST_NODE) scripts/make-corpus.js

corpus-merge: install
	$(HOST_NODE) scripts/corpus-merge.js $(NODE_FLAG)

mutant-hunt: install
	$(HOST_NODE) scripts/mutant-hunt.js --seconds 60

gate: install
	$(IPCFUZZ) gate $(NODE_FLAG) $(if $(BASE_NODE),--base-node $(BASE_NODE)) --a $(A) --b $(B) \
	  --budget $(GATE_BUDGET) --out $(GATE_OUT)

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
