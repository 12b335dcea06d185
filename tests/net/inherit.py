#!/usr/bin/env python3
"""A socket the caller leaves open without close-on-exec, as a leak or a socket-activated service
does, and a command that uses it to reach what a sandbox's network rules keep out of reach.

  inherit.py [--cloexec] KIND TARGET -- CMD...
      makes a socket of KIND at descriptor 19 (close-on-exec with --cloexec), runs CMD, and
      exits with its status. KIND udp: an unconnected UDP socket, TARGET ignored; the datagram
      is to reach a receiver on 127.0.0.1 this process binds (its port in INHERIT_PORT), and
      "received" or "none" is printed once CMD has ended. unix-stream, unix-dgram: an
      unconnected Unix socket. unix-pair: one end of a connected stream pair, its other end
      kept here. unix-path: no socket, an O_PATH descriptor of the socket file TARGET.
  inherit.py use KIND TARGET
      reaches TARGET through descriptor 19: OK, or the errno's name. udp: a datagram to
      127.0.0.1:INHERIT_PORT. unix-stream: connects to the path TARGET and reads its "hi".
      unix-dgram: sends a datagram to the path TARGET. unix-pair: connects again, to TARGET.
      unix-path: a new Unix socket connects to /proc/self/fd/19, the socket file it names.
"""
import errno
import os
import socket
import subprocess
import sys

FD = 19


def use(kind, target):
    try:
        if kind == "udp":
            s = socket.socket(fileno=FD)
            s.sendto(b"escaped\n", ("127.0.0.1", int(os.environ["INHERIT_PORT"])))
        elif kind == "unix-path":
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(5)
            s.connect("/proc/self/fd/%d" % FD)
            if s.recv(3) != b"hi\n":
                print("no answer")
                return
        elif kind == "unix-dgram":
            s = socket.socket(fileno=FD)
            s.sendto(b"escaped\n", target)
        else:
            s = socket.socket(fileno=FD)
            s.settimeout(5)
            s.connect(target)
            if s.recv(3) != b"hi\n":
                print("no answer")
                return
        print("OK")
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e)))


def main():
    args = sys.argv[1:]
    if args[0] == "use":
        use(args[1], args[2])
        return 0
    cloexec = args[0] == "--cloexec"
    if cloexec:
        args = args[1:]
    kind, target, cmd = args[0], args[1], args[3:]
    env = dict(os.environ)
    recv = keep = None
    if kind == "udp":
        recv = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        recv.bind(("127.0.0.1", 0))
        env["INHERIT_PORT"] = str(recv.getsockname()[1])
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    elif kind == "unix-stream":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    elif kind == "unix-dgram":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    elif kind == "unix-path":
        s = None
        os.dup2(os.open(target, os.O_PATH | os.O_CLOEXEC), FD, inheritable=not cloexec)
    else:
        s, keep = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    if s is not None:
        os.dup2(s.fileno(), FD, inheritable=not cloexec)
        s.close()
    rc = subprocess.run(cmd, env=env, pass_fds=() if cloexec else (FD,)).returncode
    if recv is not None:
        recv.settimeout(0.5)
        try:
            recv.recv(64)
            print("received")
        except socket.timeout:
            print("none")
    sys.stdout.flush()
    del keep
    return rc


sys.exit(main())
