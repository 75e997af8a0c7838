#!/usr/bin/env bash
# Hunt flaky tests: run a pytest command RUNS times, each in a random order (pytest-randomly, the seed
# printed) with a CPU-bound process pinned beside it, and print every failure with its seed.
# A test that fails only on a busy machine or in some order is a defect of the test or of the code
# (docs/reliability.md, "Flake hunt"). Rerun a failure in its order with the same command and
# `-p randomly --randomly-seed=SEED`.
#
#   scripts/flake_hunt.sh [RUNS] [-- PYTEST ARGS...]
#
# RUNS defaults to 10; PYTEST ARGS default to the README's test command's (-m "not slow" -n 2).
# HOGS=N sets how many CPU-bound processes run beside it (default 1, pinned to the last core);
# OUT=DIR where each run's log and the summary (runs.jsonl) go (default .flake-hunt/).
# Stop it with Ctrl-C or SIGTERM: the run in flight still reports the failures it saw.
# Exits 1 if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=10
if [ $# -gt 0 ] && [ "$1" != "--" ]; then runs=$1; shift; fi
[ "${1:-}" = "--" ] && shift
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(-m "not slow" -n 2)
out=${OUT:-.flake-hunt}
hogs=${HOGS:-1}
mkdir -p "$out"

python -c "import pytest_randomly" 2>/dev/null || { echo "flake_hunt: pytest-randomly is not installed (pip install pytest-randomly)"; exit 2; }

hog_pids=()
run_pid=
cleanup() { kill ${run_pid} "${hog_pids[@]}" 2>/dev/null; }
trap cleanup EXIT
last_cpu=$(( $(nproc) - 1 ))
for _ in $(seq "$hogs"); do
  # bounded: the hog ends itself after 6 hours even if this script is killed with -9
  taskset -c "$last_cpu" timeout 21600 python -c "while True: pass" &
  hog_pids+=($!)
done

# one run's line, its failures with the seed, and its line in runs.jsonl
report_run() {
  local i=$1 seed=$2 status=$3 seconds=$4 log=$5 tail_line failures
  tail_line=$(grep -E "(passed|failed|error)" "$log" | tail -1)
  failures=$(grep -E "^(FAILED|ERROR) " "$log" | sed 's/ - .*//' | sort -u)
  echo "run $i seed $seed exit $status ${seconds}s: $tail_line"
  [ -n "$failures" ] && echo "$failures" | sed "s/^/  seed $seed: /"
  python - "$out/runs.jsonl" "$i" "$seed" "$status" "$seconds" "$tail_line" "$failures" <<'EOF'
import json, subprocess, sys
path, run, seed, status, seconds, summary, failures = sys.argv[1:]
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
load = open("/proc/loadavg").read().split()[:3]
with open(path, "a") as f:
    f.write(json.dumps({"run": int(run), "seed": int(seed), "exit": int(status), "seconds": int(seconds),
                        "summary": summary, "failures": [x for x in failures.splitlines() if x],
                        "commit": commit, "loadavg": load}) + "\n")
EOF
}

# polls (once a second, at most $1 s) for the run in flight to end; true once it has
run_ended_within() {
  for _ in $(seq "$1"); do kill -0 "$run_pid" 2>/dev/null || return 0; sleep 1; done
  ! kill -0 "$run_pid" 2>/dev/null
}

# Stopping the hunt (SIGTERM; SIGINT where the shell could trap it) stops the run in flight as Ctrl-C
# would, so that pytest prints its short summary and the failures seen so far keep their names and
# seed; a run still going 60 s later is killed by the EXIT trap. A terminal's Ctrl-C reaches the run
# itself too: it gets GRACE seconds to end on that one before it is sent its own, so that a second
# SIGINT does not cut its summary short.
stop_hunt() {
  local grace=$1
  trap '' INT TERM
  if [ -n "$run_pid" ]; then
    run_ended_within "$grace" || kill -INT "$run_pid" 2>/dev/null
    if run_ended_within 60; then
      wait "$run_pid"
      status=$?
      run_pid=
      report_run "$i" "$seed" "$status" $(( $(date +%s) - start )) "$log"
    fi
  fi
  echo "flake_hunt: stopped in run ${i:-0} of $runs (logs and runs.jsonl in $out/)"
  exit 130
}
trap 'stop_hunt 10' INT
trap 'stop_hunt 0' TERM

take_ctrl_c='import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])'
failed_runs=0
for i in $(seq "$runs"); do
  seed=$(python -c "import random; print(random.randrange(2**32))")
  log="$out/run-$i-seed-$seed.log"
  start=$(date +%s)
  # in the background, so that a signal to the hunt is handled at once (bash runs traps between commands);
  # a background job of a script inherits SIGINT ignored, so the run takes it again first: its tests'
  # Ctrl-C then behaves as in a run from a terminal or CI's (.ci/run runs it in the foreground)
  python -c "$take_ctrl_c" python -m pytest "${args[@]}" -p randomly --randomly-seed="$seed" -q -rfE >"$log" 2>&1 &
  run_pid=$!
  wait "$run_pid"
  status=$?
  run_pid=
  report_run "$i" "$seed" "$status" $(( $(date +%s) - start )) "$log"
  [ "$status" -ne 0 ] && failed_runs=$((failed_runs + 1))
done
echo "flake_hunt: $runs runs, $failed_runs failed (logs and runs.jsonl in $out/)"
[ "$failed_runs" -eq 0 ]
