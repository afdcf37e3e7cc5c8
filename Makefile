# floe's entry points. `make` builds, `make demo` runs the demo on the
# embedded defaults and a local Kafka broker, `make test` runs the whole suite. Each installs what it
# needs first (scripts/install-deps.sh, scripts/setup-venv.sh) and is quick
# when everything is already there.

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
VENV       := $(BUILD)/venv
PY         := $(VENV)/bin/python
FUZZ_SECONDS ?= 20
CMAKE_FLAGS ?=

.PHONY: all build deps venv demo test unit unit-asan interop fuzz fuzz-long bench bench-quick bench-iceberg bench-iceberg-quick bench-tpch bench-nexmark clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS) >/dev/null
	@ninja -C $(BUILD)

venv: deps
	@scripts/setup-venv.sh $(VENV)

# The batch demo (floe demo), then the streaming one: a Kafka broker, Nexmark
# bids, floe run into a windowed Iceberg table (scripts/demo-stream.sh).
DEMO_SECONDS ?= 20

demo: build
	@$(BUILD)/floe demo --dir $(BUILD)/demo
	@scripts/demo-stream.sh --floe $(BUILD)/floe --dir $(BUILD)/demo/stream --seconds $(DEMO_SECONDS)

unit: build
	@cd $(BUILD) && ctest --output-on-failure

unit-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -G Ninja -DFLOE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS) >/dev/null
	@ninja -C $(ASAN_BUILD)
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure

interop: build venv
	@scripts/run-pytest.sh $(PY) tests/interop

fuzz: deps
	@cmake -S . -B $(FUZZ_BUILD) -G Ninja -DFLOE_FUZZ=ON -DCMAKE_C_COMPILER=clang-14 >/dev/null
	@ninja -C $(FUZZ_BUILD)
	@scripts/run-fuzzers.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

fuzz-long:
	@$(MAKE) fuzz FUZZ_SECONDS=600

test: build venv
	@$(MAKE) --no-print-directory unit unit-asan interop fuzz

# Not part of `make test`: the full run takes minutes and several GB of disk.
# Extra driver options: make bench BENCH_ARGS='--repeat 3'.
BENCH_ARGS ?=

bench: build venv
	@$(PY) bench/parquet_bench.py --floe $(BUILD)/floe $(BENCH_ARGS)

# floe beside PyIceberg on Iceberg tables (appends, commit latency, planning, scans).
bench-iceberg: build venv
	@$(PY) bench/iceberg_bench.py --build $(BUILD) $(BENCH_ARGS)

bench-iceberg-quick: build venv
	@$(PY) bench/iceberg_bench.py --build $(BUILD) --quick $(BENCH_ARGS)

bench-quick: build venv
	@$(PY) bench/parquet_bench.py --floe $(BUILD)/floe --quick $(BENCH_ARGS)

# The 22 TPC-H queries, floe beside DuckDB at SF1 (data generated once under
# build/tpch/), at one thread and all cores, plus a join under a memory
# limit that must spill. Options: make bench-tpch BENCH_ARGS='--runs 5 --sf 10'.
bench-tpch: build venv
	@$(PY) bench/tpch_bench.py --floe $(BUILD)/floe $(BENCH_ARGS)

# Nexmark streaming jobs: floe beside Apache Flink (MiniCluster) over a real
# Kafka broker, into Iceberg tables; minutes. Options:
# make bench-nexmark BENCH_ARGS='--events 500000 --queries q0,q5 --no-freshness'.
bench-nexmark: build venv
	@$(PY) bench/nexmark_bench.py --floe $(BUILD)/floe $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
