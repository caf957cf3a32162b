#!/usr/bin/env bash
# Benchmark: tested once, with composed verdicts, on a real history replayed as pull requests.
# Usage: scripts/bench-compose.sh REPOSITORY [COMMITS] [FULL_EVERY]   (defaults: 10 commits, 20)
#   e.g. scripts/bench-compose.sh ../shared/histories/swift-algorithms.bundle 10
#   REPOSITORY `example`: the example package's own history, each commit of this repository that
#   changed Examples/ExampleSuite as a commit of a repository of its own (a clone with history).
# Develop starts COMMITS first-parent commits before the repository's head, where a post-merge run
# runs the whole suite, records the impact map and keeps its verdict, as init's post-merge spec
# does. Then each commit in turn is a pull request into develop: its check runs on the merge ref
# (develop merged with it) by impact, composing on develop's verified tree
# (`pipeline test --impacted --reuse-verdicts`, as init's pull-request spec); a whole run of the
# same tree (`--no-reuse`) is the baseline; the commit then lands on develop and its post-merge run
# (`--record-impact --reuse-verdicts --full-every N`) runs what no verdict stands for. Prints, per
# commit, the check's tests and seconds against the whole run's, the post-merge run's tests, and the
# tests the whole run failed that the check did not run (missed: must be 0); then the means. The
# check and the whole run are timed with the tests built already (a CI job's build, from the build
# cache, is the same for either); a run a verdict stands for counts 0 tests.
set -euo pipefail
cd "$(dirname "$0")/.."
repository="$1" commits="${2:-10}" full_every="${3:-20}"

source scripts/lib/bench.sh
bench_prepare
if [[ "$repository" == example ]]; then
    repository="$scratch/example-history"
    git init -q -b main "$repository"
    printf '.build/\n' >"$repository/.gitignore"
    mapfile -t changed < <(git log --reverse --first-parent --format=%H -- Examples/ExampleSuite)
    [[ ${#changed[@]} -gt 1 ]] || { echo "this clone holds no history of Examples/ExampleSuite (a shallow clone?)" >&2; exit 2; }
    for commit in "${changed[@]}"; do
        find "$repository" -mindepth 1 -maxdepth 1 ! -name .git ! -name .gitignore -exec rm -rf {} +
        git archive "$commit" Examples/ExampleSuite | tar -x -C "$repository" --strip-components=2
        git -C "$repository" add -A
        git -C "$repository" -c user.name=bench -c user.email=bench@example.com commit -q \
            -m "$(git log -1 --format=%s "$commit" | cut -c1-72)"
    done
    echo "the example package's history: ${#changed[@]} commits of this repository"
fi
git clone -q "$repository" "$scratch/repo"
cd "$scratch/repo"
git config user.name bench && git config user.email bench@example.com
store="$scratch/verdicts" timings="$scratch/timings.json"
mapfile -t picked < <(git log --first-parent --format=%H -n "$commits" | tac)
git checkout -q -B develop "${picked[0]}^"

# run NAME ARGUMENTS…: `pipeline test` here, its report in $scratch/NAME.json, its wall seconds in
# $scratch/NAME.seconds; its exit status is kept in $scratch/NAME.status.
run() {
    local name="$1"
    shift
    local start end status=0
    start=$(date +%s.%N)
    "$bin" test --json --timings "$timings" "$@" >"$scratch/$name.json" 2>"$scratch/$name.err" || status=$?
    end=$(date +%s.%N)
    echo "$status" >"$scratch/$name.status"
    python3 -c "print(f'{$end - $start:.1f}')" >"$scratch/$name.seconds"
}

# count NAME: how many tests the run ran here (not taken from a verified run).
count() {
    python3 - "$scratch/$1.json" <<'PY'
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    report = {}
# A run a verdict stood for ran nothing (its report is the verified run's).
tests = [] if report.get("verifiedBy") else report.get("tests", [])
print(sum(1 for t in tests if not t.get("verifiedBy")))
PY
}

echo "develop at ${picked[0]:0:12}^: the whole suite, recording the impact map (the first post-merge run)"
run develop --record-impact --reuse-verdicts "$store" --full-every "$full_every"
echo "  $(count develop) tests in $(cat "$scratch/develop.seconds") s (exit $(cat "$scratch/develop.status"))"
printf '%-14s %16s %16s %10s %7s\n' commit "check tests/s" "whole tests/s" post-merge missed
: >"$scratch/rows.tsv"
for commit in "${picked[@]}"; do
    # The pull request's merge ref: develop merged with the commit (its tree is the commit's).
    git checkout -q --detach develop
    git merge -q --no-ff -m "merge ref of ${commit:0:12}" "$commit" >/dev/null 2>&1 || {
        echo "${commit:0:12}: does not merge onto develop (skipped)"
        git merge --abort 2>/dev/null || true
        continue
    }
    # Both are timed with the tests built already: a CI job's build (from the build cache) is the
    # same for either, and what differs is what runs.
    "$bin" test --build-only >/dev/null 2>&1 || true
    run check --impacted --reuse-verdicts "$store"
    run whole
    # The merge lands: develop moves to the commit itself, whose tree the check ran on.
    git checkout -q -B develop "$commit"
    run post --record-impact --reuse-verdicts "$store" --full-every "$full_every"
    missed=$(python3 - "$scratch/check.json" "$scratch/whole.json" <<'PY'
import json, sys
def load(path):
    try:
        return {t["name"]: t for t in json.load(open(path)).get("tests", [])}
    except (OSError, ValueError):
        return {}
check, whole = load(sys.argv[1]), load(sys.argv[2])
failed = [name for name, t in whole.items() if t.get("status") not in ("passed", "skipped")]
# A failure the whole run found is missed when the check neither ran it nor failed.
print(sum(1 for name in failed if name not in check or check[name].get("verifiedBy")))
PY
)
    row="${commit:0:12} $(count check) $(cat "$scratch/check.seconds") $(count whole) $(cat "$scratch/whole.seconds") $(count post) $missed"
    echo "$row" >>"$scratch/rows.tsv"
    read -r c ct cs wt ws pt m <<<"$row"
    printf '%-14s %16s %16s %10s %7s\n' "$c" "$ct / $cs" "$wt / $ws" "$pt" "$m"
done
python3 - "$scratch/rows.tsv" <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
if not rows:
    sys.exit("no commit measured")
share = lambda a, b: float(a) / float(b) if float(b) > 0 else 1.0
tests = [share(r[1], r[3]) for r in rows]
seconds = [share(r[2], r[4]) for r in rows]
print(f"{len(rows)} pull requests: a check ran {sum(tests) / len(rows) * 100:.1f} % of the whole run's tests "
      f"and took {sum(seconds) / len(rows) * 100:.1f} % of its time, on average; "
      f"post-merge runs ran {sum(int(r[5]) for r in rows)} tests in all "
      f"(whole runs: {sum(int(r[3]) for r in rows)}); missed: {sum(int(r[6]) for r in rows)}")
PY
