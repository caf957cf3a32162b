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

ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }
