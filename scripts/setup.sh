#!/usr/bin/env bash
# Installs the system libraries pipeline links against (libgit2, libcurl, OpenSSL's libcrypto, libpng, pkg-config).
# Idempotent: installs only what is missing, and runs `apt-get update` only when it has to.
# Extra Debian packages a script needs can be named: scripts/setup.sh chromium imagemagick.
set -euo pipefail

if [[ "$(uname -s)" == "Darwin" ]]; then
    command -v brew >/dev/null || { echo "setup: Homebrew is needed on macOS (https://brew.sh)" >&2; exit 1; }
    extras=()
    for name in "$@"; do [[ "$name" == chromium ]] || extras+=("$name"); done   # Chromium comes as an app
    for formula in libgit2 curl openssl@3 libpng pkg-config "${extras[@]}"; do
        brew list --versions "$formula" >/dev/null || brew install "$formula"
    done
    exit 0
fi

packages=(libgit2-dev libcurl4-openssl-dev libssl-dev libpng-dev pkg-config "$@")
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
[[ "$(id -u)" -ne 0 ]] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
echo "setup: installing ${missing[*]}" >&2
# A fresh machine has no package lists; an old list may name versions no longer served.
if [[ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial)" ]] \
    || ! $sudo apt-get install -y -qq "${missing[@]}" >/dev/null; then
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
