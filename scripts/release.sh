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
# macOS: a universal binary (arm64 and x86_64); libgit2 comes from Homebrew on the machine that runs it.
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
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "release: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

version="$(sed -n 's/.*static let number = "\(.*\)".*/\1/p' Sources/PipelineCLI/PipelineCommand.swift)"
[[ -n "$version" ]] || { echo "release: no 'static let number' in Sources/PipelineCLI/PipelineCommand.swift" >&2; exit 1; }

os="$(uname -s | tr '[:upper:]' '[:lower:]')"
arch="$(uname -m)"
[[ "$arch" == aarch64 ]] && arch=arm64
[[ "$os" == darwin ]] && { os=macos; arch=universal; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [[ -z "$binary" ]]; then
    exec 3>&1 1>&2   # the build's output to stderr; --build-only prints the path alone
    scripts/setup.sh
    if [[ "$os" == macos ]]; then
        swift build -c release --product pipeline --arch arm64 --arch x86_64
        binary="$(swift build -c release --arch arm64 --arch x86_64 --show-bin-path)/pipeline"
    else
        # pkg-config files naming only the static archives, so libpng and libcrypto are linked in.
        libdir="$(pkg-config --variable=libdir libpng)"
        mkdir -p "$work/lib" "$work/pkgconfig"
        ln -s "$libdir/libpng16.a" "$(pkg-config --variable=libdir libcrypto)/libcrypto.a" "$work/lib/"
        printf 'Name: libpng\nDescription: static\nVersion: 1\nLibs: -L%s -lpng16 -lz\n' "$work/lib" > "$work/pkgconfig/libpng.pc"
        printf 'Name: libcrypto\nDescription: static\nVersion: 3\nLibs: -L%s -lcrypto\n' "$work/lib" > "$work/pkgconfig/libcrypto.pc"
        flags=(-c release --product pipeline --static-swift-stdlib -Xswiftc -gnone)
        rm -f "$(swift build "${flags[@]}" --show-bin-path)/pipeline"   # relinked with these libraries
        PKG_CONFIG_PATH="$work/pkgconfig" swift build "${flags[@]}"
        binary="$(swift build "${flags[@]}" --show-bin-path)/pipeline"
        if ldd "$binary" | grep -E 'libpng|libcrypto|libgit2|libcurl'; then
            echo "release: $binary loads the libraries above from the system; a release links them in" >&2
            exit 1
        fi
    fi
    exec 1>&3
fi
[[ -x "$binary" ]] || { echo "release: $binary is not an executable" >&2; exit 1; }
if $build_only; then echo "$binary"; exit 0; fi

name="pipeline-$version-$os-$arch"
mkdir -p "$work/$name/bin" "$out"
cp "$binary" "$work/$name/bin/pipeline"
if [[ "$os" == macos ]]; then strip -x "$work/$name/bin/pipeline"; else strip "$work/$name/bin/pipeline"; fi
shown="$("$work/$name/bin/pipeline" --version)"
[[ "$shown" == "pipeline $version" ]] || { echo "release: the binary says '$shown', the source says $version" >&2; exit 1; }

tar -C "$work" -czf "$out/$name.tar.gz" "$name"
(cd "$out" && { command -v sha256sum >/dev/null && sha256sum "$name.tar.gz" || shasum -a 256 "$name.tar.gz"; } > "$name.tar.gz.sha256")
size="$(wc -c < "$work/$name/bin/pipeline" | tr -d ' ')"
echo "release: $out/$name.tar.gz ($(( $(wc -c < "$out/$name.tar.gz") / 1048576 )) MB; binary $(( size / 1048576 )) MB)"
echo "release: $out/$name.tar.gz.sha256"
