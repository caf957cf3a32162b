#!/usr/bin/env bash
# Benchmark: is `pipeline test --impacted` safe? Mutation testing on any package.
# Usage: scripts/bench-impact.sh [PACKAGE_PATH] [MUTANTS] [DATA_MUTANTS] [SHAPE_MUTANTS]
#        (defaults: Examples/ExampleSuite, 50, 10, 20)
# A real package works too, e.g. swift-algorithms from this project's shared histories:
#   git clone -q ../shared/histories/swift-algorithms.bundle /tmp/swift-algorithms
#   scripts/bench-impact.sh /tmp/swift-algorithms 50
# The package is copied (into a git repository of its own when it is not one). The impact map and
# the coverage are recorded once; then each mutant (a flipped comparison, an off-by-one, a negated
# condition, an early return) goes into one line that some test executes, the tests are rebuilt,
# the whole suite runs, and every test that fails must be among those --impacted selects. Declaration
# mutants change a stored property's or constant's initial value, or a default argument. Data
# mutants change one byte of a file that is not Swift source (a fixture, a resource, a reference):
# a letter or digit of a text file for another, or a byte of a binary one inverted.
# Shape mutants (scripts/lib/shape_mutants.py) are the shapes member-level precision narrows, taken
# in turn so each one the package has is tried: a stored, static or global initial value, a string argument
# on a line of its own (a command's configuration an executable the tests run prints, a property
# wrapper's help), a default argument, an enum raw value, a property wrapper's default, a body of an
# @available-gated member, a result-builder body, a member's line under #if, a conformance added in
# another file. Their results are printed per shape.
# Each killed mutant is selected by both rules on the same map: the index rule (what each use
# resolves to) and the name rule (PIPELINE_IMPACT_RULE=names). Prints mutants tried, built, killed
# by the full run, and missed by each rule, with the median share of the tests each selects; exits 1
# when the index rule (the one --impacted uses) misses.
set -euo pipefail
cd "$(dirname "$0")/.."
source_package="$(cd "${1:-Examples/ExampleSuite}" && pwd)" mutants="${2:-50}" data_mutants="${3:-10}"
shape_mutants="${4:-20}"
runs=1

source scripts/lib/bench.sh
bench_prepare
bench_package "$source_package"
as_repository "$package"

echo "recording the impact map of $source_package…" >&2
"$bin" test --package-path "$package" --coverage --record-impact --coverage-dir "$scratch/coverage" >/dev/null 2>"$scratch/record.err" || true
grep -E "^Impact map" "$scratch/record.err" >&2 || { cat "$scratch/record.err" >&2; exit 1; }

PYTHONPATH="$PWD/scripts/lib" python3 - "$package" "$scratch" "$bin" "$mutants" "$data_mutants" "$shape_mutants" <<'PY'
import json, os, random, re, subprocess, sys
import shape_mutants
package, scratch, pipeline, wanted, data_wanted = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
shape_wanted = int(sys.argv[6])
# Lines some test executes, from the recorded coverage (whose report holds the package's own
# sources, wherever its targets keep them, without tests or .build).
executed = []
sources = set()
path = None
for line in open(os.path.join(scratch, "coverage", "lcov.info")):
    line = line.strip()
    if line.startswith("SF:"):
        path = line[3:]
        if not path.startswith("/"): sources.add(path)
    elif line.startswith("DA:") and path and not path.startswith("/"):
        number, hits = line[3:].split(",")[:2]
        if int(hits) > 0: executed.append((path, int(number)))
mutations = [
    (r"(?<![<>=!])<(?![<=])", "<="), (r"<=", "<"), (r"(?<![<>=!-])>(?![>=])", ">="), (r">=", ">"),
    (r"==", "!="), (r"!=", "=="), (r"\+ 1\b", "+ 2"), (r"- 1\b", "- 2"), (r"\btrue\b", "false"),
    (r"\bfalse\b", "true"), (r"\bif (?!let |var |case )", "if !"), (r"&&", "||"), (r"\|\|", "&&"),
    (r"\.\.<", "..."), (r"\+=", "-="), (r"-=", "+="), (r"\bmin\(", "max("), (r"\bmax\(", "min("),
    (r"\.first\b", ".last"), (r"\.last\b", ".first"), (r"(?<![\w.\"])0(?![\w.])", "1"),
]
candidates = []
for path, number in executed:
    text = open(os.path.join(package, path)).read().split("\n")
    if number - 1 >= len(text): continue
    line = text[number - 1]
    stripped = line.strip()
    if stripped.startswith(("//", "func ", "public func", "init", "@", "case ")) or "->" in line: continue
    for pattern, replacement in mutations:
        if re.search(pattern, line):
            candidates.append((path, number, pattern, replacement))
# Declarations too: a stored property's or a constant's initial value, and a default argument (the
# selection reads these as declarations, and reaches their users by name). Every such line of the
# sources, executed or not: a default argument's value runs in its callers.
constant = re.compile(r"^\s*(?:(?:public|internal|private|fileprivate|static|package)\s+)*(?:let|var) \w+(?:: [\w<>?]+)? = (\d+|true|false)\s*$")
default = re.compile(r"\w+: [\w.<>?\[\]]+ = (\d+|true|false)\s*[,)]")
for path in sorted(sources):
    for number, line in enumerate(open(os.path.join(package, path)).read().split("\n"), 1):
        if constant.search(line) or default.search(line):
            candidates.append((path, number, "declaration", None))
random.seed(7)
random.shuffle(candidates)
# Data: every file of the package that is not Swift source, documentation or the manifest.
data = []
for root, folders, names in os.walk(package):
    folders[:] = [f for f in folders if not f.startswith(".") and not f.endswith((".xcodeproj", ".xcworkspace", ".docc"))]
    for name in names:
        path = os.path.relpath(os.path.join(root, name), package)
        if name.startswith(".") or name.endswith((".swift", ".md", ".resolved")) or os.path.getsize(os.path.join(package, path)) == 0:
            continue
        data.append(path)
data.sort()
random.shuffle(data)

def data_mutant(content, rng):
    """One byte changed: in text, a letter or digit for another of its kind; in binary, a byte inverted."""
    try:
        text = content.decode("utf-8")
        spots = [i for i, c in enumerate(content) if chr(c).isalnum()]
        if spots:
            at = rng.choice(spots)
            c = chr(content[at])
            pool = "0123456789" if c.isdigit() else "abcdefghijklmnopqrstuvwxyz"
            new = rng.choice([x for x in pool if x != c.lower()])
            return content[:at] + (new.upper() if c.isupper() else new).encode() + content[at + 1:]
    except UnicodeDecodeError:
        pass
    at = rng.randrange(len(content))
    return content[:at] + bytes([content[at] ^ 0xFF]) + content[at + 1:]

rng = random.Random(11)
mutants_list = [("data", path, None, None) for path in data]
while len(mutants_list) < data_wanted and data:
    mutants_list += [("data", path, None, None) for path in data]
shapes = shape_mutants.round_robin(shape_mutants.candidates(package, sources, executed), shape_wanted)
candidates = mutants_list[:data_wanted] + [("shape",) + shape for shape in shapes] + candidates

def declaration_mutant(line):
    """The line with its first constant or default value changed: a number plus one, a boolean flipped."""
    match = constant.search(line) or default.search(line)
    value = match.group(1)
    changed = {"true": "false", "false": "true"}.get(value) or str(int(value) + 1)
    return line[:match.start(1)] + changed + line[match.end(1):]

def run(args, rule=None):
    env = dict(os.environ, **({"PIPELINE_IMPACT_RULE": rule} if rule else {}))
    return subprocess.run(args, cwd=package, capture_output=True, text=True, env=env)

# Each rule on the same map: the index rule (what each use resolves to) and the name rule.
rules = {"index": None, "names": "names"}
missed_by = {rule: 0 for rule in rules}
shares = {rule: [] for rule in rules}
tried = built = killed = missed = 0
declarations = {"killed": 0}
kinds = {"data": [0, 0, 0], "code": [0, 0, 0]}  # tried, killed, missed
by_shape = {}  # shape → [tried, killed, missed, selected shares]
for candidate in candidates:
    shape = None
    if candidate[0] == "shape":
        _, shape, path, number, mutate = candidate
        kind, pattern, replacement = "shape", None, None
    else:
        path, number, pattern, replacement = candidate
        kind = "data" if path == "data" else "code"
    if kind == "data":
        path = number
        if kinds["data"][0] >= data_wanted: continue
    elif kind == "code" and kinds["code"][0] >= wanted: break
    file = os.path.join(package, path)
    original = open(file, "rb").read() if os.path.exists(file) else None
    if kind == "data":
        open(file, "wb").write(data_mutant(original, rng))
        number, lines = 0, [f"(a byte of {path})"]
    elif kind == "shape":
        if isinstance(mutate, str):
            if original is not None: continue
            open(file, "w").write(mutate)
            number, lines = 1, mutate.split("\n")
        else:
            lines = original.decode().split("\n")
            mutated = mutate(lines, number)
            if mutated is None: continue
            open(file, "w").write("\n".join(mutated))
            lines = mutated
        kinds.setdefault("shape", [0, 0, 0])
        by_shape.setdefault(shape, [0, 0, 0, []])[0] += 1
    else:
        lines = original.decode().split("\n")
        if pattern == "declaration":
            mutated = declaration_mutant(lines[number - 1])
        else:
            mutated = re.sub(pattern, replacement, lines[number - 1], count=1)
        if mutated == lines[number - 1]: continue
        lines[number - 1] = mutated
        open(file, "w").write("\n".join(lines))
    tried += 1
    kinds[kind][0] += 1
    try:
        if run(["swift", "build", "--build-tests", "--package-path", package]).returncode != 0:
            continue
        built += 1
        full = run([pipeline, "test", "--package-path", package, "--skip-build", "--no-update-timings", "--json", "--timeout", "30s"])
        failed = set()
        try:
            # A test the full run never ran (its process ended for another's reason, `missing`) has no
            # verdict to select; the ones that failed, crashed or timed out must be selected.
            results = json.loads(full.stdout)["tests"]
            failed = {t["name"] for t in results if t["status"] in ("failed", "crashed", "timed-out")}
            unrun = sum(1 for t in results if t["status"] == "missing")
            if unrun: print(f"  mutant {tried}: {unrun} test(s) the full run never ran, not judged", file=sys.stderr)
        except Exception:
            print(f"  mutant {tried}: {path}:{number} — no report from the full run", file=sys.stderr)
            continue
        print(f"  mutant {tried} ({shape or kind}): {path}:{number} {'killed' if failed else 'survived'}", file=sys.stderr)
        if not failed: continue
        killed += 1
        kinds[kind][1] += 1
        if shape: by_shape[shape][1] += 1
        listed = run([pipeline, "test", "--package-path", package, "--skip-build", "--no-update-timings", "--list"])
        everything = {t for t in listed.stdout.split("\n") if t}
        lost_any = False
        for rule, value in rules.items():
            chosen = run([pipeline, "test", "--package-path", package, "--skip-build", "--no-update-timings", "--impacted", "--list"], value)
            # A declaration mutant is one the selection judged a declaration change (by name or by fallback).
            if rule == "index" and ("declared in" in chosen.stderr or "fallback:" in chosen.stderr or "changes declarations" in chosen.stderr):
                declarations["killed"] += 1
            selected = set(chosen.stdout.split("\n")) - {""} if chosen.returncode == 0 else set()
            if "nothing to run" in chosen.stdout: selected = set()
            shares[rule].append(len(selected & everything) / max(1, len(everything)))
            if shape and rule == "index": by_shape[shape][3].append(shares[rule][-1])
            lost = sorted(failed - selected)
            if lost:
                missed_by[rule] += 1
                lost_any = lost_any or rule == "index"
                print(f"  MISSED by the {rule} rule {path}:{number}: {lines[number - 1].strip() if kind != 'data' else '(data)'} — {', '.join(lost)}")
                print("    " + chosen.stderr.strip().replace("\n", "\n    "))
        if lost_any:
            missed += 1
            kinds[kind][2] += 1
            if shape: by_shape[shape][2] += 1
    finally:
        if original is None:
            os.remove(file)
        else:
            open(file, "wb").write(original)
print(f"mutants tried {tried}, built {built}, killed by the full run {killed}, missed by --impacted {missed}")
for kind, (k_tried, k_killed, k_missed) in kinds.items():
    print(f"  {kind}: tried {k_tried}, killed {k_killed}, missed {k_missed}")
print(f"  of the killed, judged declaration changes by the selection: {declarations['killed']}")
for shape, (s_tried, s_killed, s_missed, s_shares) in sorted(by_shape.items()):
    share = f", mean share selected {sum(s_shares) / len(s_shares) * 100:.1f} %" if s_shares else ""
    print(f"  shape {shape}: tried {s_tried}, killed {s_killed}, missed {s_missed}{share}")
found = set(by_shape)
for shape in shape_mutants.SHAPES:
    if shape not in found: print(f"  shape {shape}: none in this package")
import statistics
for rule in rules:
    if shares[rule]:
        print(f"  {rule} rule: missed {missed_by[rule]}, median share of the tests selected {statistics.median(shares[rule]) * 100:.1f} %, "
              f"mean {statistics.mean(shares[rule]) * 100:.1f} % (of {len(shares[rule])} killed mutants)")
sys.exit(1 if missed else 0)
PY
