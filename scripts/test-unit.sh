#!/usr/bin/env bash
# npm run test:unit — the Chromium files first (one at a time, alone, on a fresh keyring session), then
# the Node-only files (two at a time): two vitest runs in one keyring session. With the Node-only files
# first, two-wallets.e2e found a blank app in full runs (green alone and after every other e2e file);
# what they leave behind is not found yet. Extra arguments go to both runs (e.g. a file name).
# Exits non-zero when a run failed, after printing again what vitest said of it (recap, scripts/vitest-recap.sh):
# the unit run's pages would otherwise hide an e2e failure from the end of a CI log.
set -uo pipefail
cd "$(dirname "$0")/.."
vitest=node_modules/.bin/vitest
status=0
source scripts/vitest-recap.sh
for project in e2e unit; do
  logged "$project" "$vitest" run --project "$project" --passWithNoTests "$@" || status=1
done
recap
exit $status
