#!/usr/bin/env bash
# Benchmark: `pipeline refs diff` against ImageMagick's `compare`.
# Usage: scripts/bench-diff.sh [RUNS]   (default 7)
# Checks on generated pairs (8-bit RGB and RGBA, 16-bit, grey, palette; same and different content)
# that both count the same differing pixels (`compare -metric AE`), then times a 1170×2532 pair side
# by side: counting only, and writing the difference image.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-7}"

scripts/setup.sh imagemagick
source scripts/lib/bench.sh
build_release
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "generating image pairs…" >&2
python3 - "$work" <<'PY'
import os, random, struct, sys, zlib
folder = sys.argv[1]
random.seed(7)
def png(path, width, height, colour_type, depth, rows, palette=None):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 0))
    if palette: data += chunk(b"PLTE", b"".join(bytes(c) for c in palette))
    data += chunk(b"IDAT", zlib.compress(b"".join(b"\0" + r for r in rows), 6)) + chunk(b"IEND", b"")
    open(os.path.join(folder, path), "wb").write(data)
def pair(name, width, height, channels, depth, colour_type, changes, palette=None):
    levels = (1 << depth) - 1 if colour_type != 3 else len(palette) - 1
    base = [[[random.randint(0, levels) for _ in range(channels)] for _ in range(width)] for _ in range(height)]
    new = [[list(p) for p in row] for row in base]
    for _ in range(changes):
        x, y, c = random.randrange(width), random.randrange(height), random.randrange(channels)
        new[y][x][c] = (new[y][x][c] + 1 + random.randrange(levels)) % (levels + 1)
    def rows(image):
        if depth == 16: return [b"".join(struct.pack(">H", v) for p in row for v in p) for row in image]
        return [bytes(v for p in row for v in p) for row in image]
    png(f"{name}-a.png", width, height, colour_type, depth, rows(base), palette)
    png(f"{name}-b.png", width, height, colour_type, depth, rows(new), palette)
pair("rgb8", 120, 90, 3, 8, 2, 500)
pair("rgba8", 120, 90, 4, 8, 6, 800)
pair("rgb16", 64, 48, 3, 16, 2, 200)
pair("rgba16", 64, 48, 4, 16, 6, 300)
pair("grey8", 100, 100, 1, 8, 0, 300)
pair("palette", 80, 60, 1, 8, 3, 150, [(i, 255 - i, (i * 7) % 256) for i in range(256)])
pair("same", 50, 50, 3, 8, 2, 0)
# The large pair: a phone screenshot's size, mostly flat with a few changed regions.
w, h = 1170, 2532
flat = bytes([245, 245, 247]) * w
rows_a = [flat] * h
rows_b = list(rows_a)
for y in range(1200, 1260):
    rows_b[y] = flat[:300 * 3] + bytes([230, 60, 40]) * 200 + flat[500 * 3:]
png("large-a.png", w, h, 2, 8, rows_a)
png("large-b.png", w, h, 2, 8, rows_b)
PY

echo "differing pixels, pipeline against compare -metric AE:"
mismatches=0
for name in rgb8 rgba8 rgb16 rgba16 grey8 palette same large; do
    a="$work/$name-a.png" b="$work/$name-b.png"
    ours=$("$bin" refs diff "$a" "$b" --precision 0 --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["comparison"]["differingPixels"])')
    theirs=$(compare -metric AE "$a" "$b" null: 2>&1 || true)
    same="same"; [[ "$ours" == "${theirs%%.*}" ]] || { same="DIFFERENT"; mismatches=$((mismatches + 1)); }
    printf '  %-8s pipeline %8s   compare %8s   %s\n' "$name" "$ours" "$theirs" "$same"
done
echo "pairs with different counts: $mismatches"
[[ "$mismatches" == 0 ]] || { echo "bench: pipeline and ImageMagick disagree (above)" >&2; exit 1; }

# compare exits 1 when the images differ, as these do; interleave.py mentions it.
a="$work/large-a.png" b="$work/large-b.png"
measure "pipeline=$bin refs diff $a $b --precision 0" "compare=compare -metric AE $a $b null:" \
    "pipeline_overlay=$bin refs diff $a $b --precision 0 -o $work/ours.png" "compare_image=compare $a $b $work/theirs.png"
echo "a 1170×2532 pair, median of $runs runs:"
printf '  %-44s %7.3f s\n' "pipeline refs diff (count)" "$t_pipeline" "compare -metric AE (count)" "$t_compare" \
    "pipeline refs diff -o overlay.png" "$t_pipeline_overlay" "compare a b diff.png" "$t_compare_image"
echo "ratio counting:        $(ratio "$t_pipeline" "$t_compare")"
echo "ratio with the image:  $(ratio "$t_pipeline_overlay" "$t_compare_image")"
