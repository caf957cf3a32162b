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
# Linux: self-contained. The Swift runtime, Foundation, libpng, OpenSSL's libcrypto and libgit2 with
# what it needs (mbedTLS, http-parser, libssh2, PCRE2: `pkg-config --static --libs libgit2`) are
# linked in from static archives; the binary's NEEDED list is glibc's libraries, libstdc++, libgcc_s
# and zlib, and nothing else (checked: anything more and nothing is written). libcurl, whose static
# archive needs archives Debian does not ship, is bundled with every library it loads beyond those
# in lib/pipeline/ beside bin/, found through the binary's RUNPATH ($ORIGIN/../lib/pipeline) and
# each library's own ($ORIGIN); it is opened when the first S3 request needs it. A bundled library
# needing a glibc newer than 2.35 is refused (Ubuntu 22.04's; the binary itself needs 2.34).
# Debian's libgit2.a uses GSSAPI for HTTP Negotiate authentication, whose static archive Debian does
# not ship: scripts/lib/gssapi-absent.c answers "unavailable" in its place (pipeline never fetches).
# One architecture per run (this machine's): run it on an arm64 machine for the arm64 tarball.
# A build against the distribution's own libgit2 and libcurl (a distribution's package, say) is a
# plain `swift build -c release`: libgit2 and libcurl are then opened from the system on first use.
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
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
# readelf, objdump and patchelf read and bundle a Linux release's libraries.
[[ "$os" == macos ]] || scripts/setup.sh patchelf binutils >&2

if [[ -z "$binary" ]]; then
    exec 3>&1 1>&2   # the build's output to stderr; --build-only prints the path alone
    scripts/setup.sh
    # pkg-config files naming only the static archives, so libpng and libcrypto are linked in.
    libdir="$(pkg-config --variable=libdir libpng)"
    mkdir -p "$work/static" "$work/pkgconfig"
    ln -s "$libdir/libpng16.a" "$(pkg-config --variable=libdir libcrypto)/libcrypto.a" "$work/static/"
    printf 'Name: libpng\nDescription: static\nVersion: 1\nLibs: -L%s -lpng16 -lz\n' "$work/static" > "$work/pkgconfig/libpng.pc"
    printf 'Name: libcrypto\nDescription: static\nVersion: 3\nLibs: -L%s -lcrypto\n' "$work/static" > "$work/pkgconfig/libcrypto.pc"
    # PIPELINE_RELEASE_BUILD_FLAGS: more flags for swift build (scripts/test.sh passes --ignore-lock:
    # its test lanes hold .build's lock while they run, and read nothing the release writes).
    flags=(-c release --product pipeline -Xswiftc -gnone ${PIPELINE_RELEASE_BUILD_FLAGS:-})
    if [[ "$os" != macos ]]; then   # macOS has the Swift runtime in /usr/lib/swift
        flags+=(--static-swift-stdlib -Xcc -DPIPELINE_LIBGIT2_LINKED)
        # libgit2 and what it needs from their static archives (libssh2's own: OpenSSL's); glibc's and zlib dynamic.
        gitlibs="$(pkg-config --variable=libdir libgit2)"
        for flag in $(pkg-config --static --libs-only-l libgit2) -lssl -lcrypto; do
            case "${flag#-l}" in
                rt|dl|m|pthread|z) flags+=(-Xlinker "$flag") ;;
                *) [[ -f "$gitlibs/lib${flag#-l}.a" ]] \
                       || { echo "release: no static lib${flag#-l}.a in $gitlibs (libgit2 needs it)" >&2; exit 1; }
                   flags+=(-Xlinker "$gitlibs/lib${flag#-l}.a") ;;
            esac
        done
        if nm -u "$gitlibs/libgit2.a" 2>/dev/null | grep ' gss_' >/dev/null; then   # (grep -q would end nm early)
            cc -O2 -c scripts/lib/gssapi-absent.c -o "$work/gssapi-absent.o"
            flags+=(-Xlinker "$work/gssapi-absent.o")
        fi
        flags+=(-Xlinker -rpath -Xlinker '$ORIGIN/../lib/pipeline')
    fi
    rm -f "$(swift build "${flags[@]}" --show-bin-path)/pipeline"   # relinked with these libraries
    PKG_CONFIG_PATH="$work/pkgconfig:${PKG_CONFIG_PATH:-}" swift build "${flags[@]}"
    binary="$(swift build "${flags[@]}" --show-bin-path)/pipeline"
    exec 1>&3
fi
[[ -x "$binary" ]] || { echo "release: $binary is not an executable" >&2; exit 1; }
if $build_only; then echo "$binary"; exit 0; fi

# What a Linux release may need from the system: glibc's libraries, libstdc++, libgcc_s and zlib.
allowed='^(linux-vdso\.so\.1|ld-linux[-a-z0-9_]*\.so\.[0-9]+|lib(c|m|dl|pthread|rt|resolv|util|anl)\.so\.[0-9.]+|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libz\.so\.1)$'
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

# $1: the binary; $2: its lib/pipeline. libcurl and every library it loads beyond the allowed ones are
# copied there with RUNPATH $ORIGIN, when the binary looks there; then every NEEDED entry of the
# binary must be allowed, and every bundled library's allowed or bundled, or nothing is written.
bundle_linux_libraries() {
    local binary="$1" libs="$2" curl path file base too_new
    if ! readelf -d "$binary" | grep 'R.*PATH.*\$ORIGIN/../lib/pipeline' >/dev/null; then
        echo "release: $binary was not built by this script (no RUNPATH to lib/pipeline): packaged as it is" >&2
        return
    fi
    # awk reads to the end: one that exits at the first match can leave ldconfig writing into a closed
    # pipe, and under pipefail its SIGPIPE (141) ends the script (it did, once, in CI).
    curl="$(ldconfig -p | awk '$1 == "libcurl.so.4" && $NF ~ /^\// && !found {print $NF; found = 1}')"
    [[ -n "$curl" ]] || { echo "release: no libcurl.so.4 on this machine to bundle (scripts/setup.sh)" >&2; exit 1; }
    mkdir -p "$libs"
    for path in "$curl" $(ldd "$curl" | awk '$3 ~ /^\// {print $3}'); do
        base="$(basename "$path")"
        [[ "$path" == "$curl" ]] && base=libcurl.so.4
        [[ "$base" =~ $allowed ]] && continue
        cp -L "$path" "$libs/$base" && chmod 644 "$libs/$base"
        patchelf --set-rpath '$ORIGIN' "$libs/$base"
    done
    local refused=()
    for dependency in $(needed "$binary"); do
        [[ "$dependency" =~ $allowed ]] || refused+=("bin/pipeline needs $dependency")
    done
    for file in "$libs"/*; do
        [[ -f "$file" ]] || continue
        for dependency in $(needed "$file"); do
            [[ "$dependency" =~ $allowed || -f "$libs/$dependency" ]] || refused+=("$(basename "$file") needs $dependency")
        done
        too_new="$(objdump -T "$file" | grep -o 'GLIBC_2\.[0-9]*' | sort -uV | tail -1)"
        [[ -z "$too_new" || "${too_new#GLIBC_2.}" -le 35 ]] || refused+=("$(basename "$file") needs $too_new")
    done
    if [[ ${#refused[@]} -gt 0 ]]; then
        printf 'release: %s, which is neither bundled nor allowed (glibc 2.35, libstdc++, libgcc_s, zlib)\n' "${refused[@]}" >&2
        echo "release: nothing written" >&2
        exit 1
    fi
}

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
    bundle_linux_libraries "$work/$name/bin/pipeline" "$work/$name/lib/pipeline"
fi
shown="$("$work/$name/bin/pipeline" --version)"
[[ "$shown" == "pipeline $version" ]] || { echo "release: the binary says '$shown', the source says $version" >&2; exit 1; }

tar -C "$work" -czf "$out/$name.tar.gz" "$name"
(cd "$out" && { command -v sha256sum >/dev/null && sha256sum "$name.tar.gz" || shasum -a 256 "$name.tar.gz"; } > "$name.tar.gz.sha256")
size="$(wc -c < "$work/$name/bin/pipeline" | tr -d ' ')"
echo "release: $out/$name.tar.gz ($(( $(wc -c < "$out/$name.tar.gz") / 1048576 )) MB; binary $(( size / 1048576 )) MB)"
echo "release: $out/$name.tar.gz.sha256"
