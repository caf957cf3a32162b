#!/usr/bin/env bash
# Installs a release of pipeline: downloads the tarball, checks its SHA-256, puts bin/pipeline in PREFIX.
#
#   install.sh 0.1.0                          # a version, from PIPELINE_RELEASES (default: GitHub releases)
#   install.sh https://…/pipeline-0.1.0-linux-x86_64.tar.gz
#   install.sh ./dist/pipeline-0.1.0-linux-x86_64.tar.gz
#   install.sh --from-source [DIR|GIT-URL]    # build a release here (a Mac: Homebrew's libraries), install it
#
# Options: --prefix DIR (default /usr/local; the binary goes to DIR/bin), --sha256 HEX (the expected
# checksum; otherwise the `.sha256` file published beside the tarball is read). A tarball whose
# checksum is not the expected one, or with no checksum to check against, is refused and nothing is
# installed. A binary whose `pipeline version` cannot load libgit2 or libcurl is refused, naming the
# library, and nothing is installed. Needs curl (for URLs), tar and sha256sum or shasum.
#
# --from-source builds the release on this machine with scripts/release.sh (which installs what it
# links against first: Homebrew's libgit2, libpng, openssl@3 and pkg-config on macOS, the Debian
# packages on Linux; Swift must be installed), then installs it as a tarball is installed. The source
# is DIR, a clone of GIT-URL (shallow), the checkout this script is in, or else a clone of
# PIPELINE_SOURCE (default https://github.com/your-org/pipeline.git): on a Mac,
#   curl -fsSL https://raw.githubusercontent.com/your-org/pipeline/main/scripts/install.sh | bash -s -- --from-source
# PIPELINE_RELEASE_ARGS adds arguments to release.sh (the tests pass --binary, a build they made).
#
# PIPELINE_RELEASES is where versions are found: <PIPELINE_RELEASES>/v<version>/<tarball>.
set -euo pipefail

fail() { echo "install: $*" >&2; exit 1; }

source=""
prefix="${PREFIX:-/usr/local}"
expected=""
from_source=""
built=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --prefix) prefix="$2"; shift 2 ;;
        --sha256) expected="$2"; shift 2 ;;
        --from-source)
            from_source=here; shift
            if [[ $# -gt 0 && "$1" != -* ]]; then from_source="$1"; shift; fi ;;
        -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "install: unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) [[ -z "$source" ]] || { echo "install: one version, URL or file (got '$source' and '$1')" >&2; exit 2; }
           source="$1"; shift ;;
    esac
done
if [[ -n "$from_source" ]]; then
    [[ -z "$source" ]] || { echo "install: --from-source or a version, URL or file, not both" >&2; exit 2; }
    built="$(mktemp -d)"
    trap 'rm -rf "$built"' EXIT
    here="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." 2>/dev/null && pwd || true)"
    if [[ "$from_source" == here ]]; then
        if [[ -n "$here" && -f "$here/Package.swift" && -x "$here/scripts/release.sh" ]]; then from_source="$here"
        else from_source="${PIPELINE_SOURCE:-https://github.com/your-org/pipeline.git}"; fi
    fi
    if [[ ! -d "$from_source" ]]; then
        command -v git >/dev/null || fail "cloning $from_source needs git"
        echo "install: cloning $from_source" >&2
        git clone --quiet --depth 1 "$from_source" "$built/source" || fail "could not clone $from_source"
        from_source="$built/source"
    fi
    [[ -x "$from_source/scripts/release.sh" ]] || fail "$from_source: no scripts/release.sh (not a pipeline checkout)"
    command -v swift >/dev/null || fail "building from source needs Swift (https://swift.org/install)"
    echo "install: building a release in $from_source (a few minutes the first time)" >&2
    # shellcheck disable=SC2086
    "$from_source/scripts/release.sh" --out "$built/dist" ${PIPELINE_RELEASE_ARGS:-} >"$built/release.log" 2>&1 \
        || fail "the build failed: $(tail -3 "$built/release.log" | tr '\n' ' ')"
    source="$(sed -n 's/^release: \(.*\.tar\.gz\) (.*/\1/p' "$built/release.log" | head -1)"
    [[ -f "$source" ]] || fail "release.sh named no tarball: $(tail -1 "$built/release.log")"
fi
[[ -n "$source" ]] || { echo "install: name a version, a tarball URL or a tarball file (see --help)" >&2; exit 2; }

os="$(uname -s | tr '[:upper:]' '[:lower:]')"
arch="$(uname -m)"
[[ "$arch" == aarch64 ]] && arch=arm64
[[ "$os" == darwin ]] && os=macos

if [[ "$source" =~ ^v?[0-9]+\.[0-9]+\.[0-9]+([-.+][0-9A-Za-z.-]+)?$ ]]; then
    version="${source#v}"
    releases="${PIPELINE_RELEASES:-https://github.com/your-org/pipeline/releases/download}"
    source="${releases%/}/v$version/pipeline-$version-$os-$arch.tar.gz"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work" ${built:+"$built"}' EXIT
tarball="$work/pipeline.tar.gz"

case "$source" in
    http://*|https://*|file://*)
        command -v curl >/dev/null || fail "downloading $source needs curl (apt-get install curl), or pass a tarball file"
        curl -fsSL --retry 3 -o "$tarball" "$source" || fail "could not download $source"
        if [[ -z "$expected" ]]; then
            curl -fsSL --retry 3 -o "$work/sha256" "$source.sha256" \
                || fail "no checksum at $source.sha256: pass --sha256 HEX to install it"
            expected="$(cut -d' ' -f1 < "$work/sha256")"
        fi ;;
    *)
        [[ -f "$source" ]] || fail "$source: no such file (a version is written 0.1.0, a URL https://…)"
        cp "$source" "$tarball"
        if [[ -z "$expected" ]]; then
            [[ -f "$source.sha256" ]] || fail "no checksum file $source.sha256: pass --sha256 HEX to install it"
            expected="$(cut -d' ' -f1 < "$source.sha256")"
        fi ;;
esac

if command -v sha256sum >/dev/null; then actual="$(sha256sum "$tarball" | cut -d' ' -f1)"
else actual="$(shasum -a 256 "$tarball" | cut -d' ' -f1)"; fi
[[ "$actual" == "$(echo "$expected" | tr '[:upper:]' '[:lower:]')" ]] \
    || fail "$source: SHA-256 is $actual, expected $expected; nothing installed"

tar -C "$work" -xzf "$tarball"
binary="$(find "$work" -mindepth 3 -maxdepth 3 -path '*/bin/pipeline' -type f | head -1)"
[[ -n "$binary" ]] || fail "$source: no bin/pipeline in the tarball"
"$binary" --version >/dev/null 2>"$work/err" || fail "$source: the binary does not run here: $(head -1 "$work/err")"
# libgit2 and libcurl are opened on first use, so --version starting proves neither: 'version' loads both.
"$binary" version >"$work/out" 2>&1 \
    || fail "$source: $(grep -m1 ' not available' "$work/out" || tail -1 "$work/out"); nothing installed"

mkdir -p "$prefix/bin" || fail "cannot create $prefix/bin"
# The release's own libraries (Linux: libcurl and what it loads; macOS: libgit2 and what it loads), which
# the binary finds at ../lib/pipeline.
libs="$(dirname "$(dirname "$binary")")/lib/pipeline"
if [[ -d "$libs" ]]; then
    rm -rf "$prefix/lib/.pipeline.new" && mkdir -p "$prefix/lib" && cp -R "$libs" "$prefix/lib/.pipeline.new" \
        && rm -rf "$prefix/lib/pipeline" && mv "$prefix/lib/.pipeline.new" "$prefix/lib/pipeline" \
        || fail "cannot write $prefix/lib/pipeline"
fi
# A copy beside the target, then a rename: a running or half-copied binary is never replaced in place.
cp "$binary" "$prefix/bin/.pipeline.new" && chmod 755 "$prefix/bin/.pipeline.new" \
    && mv -f "$prefix/bin/.pipeline.new" "$prefix/bin/pipeline" || fail "cannot write $prefix/bin/pipeline"
"$prefix/bin/pipeline" version >"$work/out" 2>&1 \
    || fail "$prefix/bin/pipeline: $(grep -m1 ' not available' "$work/out" || tail -1 "$work/out")"
echo "install: $("$prefix/bin/pipeline" --version) in $prefix/bin/pipeline"
