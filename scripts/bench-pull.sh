#!/usr/bin/env bash
# Benchmark: the pull stage's transfer (`pipeline refs pull`, develop's references into a checkout
# that has none, as a CI checkout with __Snapshots__ out of git) against the peer tools, on a folder
# store and on a local S3 server (moto).
# Usage: scripts/bench-pull.sh [OBJECTS] [FOLDERS] [RUNS]   (defaults: 1000 objects of ~20 KB in 50 test folders, 5 runs)
# Prints, in one run, the median wall time of each, the ratios, and the no-op re-run against `aws s3 sync`;
# and the same objects spread over a render environment's set, its fallback and the shared set,
# pulled along that chain, against the flat pull.
set -euo pipefail
cd "$(dirname "$0")/.."
objects="${1:-1000}" folders="${2:-50}" runs="${3:-5}" port="${BENCH_S3_PORT:-9000}"

source scripts/lib/bench.sh
bench_s3_setup

bench_images "$work/source/Tests/AppTests/__Snapshots__"
tests=$(ls "$work/source/Tests/AppTests/__Snapshots__")
for name in $tests; do echo "// a snapshot test file" >"$work/source/Tests/AppTests/$name.swift"; done
# develop as a folder store (written by pipeline, with its metadata) and as an S3 prefix.
"$bin" refs promote -C "$work/source" $tests --force --yes --feature "$work/store/feature" --develop "$work/store/develop" >/dev/null 2>&1
$aws cp --recursive --quiet "$work/source/Tests/AppTests/__Snapshots__" s3://bench/develop
# Checkouts with the test files and no references, one per run and tool, as CI checks them out.
for kind in folder s3 noop; do
    for run in $(seq 0 "$runs"); do
        mkdir -p "$work/$kind-$run/Tests/AppTests"
        cp "$work/source/Tests/AppTests/"*.swift "$work/$kind-$run/Tests/AppTests/"
    done
done
# The same objects over three sets of one store (a render environment's, its fallback's, the shared
# set): a third in linux/, a third in macos/, the rest shared; pulled along the chain by a spec.
python3 - "$work/source/Tests/AppTests/__Snapshots__" "$work/chain" <<'PY'
import os, shutil, sys
source, chain = sys.argv[1], sys.argv[2]
for index, path in enumerate(sorted(os.path.join(r, n) for r, _, ns in os.walk(source) for n in ns)):
    rel = os.path.relpath(path, source)
    target = os.path.join(chain, ["linux", "macos", ""][index % 3], rel)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copy(path, target)
PY
$aws cp --recursive --quiet "$work/chain" s3://bench/chain
for run in $(seq 0 "$runs"); do
    mkdir -p "$work/chain-$run/Tests/AppTests" "$work/chain-$run/pipelines"
    cp "$work/source/Tests/AppTests/"*.swift "$work/chain-$run/Tests/AppTests/"
    printf 'name: bench
description: a chain of three sets
references:
  develop: s3://bench/chain
  endpoint: %s
  environment: linux
  fallback: [macos]
stages:
  - test
' \
        "$endpoint" >"$work/chain-$run/pipelines/bench.yml"
done
"$bin" refs pull -C "$work/noop-0" --develop s3://bench/develop --endpoint "$endpoint" >/dev/null 2>&1
$aws sync --quiet s3://bench/develop "$work/sync-noop"

measure "pipeline_folder=$bin refs pull -C $work/folder-{run} --develop $work/store/develop" \
    "cp=cp -r $work/store/develop $work/cp-{run}" \
    "pipeline_s3=$bin refs pull -C $work/s3-{run} --develop s3://bench/develop --endpoint $endpoint" \
    "pipeline_chain=$bin refs pull -C $work/chain-{run}" \
    "aws_cp=$aws cp --recursive --quiet s3://bench/develop $work/aws-{run}" \
    "pipeline_noop=$bin refs pull -C $work/noop-0 --develop s3://bench/develop --endpoint $endpoint" \
    "sync_noop=$aws sync --quiet s3://bench/develop $work/sync-noop"

for checkout in "$work/folder-0" "$work/s3-0" "$work/chain-0"; do
    pulled=$(find "$checkout/Tests/AppTests/__Snapshots__" -type f | wc -l)
    [[ "$pulled" == "$objects" ]] || { echo "bench: expected $objects references in $checkout, found $pulled" >&2; exit 1; }
done
diff -r "$work/source/Tests/AppTests/__Snapshots__" "$work/chain-0/Tests/AppTests/__Snapshots__" >/dev/null \
    || { echo "bench: the references pulled along the chain differ from the source" >&2; exit 1; }
diff -r "$work/source/Tests/AppTests/__Snapshots__" "$work/s3-0/Tests/AppTests/__Snapshots__" >/dev/null \
    || { echo "bench: the pulled references differ from the source" >&2; exit 1; }

echo "pulling $objects references (~20 KB) in $folders test folders into a checkout with none, median of $runs runs:"
printf '%-58s %8.3f s\n' "pipeline refs pull, folder store" "$t_pipeline_folder" \
    "cp -r of the same folder" "$t_cp" \
    "pipeline refs pull, S3 (moto at $endpoint)" "$t_pipeline_s3" \
    "aws s3 cp --recursive of the same prefix" "$t_aws_cp" \
    "pipeline refs pull, S3, along a chain of three sets" "$t_pipeline_chain" \
    "pipeline refs pull, nothing to do (S3)" "$t_pipeline_noop" \
    "aws s3 sync, nothing to do" "$t_sync_noop"
echo "ratio pipeline / cp -r (folder):              $(ratio "$t_pipeline_folder" "$t_cp")"
echo "ratio pipeline / aws s3 cp --recursive (S3):  $(ratio "$t_pipeline_s3" "$t_aws_cp")"
echo "ratio no-op pipeline / no-op aws s3 sync:     $(ratio "$t_pipeline_noop" "$t_sync_noop")"
echo "ratio chain of three sets / one set (S3):     $(ratio "$t_pipeline_chain" "$t_pipeline_s3")   (goal ≤ 1.2)"
