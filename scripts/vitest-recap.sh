# Sourced by scripts/test-unit.sh and scripts/test-core.sh (bash). `logged LABEL COMMAND…` runs a vitest
# command with its output shown and kept, and fails when it does; `recap` then prints again, after all
# runs, what vitest said of each run that failed: its "Failed Tests" / "Failed Suites" / "Unhandled
# Errors" part through its summary (or, when vitest printed none, the run's last lines), so the end of a
# CI log names the failure even when later runs printed pages after it. At most 200 lines per run.
recap_logs=$(mktemp -d)
trap 'rm -rf "$recap_logs"' EXIT
recap_runs=0
recap_labels=() # of the runs that failed, and their logs
recap_files=()

logged() { # LABEL COMMAND…
  local label=$1 log
  shift
  recap_runs=$((recap_runs + 1))
  log="$recap_logs/run-$recap_runs.log"
  "$@" 2>&1 | tee "$log" && return 0
  recap_labels+=("$label")
  recap_files+=("$log")
  return 1
}

recap() {
  local i plain part
  for i in "${!recap_files[@]}"; do
    echo "== failed: ${recap_labels[$i]}"
    plain=$(sed 's/\x1b\[[0-9;]*m//g' "${recap_files[$i]}")
    part=$(printf '%s\n' "$plain" | awk '/⎯/ && /(Failed Tests|Failed Suites|Unhandled Errors?)/ { on = 1 } on')
    [ -n "$part" ] || part=$(printf '%s\n' "$plain" | tail -n 40)
    if [ "$(printf '%s\n' "$part" | wc -l)" -le 200 ]; then
      printf '%s\n' "$part"
    else
      printf '%s\n' "$part" | head -n 180
      echo "[… cut: the whole output is above …]"
      printf '%s\n' "$part" | tail -n 8
    fi
  done
}
