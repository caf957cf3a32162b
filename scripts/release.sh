#!/usr/bin/env bash
# Builds a release of pipeline: a stripped binary in a tarball, with its SHA-256 beside it.
#
#   scripts/release.sh                    # build, strip, package into dist/
#   scripts/release.sh --out DIR          # somewhere else
#   scripts/release.sh --binary PATH      # package a binary built already (no build)
#   scripts/release.sh --build-only       # build only, and print the binary's path (the benchmarks' build)
#
# Writes DIR/pipeline-<version>-<os>-<arch>.tar.gz (bin/pipeline inside) and DIR/<that>.sha256 in
# sha256sum's format, and prints both paths. The version is Version.number in
# Sources/PipelineCLI/PipelineCommand.swift, the one place it is written; the packaged binary must
# print it for `--version`, or nothing is written.
#
# Linux: the Swift runtime, Foundation, libpng and OpenSSL's libcrypto are linked in; the binary
# needs only what Swift itself needs on Linux (glibc, libstdc++, libxml2, zlib). libgit2 and libcurl
# are loaded on first use by the commands that read git or reach S3. One architecture per run (this
# machine's): run it on an arm64 machine for the arm64 tarball.
# macOS: one architecture per run too (this Mac's: Homebrew's static archives are of one). libpng and
# OpenSSL's libcrypto are linked in from Homebrew's static archives; libgit2 (Homebrew's dylib) and
# every library it loads that is not the system's are bundled in lib/pipeline/ beside bin/, their
# install names rewritten to @executable_path/../lib/pipeline and @loader_path, and re-signed ad hoc.
# The release is refused when the binary or a bundled library loads anything outside /usr/lib,
# /System and lib/pipeline (read from the load commands by scripts/lib/macho-deps.py, as otool -L).
set -euo pipefail
cd "$(dirname "$0")/.."

out=dist
binary=""
build_only=false
while [[ $# -gt 0 ]]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --binary) binary="$2"; shift 2 ;;
        --build-only) build_only=true; shift ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "release: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

version="$(sed -n 's/.*static let number = "\(.*\)".*/\1/p' Sources/PipelineCLI/PipelineCommand.swift)"
[[ -n "$version" ]] || { echo "release: no 'static let number' in Sources/PipelineCLI/PipelineCommand.swift" >&2; exit 1; }

os="$(uname -s | tr '[:upper:]' '[:lower:]')"
arch="$(uname -m)"
[[ "$arch" == aarch64 ]] && arch=arm64
[[ "$os" == darwin ]] && os=macos

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [[ -z "$binary" ]]; then
    exec 3>&1 1>&2   # the build's output to stderr; --build-only prints the path alone
    scripts/setup.sh
    # pkg-config files naming only the static archives, so libpng and libcrypto are linked in.
    libdir="$(pkg-config --variable=libdir libpng)"
    mkdir -p "$work/static" "$work/pkgconfig"
    ln -s "$libdir/libpng16.a" "$(pkg-config --variable=libdir libcrypto)/libcrypto.a" "$work/static/"
    printf 'Name: libpng\nDescription: static\nVersion: 1\nLibs: -L%s -lpng16 -lz\n' "$work/static" > "$work/pkgconfig/libpng.pc"
    printf 'Name: libcrypto\nDescription: static\nVersion: 3\nLibs: -L%s -lcrypto\n' "$work/static" > "$work/pkgconfig/libcrypto.pc"
    flags=(-c release --product pipeline -Xswiftc -gnone)
    [[ "$os" == macos ]] || flags+=(--static-swift-stdlib)   # macOS has the Swift runtime in /usr/lib/swift
    rm -f "$(swift build "${flags[@]}" --show-bin-path)/pipeline"   # relinked with these libraries
    PKG_CONFIG_PATH="$work/pkgconfig:${PKG_CONFIG_PATH:-}" swift build "${flags[@]}"
    binary="$(swift build "${flags[@]}" --show-bin-path)/pipeline"
    if [[ "$os" != macos ]] && ldd "$binary" | grep -E 'libpng|libcrypto|libgit2|libcurl'; then
        echo "release: $binary loads the libraries above from the system; a release links them in" >&2
        exit 1
    fi
    exec 1>&3
fi
[[ -x "$binary" ]] || { echo "release: $binary is not an executable" >&2; exit 1; }
if $build_only; then echo "$binary"; exit 0; fi

name="pipeline-$version-$os-$arch"
mkdir -p "$work/$name/bin" "$out"
cp "$binary" "$work/$name/bin/pipeline"
if [[ "$os" == macos ]]; then
    strip -x "$work/$name/bin/pipeline"
    # libgit2 and what it loads beyond the system's, bundled beside the binary (install names rewritten).
    libs="$work/$name/lib/pipeline"
    mkdir -p "$libs"
    shopt -s nullglob
    bundle() {   # $1: a Mach-O file; $2: how it reaches lib/pipeline (@executable_path/../lib/pipeline, @loader_path)
        local dependency base
        for dependency in $(python3 scripts/lib/macho-deps.py "$1"); do
            case "$dependency" in /usr/lib/*|/System/*|@executable_path/*|@loader_path/*) continue ;; esac
            base="$(basename "$dependency")"
            if [[ ! -f "$libs/$base" ]]; then
                [[ -f "$dependency" ]] || { echo "release: $1 loads $dependency, which is not on this Mac" >&2; exit 1; }
                cp "$dependency" "$libs/$base" && chmod u+w "$libs/$base"
                install_name_tool -id "@loader_path/$base" "$libs/$base"
                bundle "$libs/$base" @loader_path
            fi
            install_name_tool -change "$dependency" "$2/$base" "$1"
        done
    }
    bundle "$work/$name/bin/pipeline" @executable_path/../lib/pipeline
    for file in "$work/$name/bin/pipeline" "$libs"/*.dylib; do
        [[ -f "$file" ]] && codesign --force --sign - "$file"
    done
    python3 scripts/lib/macho-deps.py --check "$libs" "$work/$name/bin/pipeline" "$libs"/*.dylib \
        || { echo "release: the libraries above are not the system's nor bundled; nothing written" >&2; exit 1; }
    rmdir "$libs" 2>/dev/null && rmdir "$work/$name/lib" || true
else
    strip "$work/$name/bin/pipeline"
fi
shown="$("$work/$name/bin/pipeline" --version)"
[[ "$shown" == "pipeline $version" ]] || { echo "release: the binary says '$shown', the source says $version" >&2; exit 1; }

tar -C "$work" -czf "$out/$name.tar.gz" "$name"
(cd "$out" && { command -v sha256sum >/dev/null && sha256sum "$name.tar.gz" || shasum -a 256 "$name.tar.gz"; } > "$name.tar.gz.sha256")
size="$(wc -c < "$work/$name/bin/pipeline" | tr -d ' ')"
echo "release: $out/$name.tar.gz ($(( $(wc -c < "$out/$name.tar.gz") / 1048576 )) MB; binary $(( size / 1048576 )) MB)"
echo "release: $out/$name.tar.gz.sha256"
