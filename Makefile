# Front end for newcomers: `make demo` and `make check` do everything,
# installing missing Debian packages first when run as root.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
PORTABLE_BUILD ?= build-portable
MESON ?= meson

.PHONY: all build demo check check-suites check-kill check-gvisor check-valgrind check-asan check-portable fuzz bench bench-peers bench-doc security-table install clean deps deps-check

all: build

deps:
	@scripts/ensure-deps.sh build

deps-check:
	@scripts/ensure-deps.sh check

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD)

build: deps $(BUILD)/build.ninja
	$(MESON) compile -C $(BUILD)

# The main job: confine a command in a temporary workspace, show a permitted
# write, a denied one, and the ladder's verdict.
demo: build
	@scripts/demo.sh $(BUILD)

# Every leg, each run even when one before it failed (scripts/check-all.sh),
# then one PASS/FAIL line per leg; fails if any leg failed. The legs: every
# test suite (check-suites); the unit suite again under valgrind and under
# ASan and UBSan; the spawn paths macOS compiles (check-portable); a short
# run of each fuzzer (clang's libFuzzer). Each is also a target of its own.
check: deps-check
	@BUILD='$(BUILD)' PORTABLE_BUILD='$(PORTABLE_BUILD)' scripts/check-all.sh '$(MAKE)'

# Every Meson test suite of the main build, then what they counted: every
# case of the case tables (TAP: passed, failed, known-open, skipped), the
# suites' wall time and the slowest tests against their timeouts
# (scripts/test-counts.py). The status is meson's.
# TIMEOUT_MULTIPLIER (meson test -t) stretches every test's timeout on a
# machine busier than the ones they were measured on; the tests that hold a
# wide wall-time bound read it as CONFINE_TEST_TIMEOUT_MULTIPLIER.
TIMEOUT_MULTIPLIER ?= 1
check-suites: $(BUILD)/build.ninja
	$(MESON) compile -C $(BUILD)
	@status=0; CONFINE_TEST_TIMEOUT_MULTIPLIER=$(TIMEOUT_MULTIPLIER) \
		$(MESON) test -C $(BUILD) --no-suite escape-gvisor --print-errorlogs \
		-t $(TIMEOUT_MULTIPLIER) || status=$$?; \
	python3 scripts/test-counts.py $(BUILD); exit $$status

# The escape table on the gVisor rung, root and a created user (about 50
# minutes on 2 cores: not part of `make check`, whose gVisor world tests
# run there).
check-gvisor: $(BUILD)/build.ninja
	$(MESON) compile -C $(BUILD)
	@status=0; $(MESON) test -C $(BUILD) --suite escape-gvisor --print-errorlogs \
		-t $(TIMEOUT_MULTIPLIER) || status=$$?; \
	python3 scripts/test-counts.py $(BUILD); exit $$status

# The whole kill matrix: 20 rounds of each kill (`make check` runs 3), its
# timeout stretched to match (tests/e2e/cli/kill_matrix.py).
KILL_ROUNDS ?= 20
check-kill: $(BUILD)/build.ninja
	$(MESON) compile -C $(BUILD)
	@status=0; CONFINE_KILL_ROUNDS=$(KILL_ROUNDS) $(MESON) test -C $(BUILD) --suite kill-matrix \
		--print-errorlogs -t 5 || status=$$?; \
	python3 scripts/test-counts.py $(BUILD); exit $$status

# The unit suite again under valgrind's memcheck.
check-valgrind: $(BUILD)/build.ninja
	scripts/valgrind-unit.sh $(BUILD)

$(ASAN_BUILD)/build.ninja:
	$(MESON) setup $(ASAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false -Dbench=false

check-asan: $(ASAN_BUILD)/build.ninja
	$(MESON) compile -C $(ASAN_BUILD)
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	ASAN_OPTIONS=detect_leaks=1 \
	$(MESON) test -C $(ASAN_BUILD) --suite unit --print-errorlogs

# The suites that exercise spawning again in a build with each Linux-only
# fast path turned off (-Dportable=true: fork instead of clone, no pidfd,
# close_range, pipe2, sigtimedwait, openat2 or memfd): the spawn code macOS
# compiles, run here. What differs in that build is the library's spawn,
# wait and cleanup paths, the provider's path checks and the CLI's
# supervision (config.h's HAVE_*); the launcher is the same binary. So it
# runs unit, launcher, supervisor, faults, consumer, provider, limits, the
# kill matrix and every cli test (each spawns through those paths), and
# leaves out the suites that run no spawn of their own or only add what the
# main build already proved with the same code: the escape tables, install,
# python, node (the packages' own code does not change), stage, export and
# gvisor (their code is the same; they spawn through `confine run`, which
# the cli tests cover here), bench (timings, no verdict), online (the
# network), lint, doc and golden (source checks). README "Running the
# suites" lists the legs.
PORTABLE_NO_SUITES ?= escape escape-gvisor install python node stage export gvisor bench online lint doc golden
$(PORTABLE_BUILD)/build.ninja:
	$(MESON) setup $(PORTABLE_BUILD) -Dportable=true -Dbench=false

check-portable: $(PORTABLE_BUILD)/build.ninja
	$(MESON) compile -C $(PORTABLE_BUILD)
	@status=0; CONFINE_TEST_TIMEOUT_MULTIPLIER=$(TIMEOUT_MULTIPLIER) \
		$(MESON) test -C $(PORTABLE_BUILD) $(addprefix --no-suite ,$(PORTABLE_NO_SUITES)) \
		--print-errorlogs -t $(TIMEOUT_MULTIPLIER) || status=$$?; \
	python3 scripts/test-counts.py $(PORTABLE_BUILD); exit $$status

$(FUZZ_BUILD)/build.ninja:
	CC=clang $(MESON) setup $(FUZZ_BUILD) -Db_sanitize=address,undefined -Db_lundef=false -Dbench=false

fuzz: $(FUZZ_BUILD)/build.ninja
	$(MESON) compile -C $(FUZZ_BUILD)
	$(MESON) test -C $(FUZZ_BUILD) --suite fuzz --print-errorlogs

bench: build
	$(BUILD)/bench/confine-bench

# doc/BENCHMARKS.md's figures block, rewritten from a run of the bench
# (scripts/bench-doc.py: the date, commit, host and load in its header).
# BENCH_ARGS goes to confine-bench; BENCH_NOTE='...' adds a note to the
# header (say, that the machine was shared with other work).
BENCH_ARGS ?=
bench-doc: build
	python3 scripts/bench-doc.py doc/BENCHMARKS.md -- $(BUILD)/bench/confine-bench $(BENCH_ARGS)

# doc/SECURITY.md's results tables, written from the escape tables' rows
# (tests/escape/security-table.py; the test `security table` fails when they
# disagree). The last `meson test escape` run's reports, when there are
# any, are checked against the rows first and their counts go in the header
# (one per split test of tests/e2e/escape/meson.build: path, user, alone).
SECURITY_REPORT ?= $(sort $(wildcard $(BUILD)/tests/e2e/escape/escape-results-*.tsv))
SECURITY_DAEMONS_REPORT ?= $(BUILD)/tests/e2e/escape/escape-daemons-results.tsv
security-table:
	python3 tests/escape/security-table.py write doc/SECURITY.md \
		$(addprefix --report ,$(SECURITY_REPORT)) \
		$(if $(wildcard $(SECURITY_DAEMONS_REPORT)),--daemons-report $(SECURITY_DAEMONS_REPORT))

# confine beside OpenAI Codex's and Anthropic's sandboxes (installed from npm
# into $$HOME/.cache/confine-peers, or $$CONFINE_PEERS_CACHE), timed
# interleaved; not part of `make check`. PEERS_ARGS goes to bench/peers.py,
# e.g. make bench-peers PEERS_ARGS='--rounds 200'.
bench-peers: build
	bench/peers.sh --build $(BUILD) -- $(PEERS_ARGS)

# Installs build/ into its prefix (/usr/local unless configured otherwise).
# make install PREFIX=DIR reconfigures build/ for DIR first (meson setup
# would leave an existing build/ as it is), and build/ keeps that prefix.
# Where python3 does not read the directory the Python package went to, it
# ends with the PYTHONPATH line to run.
PREFIX ?=
install: deps $(BUILD)/build.ninja
ifneq ($(strip $(PREFIX)),)
	$(MESON) configure $(BUILD) --prefix=$(abspath $(PREFIX))
endif
	$(MESON) compile -C $(BUILD)
	$(MESON) install -C $(BUILD)
	@if command -v python3 >/dev/null; then python3 bindings/python/site_dir.py hint '$(MESON)' $(BUILD); fi

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(PORTABLE_BUILD)
