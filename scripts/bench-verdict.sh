#!/usr/bin/env bash
# Benchmark: the verdict on a one-line change, from a fresh CI checkout (a fresh clone: every file a
# new modification time, as CI's), against the floor.
# Usage: scripts/bench-verdict.sh [PACKAGE]   (default Examples/ExampleSuite; a folder, a git
#        repository or a git bundle, e.g. ../shared/histories/swift-algorithms.bundle)
# The package becomes a repository with a parent commit and a child that changes one line a test
# executes (found from the recorded coverage, one that builds). The impact map is recorded at the
# parent, beside the timings in a folder every checkout shares. Then, each from a fresh clone at
# the same absolute path:
#   today       swift build --build-tests && swift test --parallel
#   cold        pipeline test --impacted, with an empty build cache
#   warm        pipeline test --impacted --build-cache, the cache warm from the parent commit
#   2 nodes     a build job (pipeline test --build-only --build-cache, in a CI run), then two
#               nodes (--node i/2 --impacted) running the products it kept; the verdict is the
#               build plus the slower node (they run on two machines), and no node may compile
#   floor       in the original checkout, built at the parent: the change checked out, then
#               pipeline test --impacted (an incremental build of the change + the impacted tests)
#   verified    pipeline test --reuse-verdicts from a fresh clone of a tree a run already verified
#               (a squash onto an unchanged develop, after the pull request's passing check)
#   moved       the same change onto a develop that moved by another one-line change (in another
#               file): pipeline test --reuse-verdicts (warm cache) runs what the move reaches, the
#               rest taken from the check, against swift build + swift test --parallel of that merge
# The floor and the warm run are each measured PIPELINE_BENCH_REPEATS times (3), their medians kept.
# Then today, warm and the floor again with Swift Build (--build-system swiftbuild, SwiftPM 6.4's
# default), against its own `swift build` + `swift test --parallel` (PIPELINE_BENCH_SWIFTBUILD=0: not).
# Prints each time, its ratio to the floor, warm against today's way, and the cache's restore and
# save times and sizes. Exits 1 when a node compiled, or a run did not do its work.
set -euo pipefail
cd "$(dirname "$0")/.."
source_package="${1:-Examples/ExampleSuite}"
runs=1
source scripts/lib/bench.sh
bench_prepare
if [[ -f "$source_package" ]]; then
    git clone -q "$source_package" "$scratch/source"
else
    copy_package "$(cd "$source_package" && pwd)" "$scratch/source"
fi
as_repository "$scratch/source"
# An app commits its pins; a library may not (then every checkout resolves alike).
if [[ -f "$scratch/source/Package.resolved" ]]; then
    git -C "$scratch/source" add -f Package.resolved
    git -C "$scratch/source" -c user.name=bench -c user.email=bench@example.com commit -q -m pins || true
fi
python3 - "$bin" "$scratch" "${PIPELINE_BENCH_REPEATS:-3}" <<'PY'
import json, os, re, shutil, subprocess, sys, time

pipeline, scratch, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
source = os.path.join(scratch, "source")
original = os.path.join(scratch, "original")
ci_path = os.path.join(scratch, "ci", "app")
timings = os.path.join(scratch, "shared", "timings.json")
cache = os.path.join(scratch, "cache")
git = lambda folder, *args: subprocess.run(
    ["git", "-C", folder, "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
    check=True, capture_output=True, text=True).stdout.strip()
os.makedirs(os.path.dirname(timings), exist_ok=True)


def run(command, cwd, env=None, check=True):
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=dict(os.environ, **(env or {})), capture_output=True, text=True,
                            shell=isinstance(command, str))
    seconds = time.perf_counter() - started
    if check and result.returncode not in (0, 1):
        sys.exit(f"bench-verdict: {command} failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return seconds, result


def fresh(commit):
    """A fresh clone at the CI path, at `commit`: every file a new modification time."""
    shutil.rmtree(ci_path, ignore_errors=True)
    os.makedirs(os.path.dirname(ci_path), exist_ok=True)
    git(scratch, "clone", "-q", source, ci_path)
    git(ci_path, "checkout", "-q", commit)
    return ci_path


parent = git(source, "rev-parse", "HEAD")
git(scratch, "clone", "-q", source, original)
print("recording the impact map at the parent commit (the original checkout)…", file=sys.stderr)
run([pipeline, "test", "--package-path", original, "--record-impact", "--coverage-dir",
     os.path.join(scratch, "coverage"), "--timings", timings], original)

# The one-line change: a statement put before a line some test executes, in the package's own sources.
executed, path = [], None
for line in open(os.path.join(scratch, "coverage", "lcov.info")):
    line = line.strip()
    if line.startswith("SF:"):
        path = os.path.join(original, line[3:])
    elif line.startswith("DA:") and path and "/Sources/" in path and "/.build/" not in path:
        number, count = line[3:].split(",")[:2]
        if int(count) > 0:
            executed.append((path, int(number)))
starts = re.compile(r"^\s*(let|var|return|guard|if|for|while|switch)\b")


def one_line_change(besides=None):
    """A statement put before an executed line of a file other than `besides`, that builds, made in
    the original checkout: (path relative to it, line); the file is left changed."""
    for path, number in executed:
        relative = os.path.relpath(path, original)
        lines = open(path).read().split("\n")
        previous = lines[number - 2].rstrip() if number >= 2 else ""
        if relative == besides or not starts.match(lines[number - 1]) or (
                not previous.endswith(("{", "}")) and not starts.match(previous)):
            continue
        indent = re.match(r"^\s*", lines[number - 1]).group(0)
        lines.insert(number - 1, f"{indent}_ = \"one-line change\".count")
        with open(path, "w") as f:
            f.write("\n".join(lines))
        if subprocess.run(["swift", "build", "--build-tests", "--package-path", original],
                          capture_output=True).returncode == 0:
            return relative, number
        git(original, "checkout", "-q", "--", relative)
    sys.exit("bench-verdict: no one-line change of an executed line builds")


change = one_line_change()
shutil.copy(os.path.join(original, change[0]), os.path.join(source, change[0]))
git(source, "commit", "-q", "-am", "one-line change")
child = git(source, "rev-parse", "HEAD")
print(f"the change: a statement before line {change[1]} of {change[0]}", file=sys.stderr)

# The floor: the original checkout built at the parent (as pipeline builds), the change checked out.
git(original, "checkout", "-q", "--", ".")
git(original, "fetch", "-q", "origin")
impacted = ["--impacted", "--timings", timings]
median = lambda values: sorted(values)[len(values) // 2]
floors = []
for _ in range(repeats):
    git(original, "checkout", "-q", parent)
    run([pipeline, "test", "--package-path", original, "--list"], original)
    git(original, "checkout", "-q", child)
    seconds, result = run([pipeline, "test", "--package-path", original, *impacted], original)
    floors.append(seconds)
floor = median(floors)
selected = re.search(r"(\d+) passed, (\d+) failed", result.stdout)

# Today's way, and pipeline cold (an empty cache: its save is part of the run).
today, _ = run("swift build --build-tests && swift test --parallel", fresh(child))
cold, _ = run([pipeline, "test", *impacted, "--build-cache", os.path.join(scratch, "empty-cache")], fresh(child))

# The cache warmed by the parent's build (as the post-merge job on develop keeps it).
run([pipeline, "test", "--build-only", "--build-cache", cache], fresh(parent))
shutil.copytree(cache, cache + "-nodes")
warms = []
for attempt in range(repeats):
    # Each from the cache as the parent's build left it (a run keeps its own commit's entry).
    shutil.rmtree(cache + "-warm", ignore_errors=True)
    shutil.copytree(cache, cache + "-warm")
    seconds, result = run([pipeline, "test", *impacted, "--build-cache", cache + "-warm"], fresh(child))
    warms.append(seconds)
    restored = re.search(r"restored the build of \S+ \S+ from .* \(([\d.]+) MB, ([\d.]+) s;", result.stderr)
    saved = re.search(r"kept \S+ build in .*: ([\d.]+) MB in \d+ parts?, ([\d.]+) s", result.stderr)
    if not restored or not saved:
        sys.exit(f"bench-verdict: the warm run did not restore and keep a build:\n{result.stderr[-3000:]}")
warm = median(warms)

# Two nodes built once: the build job, then each node on a fresh machine.
ci = {"CI": "true", "GITHUB_RUN_ID": "31337", "GITHUB_REF_NAME": "feature/change"}
build_job, result = run([pipeline, "test", "--build-only", "--build-cache", cache + "-nodes"], fresh(child), ci)
nodes, compiled = [], []
for node in ("1/2", "2/2"):
    seconds, result = run([pipeline, "test", "--node", node, *impacted, "--build-cache", cache + "-nodes"],
                          fresh(child), ci)
    nodes.append(seconds)
    if "fetched CI run 31337's test products" not in result.stderr or "Building the tests" in result.stderr:
        compiled.append(node)
two_nodes = build_job + max(nodes)

# Tested once: the pull request's check kept its verdict of this tree; the merge's job (a fresh
# clone of the same tree: a squash onto an unchanged develop) reuses it and builds nothing.
verdicts = os.path.join(scratch, "verdicts")
run([pipeline, "test", "--reuse-verdicts", verdicts], fresh(child))
reused, result = run([pipeline, "test", "--reuse-verdicts", verdicts], fresh(child))
if "verified already" not in result.stderr or "Building the tests" in result.stderr:
    sys.exit(f"bench-verdict: the verified tree's run did not reuse its verdict:\n{result.stderr[-3000:]}")

# Develop moved between the check and the merge (another one-line change, in another file): the
# same change over the moved develop runs what develop's move reaches by the impact map, the rest
# taken from the check; against today's full run of that merge, both from the parent's warm cache.
git(original, "checkout", "-q", "--", ".")
git(original, "checkout", "-q", parent)
moved_change = one_line_change(besides=change[0])
git(source, "checkout", "-q", "-b", "moved", parent)
shutil.copy(os.path.join(original, moved_change[0]), os.path.join(source, moved_change[0]))
git(source, "commit", "-q", "-am", "develop moved")
git(source, "cherry-pick", child)
merged = git(source, "rev-parse", "HEAD")
git(original, "checkout", "-q", "--", ".")
today_moved, _ = run("swift build --build-tests && swift test --parallel", fresh(merged))
shutil.rmtree(cache + "-moved", ignore_errors=True)
shutil.copytree(cache, cache + "-moved")
moved, result = run([pipeline, "test", "--reuse-verdicts", verdicts, "--timings", timings, "--build-cache",
                     cache + "-moved"], fresh(merged))
if "verified already over" not in result.stderr:
    sys.exit(f"bench-verdict: the merge over a moved develop did not find the check's verdict:\n{result.stderr[-3000:]}")
taken = re.search(r"(\d+) tests?' results taken from run \S+, (\d+) run", result.stderr)

print(f"verdict on a one-line change ({selected.group(0) if selected else 'tests'} by --impacted in the floor)")
for label, seconds in [("today: swift build + swift test --parallel", today), ("pipeline cold", cold),
                       ("pipeline warm (cache from the parent)", warm),
                       (f"2 nodes built once (build {build_job:.1f} s + slower node {max(nodes):.1f} s)", two_nodes),
                       ("floor: incremental build + impacted tests", floor),
                       ("verified tree: --reuse-verdicts, nothing built or run", reused)]:
    print(f"  {label:58s} {seconds:6.1f} s  {seconds / floor:5.2f}x floor")
print(f"  verified tree / today: {reused / today:.3f}x (a merge whose tree the pull request's check verified)")
print(f"  develop moved ({moved_change[0]}): today {today_moved:.1f} s, pipeline {moved:.1f} s "
      f"({taken.group(2) if taken else '?'} run, {taken.group(1) if taken else '?'} taken from the check; "
      f"warm cache): {moved / today_moved:.2f}x today")
print(f"  warm / today: {warm / today:.2f}x   warm / floor: {warm / floor:.2f}x   "
      f"(medians of {repeats}: floor {', '.join(f'{x:.1f}' for x in floors)} s; warm {', '.join(f'{x:.1f}' for x in warms)} s)")
print(f"  cache: restored {restored.group(1)} MB in {restored.group(2)} s; kept {saved.group(1)} MB in {saved.group(2)} s")
print(f"  nodes: {nodes[0]:.1f} s and {nodes[1]:.1f} s, " + ("no compile step" if not compiled else f"node {', '.join(compiled)} compiled"))

# Swift Build: the same verdicts built by it (its own products, its own cache entries);
# PIPELINE_BENCH_SWIFTBUILD=0 leaves it out.
if os.environ.get("PIPELINE_BENCH_SWIFTBUILD") == "0":
    sys.exit(1 if compiled else 0)
system = ["--build-system", "swiftbuild"]
floors_sb = []
for _ in range(repeats):
    git(original, "checkout", "-q", parent)
    run([pipeline, "test", "--package-path", original, *system, "--list"], original)
    git(original, "checkout", "-q", child)
    seconds, _ = run([pipeline, "test", "--package-path", original, *system, *impacted], original)
    floors_sb.append(seconds)
floor_sb = median(floors_sb)
today_sb, _ = run("swift build --build-system swiftbuild --build-tests && swift test --build-system swiftbuild --parallel",
                  fresh(child))
run([pipeline, "test", *system, "--build-only", "--build-cache", cache + "-sb"], fresh(parent))
warms_sb = []
for _ in range(repeats):
    shutil.rmtree(cache + "-sb-warm", ignore_errors=True)
    shutil.copytree(cache + "-sb", cache + "-sb-warm")
    seconds, result = run([pipeline, "test", *system, *impacted, "--build-cache", cache + "-sb-warm"], fresh(child))
    if "restored the build of" not in result.stderr:
        sys.exit(f"bench-verdict: the Swift Build warm run restored nothing:\n{result.stderr[-3000:]}")
    warms_sb.append(seconds)
warm_sb = median(warms_sb)
print("Swift Build (--build-system swiftbuild)")
for label, seconds in [("today: swift build + swift test --parallel (Swift Build)", today_sb),
                       ("pipeline warm (cache from the parent)", warm_sb),
                       ("floor: incremental build + impacted tests", floor_sb)]:
    print(f"  {label:58s} {seconds:6.1f} s  {seconds / floor_sb:5.2f}x floor")
print(f"  warm / today: {warm_sb / today_sb:.2f}x   warm / floor: {warm_sb / floor_sb:.2f}x   "
      f"(medians of {repeats}: floor {', '.join(f'{x:.1f}' for x in floors_sb)} s; warm {', '.join(f'{x:.1f}' for x in warms_sb)} s)")
sys.exit(1 if compiled else 0)
PY
