#!/usr/bin/env bash
# Fetches HWI's release binary for one platform into DEST_DIR, for the release workflow to bundle with the
# installers (electron-builder.yml, extraResources → resources/hwi/). The app itself never downloads
# anything. Trust comes from the pins the workflow passes, never from what is downloaded:
#   1. the release key (Ava Chow's, who signs HWI's releases and tags) is taken from bitcoin-core/guix.sigs
#      at a pinned commit, and must have the pinned fingerprint;
#   2. HWI's SHA256SUMS.txt.asc (made by contrib/make_shasums.sh, clear-signed) must carry a valid signature
#      whose primary key is that fingerprint — gpg's status lines are read, not its exit code alone;
#   3. the archive must hash to its line in the signed sums, and the binary unpacked from it to its
#      `<archive>/hwi` line (make_shasums.sh sums the binaries too).
# Anything else stops the build with a message naming what did not match.
#
# usage: fetch-hwi.sh DEST_DIR
# environment (all required but HWI_RELEASE_URL):
#   HWI_VERSION          e.g. 3.2.0
#   HWI_ASSET            the platform part of the archive name: linux-x86_64.tar.gz, mac-arm64.tar.gz,
#                        windows-x86_64.zip …
#   HWI_KEY_URL          the release key (an ASCII-armoured or binary OpenPGP key file)
#   HWI_KEY_FINGERPRINT  its primary key's fingerprint, 40 hex digits
#   HWI_RELEASE_URL      default https://github.com/bitcoin-core/HWI/releases/download/$HWI_VERSION
set -euo pipefail

die() {
  echo "fetch-hwi: $*" >&2
  exit 1
}

[[ $# -eq 1 ]] || die "usage: fetch-hwi.sh DEST_DIR (see the comment at the top)"
dest=$1
: "${HWI_VERSION:?HWI_VERSION is required}" "${HWI_ASSET:?HWI_ASSET is required}" "${HWI_KEY_URL:?HWI_KEY_URL is required}" "${HWI_KEY_FINGERPRINT:?HWI_KEY_FINGERPRINT is required}"
[[ $HWI_VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "HWI_VERSION must look like 3.2.0, not \"$HWI_VERSION\""
[[ $HWI_ASSET =~ ^[a-z]+-[a-z0-9_]+\.(tar\.gz|zip)$ ]] || die "HWI_ASSET must look like linux-x86_64.tar.gz or windows-x86_64.zip, not \"$HWI_ASSET\""
fingerprint=$(printf '%s' "$HWI_KEY_FINGERPRINT" | tr -d ' ' | tr '[:lower:]' '[:upper:]')
[[ $fingerprint =~ ^[0-9A-F]{40}$ ]] || die "HWI_KEY_FINGERPRINT must be 40 hex digits"
release=${HWI_RELEASE_URL:-https://github.com/bitcoin-core/HWI/releases/download/$HWI_VERSION}
archive="hwi-$HWI_VERSION-$HWI_ASSET"
case $HWI_ASSET in
  windows-*) binary=hwi.exe ;;
  *) binary=hwi ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GNUPGHOME="$work/gnupg"
mkdir -m 700 "$GNUPGHOME"

fetch() {
  # https only (file: lets the tests serve a release from a folder); no redirect to anything but https
  curl --proto '=https,file' --proto-redir '=https' --fail --silent --show-error --location --retry 3 "$1" --output "$2" || die "could not download $1"
}
sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1"; else shasum -a 256 "$1"; fi | awk '{ print tolower($1) }' | tr -d '*'
}

# 1. the release key, which must be the pinned one
fetch "$HWI_KEY_URL" "$work/release-key"
gpg --batch --quiet --import "$work/release-key" 2>"$work/import.log" || die "the release key from $HWI_KEY_URL could not be read: $(cat "$work/import.log")"
gpg --batch --with-colons --fingerprint 2>/dev/null | awk -F: '$1 == "pub" { want = 1; next } want && $1 == "fpr" { print $10; want = 0 }' >"$work/primaries"
grep -qx "$fingerprint" "$work/primaries" || die "the key from $HWI_KEY_URL is not $fingerprint (it has: $(tr '\n' ' ' <"$work/primaries"))"

# 2. the signed sums: a good signature whose primary key is the pinned fingerprint, and no bad one
fetch "$release/SHA256SUMS.txt.asc" "$work/SHA256SUMS.txt.asc"
gpg --batch --status-file "$work/status" --output "$work/SHA256SUMS.txt" --decrypt "$work/SHA256SUMS.txt.asc" 2>"$work/verify.log" || true
awk -v fp="$fingerprint" '
  $1 == "[GNUPG:]" && $2 == "VALIDSIG" && toupper($NF) == fp { valid = 1 }
  $1 == "[GNUPG:]" && ($2 == "GOODSIG" || $2 == "EXPKEYSIG") { good = 1 }
  $1 == "[GNUPG:]" && ($2 == "BADSIG" || $2 == "ERRSIG" || $2 == "REVKEYSIG" || $2 == "NODATA") { bad = 1 }
  END { exit !(valid && good && !bad) }
' "$work/status" || die "SHA256SUMS.txt.asc of HWI $HWI_VERSION is not validly signed by $fingerprint: $(tr '\n' ' ' <"$work/verify.log")"
tr -d '\r' <"$work/SHA256SUMS.txt" >"$work/sums"

sum_of() {
  local line
  line=$(awk -v f="$1" '$2 == f || $2 == "*" f { print tolower($1) }' "$work/sums")
  [[ $line =~ ^[0-9a-f]{64}$ ]] || die "the signed SHA256SUMS.txt has no single line for $1"
  printf '%s' "$line"
}
want_archive=$(sum_of "$archive")
want_binary=$(sum_of "$archive/$binary")

# 3. the archive and the binary in it
fetch "$release/$archive" "$work/$archive"
got=$(sha256 "$work/$archive")
[[ $got == "$want_archive" ]] || die "$archive hashes to $got, but the signed SHA256SUMS.txt says $want_archive"
mkdir "$work/unpacked"
case $archive in
  *.tar.gz) tar -xzf "$work/$archive" -C "$work/unpacked" ;;
  *.zip)
    if command -v unzip >/dev/null 2>&1; then
      unzip -q "$work/$archive" -d "$work/unpacked"
    elif command -v 7z >/dev/null 2>&1; then
      7z x -y -o"$work/unpacked" "$work/$archive" >/dev/null
    else
      die "neither unzip nor 7z is installed to unpack $archive"
    fi
    ;;
esac
[[ -f "$work/unpacked/$binary" && ! -L "$work/unpacked/$binary" ]] || die "$archive has no file $binary at its top"
got=$(sha256 "$work/unpacked/$binary")
[[ $got == "$want_binary" ]] || die "$binary in $archive hashes to $got, but the signed SHA256SUMS.txt says $want_binary"

mkdir -p "$dest"
cp "$work/unpacked/$binary" "$dest/$binary"
chmod 755 "$dest/$binary"
echo "fetch-hwi: $archive → $dest/$binary (sha256 $want_binary), from SHA256SUMS.txt signed by $fingerprint"
