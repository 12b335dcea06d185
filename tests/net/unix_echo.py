#!/usr/bin/env python3
"""Unix stream sockets that answer "hi" and close, standing in for ssh-agent and a daemon's
socket in the broker tests. Serves PATH... (made mode 0777) for at most 300 seconds. A PATH
written dgram:PATH is a datagram socket instead (a logging daemon's): each datagram it receives
is appended to PATH.got. One written @NAME is an abstract stream socket of that name (a desktop
bus's, or an X server's; @ alone is the empty name), which answers as a path socket does.

  unix_echo.py [dgram:|@]PATH...
"""
import os
import socket
import sys
import threading


def serve(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if path.startswith("@"):
        s.bind("\0" + path[1:])
        s.listen(16)
    else:
        # Bound and listening under another name, then renamed: a socket file at PATH accepts
        # (a client that saw it between bind and listen was refused, on a loaded machine).
        tmp = "%s.%d.tmp" % (path, os.getpid())
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        s.bind(tmp)
        os.chmod(tmp, 0o777)
        s.listen(16)
        os.rename(tmp, path)
    while True:
        c, _ = s.accept()
        try:
            c.sendall(b"hi\n")
        except OSError:
            pass  # a client that connected only to see that it could
        c.close()


def receive(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    os.chmod(path, 0o777)
    while True:
        got = s.recv(4096)
        with open(path + ".got", "ab") as f:
            f.write(got)


for p in sys.argv[1:]:
    if p.startswith("dgram:"):
        threading.Thread(target=receive, args=(p[6:],), daemon=True).start()
    else:
        threading.Thread(target=serve, args=(p,), daemon=True).start()
threading.Event().wait(300)
