#!/usr/bin/env bash
# Used by scripts/test-unit.sh and scripts/test-core.sh. `vitest-recap.sh LABEL LOG` prints again, after
# all runs, what vitest said of a run that failed: its "Failed Tests" / "Failed Suites" / "Unhandled
# Errors" part through its summary (or, when vitest printed none, the run's last lines), so the end of a
# CI log names the failure even when later runs printed pages after it. At most 200 lines per run.
label=$1 log=$2
echo "== failed: $label"
plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
part=$(printf '%s\n' "$plain" | awk '/⎯/ && /(Failed Tests|Failed Suites|Unhandled Errors?)/ { on = 1 } on')
[ -n "$part" ] || part=$(printf '%s\n' "$plain" | tail -n 40)
if [ "$(printf '%s\n' "$part" | wc -l)" -le 200 ]; then
  printf '%s\n' "$part"
else
  printf '%s\n' "$part" | head -n 180
  echo "[… cut: the whole output is above …]"
  printf '%s\n' "$part" | tail -n 8
fi
