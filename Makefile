# ipcfuzz: `make fuzz` is the main job, `make test` the whole test suite.
NODE             ?= node
IPCFUZZ          := $(NODE) bin/ipcfuzz.js
MOCHA            := $(NODE) node_modules/mocha/bin/mocha.js
FUZZ_SECONDS     ?= 120
FUZZ_OUT         ?= findings
PROPERTY_SECONDS ?= 300
A                ?= js
B                ?= native
NODE_UNDER_TEST  ?= 26.10.0

.PHONY: help install test test-harness test-properties test-fuzzers fuzz properties corpus corpus-merge mutant-hunt

help:
	@echo "make fuzz          fuzz js against native with both engines (FUZZ_SECONDS=$(FUZZ_SECONDS), FUZZ_OUT=$(FUZZ_OUT))"
	@echo "make test          the whole test suite"
	@echo "make properties    the differential properties with random seeds (PROPERTY_SECONDS=$(PROPERTY_SECONDS))"
	@echo "make corpus        regenerate the seed corpora and dictionaries"
	@echo "make corpus-merge  merge the grown working corpora into corpus/, minimized"
	@echo "make mutant-hunt   time the Jazzer.js targets to find each mutant adapter"

install: node_modules/.package-lock.json

node_modules/.package-lock.json: package.json package-lock.json
	npm ci

test: install test-harness test-properties test-fuzzers

test-harness:
	$(MOCHA) 'test/**/*.test.js'

test-properties:
	$(MOCHA) 'properties/**/*.test.js'

test-fuzzers:
	$(MOCHA) 'fuzzers/**/*.test.js'

fuzz: install
	$(IPCFUZZ) fuzz --engine all --seconds $(FUZZ_SECONDS) --out $(FUZZ_OUT) \
	  --a $(A) --b $(B) --node $(NODE_UNDER_TEST)

properties: install
	$(IPCFUZZ) fuzz --engine fast-check --seconds $(PROPERTY_SECONDS) --out $(FUZZ_OUT) \
	  --a $(A) --b $(B) --node $(NODE_UNDER_TEST)

corpus: install
	$(NODE) scripts/make-corpus.js

corpus-merge: install
	$(NODE) scripts/corpus-merge.js --node $(NODE_UNDER_TEST)

mutant-hunt: install
	$(NODE) scripts/mutant-hunt.js --seconds 60
