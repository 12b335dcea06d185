#!/usr/bin/env python3
"""ipc.py OP KEY: one System V IPC or POSIX message queue operation, printing OK or the errno
name. OP is shm, msg, sem or mq (open an existing object by KEY), or the same with -create
(make it, mode 0600, exclusively: an object that holds KEY already, another program's or one a
killed run left, is EEXIST, never taken for the caller's own)."""
import ctypes
import errno
import sys

libc = ctypes.CDLL(None, use_errno=True)
op, key = sys.argv[1], int(sys.argv[2])
# IPC_CREAT | IPC_EXCL | 0600
flags = 0o3600 if op.endswith("-create") else 0
if op.startswith("shm"):
    r = libc.shmget(key, 4096, flags)
elif op.startswith("msg"):
    r = libc.msgget(key, flags)
elif op.startswith("sem"):
    r = libc.semget(key, 1, flags)
else:
    # O_CREAT | O_EXCL
    r = libc.mq_open(b"/sbx-%d" % key, 0o300 if flags else 0, 0o600, None)
print("OK" if r >= 0 else errno.errorcode[ctypes.get_errno()])
