# Shared by the test script and CI: each step's wall and CPU time, said when it ends and again,
# all together, at the end; and the suites of a swift test run by their time.

steps_summary=()

# The CPU seconds this shell's finished children used (user + system): cutime and cstime of
# /proc/$$/stat, in clock ticks; 0 where there is no /proc (macOS says wall time only).
children_cpu() {
    local stat
    stat="$(cat /proc/$$/stat 2>/dev/null)" || { echo 0; return; }
    stat="${stat##*) }"
    # After the command name: state is field 3, cutime 16 and cstime 17 of the whole line.
    echo "$stat" | awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", ($14 + $15) / hz }'
}

# step NAME COMMAND...: runs COMMAND; says NAME's wall and CPU seconds (also when it fails) and
# keeps them for steps_report.
step() {
    local name="$1" started=$SECONDS cpu status=0
    shift
    cpu="$(children_cpu)"
    "$@" || status=$?
    local line
    line="$(printf '%-44s %5d s wall %6d s CPU' "$name" $((SECONDS - started)) $(($(children_cpu) - cpu)))"
    steps_summary+=("$line$([[ $status -eq 0 ]] || echo "  (failed: $status)")")
    echo "time: $line" >&2
    return "$status"
}

# steps_report: every step's time, in the order they ran.
steps_report() {
    echo "time: the steps of this run" >&2
    printf 'time:   %s\n' "${steps_summary[@]}" >&2
}

# suite_times LOG: the suites of the swift test output in LOG, longest first (their times overlap:
# suites run in parallel).
suite_times() {
    sed -n 's/^.* Suite "\(.*\)" \(passed\|failed\) after \([0-9.]*\) seconds.*/\3\t\1/p' "$1" | sort -rn \
        | awk -F '\t' '{ printf "time:   %8.1f s  %s\n", $1, $2 }' >&2
}
