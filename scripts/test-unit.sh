#!/usr/bin/env bash
# npm run test:unit — the Chromium files first (one at a time, alone, on a fresh keyring session), then
# the Node-only files (two at a time): two vitest runs in one keyring session. With the Node-only files
# first, two-wallets.e2e found a blank app in full runs (green alone and after every other e2e file);
# what they leave behind is not found yet. Extra arguments go to both runs (e.g. a file name).
set -uo pipefail
cd "$(dirname "$0")/.."
vitest=node_modules/.bin/vitest
status=0
"$vitest" run --project e2e --passWithNoTests "$@" || status=1
"$vitest" run --project unit --passWithNoTests "$@" || status=1
exit $status
