#!/usr/bin/env bash
# The main job on the embedded default (folder storage), told as the snapshot team lives it, with
# the references kept out of git (`__Snapshots__` ignored) and only in storage:
#   1. the example package's snapshot tests (swift-snapshot-testing) record their references once,
#      and they are stored in develop;
#   2. a feature branch changes a view: its snapshot tests fail in `pipeline test`, and the review
#      page shows reference / new / overlay;
#   3. `pipeline refs record … --push` re-records them and uploads them to feature;
#   4. the branch merges; on a fresh checkout `pipeline run post-merge` pulls the references
#      (develop's, then feature's for what the branch changed), tests (green) and promotes;
#   5. a second branch cut from develop afterwards pulls and passes.
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
say() { echo; echo "demo: $*" >&2; }
snapshots=Tests/ExampleKitTests/__Snapshots__
tests=(BadgeViewTests BadgeSnapshotTests)

repo="$work/app"
mkdir -p "$repo"
(cd Examples/ExampleSuite && tar --exclude=.build --exclude=__Snapshots__ -cf - .) | (cd "$repo" && tar -xf -)
cd "$repo"
git init -q
say "0. pipeline init writes the specs (pull request, post-merge) and the CI's workflows; references go in folder stores"
pipeline init --ci github --store .pipeline/storage
cat pipelines/post-merge.yml
# The team keeps reference images out of git: only in storage.
printf '.build/\n.pipeline/\n__Snapshots__/\n' > .gitignore
git add -A && git commit -q -m "The app and its snapshot tests; references live in storage"
echo "demo: a throwaway repository with the example package is at $repo" >&2

say "1. the snapshot tests record their references once, and they are stored in develop (the old force-upload script)"
pipeline refs record --all
pipeline refs promote --all --force --yes

say "2. a feature branch changes a view: the brand colour every badge is drawn in"
git checkout -q -b feature/brand-colour
sed -i.bak 's/primary = RGB(32, 96, 208)/primary = RGB(208, 64, 32)/' Sources/ExampleKit/BadgeView.swift && rm Sources/ExampleKit/BadgeView.swift.bak
git commit -q -am "Brand colour: warm red"
status=0
pipeline test --review "$work/snapshot-review.html" || status=$?
if [[ $status -ne 1 ]]; then
    echo "demo: expected the changed view's snapshot tests to fail (exit 1), got exit $status" >&2
    exit 1
fi
say "the snapshot tests failed as they should; the review page of the failures is $work/snapshot-review.html"
grep -o "<h2>[^<]*" "$work/snapshot-review.html" | sed 's/<h2>/  /'

say "3. the change is intended: re-record the references and push them to feature"
pipeline refs record "${tests[@]}" --push

say "4. the branch merges into develop; CI checks out the merge, with no references in the checkout"
git checkout -q develop
git merge -q --no-ff -m "Merge feature/brand-colour" feature/brand-colour
rm -rf "$snapshots"
pipeline run post-merge --dry-run
pipeline run post-merge
say "develop now holds the new references, recorded with the merge commit:"
cat .pipeline/storage/develop/.pipeline-metadata/BadgeViewTests/testBadgeImage.1.png.json; echo

say "5. a second branch cut from develop afterwards pulls the references and passes"
git checkout -q -b feature/next
rm -rf "$snapshots"
pipeline refs pull
pipeline test
cd "$here"
