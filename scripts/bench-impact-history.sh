#!/usr/bin/env bash
# Benchmark: how much of a suite `pipeline test --impacted` runs, on real history.
# Usage: scripts/bench-impact-history.sh REPOSITORY [COMMITS] [FIXUP]   (default 40 commits)
#   e.g. scripts/bench-impact-history.sh ../shared/histories/swift-algorithms.bundle 40
# For each of the last COMMITS non-merge commits that change Sources/, the impact map is recorded at
# the commit's parent (the tests built there with coverage), then the commit is checked out and
# --impacted --dry-run says what it would run, by each rule on the same map: the index rule (what each
# use resolves to, from the compiler's index kept in the map) and the name rule
# (PIPELINE_IMPACT_RULE=names: every file naming a changed declaration). Prints each commit's
# selected share of the suite's expected time by both, and each rule's distribution: mean, median
# and the commits that run every test, with why; for a commit that runs more than half the suite,
# the first reason given and the one most suites share, so the coarse rule shows. The tests are listed from the parent's
# build, so a suite the commit adds is not counted (it would run, with no recorded time yet).
# FIXUP, a shell command, is for parents that no longer build here (an old dependency this machine
# cannot fetch): it runs in such a parent's checkout, the result is committed as the map's commit,
# and the commit's own change is applied over it (a commit whose change does not apply is skipped).
# For swift-algorithms before it required swift-numerics 1.0, offline:
#   fixup='sed -i -E "s#(swift-numerics[^)]*), from: \"0[^\"]*\"#\1, from: \"1.0.0\"#" Package.swift; rm -f Tests/LinuxMain.swift'
#   scripts/bench-impact-history.sh ../shared/histories/swift-algorithms.bundle 40 "$fixup"
set -euo pipefail
cd "$(dirname "$0")/.."
repository="$1" commits="${2:-40}" fixup="${3:-}"

source scripts/lib/bench.sh
bench_prepare
git clone -q "$repository" "$scratch/repo"
cd "$scratch/repo"
timings="$scratch/timings.json"
record() {
    "$bin" test --record-impact --timings "$timings" >/dev/null 2>"$scratch/record.err" || true
    grep -q "^Impact map" "$scratch/record.err"
}
mapfile -t picked < <(git log --no-merges --format=%H -n "$commits" -- Sources | tac)
: > "$scratch/shares-index.txt"; : > "$scratch/shares-names.txt"
for commit in "${picked[@]}"; do
    git checkout -q --force "$commit^"
    fixed=""
    if ! record; then
        if [[ -z "$fixup" ]]; then
            echo "  ${commit:0:12}: parent did not record (skipped): $(grep -m1 -E "error" "$scratch/record.err" | cut -c1-160)"
            continue
        fi
        # The parent with the fix-up committed is the map's commit; the commit's change goes over it.
        sh -c "$fixup"
        git add -A && git -c user.name=bench -c user.email=bench@example.com commit -q -m fixup
        record || { echo "  ${commit:0:12}: parent did not record, even fixed up (skipped)"; continue; }
        git cherry-pick -n "$commit" >/dev/null 2>&1 || { echo "  ${commit:0:12}: does not apply over the fix-up (skipped)"; continue; }
        fixed=" (fixed up)"
    else
        git checkout -q --force "$commit"
    fi
    line="  ${commit:0:12}:"
    for rule in index names; do
        PIPELINE_IMPACT_RULE="$rule" "$bin" test --impacted --dry-run --skip-build --timings "$timings" \
            >"$scratch/plan.out" 2>"$scratch/plan.err" || true
        share=$(python3 - "$commit" "$scratch/plan.out" "$scratch/plan.err" "$timings" "$scratch/shares-$rule.txt" <<'PY'
import json, re, sys
commit, plan, err, timings, shares = sys.argv[1:6]
text = open(err).read()
m = re.search(r"(\d+) suite\(s\) run, (\d+) left out \(expected ([0-9.]+) s\)", text)
if "every test runs" in text:
    share, why = 1.0, re.search(r"every test runs, since (.*)", text).group(1)
elif "No test is reachable" in open(plan).read() + text:
    share, why = 0.0, "nothing reachable"
elif m:
    # The plan's shards hold the selected tests' expected time; the selection line, the rest's.
    selected = sum(float(x) for x in re.findall(r"^shard \d+: \d+ tests, expected ([0-9.]+) s", open(plan).read(), re.M))
    left = float(m.group(3))
    share = selected / (selected + left) if selected + left > 0 else 1.0
    why = f"{m.group(1)} suites run, {m.group(2)} left out"
else:
    share, why = 1.0, "no selection line"
# Over half the suite: which rule is coarse. The first reason given, and the reason most suites
# share (what they executed is theirs; what it refers to or names is the rule's).
if share > 0.5 and "every test runs" not in text:
    reasons = [line.split(", ", 1)[1] for line in text.splitlines()
               if line.startswith("impacted: ") and ", " in line and not re.match(r"impacted: \d+ suite", line)]
    fallbacks = [line for line in text.splitlines() if line.startswith("fallback: ")]
    common = {}
    for reason in reasons:
        tail = reason.split(", which ", 1)[1] if ", which " in reason else reason
        common[tail] = common.get(tail, 0) + 1
    first = fallbacks[0] if fallbacks else (f"impacted: {reasons[0]}" if reasons else "no reason given")
    why += f"; first: {first[:150]}"
    if common:
        top = max(common, key=common.get)
        why += f"; most: {common[top]} suites {top[:120]}"
open(shares, "a").write(f"{share}\t{commit[:12]}\t{why}\n")
print(f"{share * 100:5.1f} % ({why})")
PY
)
        line="$line  $rule $share"
    done
    echo "$line$fixed"
done
for rule in index names; do
python3 - "$scratch/shares-$rule.txt" "$rule" <<'PY'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
if not rows: sys.exit("no commit measured")
shares = sorted(float(r[0]) for r in rows)
q = statistics.quantiles(shares, n=4) if len(shares) > 1 else [shares[0]] * 3
print(f"{sys.argv[2]} rule, {len(shares)} commits: selected share of the suite's time: mean {statistics.mean(shares)*100:.1f} %, "
      f"median {statistics.median(shares)*100:.1f} %, quartiles {q[0]*100:.1f} % / {q[2]*100:.1f} %, "
      f"min {shares[0]*100:.1f} %, max {shares[-1]*100:.1f} %   (goals: mean ≤ 10 %, at most 3 of 40 run everything)")
full = [r for r in rows if float(r[0]) >= 0.999]
print(f"  every test: {len(full)}, nothing: {sum(1 for s in shares if s == 0)}")
for r in full: print(f"    {r[1]}: {r[2]}")
PY
done
