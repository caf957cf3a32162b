# Shared by the benchmark scripts. Source it after setting $runs.
bench_lib="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# measure LABEL=COMMAND ...: sets t_LABEL to the median wall seconds of $runs whole-process runs of
# each command, the commands interleaved run by run (a command that fails is named on stderr).
measure() {
    local label seconds
    while read -r label seconds; do
        printf -v "t_$label" '%s' "$seconds"
    done < <(python3 "$bench_lib/interleave.py" "$runs" "$@")
}

# build_release: builds pipeline as a release is built (scripts/release.sh: on Linux the Swift
# runtime, libpng and libcrypto linked in, which more than halves its start-up), and sets $bin;
# PIPELINE_BIN names a pipeline already built instead (for a benchmark whose ratios are the
# package's builds and tests, not pipeline's own start-up).
build_release() {
    bin="${PIPELINE_BIN:-$(scripts/release.sh --build-only 2>/dev/null)}"
}

# bench_images FOLDER: $objects random (incompressible, like PNGs) images of ~20 KB in $folders test
# folders, FOLDER/Screen<NN>Tests/test_screen_<i>.1.png.
bench_images() {
    echo "generating $objects reference images of ~20 KB in $folders test folders…" >&2
    python3 - "$1" "$objects" "$folders" <<'PY'
import os, sys
root, objects, folders = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(objects):
    folder = os.path.join(root, f"Screen{i % folders:02d}Tests")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"test_screen_{i}.1.png"), "wb") as f:
        f.write(os.urandom(20_000 + i % 1000))
PY
}

ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }

# bench_s3_setup: what the S3 benchmarks share. Installs what they need, builds pipeline in release
# ($bin), makes a scratch folder ($work), starts moto on 127.0.0.1:$port ($endpoint) with bucket
# `bench`, sets the aws CLI up ($aws), and stops and removes it all when the script exits.
bench_s3_setup() {
    scripts/setup.sh
    command -v moto_server >/dev/null || python3 -m pip install --quiet 'moto[server]'
    command -v aws >/dev/null || python3 -m pip install --quiet awscli
    build_release
    work="$(mktemp -d)"
    moto_server -H 127.0.0.1 -p "$port" >"$work/moto.log" 2>&1 &
    moto=$!
    trap 'kill $moto 2>/dev/null; rm -rf "$work"' EXIT
    endpoint="http://127.0.0.1:$port"
    export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1
    for _ in $(seq 100); do curl -s -o /dev/null "$endpoint" && break; sleep 0.1; done
    aws="aws --endpoint-url $endpoint s3"
    $aws mb s3://bench >/dev/null
}

# Starts moto's S3 server on 127.0.0.1:$1 (one request at a time: scripts/moto-server.py), installing
# it from PyPI into .build/moto when this Python lacks it; sets $moto to its process id.
start_moto() {
    local python=python3
    if ! python3 -c 'import moto.server' 2>/dev/null; then
        if [[ ! -x .build/moto/bin/python ]] || ! .build/moto/bin/python -c 'import moto.server' 2>/dev/null; then
            echo "installing moto (PyPI) into .build/moto" >&2
            python3 -m venv .build/moto && .build/moto/bin/pip install --quiet 'moto[server]'
        fi
        python=.build/moto/bin/python
    fi
    "$python" scripts/moto-server.py "$1" >/dev/null 2>&1 &
    moto=$!
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$1" && return; sleep 0.1; done
}

# copy_package SOURCE DEST: the package at SOURCE (a git repository's history too, when it is one)
# copied to DEST without its .build folder, so benchmarks leave the source's own build alone.
copy_package() {
    mkdir -p "$2"
    (cd "$1" && tar --exclude=./.build -cf - .) | (cd "$2" && tar -xf -)
}

# bench_prepare: what most benchmarks start with. Installs what the project needs, builds pipeline
# in release ($bin), and makes a scratch folder ($scratch) removed when the script exits.
bench_prepare() {
    scripts/setup.sh
    build_release
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
}

# bench_package SOURCE: the package at SOURCE copied into $scratch/package ($package).
bench_package() {
    package="$scratch/package"
    copy_package "$1" "$package"
}

# as_repository FOLDER: FOLDER committed as a git repository of its own, unless it is one (an impact
# map records the commit it was recorded at).
as_repository() {
    [[ -d "$1/.git" ]] && return
    git -C "$1" init -q -b main
    printf '.build/\n' >"$1/.gitignore"
    git -C "$1" add -A
    git -C "$1" -c user.name=bench -c user.email=bench@example.com commit -q -m package
}
