# ipcfuzz: `make fuzz` is the main job, `make test` the whole test suite.
NODE             ?= node
IPCFUZZ          := $(NODE) bin/ipcfuzz.js
MOCHA            := $(NODE) node_modules/mocha/bin/mocha.js
FUZZ_SECONDS     ?= 60
FUZZ_OUT         ?= findings
PROPERTY_SECONDS ?= 300
A                ?= js
B                ?= native
NODE_UNDER_TEST  ?= 26.10.0

.PHONY: help install test test-harness test-properties fuzz properties

help:
	@echo "make fuzz        fuzz js against native (FUZZ_SECONDS=$(FUZZ_SECONDS), FUZZ_OUT=$(FUZZ_OUT))"
	@echo "make test        the whole test suite"
	@echo "make properties  the differential properties with random seeds (PROPERTY_SECONDS=$(PROPERTY_SECONDS))"

install: node_modules/.package-lock.json

node_modules/.package-lock.json: package.json package-lock.json
	npm ci

test: install test-harness test-properties

test-harness:
	$(MOCHA) 'test/**/*.test.js'

test-properties:
	$(MOCHA) 'properties/**/*.test.js'

fuzz: install
	$(IPCFUZZ) fuzz --engine fast-check --seconds $(FUZZ_SECONDS) --out $(FUZZ_OUT) \
	  --a $(A) --b $(B) --node $(NODE_UNDER_TEST)

properties: install
	$(IPCFUZZ) fuzz --engine fast-check --seconds $(PROPERTY_SECONDS) --out $(FUZZ_OUT) \
	  --a $(A) --b $(B) --node $(NODE_UNDER_TEST)
