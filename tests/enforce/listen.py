#!/usr/bin/env python3
# Loopback listeners outside the sandbox for the network tests: TCP over IPv4 and IPv6, UDP,
# a path unix socket and an abstract unix socket. Writes "tcp4 tcp6 udp4" ports to argv[1],
# serves until killed or for at most 300 seconds (bounded).
import os, select, socket, sys, time

out, path, abstract = sys.argv[1], sys.argv[2], sys.argv[3]
t4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM); t4.bind(("127.0.0.1", 0)); t4.listen(16)
t6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM); t6.bind(("::1", 0)); t6.listen(16)
u4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u4.bind(("127.0.0.1", 0))
up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); up.bind(path); up.listen(16)
ua = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); ua.bind("\0" + abstract); ua.listen(16)
with open(out + ".tmp", "w") as f:
    f.write("%d %d %d\n" % (t4.getsockname()[1], t6.getsockname()[1], u4.getsockname()[1]))
os.rename(out + ".tmp", out)
end = time.time() + 300
socks = [t4, t6, up, ua]
while time.time() < end:
    r, _, _ = select.select(socks + [u4], [], [], 1)
    for s in r:
        if s is u4:
            s.recvfrom(64)
        else:
            c, _ = s.accept(); c.close()
