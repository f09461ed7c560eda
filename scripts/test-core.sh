#!/usr/bin/env bash
# npm run test:core — the real-Bitcoin-Core test files (vitest project `core`, listed in vitest.config.ts)
# once per Core generation, each file on its own private `bitcoind -regtest` (test/support/bitcoind.ts).
#
# Which Core:
#   BITCOIND=/path/to/bitcoind                      the user's own build: one run, a private node per file;
#   BITCOIND_URL=… (+ BITCOIND_USER/_PASSWORD)      a running regtest node shared by all files: the
#                                                   differential test first (it needs the node fresh),
#                                                   then the others one at a time;
#   ../shared/core/unpack.sh present               both builds there (31.99, then 30.99), BITCOIND swapped;
#   bitcoind on PATH                                one run, against it;
#   none                                            the files skip with one line saying how to enable
#                                                   them — or fail when CI=true.
# Each run is inside its own scripts/with-keyring.sh session (a fresh, unlocked gnome-keyring): the
# `spyglass` command's round trip keeps the node password in the real keychain. The Core builds are
# unpacked first, outside it, so they stay cached under the real HOME.
# Extra arguments go to vitest (e.g. a file name). Exits non-zero when any run failed, after printing
# again what vitest said of each failed run (recap, scripts/vitest-recap.sh): the 30.99 run's pages would
# otherwise hide a failure of the 31.99 run from the end of a CI log.
set -uo pipefail
cd "$(dirname "$0")/.."
vitest=node_modules/.bin/vitest
status=0
source scripts/vitest-recap.sh

run() { # LABEL [ENV=VALUE…]
  local label=$1 start
  shift
  echo "== real Bitcoin Core: $label"
  start=$(date +%s)
  logged "real Bitcoin Core $label" scripts/with-keyring.sh env "$@" "$vitest" run --project core "${args[@]}" || status=1
  echo "== real Bitcoin Core: $label — $(($(date +%s) - start)) s"
}
args=("$@")

bins=()
if [ -z "${BITCOIND:-}" ] && [ -z "${BITCOIND_URL:-}" ] && [ -x ../shared/core/unpack.sh ]; then
  for version in 31.99 30.99; do
    if bin=$(../shared/core/unpack.sh "$version"); then
      bins+=("$version=$bin/bitcoind")
    else
      echo "== real Bitcoin Core $version: ../shared/core/unpack.sh failed" >&2
      [ "${CI:-}" = true ] && status=1
    fi
  done
fi

if [ -n "${BITCOIND_URL:-}" ]; then
  # One node for every file: the differential test first (it needs the node fresh), then the others, one at a time.
  args=(test/devnet/bitcoind-parity.test.ts "$@")
  run "$BITCOIND_URL (the differential test)"
  args=(--no-file-parallelism --exclude test/devnet/bitcoind-parity.test.ts "$@")
  run "$BITCOIND_URL"
elif [ -n "${BITCOIND:-}" ]; then
  run "$BITCOIND"
elif [ "${#bins[@]}" -gt 0 ]; then
  for b in "${bins[@]}"; do run "${b%%=*} (${b#*=})" BITCOIND="${b#*=}"; done
elif command -v bitcoind >/dev/null; then
  run "$(command -v bitcoind)"
else
  # No Core: each file says how to enable it (and fails under CI=true).
  run "none"
fi
recap
exit $status
