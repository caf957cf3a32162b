#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader of outside input (Sources/FuzzTargets) with libFuzzer,
# the toolchain's own (-sanitize=fuzzer,address): each target starts from its committed seed corpus
# (Fuzz/corpus/<target>/, never written) and keeps what it finds in .build/fuzz/corpus/<target>/.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET…]   (default: 60 seconds shared by every target)
# PIPELINE_FUZZ_SEED=N fixes libFuzzer's seed (scripts/test.sh does, so a run of the same code
# mutates the same way); without it, each run explores anew.
# Prints per target: executions, the edges covered at the start and at the end, and what it found;
# exits 1 when any target crashed, hung (> 1 s on one input), ran out of memory or tripped
# AddressSanitizer, the input kept in .build/fuzz/crashes/<target>/ (replay it with
# `swift run pipeline-fuzz TARGET FILE`).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
build=.build/fuzz
mkdir -p .build
if ! swift build --build-path "$build" --product pipeline-fuzz -Xswiftc -sanitize=fuzzer,address \
    -Xswiftc -DFUZZING -Xswiftc -parse-as-library -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld >"$build.log" 2>&1; then
    tail -20 "$build.log" >&2
    echo "fuzz.sh: the fuzzing build failed (whole log: $build.log)" >&2
    exit 2
fi
bin="$(swift build --build-path "$build" --show-bin-path -Xswiftc -sanitize=fuzzer,address)/pipeline-fuzz"
if [[ $# -gt 0 ]]; then targets=("$@"); else mapfile -t targets < <(cd Fuzz/corpus && ls -d */ | tr -d /); fi
per=$((seconds / ${#targets[@]}))
((per >= 1)) || per=1
failed=0
echo "fuzzing ${#targets[@]} target(s), ${per} s each"
for target in "${targets[@]}"; do
    work="$build/corpus/$target" crashes="$build/crashes/$target"
    mkdir -p "$work" "$crashes"
    log="$build/$target.log"
    status=0
    PIPELINE_FUZZ_TARGET="$target" "$bin" "$work" "Fuzz/corpus/$target" -max_total_time="$per" -timeout=1 \
        -rss_limit_mb=2048 -artifact_prefix="$crashes/" -print_final_stats=1 \
        ${PIPELINE_FUZZ_SEED:+-seed="$PIPELINE_FUZZ_SEED"} >"$log" 2>&1 || status=$?
    python3 - "$target" "$log" "$status" <<'PY' || failed=1
import re, sys
target, log, status = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(log, errors="replace").read()
start = re.search(r"INITED cov: (\d+)", text)
ends = re.findall(r"cov: (\d+)", text)
runs = re.search(r"stat::number_of_executed_units: (\d+)", text)
# What libFuzzer and the sanitizers report, at a line's start (inputs and dictionary entries it
# prints may hold any text, "Fatal error" included); a Swift trap is named by its own line.
found = re.findall(r"^(?:==\d+== ?)?((?:ERROR|WARNING): (?:AddressSanitizer|LeakSanitizer|libFuzzer)[^\n]*)", text, re.M)
trap = re.findall(r"^[^\n#\"]*?(Fatal error: [^\n]*)", text, re.M)
failed = status != 0 or bool(found)
print(f"{target}: {int(runs.group(1)) if runs else 0} executions, edges {start.group(1) if start else '?'} → "
      f"{ends[-1] if ends else '?'}, " + ("nothing found" if not failed else
      "FOUND: " + (trap[0] if trap and status else found[0] if found else f"exit {status}") + f" (log: {log})"))
sys.exit(1 if failed else 0)
PY
done
if ((failed)); then
    echo "fuzz.sh: something was found; the inputs are in $build/crashes/" >&2
    exit 1
fi
echo "fuzz.sh: ${#targets[@]} target(s), nothing found"
