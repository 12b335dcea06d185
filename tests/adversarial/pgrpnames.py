#!/usr/bin/env python3
# pgrpnames.py - tries every other way to name the caller's process group $PG, or one of its
# processes (the group's leader, pid $PG), and prints each call's result (OK or the errno name):
#   kill -PG, tgkill PG PG, rt_sigqueueinfo PG, F_SETOWN -PG, F_SETOWN_EX F_OWNER_PGRP PG,
#   setpgid 0 PG.
# SIGWINCH: harmless where it lands.
import ctypes
import errno
import os
import signal
import struct

NR = {"x86_64": (234, 129), "aarch64": (131, 138)}[os.uname().machine]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
pg = int(os.environ["PG"])
signal.signal(signal.SIGWINCH, lambda *a: None)


def say(name, r):
    print(name, "OK" if r == 0 else errno.errorcode[ctypes.get_errno()])


info = ctypes.create_string_buffer(128)
struct.pack_into("iii", info, 0, signal.SIGWINCH, 0, -1)  # si_code SI_QUEUE
r, w = os.pipe()
say("kill", libc.kill(-pg, signal.SIGWINCH))
say("tgkill", libc.syscall(NR[0], pg, pg, signal.SIGWINCH))
say("rt_sigqueueinfo", libc.syscall(NR[1], pg, signal.SIGWINCH, info))
say("F_SETOWN", libc.fcntl(r, 8, -pg))
say("F_SETOWN_EX", libc.fcntl(r, 15, ctypes.create_string_buffer(struct.pack("ii", 2, pg))))
say("setpgid", libc.setpgid(0, pg))
