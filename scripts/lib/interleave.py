"""Times whole commands, interleaved: run 1 of every command, then run 2 of every command, and so on,
so a slow spell of the machine hits all of them alike. Prints `label median-seconds` per command.
Usage: python3 interleave.py RUNS 'label=command line' ...  (commands split like a shell, no pipes;
`{run}` in a command becomes the run's number, for commands that need a fresh destination each run)"""
import shlex, statistics, subprocess, sys, time

runs = int(sys.argv[1])
commands = [(label, shlex.split(command)) for label, command in (arg.split("=", 1) for arg in sys.argv[2:])]
times = {label: [] for label, _ in commands}
failed = {}
for run in range(runs):
    for label, command in commands:
        command = [part.replace("{run}", str(run)) for part in command]
        start = time.perf_counter()
        status = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        times[label].append(time.perf_counter() - start)
        if status != 0:
            failed[label] = status
# A command that failed did not do the work timed: say so beside its figure.
for label, status in failed.items():
    print(f"interleave: '{label}' exited with status {status}; its time may not be comparable", file=sys.stderr)
for label, values in times.items():
    print(label, f"{statistics.median(values):.4f}")
