#!/usr/bin/env bash
# Benchmark: `pipeline changes` against `git diff` on a generated large repository and a small one,
# and `pipeline --version` against `git --version` (start-up).
# Usage: scripts/bench-changes.sh [FILES] [CHANGED] [RUNS]   (defaults: 100000 files, 5000 changed, 7 runs)
# Prints the median whole-process wall time of each command and the ratios, in one run, with the
# libgit2 floor: libgit2 alone doing the same comparison in C (scripts/lib/libgit2-floor.c).
set -euo pipefail
cd "$(dirname "$0")/.."
files="${1:-100000}" changed="${2:-5000}" runs="${3:-7}"

scripts/setup.sh
source scripts/lib/bench.sh
build_release

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# make_repo DIR FILES CHANGED: a repository of FILES files whose HEAD merges a branch changing CHANGED.
make_repo() {
    local repo="$1" files="$2" changed="$3"
    git init -q -b develop "$repo"
    echo "generating a repository of $files files, and a merge changing $changed of them…" >&2
    # One fast-import stream: a base commit, a feature branch changing files in test targets,
    # reference images and sources (edits, additions, deletions), and a merge commit into develop.
    python3 - "$files" "$changed" <<'PY' | git -C "$repo" fast-import --quiet
import sys
files, changed = int(sys.argv[1]), int(sys.argv[2])
def path(i):
    target = i % 200
    kind = i % 3
    if kind == 0: return f"Sources/Module{target}/File{i}.swift"
    if kind == 1: return f"Tests/Module{target}Tests/Case{i}Tests.swift"
    return f"Tests/Module{target}Tests/__Snapshots__/Case{i-1}Tests/test_{i}.1.png"
out = sys.stdout
def blob(mark, text):
    data = text.encode()
    out.write(f"blob\nmark :{mark}\ndata {len(data)}\n"); out.flush()
    sys.stdout.buffer.write(data); out.write("\n")
def commit(ref, mark, message, parents, ops):
    out.write(f"commit {ref}\nmark :{mark}\ncommitter Bench <bench@example.com> 1700000000 +0000\n")
    msg = message.encode(); out.write(f"data {len(msg)}\n{message}\n")
    for i, p in enumerate(parents): out.write(("from" if i == 0 else "merge") + f" :{p}\n")
    for op in ops: out.write(op + "\n")
    out.write("\n")
blob(1, "base content\n" * 4); blob(2, "changed content\n" * 4); blob(3, "develop content\n")
commit("refs/heads/develop", 10, "base", [], [f"M 100644 :1 {path(i)}" for i in range(files)])
step = max(1, files // changed)
ops = []
for n, i in enumerate(range(0, files, step)):
    if len(ops) >= changed: break
    if n % 10 == 0: ops.append(f"D {path(i)}")
    elif n % 10 == 1: ops.append(f"M 100644 :2 {path(i)}.new")
    else: ops.append(f"M 100644 :2 {path(i)}")
commit("refs/heads/feature", 11, "feature", [10], ops)
commit("refs/heads/develop", 12, "develop moves", [10], ["M 100644 :3 README.md"])
# fast-import starts a commit from its first parent's tree: the merge brings the feature's changes in.
commit("refs/heads/develop", 13, "Merge feature", [12, 11], ops)
PY
    git -C "$repo" symbolic-ref HEAD refs/heads/develop
    git -C "$repo" read-tree HEAD   # an index, as in a real checkout (the work tree is not needed)
}
make_repo "$scratch/large" "$files" "$changed"
make_repo "$scratch/small" 1000 50
repo="$scratch/large"

cd "$repo"
count_git=$(git diff --no-renames --name-only HEAD^1 HEAD | wc -l)
count_pipeline=$("$bin" changes --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len({p for f in d["files"] for p in [f["path"], f.get("oldPath")] if p}))')
echo "files in the repository: $files; changed by the merge: git $count_git, pipeline $count_pipeline (rename sources included)"
[[ "$count_git" == "$count_pipeline" ]] || { echo "bench: the two disagree on the changed files" >&2; exit 1; }

# The libgit2 floor: libgit2 alone (init, open, the same tree walk) in C, with no Swift and no classification.
floor="$scratch/libgit2-floor"
"$(command -v cc || command -v clang)" -O2 "$bench_lib/libgit2-floor.c" -o "$floor" $(pkg-config --cflags --libs libgit2)
[[ "$("$floor")" == "$count_git" ]] || { echo "bench: the libgit2 floor disagrees on the changed files" >&2; exit 1; }

small="$scratch/small"
measure "git=git diff --no-renames --name-only HEAD^1 HEAD" "git_m=git diff -M --name-status HEAD^1 HEAD" \
    "pipeline=$bin changes" "pipeline_norenames=$bin changes --no-renames" "pipeline_json=$bin changes --json" \
    "floor=$floor" \
    "small_git=git -C $small diff -M --name-status HEAD^1 HEAD" "small_pipeline=$bin -C $small changes" \
    "version_git=git --version" "version_pipeline=$bin --version"
printf '%-60s %8.4f s\n' "git diff --no-renames --name-only HEAD^1 HEAD" "$t_git" \
    "git diff -M --name-status HEAD^1 HEAD (renames on)" "$t_git_m" \
    "pipeline changes (renames on, classified)" "$t_pipeline" \
    "pipeline changes --no-renames" "$t_pipeline_norenames" \
    "pipeline changes --json" "$t_pipeline_json" \
    "libgit2 alone: init, open, the same walk (C)" "$t_floor" \
    "small repository (1,000 files, 50 changed): git diff -M" "$t_small_git" \
    "small repository: pipeline changes" "$t_small_pipeline" \
    "git --version" "$t_version_git" \
    "pipeline --version" "$t_version_pipeline"
echo "ratio pipeline changes --no-renames / git diff --no-renames: $(ratio "$t_pipeline_norenames" "$t_git")"
echo "ratio libgit2 alone (the floor) / git diff --no-renames:   $(ratio "$t_floor" "$t_git")"
echo "ratio pipeline changes / git diff -M:                       $(ratio "$t_pipeline" "$t_git_m")"
echo "ratio small repository, pipeline changes / git diff -M:     $(ratio "$t_small_pipeline" "$t_small_git")"
echo "ratio pipeline --version / git --version:                   $(ratio "$t_version_pipeline" "$t_version_git")"
