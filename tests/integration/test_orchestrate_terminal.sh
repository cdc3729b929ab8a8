#!/usr/bin/env bash
# orchestrate on a terminal (a real pseudo-terminal, python's pty): a checkpoint is asked inline
# while the other slots run; an empty line is no answer (the question is asked again), "Approve"
# on the terminal approves it (any case) and the run completes. In a second
# run the same question is answered from another terminal (`harness-cli respond`) while it is
# shown: the prompt gives way, and the run completes without anyone typing. In a third, the screen
# (as a terminal shows what orchestrate wrote) is read while the question waits and other slots
# run: the live table's redraws draw the question again under the table rather than over it, with
# what was typed so far still on its line, and an answer typed across a redraw still counts.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-task-tracker

for mode in type respond redraw; do
  p=$tmp/$mode
  example_project "$p"
  python3 - "$cli" "$p" "$spec" "$mode" "$src/tests/integration/lib" <<'PY' || fail "$mode: see above"
import fcntl, os, pty, select, struct, subprocess, sys, termios, time
cli, project, spec, mode, lib = sys.argv[1:6]
sys.path.insert(0, lib)
from term_screen import Screen
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))  # 40 rows, 100 columns
proc = subprocess.Popen([cli, "orchestrate", spec, "--worker", "script"], cwd=project,
                        stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
os.close(slave)
seen, answered, reasked, deadline = b"", False, False, time.time() + 240
asked_at = None  # redraw: where the output stood when the question was first shown
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
        elif mode == "redraw" and asked_at is None:
            asked_at, asked_time = len(seen), time.time()
            os.write(master, b"App")  # half an answer: the rest comes after a redraw
        elif mode == "redraw" and (b"task_" in seen[asked_at:] or time.time() - asked_time > 60):
            time.sleep(0.5)  # the rest of that redraw
            while select.select([master], [], [], 0.2)[0]:
                seen += os.read(master, 65536)
            if b"task_" not in seen[asked_at:]:
                print(seen.decode(errors="replace")[-3000:])
                print("redraw: no event was drawn while the question waited; nothing was checked")
                sys.exit(1)
            screen = Screen(100)
            screen.feed(seen.decode(errors="replace"))
            rows = [r for r in screen.text().splitlines() if r.strip()]
            # The question may wrap to a second row at 100 columns: it starts on one of the two above.
            if not (any(r.startswith("? verification of 02-03") for r in rows[-3:-1]) and
                    rows[-1].startswith("  approve (y) / refuse (n):")):
                print("\n".join(rows[-15:]))
                print("redraw: the question is not under the table after a redraw")
                sys.exit(1)
            if not rows[-1].rstrip().endswith("refuse (n): App"):
                print("\n".join(rows[-15:]))
                print("redraw: what was typed so far is not on the screen after a redraw")
                sys.exit(1)
            os.write(master, b"rove\n")
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
