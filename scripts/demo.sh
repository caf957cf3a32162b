#!/usr/bin/env bash
# The main job on the embedded default: builds pipeline, lists this repository's pipelines,
# and shows the plan of the post-merge pipeline (folder storage). Changes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
echo "demo: building pipeline (the first build takes a few minutes)…" >&2
if ! swift build --product pipeline >"$log" 2>&1; then
    cat "$log" >&2
    echo "demo: the build failed (above)" >&2
    exit 6
fi
bin="$(swift build --show-bin-path)/pipeline"

echo "\$ pipeline list"
"$bin" list
echo
echo "\$ pipeline run post-merge --dry-run"
"$bin" run post-merge --dry-run
echo
echo "\$ pipeline test --package-path Examples/ExampleSuite --retries 1   # with a flaky test switched on"
flaky="$(mktemp -d)"
EXAMPLE_FLAKY_DIR="$flaky" "$bin" test --package-path Examples/ExampleSuite --retries 1 --flaky pass
rm -rf "$flaky"
