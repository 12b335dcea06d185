#!/usr/bin/env python3
# asyncio.py - turns on signal-driven I/O for its standard input (a terminal) each way there is,
# and prints each call's result (OK or the errno name):
#   F_SETSIG SIGKILL, F_SETFL O_ASYNC, FIOASYNC.
# A terminal names its foreground process group as the owner of that signal, and the open file is
# the caller's too: where nothing refuses it, each key typed afterwards sends SIGKILL there.
import errno
import fcntl
import os
import signal
import struct
import termios


def say(name, call):
    try:
        call()
        print(name, "OK", flush=True)
    except OSError as e:
        print(name, errno.errorcode[e.errno], flush=True)


say("F_SETSIG", lambda: fcntl.fcntl(0, 10, signal.SIGKILL))
say("F_SETFL", lambda: fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_ASYNC))
say("FIOASYNC", lambda: fcntl.ioctl(0, termios.FIOASYNC, struct.pack("i", 1)))
