# ipcfuzz. `make fuzz` is the main job; `make test` the whole test suite.
NODE_BIN    ?= node
MOCHA       := $(NODE_BIN) node_modules/mocha/bin/mocha.js
FUZZ_SECONDS ?= 60
FUZZ_OUT    ?= findings

.PHONY: test test-harness fuzz properties help

help:
	@echo "make fuzz        fuzz the codecs (FUZZ_SECONDS=$(FUZZ_SECONDS), FUZZ_OUT=$(FUZZ_OUT))"
	@echo "make test        the whole test suite"
	@echo "make properties  property-based differential runs with random seeds"

node_modules/.package-lock.json: package-lock.json
	npm ci

test: node_modules/.package-lock.json
	$(MOCHA) 'test/**/*.test.js'
