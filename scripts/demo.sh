#!/usr/bin/env bash
# The main job on the embedded default (folder storage): builds pipeline, creates a throwaway git
# repository holding the example package and its reference images, records references in develop,
# makes a feature branch that changes one test and its references, merges it into develop, and runs
# the post-merge pipeline on the merge: the changed tests, the shards running, the promoted references.
# Everything it writes is inside one temporary folder, removed at the end (kept with KEEP=1).
set -euo pipefail
cd "$(dirname "$0")/.."
here="$(pwd)"

scripts/setup.sh
work="$(mktemp -d)"
[[ "${KEEP:-}" == 1 ]] && echo "demo: keeping $work" >&2 || trap 'rm -rf "$work"' EXIT
echo "demo: building pipeline (the first build takes a few minutes)…" >&2
if ! swift build --product pipeline >"$work/build.log" 2>&1; then
    cat "$work/build.log" >&2
    echo "demo: the build failed (above)" >&2
    exit 6
fi
bin="$(swift build --show-bin-path)/pipeline"
pipeline() { echo; echo "\$ pipeline $*"; "$bin" "$@"; }
git() { command git -c user.name=Demo -c user.email=demo@example.com -c init.defaultBranch=develop "$@"; }

repo="$work/app"
mkdir -p "$repo"
(cd Examples/ExampleSuite && tar --exclude=.build -cf - .) | (cd "$repo" && tar -xf -)
cd "$repo"
# Reference images beside their test files, as swift-snapshot-testing records them: real 64×64 PNGs.
cat > "$work/png.py" <<'PY'
import os, struct, sys, zlib
path, colour = sys.argv[1], bytes(int(c) for c in sys.argv[2:5])
raw = b"".join(b"\0" + colour * 64 for _ in range(64))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
PY
snapshots=Tests/ExampleKitTests/__Snapshots__
for i in 0 1 2; do python3 "$work/png.py" "$snapshots/ThumbnailTests/test_image_$i.1.png" $((40 * i)) 120 200; done
for i in 0 1; do python3 "$work/png.py" "$snapshots/SlowRenderingTests/test_image_$i.1.png" 90 $((60 * i)) 30; done
mkdir -p pipelines
cat > pipelines/post-merge.yml <<'YAML'
name: post-merge
description: After a merge into develop, test in shards and promote the changed tests' references.
references:
  feature: .pipeline/storage/feature
  develop: .pipeline/storage/develop
stages:
  - test:
      shards: auto
      timeout: 60s
      retries: 1
  - promote:
      from: feature
      to: develop
YAML
printf '.build/\n.pipeline/\n' > .gitignore
git init -q
git add -A && git commit -q -m "The app, its tests and their reference images"

echo "demo: a throwaway repository with the example package is at $repo" >&2
echo "demo: recording the current references in feature and develop (the old force-upload script)" >&2
pipeline refs promote ThumbnailTests SlowRenderingTests --force --yes

echo; echo "demo: a feature branch changes ThumbnailTests and its references, and pushes them to feature" >&2
git checkout -q -b feature/thumbnail-colours
echo "// Thumbnails now use the brand colour." >> Tests/ExampleKitTests/ThumbnailTests.swift
python3 "$work/png.py" "$snapshots/ThumbnailTests/test_image_1.1.png" 230 60 40
git commit -q -am "Brand colour for thumbnails"
pipeline refs push ThumbnailTests

git checkout -q develop
git merge -q --no-ff -m "Merge feature/thumbnail-colours" feature/thumbnail-colours
echo; echo "demo: merged into develop; this is what CI runs after the merge" >&2
pipeline run post-merge --dry-run
pipeline run post-merge
echo
echo "demo: develop now holds the new ThumbnailTests reference, recorded with the merge commit:"
cat .pipeline/storage/develop/.pipeline-metadata/ThumbnailTests/test_image_1.1.png.json; echo
echo; echo "demo: run again, the plan now shards by the recorded durations and has nothing left to promote" >&2
pipeline run post-merge --dry-run
cd "$here"
