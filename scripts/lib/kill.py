"""Driver of scripts/bench-kill.sh: every store write of an operation as a kill point.

For each operation that writes to a store (push, promote, prune, a squash merge's promotion, …), on the folder store and on
moto: run it once to count its writes (K: the folder store's file operations, counted by the
debug build's kill points; moto's requests, counted by the fault proxy), then for every k in 1..K
run it again from the same start, killed (SIGKILL) right after write k, check what a kill may
leave, re-run it, and check the end state. Prints one line per operation and store, and
"N operations × K kill points: all consistent", or what was not, and exits 1.
"""
import hashlib, json, os, shutil, signal, subprocess, sys, time, uuid

pipeline, work, moto = sys.argv[1], sys.argv[2], (sys.argv[3] if len(sys.argv) > 3 else "")
proxy_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fault-proxy.py")
env = dict(os.environ, AWS_ACCESS_KEY_ID="kill", AWS_SECRET_ACCESS_KEY="kill-secret", AWS_PROFILE="",
           CI="false", PIPELINE_PROMOTION_LEASE="1", AWS_DEFAULT_REGION="us-east-1")
for name in ("PIPELINE_TEST_KILL_AFTER", "PIPELINE_TEST_COUNT_WRITES"):
    env.pop(name, None)
repo = os.path.join(work, "repo")
snapshots = os.path.join(repo, "Tests/AppTests/__Snapshots__/LoginTests")
files = [f"test_{i}.1.png" for i in range(3)]
base_refs = {name: f"base {name}" for name in files}
branch_refs = dict(base_refs, **{files[0]: "branch 0", files[1]: "branch 1"})
# A second branch, merged after the first, changes two files, one of them the first's.
y_refs = dict(base_refs, **{files[1]: "y 1", files[2]: "y 2"})
final_refs = {files[0]: "branch 0", files[1]: "y 1", files[2]: "y 2"}
# A third branch, squash-merged last (its commit never in develop's history), changes one file.
z_refs = dict(final_refs, **{files[0]: "z 0"})
violations = []


def git(*args):
    return subprocess.run(["git", "-C", repo, "-c", "user.name=K", "-c", "user.email=k@k", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def commit_file(path, text, message):
    with open(os.path.join(repo, path), "w") as f:
        f.write(text)
    git("add", "-A")
    git("commit", "-q", "-m", message)


def write_refs(contents):
    shutil.rmtree(snapshots, ignore_errors=True)
    os.makedirs(snapshots)
    for name, text in contents.items():
        with open(os.path.join(snapshots, name), "w") as f:
            f.write(text)


def md5(data):
    return hashlib.md5(data).hexdigest()


class Folder:
    kind = "folder"

    def __init__(self, root):
        self.root = root

    def spec(self):
        return f"  feature: {self.root}/feature\n  develop: {self.root}/develop\n"

    def cache(self):
        return f"{self.root}/build-cache"

    def clone(self):
        other = Folder(os.path.join(work, f"store-{uuid.uuid4().hex[:8]}"))
        if os.path.exists(self.root):
            shutil.copytree(self.root, other.root)
        return other

    def objects(self):
        found = {}
        for folder, dirs, names in os.walk(self.root):
            dirs[:] = [d for d in dirs if d not in (".pipeline-metadata", ".pipeline-locks")]
            for name in names:
                if name.startswith(".pipeline-tmp-"):
                    continue
                path = os.path.join(folder, name)
                found[as_earlier(os.path.relpath(path, self.root))] = open(path, "rb").read()
        return found


def as_earlier(key):
    """A record's key as the earlier layout named it: `.pipeline/<scope>/feature/.pushes/…` is
    `feature/.pushes/…` (docs/references.md, "Records"), so the checks read one layout whatever
    scope wrote it."""
    parts = key.split("/")
    if parts[0] != ".pipeline" or len(parts) < 3:
        return key
    scope = 1 if parts[1] in ("local", "develop", "migrated") else 2
    return "/".join(parts[1 + scope:])


class Moto:
    kind = "moto"

    def __init__(self, prefix):
        import boto3
        self.s3 = boto3.client("s3", endpoint_url=moto, aws_access_key_id="kill", aws_secret_access_key="kill-secret",
                               region_name="us-east-1")
        self.prefix = prefix

    def spec(self):
        return f"  feature: s3://kill/{self.prefix}/feature\n  develop: s3://kill/{self.prefix}/develop\n"

    def cache(self):
        return f"s3://kill/{self.prefix}/build-cache"

    def clone(self):
        other = Moto(f"run-{uuid.uuid4().hex[:8]}")
        for key in self.keys():
            self.s3.copy_object(Bucket="kill", Key=f"{other.prefix}/{key}", MetadataDirective="COPY",
                                CopySource={"Bucket": "kill", "Key": f"{self.prefix}/{key}"})
        return other

    def keys(self):
        keys, token = [], None
        while True:
            extra = {"ContinuationToken": token} if token else {}
            page = self.s3.list_objects_v2(Bucket="kill", Prefix=f"{self.prefix}/", **extra)
            keys += [item["Key"][len(self.prefix) + 1:] for item in page.get("Contents", [])]
            if not page.get("IsTruncated"):
                return keys
            token = page["NextContinuationToken"]

    def objects(self):
        return {as_earlier(key): self.s3.get_object(Bucket="kill", Key=f"{self.prefix}/{key}")["Body"].read()
                for key in self.keys()}


class Proxy:
    """The fault proxy in front of moto: counts requests, or holds every one after the K-th."""

    def __init__(self, hold_after=None):
        self.log = os.path.join(work, f"proxy-{uuid.uuid4().hex[:8]}.log")
        extra = ["--hold-after", str(hold_after)] if hold_after is not None else []
        self.process = subprocess.Popen([sys.executable, proxy_script, moto, "", *extra],
                                        stdout=open(self.log, "w"), stderr=subprocess.DEVNULL)
        for _ in range(200):
            lines = open(self.log).read().splitlines()
            if lines and lines[0].startswith("port "):
                self.endpoint = f"http://127.0.0.1:{lines[0].split()[1]}"
                return
            time.sleep(0.02)
        sys.exit("kill: the fault proxy did not start")

    def lines(self):
        return open(self.log).read().splitlines()[1:]

    def stop(self):
        self.process.kill()
        self.process.wait()


def use(store):
    """The spec names `store`'s feature and develop (pipeline import reads them only there)."""
    with open(os.path.join(repo, "pipelines/post-merge.yml"), "w") as f:
        f.write("name: post-merge\ndescription: Kill points.\nreferences:\n" + store.spec()
                + "stages:\n  - promote:\n      from: feature\n      to: develop\n")


def run(store, arguments, extra_env=None, check=True, ok=(0,)):
    use(store)
    arguments = [store.cache() if a == "CACHE" else a for a in arguments]
    result = subprocess.run([pipeline, "-C", repo, *arguments], env=dict(env, **(extra_env or {})),
                            capture_output=True, text=True)
    if check and result.returncode not in ok:
        sys.exit(f"kill: pipeline {' '.join(arguments)} failed ({result.returncode}): {result.stderr.strip()}")
    return result


def start(store, arguments, extra_env):
    use(store)
    arguments = [store.cache() if a == "CACHE" else a for a in arguments]
    return subprocess.Popen([pipeline, "-C", repo, *arguments], env=dict(env, **extra_env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def archive_whole(store):
    """No push record names a file its push lacks (or holds otherwise)."""
    objects = store.objects()
    problems = []
    for key, data in objects.items():
        parts = key.split("/")
        if len(parts) == 4 and parts[0] == "feature" and parts[1] == ".push-records":
            record = json.loads(data)
            commit = parts[3][:-len(".json")]
            for name, digest in record["files"].items():
                kept = objects.get(f"feature/.pushes/{commit}/{parts[2]}/{name}")
                if kept is None or md5(kept) != digest:
                    problems.append(f"{key} names {name}, which its push " + ("lacks" if kept is None else "holds otherwise"))
    return problems


def candidates_whole(store):
    """Every kept run's record names tests whose renderings its run holds; timings kept in the
    store are whole JSON."""
    objects = store.objects()
    problems = []
    for key, data in objects.items():
        if key.endswith(".json") and ("timings" in key or "pipeline-runs" in key):
            try:
                json.loads(data)
            except ValueError:
                problems.append(f"{key} is not whole JSON")
    for key, data in objects.items():
        parts = key.split("/")
        if len(parts) == 4 and parts[:2] == ["feature", ".candidates"] and parts[3].endswith(".json"):
            run_name = parts[3][:-len(".json")]
            for test in json.loads(data)["tests"]:
                if not any(k.startswith(f"feature/.candidates/{parts[2]}/{run_name}/{test}/") for k in objects):
                    problems.append(f"{key} names {test}, whose renderings its run lacks")
    return problems


def files_of(store, role):
    objects = store.objects()
    return {key.split("/")[-1]: data.decode() for key, data in objects.items()
            if key.startswith(f"{role}/LoginTests/") and key.count("/") == 2}


# Each operation: where the checkout is, what it runs, and what the end state must be.
def end_push(store):
    problems = archive_whole(store)
    if files_of(store, "feature") != branch_refs:
        problems.append(f"feature holds {files_of(store, 'feature')}")
    if not any(k.startswith(f"feature/.push-records/LoginTests/{branch}") for k in store.objects()):
        problems.append("the branch's push has no record")
    return problems


def end_promote(store):
    """After the first merge's promotion (killed and re-run) and the second's: the latest merge's
    version of every file."""
    problems = archive_whole(store)
    if files_of(store, "develop") != final_refs:
        problems.append(f"develop holds {files_of(store, 'develop')}")
    return problems


def end_squash(store):
    """After the squash merge's promotion (killed and re-run): develop holds the squashed branch's
    push, found by what the branch changed."""
    problems = archive_whole(store)
    if files_of(store, "develop") != z_refs:
        problems.append(f"develop holds {files_of(store, 'develop')}")
    return problems


def end_prune(store):
    problems = archive_whole(store)
    left = [k for k in store.objects() if k.startswith("feature/.push-records/") or k.startswith("feature/.pushes/")]
    if left:
        problems.append(f"merged and promoted pushes left: {left}")
    if files_of(store, "feature") != y_refs:
        problems.append("feature's latest copy changed")
    return problems


def end_candidates(store):
    problems = archive_whole(store) + candidates_whole(store)
    if not any(k.endswith("pipeline-timings.json") for k in store.objects()):
        problems.append("the run's timings were not folded into the store")
    if not any(k.startswith(f"feature/.candidates/{branch}/") and k.endswith(".json") for k in store.objects()):
        problems.append("no run of the branch's commit was kept")
    return problems


accepted_refs = dict(final_refs, **{files[0]: "ci render"})


def end_accept(store):
    problems = archive_whole(store) + candidates_whole(store)
    if files_of(store, "feature") != accepted_refs:
        problems.append(f"feature holds {files_of(store, 'feature')}")
    records = [k for k in store.objects() if k.startswith(f"feature/.push-records/LoginTests/{branch}")]
    if not records or "acceptedFrom" not in json.loads(store.objects()[records[0]]):
        problems.append("the accepted push has no record naming its run")
    return problems


def cache_whole(store):
    """Every build cache record names parts that are all there, each with the MD5 it says; a build
    folder restored into the package is whole (its test product there), never half unpacked."""
    objects = store.objects()
    problems = []
    for key, data in objects.items():
        parts = key.split("/")
        if len(parts) == 5 and parts[0] == "build-cache" and parts[2] == "entries" and key.endswith(".json"):
            record = json.loads(data)
            for part in record["parts"]:
                kept = objects.get(f"build-cache/{parts[1]}/parts/{record['commit']}/{record['save']}/{part['name']}")
                if kept is None or md5(kept) != part["md5"]:
                    problems.append(f"{key} names {part['name']}, which its save " + ("lacks" if kept is None else "holds otherwise"))
    build = os.path.join(package, ".build")
    # pipeline's own folder (.build/pipeline, its logs) is no build; anything else must be whole.
    restored = os.path.isdir(build) and any(name != "pipeline" for name in os.listdir(build))
    if restored and not any(name.endswith("PackageTests.xctest") for _, _, names in os.walk(build) for name in names):
        problems.append("the package's .build is there without its test product: restored half")
    return problems


def after_kill(store, operation, direct):
    """What a kill may leave: pushes and kept runs whole or absent; a pull of develop whole (old, new,
    or said half written); build cache records whole."""
    problems = archive_whole(store) + candidates_whole(store) + cache_whole(store)
    if operation in ("promote", "squash"):
        before, after = (base_refs, branch_refs) if operation == "promote" else (final_refs, z_refs)
        pulled = run(store, ["refs", "pull", "LoginTests", "--json"], direct, check=False)
        local = {name: open(os.path.join(snapshots, name)).read() for name in os.listdir(snapshots)} \
            if os.path.isdir(snapshots) else {}
        notes = json.loads(pulled.stdout).get("notes", []) if pulled.returncode == 0 and pulled.stdout else []
        if pulled.returncode != 0:
            problems.append(f"pull failed after the kill: {pulled.stderr.strip()}")
        elif local not in (before, after) and not notes:
            problems.append(f"pull returned a half-written test folder and said nothing: {local}")
    return problems


package = os.path.join(repo, "Pkg")
direct_env = {}  # the variables that reach the store directly (moto's endpoint), for the end checks


def end_queue(store):
    """The shared run's report: every test exactly once (pipeline report fails otherwise)."""
    problems = archive_whole(store) + candidates_whole(store)
    report = run(store, ["report", "--queue", "kill-run", "--timings", "feature", "--package-path", package, "--json"],
                 direct_env, check=False)
    if report.returncode != 0:
        problems.append(f"the run's report failed ({report.returncode}): {report.stderr.strip()[:300]}")
    else:
        summary = json.loads(report.stdout)["summary"]
        if (summary["total"], summary["passed"], summary["duplicated"], summary["missing"]) != (4, 4, 0, 0):
            problems.append(f"the run's report: {summary}")
    return problems


def end_cache_save(store):
    """The build of develop's head is kept whole."""
    problems = cache_whole(store)
    head = git("rev-parse", "HEAD")
    if not any(k.startswith("build-cache/") and f"/entries/{head}/" in k for k in store.objects()):
        problems.append(f"no build of {head[:12]} is kept")
    return problems


def end_cache_restore(store):
    """A fresh checkout (no .build) got develop's head's build restored, no staging folder left."""
    problems = cache_whole(store)
    if not os.path.isdir(os.path.join(package, ".build")):
        problems.append("nothing was restored")
    left = [n for n in os.listdir(package) if n.startswith(".build-restoring-")]
    if left:
        problems.append(f"staging folders left: {left}")
    return problems


def fresh_package():
    """A fresh checkout of the package: no build folder."""
    git("checkout", "-q", "develop")
    shutil.rmtree(os.path.join(package, ".build"), ignore_errors=True)


log = os.path.join(work, "xcodebuild.log")
artifacts = os.path.join(work, "artifacts")
ci = {"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "7", "GITHUB_RUN_ATTEMPT": "1"}
# Each: name, where the checkout is, the command, its exit codes that are not failures, extra
# variables, and the end state it must reach.
operations = [
    ("push", lambda: (git("checkout", "-q", "feature/x"), write_refs(branch_refs)), ["refs", "push", "LoginTests"],
     (0,), {}, end_push),
    # The first merge's promotion; after it (or its kill), the second merge's runs, then the first's again.
    ("promote", lambda: (git("checkout", "-q", "develop"), write_refs(base_refs)),
     ["refs", "promote", "--base", "M1^1", "--head", "M1"], (0,), {}, end_promote),
    ("prune", lambda: git("checkout", "-q", "develop"), ["refs", "prune"], (0,), {}, end_prune),
    # CI's candidates, kept by an import of a failed run with its snapshot artifacts (exit 1: a test failed).
    ("candidates", lambda: (git("checkout", "-q", "feature/x"), write_refs(branch_refs)),
     ["import", "xcodebuild-log", log, "--artifacts", artifacts, "--timings", "feature"], (1,), ci, end_candidates),
    ("accept", lambda: git("checkout", "-q", "feature/x"), ["refs", "accept", "--all", "--commit", "BRANCH"], (0,), {},
     end_accept),
    # A node of a shared run: the plan pinned, its claims, its batches' results and its report, the timings.
    ("queue", lambda: git("checkout", "-q", "develop"),
     ["test", "--package-path", package, "--skip-build", "--queue", "kill-run", "--timings", "feature", "--node", "1/1"],
     (0,), {}, end_queue),
    # A squash merge's promotion: the branch's push found by its kept change, not by ancestry.
    ("squash", lambda: (git("checkout", "-q", "develop"), write_refs(final_refs)),
     ["refs", "promote", "--base", "S^1", "--head", "S"], (0,), {}, end_squash),
    # The build cache: a build kept (its parts, then its record), then restored into a fresh checkout.
    ("cache-save", lambda: git("checkout", "-q", "develop"),
     ["test", "--package-path", package, "--build-only", "--build-cache", "CACHE"], (0,), {}, end_cache_save),
    ("cache-restore", fresh_package,
     ["test", "--package-path", package, "--build-only", "--build-cache", "CACHE"], (0,), {}, end_cache_restore),
]


def history():
    """base ─ x (feature/x) ─ M1 = merge x ─ M2 = merge y, y (feature/y) cut from base."""
    shutil.rmtree(repo, ignore_errors=True)
    os.makedirs(os.path.join(repo, "pipelines"))
    git("init", "-q", "-b", "develop")
    with open(os.path.join(repo, "pipelines/post-merge.yml"), "w") as f:
        f.write("name: post-merge\ndescription: Kill points.\nreferences:\n  feature: store/feature\n"
                "  develop: store/develop\nstages:\n  - promote:\n      from: feature\n      to: develop\n")
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write("__Snapshots__/\nstore/\nPkg/\n")
    os.makedirs(os.path.join(repo, "Tests/AppTests"), exist_ok=True)
    with open(os.path.join(repo, "Tests/AppTests/LoginTests.swift"), "w") as f:
        f.write("// base\n")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    git("checkout", "-q", "-b", "feature/x")
    commit_file("View.swift", "// a view change\n", "view")
    branch = git("rev-parse", "HEAD")
    git("checkout", "-q", "develop")
    base = git("rev-parse", "HEAD")
    git("checkout", "-q", "-b", "feature/y")
    commit_file("Other.swift", "// another view change\n", "other view")
    git("checkout", "-q", "develop")
    git("merge", "-q", "--no-ff", "-m", "merge view", "feature/x")
    first = git("rev-parse", "HEAD")
    git("merge", "-q", "--no-ff", "-m", "merge other view", "feature/y")
    second = git("rev-parse", "HEAD")
    # z, cut from the second merge, squash-merged after develop moved on.
    git("checkout", "-q", "-b", "feature/z")
    commit_file("Squash.swift", "// a view change, squash-merged\n", "squashed view")
    git("checkout", "-q", "develop")
    commit_file("Moved.swift", "// develop moves on\n", "develop moves on")
    git("merge", "-q", "--squash", "feature/z")
    git("commit", "-q", "-m", "squashed view (#3)")
    return branch, base, first, second, git("rev-parse", "HEAD")


branch, base, first_merge, second_merge, squash_merge = history()
second_promotion = ["refs", "promote", "--base", f"{second_merge}^1", "--head", second_merge]
os.makedirs(os.path.join(package, "Tests/KillTests"))
with open(os.path.join(package, "Package.swift"), "w") as f:
    f.write('// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: "Kill", '
            'targets: [.testTarget(name: "KillTests")])\n')
with open(os.path.join(package, "Tests/KillTests/KillTests.swift"), "w") as f:
    f.write("import XCTest\nfinal class KillTests: XCTestCase {\n"
            + "".join(f"    func test{i}() {{ XCTAssertEqual({i}, {i}) }}\n" for i in range(4)) + "}\n")
subprocess.run(["swift", "build", "--build-tests", "--package-path", package], check=True, capture_output=True)
with open(log, "w") as f:
    f.write("Test Case '-[AppTests.LoginTests test_0]' started.\n"
            "/ci/LoginTests.swift:3: error: -[AppTests.LoginTests test_0] : failed - Snapshot does not match reference.\n"
            "Test Case '-[AppTests.LoginTests test_0]' failed (0.100 seconds).\n")
os.makedirs(os.path.join(artifacts, "LoginTests"), exist_ok=True)
with open(os.path.join(artifacts, "LoginTests", files[0]), "w") as f:
    f.write("ci render")
names = {"BRANCH": branch, "M1": first_merge, "M1^1": f"{first_merge}^1", "S": squash_merge,
         "S^1": f"{squash_merge}^1"}
operations = [(n, c, [names.get(a, a) for a in args], ok, extra, end) for n, c, args, ok, extra, end in operations]
# PIPELINE_KILL_ONLY=cache-save,cache-restore runs those operations alone (each starts from the base).
only = [n for n in os.environ.get("PIPELINE_KILL_ONLY", "").split(",") if n]
total_points, total_operations = 0, 0
started = time.time()
for kind in ["folder"] + (["moto"] if moto else []):
    if kind == "moto":
        import boto3
        boto3.client("s3", endpoint_url=moto, aws_access_key_id="kill", aws_secret_access_key="kill-secret",
                     region_name="us-east-1").create_bucket(Bucket="kill")
    template = Folder(os.path.join(work, "template")) if kind == "folder" else Moto("template")
    direct = {} if kind == "folder" else {"AWS_ENDPOINT_URL_S3": moto}
    direct_env = direct
    # The start: develop holds the base, pushed and promoted from the base commit.
    git("checkout", "-q", base)
    write_refs(base_refs)
    run(template, ["refs", "push", "LoginTests"], direct)
    run(template, ["refs", "promote", "LoginTests", "--force", "--yes"], direct)
    for name, checkout, arguments, ok, extra, end in operations:
        if only and name not in only:
            continue
        checkout()
        # K: the writes of one uninterrupted run.
        counted = template.clone()
        if kind == "folder":
            count_file = os.path.join(work, f"count-{uuid.uuid4().hex[:8]}")
            run(counted, arguments, dict(extra, PIPELINE_TEST_COUNT_WRITES=count_file), ok=ok)
            points = len(open(count_file).read().splitlines()) if os.path.exists(count_file) else 0
        else:
            proxy = Proxy()
            run(counted, arguments, dict(extra, AWS_ENDPOINT_URL_S3=proxy.endpoint), ok=ok)
            points = len(proxy.lines())
            proxy.stop()
        if name == "promote":
            run(counted, second_promotion, direct)
        problems = end(counted)
        if problems:
            violations.append(f"{kind} {name}, uninterrupted: {'; '.join(problems)}")
        killed_runs = 0
        for k in range(1, points + 1):
            store = template.clone()
            checkout()
            if kind == "folder":
                job = start(store, arguments, dict(extra, PIPELINE_TEST_KILL_AFTER=str(k)))
                job.wait()
            else:
                proxy = Proxy(hold_after=k)
                job = start(store, arguments, dict(extra, AWS_ENDPOINT_URL_S3=proxy.endpoint))
                while job.poll() is None and not any(line.endswith("-> held") for line in proxy.lines()):
                    time.sleep(0.01)
                if job.poll() is None:
                    job.send_signal(signal.SIGKILL)
                job.wait()
                proxy.stop()
            if job.returncode == -signal.SIGKILL:
                killed_runs += 1
            problems = after_kill(store, name, direct)
            if name == "promote":
                race = run(store, second_promotion, direct, check=False)
                if race.returncode != 0:
                    problems.append(f"the second merge's promotion failed ({race.returncode}): {race.stderr.strip()}")
            checkout()
            rerun = run(store, arguments, dict(extra, **direct), check=False)
            if rerun.returncode not in ok:
                problems.append(f"the re-run failed ({rerun.returncode}): {rerun.stderr.strip()}")
            else:
                problems += end(store)
            if problems:
                violations.append(f"{kind} {name}, killed after write {k} of {points}: {'; '.join(problems)}")
        # The next operation starts where this one ends.
        checkout()
        run(template, arguments, dict(extra, **direct), ok=ok)
        if name == "push":  # the second branch pushes too
            git("checkout", "-q", "feature/y")
            write_refs(y_refs)
            run(template, ["refs", "push", "LoginTests"], direct)
        if name == "promote":
            run(template, second_promotion, direct)
        if name == "queue":  # the squashed branch pushed before its merge
            git("checkout", "-q", "feature/z")
            write_refs(z_refs)
            run(template, ["refs", "push", "LoginTests"], direct)
        total_points += points
        total_operations += 1
        print(f"{kind:6s} {name:8s} {points:3d} kill points, {killed_runs} killed mid-run, "
              f"{sum(1 for v in violations if v.startswith(f'{kind} {name},'))} inconsistent", flush=True)

print(f"{total_operations} operations × {total_points} kill points in all ({time.time() - started:.0f} s): "
      + ("all consistent" if not violations else f"{len(violations)} inconsistent"))
for violation in violations:
    print(f"  {violation}", file=sys.stderr)
sys.exit(1 if violations else 0)
