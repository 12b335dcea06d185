#!/usr/bin/env python3
# sigcount.py - counts how many times a signal is delivered to this process:
#
#   sigcount.py SIGNAME [--kill-group]
#
# Prints "ready", sends SIGNAME to its own process group first with --kill-group, then counts
# deliveries until 0.5 s after the first (waiting 10 s at most for it) and prints "count=N". Each
# delivery is counted: the handler writes one byte per signal to a pipe (set_wakeup_fd), so only
# instances the kernel itself merged while pending count as one.
import os
import select
import signal
import sys
import time

sig = getattr(signal, sys.argv[1])
r, w = os.pipe()
os.set_blocking(w, False)
signal.signal(sig, lambda *a: None)
signal.set_wakeup_fd(w)
print("ready", flush=True)
if "--kill-group" in sys.argv[2:]:
    os.kill(0, sig)
n, end = 0, None
while select.select([r], [], [], 10 if end is None else max(0, end - time.monotonic()))[0]:
    n += len(os.read(r, 64))
    end = end or time.monotonic() + 0.5
print("count=%d" % n, flush=True)
