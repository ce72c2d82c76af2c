#!/bin/bash
# run.sh BUILD_DIR TARGET... - run each libFuzzer harness for FUZZ_TIME seconds.
#
# Each target starts from its committed seed corpus tests/fuzz/corpus/TARGET/
# (read only) and keeps what it finds in BUILD_DIR/corpus/TARGET/, so later
# runs go on from there.  A crash, a leak, an input slower than 10 s, an
# allocation over the malloc limit or an RSS over 2 GB stops the target; its
# input is kept as BUILD_DIR/artifacts/TARGET/crash-* (or leak-, timeout-,
# oom-) and the script fails once every target has run.  Reproduce one with
#   BUILD_DIR/fuzz_TARGET BUILD_DIR/artifacts/TARGET/crash-...
# A crashing input, once fixed, belongs in the seed corpus.
set -uo pipefail
build=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
time=${FUZZ_TIME:-60}

# Allocation failures are returned (the code must cope: nothing may abort on a
# big declared length) and any allocation over 64 MB fails: no input of a few
# KB needs that much, and letting msgpack reserve what a header declares (GBs)
# makes a run 100x slower.  Leaks are reported at the end of each run, UB
# stops the run.
export ASAN_OPTIONS="allocator_may_return_null=1:max_allocation_size_mb=64:detect_leaks=1:abort_on_error=0:symbolize=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# Longest input per target: frames and journals are binary and may be longer.
max_len() {
	case $1 in
	frame | journal) echo 65536 ;;
	conf | jobscript | multiprog) echo 16384 ;;
	*) echo 4096 ;;
	esac
}

failed=()
for t in "$@"; do
	bin=$build/fuzz_$t
	seeds=$here/corpus/$t
	work=$build/corpus/$t
	art=$build/artifacts/$t/
	mkdir -p "$work" "$art" "$seeds"
	echo "== fuzz $t (${time}s)"
	# absolute paths: some harnesses change directory
	"$bin" -max_total_time="$time" -timeout=10 -rss_limit_mb=2560 \
		-malloc_limit_mb=64 -max_len="$(max_len "$t")" \
		-print_final_stats=1 -artifact_prefix="$art" \
		"$work" "$seeds" >"$build/fuzz_$t.log" 2>&1
	rc=$?
	grep -E '^(stat::number_of_executed_runs|stat::new_units_added|stat::peak_rss_mb)' \
		"$build/fuzz_$t.log" | tr '\n' ' '
	echo
	if [ $rc -ne 0 ]; then
		echo "fuzz $t: FAILED (exit $rc); last lines of $build/fuzz_$t.log:" >&2
		tail -n 60 "$build/fuzz_$t.log" | cut -c1-300 >&2
		failed+=("$t")
	fi
done
if [ ${#failed[@]} -ne 0 ]; then
	echo "fuzz: ${#failed[@]} failed: ${failed[*]} (inputs under $build/artifacts/)" >&2
	exit 1
fi
echo "fuzz: $# targets ran ${time}s each, no crash, leak or timeout"
