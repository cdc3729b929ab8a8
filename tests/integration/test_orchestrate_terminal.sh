#!/usr/bin/env bash
# orchestrate on a terminal (a real pseudo-terminal, python's pty): a checkpoint is asked inline
# while the other slots run; an empty line is no answer (the question is asked again), "Approve"
# on the terminal approves it (any case) and the run completes. In a second
# run the same question is answered from another terminal (`harness-cli respond`) while it is
# shown: the prompt gives way, and the run completes without anyone typing.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-task-tracker

for mode in type respond; do
  p=$tmp/$mode
  example_project "$p"
  python3 - "$cli" "$p" "$spec" "$mode" <<'PY' || fail "$mode: see above"
import os, pty, select, subprocess, sys, time
cli, project, spec, mode = sys.argv[1:5]
master, slave = pty.openpty()
proc = subprocess.Popen([cli, "orchestrate", spec, "--worker", "script"], cwd=project,
                        stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
os.close(slave)
seen, answered, reasked, deadline = b"", False, False, time.time() + 240
while time.time() < deadline:
    r, _, _ = select.select([master], [], [], 0.2)
    if r:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        seen += chunk
    if not answered and b"approve (y) / refuse (n):" in seen:
        if mode == "type" and not reasked:
            os.write(master, b"\n")  # Enter alone must not refuse: the question is asked again
            reasked = True
        elif mode == "type" and b"please answer approve (y) or refuse (n):" in seen:
            os.write(master, b"Approve\n")  # any case
            answered = True
        elif mode == "respond":
            listed = subprocess.run([cli, "respond", "--list"], cwd=project, capture_output=True, text=True).stdout
            subprocess.run([cli, "respond", listed.split()[0], "approve"], cwd=project, check=True)
            answered = True
    if proc.poll() is not None and not r:
        break
rc = proc.wait(timeout=30)
text = seen.decode(errors="replace")
if not answered or rc != 0:
    print(text[-3000:])
    print(f"{mode}: answered={answered} exit={rc}")
    sys.exit(1)
if mode == "respond" and "(answered elsewhere)" not in text:
    print(text[-2000:])
    print("the terminal prompt did not give way to the answer from elsewhere")
    sys.exit(1)
PY
  grep -q "status: passed" "$p/$spec/execution/FINAL-VERIFICATION.md" || fail "$mode: no passed final verification"
  grep -q "verification: passed" "$p/$spec/execution/phases/02-core-commands/02-03-SUMMARY.md" || fail "$mode: 02-03 not verified"
done
echo "orchestrate on a terminal: all checks passed"
