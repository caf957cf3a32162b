#!/usr/bin/env bash
# Benchmark: installing a release against building from source, as docs/ci.md did before releases.
# Usage: scripts/bench-install.sh [RUNS]   (default 20)
# Builds the release tarball (scripts/release.sh) and the binary the old recipe built
# (`swift build -c release --product pipeline --static-swift-stdlib`, in its own build folder:
# the first time a full release build), serves the tarball on 127.0.0.1, installs it into a fresh
# prefix (timed), and prints each binary's size and the median time of `pipeline --version`.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20}"
source scripts/lib/bench.sh

work="$(mktemp -d)"
server=""
trap '[[ -n "$server" ]] && kill "$server"; rm -rf "$work"' EXIT

echo "building the release and the old recipe's binary…" >&2
scripts/release.sh --out "$work/releases/v0" >/dev/null
tarball="$(cd "$work/releases/v0" && ls pipeline-*.tar.gz)"
swift build -c release --product pipeline --static-swift-stdlib --scratch-path .build/bench-source >/dev/null 2>&1
source_bin="$(swift build -c release --static-swift-stdlib --scratch-path .build/bench-source --show-bin-path)/pipeline"

python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/releases" >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "port" "$work/server.log" && break; sleep 0.05; done
port="$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$work/server.log" | head -1)"

start=$(date +%s.%N)
scripts/install.sh "http://127.0.0.1:$port/v0/$tarball" --prefix "$work/prefix" >/dev/null
end=$(date +%s.%N)
installed="$work/prefix/bin/pipeline"

measure release="$installed --version" source="$source_bin --version"
mb() { python3 -c "import os, sys; print(f'{os.path.getsize(sys.argv[1]) / 1048576:.1f}')" "$1"; }
echo
printf '%-34s %10s %14s\n' "" "size (MB)" "--version (s)"
printf '%-34s %10s %14s\n' "installed release (stripped)" "$(mb "$installed")" "$t_release"
printf '%-34s %10s %14s\n' "built from source (old recipe)" "$(mb "$source_bin")" "$t_source"
printf '%-34s %10s\n' "tarball" "$(mb "$work/releases/v0/$tarball")"
echo
echo "install from 127.0.0.1 into a fresh prefix: $(python3 -c "print(f'{$end - $start:.2f}')") s"
echo "size: release/source $(ratio "$(mb "$installed")" "$(mb "$source_bin")")×;" \
    "--version: release/source $(ratio "$t_release" "$t_source")×"
