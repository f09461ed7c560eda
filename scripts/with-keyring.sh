#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with a fresh, unlocked gnome-keyring, and HOME/XDG dirs
# in a temp folder, so tests use a real OS keychain (libsecret) without touching the developer's own.
# Sets SPYGLASS_TEST_KEYRING=1 for the command when the keyring is up; without gnome-keyring or
# dbus-run-session it runs the command as is and the keychain tests skip, saying why.
set -euo pipefail

if [ "${SPYGLASS_IN_KEYRING:-}" != "1" ] && command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
  tmp="$(mktemp -d -t spyglass-test-XXXXXX)"
  export SPYGLASS_IN_KEYRING=1 SPYGLASS_TEST_HOME="$tmp"
  exec dbus-run-session -- "$0" "$@"
fi

if [ "${SPYGLASS_IN_KEYRING:-}" = "1" ]; then
  tmp="$SPYGLASS_TEST_HOME"
  # Keep npm's cache and config where they were: only the desktop session moves to the temp folder.
  export npm_config_cache="${npm_config_cache:-$HOME/.npm}"
  export HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp/run" XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
  mkdir -p "$HOME" "$XDG_RUNTIME_DIR" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"
  chmod 700 "$XDG_RUNTIME_DIR"
  # A non-empty password creates and unlocks the login keyring.
  if printf '%s' 'spyglass-test-keyring' | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; then
    export SPYGLASS_TEST_KEYRING=1
  else
    echo "with-keyring: gnome-keyring-daemon did not start; keychain tests will skip" >&2
  fi
  trap 'rm -rf "$tmp"' EXIT
  "$@"
  exit $?
fi

echo "with-keyring: dbus-run-session or gnome-keyring-daemon not installed (apt install dbus gnome-keyring); keychain tests will skip" >&2
exec "$@"
