"""Driver of scripts/bench-race.sh: racing promotions of one test, with and without a kill."""
import os, random, shutil, subprocess, sys, time, urllib.request

pipeline, work, rounds, proxied, direct = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
env = dict(os.environ, AWS_ACCESS_KEY_ID="race", AWS_SECRET_ACCESS_KEY="race-secret", AWS_PROFILE="",
           PIPELINE_PROMOTION_LEASE="2", CI="true")
repo = os.path.join(work, "repo")
files = [f"test_{i}.1.png" for i in range(5)]
folder = os.path.join(repo, "Tests/AppTests/__Snapshots__/LoginTests")
# Which files each branch changes: b overlaps a, c overlaps b; merged in the order a, b, c.
branches = {"a": [1, 2], "b": [2, 3], "c": [3, 4]}

def git(*args):
    return subprocess.run(["git", "-C", repo, "-c", "user.name=R", "-c", "user.email=r@r", *args],
                          check=True, capture_output=True, text=True).stdout.strip()

def run(*args, check=True):
    result = subprocess.run([pipeline, "-C", repo, *args], env=env, capture_output=True, text=True)
    if check and result.returncode != 0:
        sys.exit(f"race: pipeline {' '.join(args)} failed ({result.returncode}): {result.stderr.strip()}")
    return result

def write_refs(contents):
    os.makedirs(folder, exist_ok=True)
    for name, text in contents.items():
        with open(os.path.join(folder, name), "w") as f: f.write(text)

def spec(feature, develop, endpoint):
    os.makedirs(os.path.join(repo, "pipelines"), exist_ok=True)
    extra = f"  endpoint: {endpoint}\n" if endpoint else ""
    with open(os.path.join(repo, "pipelines/post-merge.yml"), "w") as f:
        f.write(f"name: post-merge\ndescription: Race.\nreferences:\n  feature: {feature}\n  develop: {develop}\n{extra}"
                "stages:\n  - promote:\n      from: feature\n      to: develop\n")

def history(feature, develop, endpoint):
    """A base whose references develop holds, three branches pushing theirs, merged in order a, b, c."""
    shutil.rmtree(repo, ignore_errors=True)
    os.makedirs(repo)
    git("init", "-q", "-b", "develop")
    spec(feature, develop, endpoint)
    with open(os.path.join(repo, ".gitignore"), "w") as f: f.write("__Snapshots__/\nstore/\n")
    os.makedirs(os.path.join(repo, "Tests/AppTests"), exist_ok=True)
    with open(os.path.join(repo, "Tests/AppTests/LoginTests.swift"), "w") as f: f.write("// base\n")
    write_refs({name: "base" for name in files})
    git("add", "-A"); git("commit", "-q", "-m", "base")
    run("refs", "push", "LoginTests"); run("refs", "promote", "LoginTests")
    for branch, changed in branches.items():
        git("checkout", "-q", "develop"); git("checkout", "-q", "-b", branch)
        write_refs({name: "base" for name in files})
        write_refs({files[i]: branch for i in changed})
        with open(os.path.join(repo, f"{branch}.swift"), "w") as f: f.write(f"// {branch}: a view change\n")
        git("add", "-A"); git("commit", "-q", "-m", branch)
        run("refs", "push", "LoginTests")
    git("checkout", "-q", "develop")
    merges = []
    for branch in branches:
        git("merge", "-q", "--no-ff", "-m", f"merge {branch}", branch)
        merges.append(git("rev-parse", "HEAD"))
    expected = {name: "base" for name in files}
    for branch, changed in branches.items():
        for i in changed: expected[files[i]] = branch
    return merges, expected

def promote(merge, develop):
    return [pipeline, "-C", repo, "refs", "promote", "--base", f"{merge}^1", "--head", merge, "--develop", develop]

def develop_files(develop):
    run("refs", "pull", "LoginTests", "--develop", develop)
    return {name: open(os.path.join(folder, name)).read() for name in files}

def rounds_of(label, feature_of, develop_of, seed, kill):
    random.seed(seed)
    passed, started, kills = 0, time.time(), 0
    for round in range(rounds):
        develop = develop_of(round)
        # develop starts as the base left it: its files, and its record of them.
        run("refs", "promote", "LoginTests", "--head", base, "--develop", develop)
        order = list(merges)
        random.shuffle(order)
        jobs = []
        for merge in order:
            time.sleep(random.uniform(0, 0.05))
            jobs.append((merge, subprocess.Popen(promote(merge, develop), env=env, stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.PIPE, text=True)))
        killed = None
        if kill:
            killed, victim = jobs[random.randrange(len(jobs))]
            time.sleep(random.uniform(0, kill_window))
            if victim.poll() is None:
                victim.kill()
                kills += 1
            else:
                killed = None  # it had finished: nothing to re-run
        for merge, job in jobs:
            job.wait()
            if merge != killed and job.returncode != 0:
                sys.exit(f"race: {label} round {round}: promote {merge[:12]} failed: {job.stderr.read().strip()}")
        if killed:
            result = subprocess.run(promote(killed, develop), env=env, capture_output=True, text=True)
            if result.returncode != 0: sys.exit(f"race: re-run of {killed[:12]} failed: {result.stderr.strip()}")
        if develop_files(develop) == expected: passed += 1
        else: print(f"  {label} round {round}: develop holds {develop_files(develop)}", file=sys.stderr)
    return passed, time.time() - started, kills

results = []
for store, endpoint in [("folder", None), ("moto", proxied)]:
    if store == "folder":
        feature, develop_of = os.path.join(work, "store/feature"), lambda r: os.path.join(work, f"store/develop-{r}")
    else:
        bucket = f"race{random.randrange(10**9)}"
        urllib.request.urlopen(urllib.request.Request(f"{direct}/{bucket}", method="PUT"))
        feature, develop_of = f"s3://{bucket}/feature", (lambda b: lambda r: f"s3://{b}/develop-{r}")(bucket)
    merges, expected = history(feature, develop_of("seed"), endpoint)
    base = git("rev-list", "--max-parents=0", "HEAD")
    for kill in (False, True):
        label = f"{store}{', one job killed and re-run' if kill else ''}"
        kill_window = 0.12 if store == "folder" else 0.8
        passed, seconds, kills = rounds_of(label, feature, develop_of, 11 if kill else 5, kill)
        results.append((label, passed, seconds))
        print(f"{label:38s} {passed}/{rounds} rounds with develop holding the latest merge's file for every file "
              f"({seconds:.0f} s" + (f"; {kills} jobs killed mid-run" if kill else "") + ")", flush=True)
failed = [r for r in results if r[1] != rounds]
sys.exit(1 if failed else 0)
