# Shared by the test script and CI: each step's wall and CPU time, said when it ends and again,
# all together, at the end; and the suites of a swift test run by their time.

steps_summary=()

# children_cpu PID: the CPU seconds the shell PID's finished children used (user + system):
# cutime and cstime of /proc/PID/stat, in clock ticks; 0 where there is no /proc (macOS says wall
# time only). PID is $BASHPID read before $(…) (a lane's subshell, or the script's shell).
children_cpu() {
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || { echo 0; return; }
    stat="${stat##*) }"
    # After the command name: state is field 3, cutime 16 and cstime 17 of the whole line.
    echo "$stat" | awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", ($14 + $15) / hz }'
}

# step NAME COMMAND...: runs COMMAND; says NAME's wall and CPU seconds (also when it fails) and
# keeps them for steps_report.
step() {
    local name="$1" started=$SECONDS cpu status=0 self=$BASHPID
    shift
    cpu="$(children_cpu "$self")"
    "$@" || status=$?
    step_ended "$name" "$started" "$cpu" "$self" "$status"
}

# step_ended NAME STARTED CPU PID STATUS: says NAME's time since STARTED (and CPU since CPU, of
# PID's children), keeps it for steps_report, and returns STATUS.
step_ended() {
    local line
    line="$(printf '%-44s %5d s wall %6d s CPU' "$1" $((SECONDS - $2)) $(($(children_cpu "$4") - $3)))"
    steps_summary+=("$line$([[ $5 -eq 0 ]] || echo "  (failed: $5)")")
    echo "time: $line" >&2
    return "$5"
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

# lanes NAME FUNCTION...: runs each FUNCTION (a sequence of steps) in a background subshell, side by
# side, each output line shown as it comes with its lane's letter; the lanes' steps join this
# shell's for steps_report. Fails when any lane failed, after all have ended.
lanes() {
    local name="$1" started=$SECONDS cpu dir pids=() letters=() status=0 letter=A self=$BASHPID
    shift
    cpu="$(children_cpu "$self")"
    dir="$(mktemp -d)"
    for lane in "$@"; do
        (
            steps_summary=()
            lane_status=0
            "$lane" || lane_status=$?
            printf '%s\n' "${steps_summary[@]}" >"$dir/$letter.steps"
            exit "$lane_status"
        ) > >(sed -u "s/^/[$letter] /") 2>&1 &
        pids+=($!)
        letters+=("$letter")
        letter="$(echo "$letter" | tr 'A-Y' 'B-Z')"
    done
    for index in "${!pids[@]}"; do
        wait "${pids[$index]}" || { status=$?; echo "lanes: lane ${letters[$index]} failed ($status)" >&2; }
    done
    for letter in "${letters[@]}"; do
        while IFS= read -r line; do
            [[ -n "$line" ]] && steps_summary+=("[$letter] $line")
        done <"$dir/$letter.steps"
    done
    rm -rf "$dir"
    step_ended "$name" "$started" "$cpu" "$self" "$status"
}
