#!/usr/bin/env python3
# ptyrun.py - runs a command as the session leader of a new pseudo-terminal, as a login shell at
# a terminal would, and types into it:
#
#   ptyrun.py [--after MARK TEXT]... -- CMD...
#
# Each TEXT (Python escapes: '\x03' is Ctrl-C, '\x1a' Ctrl-Z) is typed once MARK has appeared in
# the output that followed the previous TEXT. Prints the output (CRLF turned into LF), then
# "status=N" as a shell shows it (128+S for death by signal S). Gives up after 20 seconds.
import codecs
import os
import pty
import select
import signal
import sys
import time

args = sys.argv[1:]
steps = []
while args and args[0] == "--after":
    steps.append((args[1], codecs.decode(args[2], "unicode_escape")))
    args = args[3:]
if not args or args[0] != "--":
    sys.exit("usage: ptyrun.py [--after MARK TEXT]... -- CMD...")
cmd = args[1:]

pid, master = pty.fork()
if pid == 0:
    try:
        # A login shell starts its commands with the terminal's signals at their defaults; a
        # caller started in the background (nohup, `&` in a script) has them ignored, and an
        # ignored disposition is inherited across exec.
        for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTSTP):
            signal.signal(sig, signal.SIG_DFL)
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)


def rest(fd, deadline):
    """What is left to read at the master once the command has ended: until no process holds
    the terminal (EIO), nothing comes for a while, or the deadline."""
    data = b""
    while time.monotonic() < deadline and select.select([fd], [], [], 0.2)[0]:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    return data


out = b""
seen = 0  # where the search for the next mark starts
ws = None
deadline = time.monotonic() + 20
while time.monotonic() < deadline:
    if steps and steps[0][0].encode() in out[seen:]:
        seen = len(out)
        os.write(master, steps.pop(0)[1].encode())
        continue
    r, _, _ = select.select([master], [], [], 0.1)
    if r:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: no process holds the terminal any more
            break
        if not data:
            break
        out += data
        continue
    done, st = os.waitpid(pid, os.WNOHANG)
    if done == pid:
        ws = st
        # What it wrote just before it ended may not have been readable when select looked: a
        # loaded machine can stop this process between the select and the wait.
        out += rest(master, deadline)
        break
else:
    os.kill(pid, 9)
    out += b"\nptyrun: timed out"

if ws is None:
    _, ws = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(ws)
sys.stdout.write(out.decode(errors="replace").replace("\r\n", "\n"))
sys.stdout.write("\nstatus=%d\n" % (code if code >= 0 else 128 - code))
