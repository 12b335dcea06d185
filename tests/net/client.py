#!/usr/bin/env python3
"""A raw client for the proxy tests: sends exactly the bytes a test names.

  client.py send ADDR DATA [--shut]     DATA with \\r \\n \\xNN escapes; prints what comes back
                                        until the proxy closes (--shut: half-close after DATA)
  client.py statuses ADDR DATA          the status codes of the responses that come back
  client.py tunnel ADDR TARGET N        CONNECT TARGET, echo N bytes through it, half-close
  client.py hold ADDR TARGET N          N tunnels open at once, then each echoes a message
                                        (ADDR "direct": plain connections to TARGET instead)
  client.py slow ADDR DATA              sends DATA (a partial head) and waits: "STATUS SECONDS"
  client.py noread ADDR DATA N          sends DATA with a 4 KiB receive buffer; then prints
                                        the first N bytes that come back and closes, or with
                                        N 0 reads nothing and holds the connection until killed
  client.py chaos ADDR URL TARGET N     N clients that vanish at random points of exchanges
  client.py shutfirst ADDR TARGET N     through a tunnel to servers.py halfclose: half-closes
                                        first, and only then does the server send N bytes;
                                        "ok" when all of them arrive, then the end
  client.py shutlast ADDR TARGET N [FLAG]  the server half-closes first, and only then does the
                                        client send N bytes and its end: "sent COUNT SHA256";
                                        with FLAG, the server reads nothing until the client
                                        made the file FLAG, once its kernel holds none of the
                                        bytes (all on their way), and the client exits without
                                        waiting for the tunnel's end
  client.py shutlate ADDR TARGET N FLAG [held]  the same to servers.py halfclose's order
                                        "late", the server sending nothing first: the server
                                        sends after the client has made FLAG and ended; with
                                        "held", it sends what the queues take of N (the
                                        count printed) and makes FLAG at once, its kernel
                                        holding bytes still (its reset drops them: a cut)
  client.py flood ADDR TARGET N WAIT    N tunnel requests at once, left WAIT seconds, then
                                        each answered one (or closed) closed until all are:
                                        "A of N answered at first, then all; E established"
  client.py burst ADDR TARGET N SENT  N connections at once, each a GET of http://TARGET/f.txt;
                                        makes the file SENT once every request is sent, then
                                        reads each response to its end: "A of N answered 200"
  client.py idle ADDR TARGET N FLAG    N tunnels to an echo server, the first echoing a line
                                        every 0.2 s, the others silent: "held N", then once
                                        FLAG exists (or 120 s passed) the tunnels the proxy
                                        closed meanwhile: "closed: I J ...; first echoed: OK"
  client.py refused ADDR N              N requests, one a connection, each for another name of
                                        250 bytes that no allow entry matches: "N refused"
  client.py logreader FIFO OUT FLAG     reads the pipe FIFO into OUT a page every 0.3 s (its
                                        reader never stops) until FLAG exists, then all at
                                        once until its end
  client.py loris ADDR DATA N FLAG       N connections that each send DATA (a partial head) and
                                        nothing more: "held N", then once FLAG exists (or 60 s
                                        passed), what each got: "S1:C1 S2:C2 ... open:K"
  client.py later ADDR DATA FLAG SENT   connects, then once FLAG exists sends DATA, makes the
                                        file SENT, and prints what comes back until the end
  client.py handoff ADDR URL SOCKET      a GET of URL through the proxy at ADDR; once the first
                                        bytes of its answer came, passes the connection to the
                                        Unix socket SOCKET (SCM_RIGHTS), closes its own copy,
                                        prints "handed" and sleeps
ADDR is HOST:PORT, [::1]:PORT or unix:PATH.
"""
import fcntl
import hashlib
import os
import random
import re
import resource
import select
import socket
import struct
import sys
import termios
import threading
import time


def connect(addr, timeout=10):
    if addr.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(addr[5:])
        return s
    host, port = addr.rsplit(":", 1)
    fam = socket.AF_INET6 if host.startswith("[") else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect((host.strip("[]"), int(port)))
    return s


def unescape(text):
    return text.encode("latin-1").decode("unicode_escape").encode("latin-1")


def read_all(s):
    out = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except (socket.timeout, ConnectionResetError):
        pass
    return out


def cmd_send(addr, data, shut=False):
    s = connect(addr)
    s.sendall(unescape(data))
    if shut:
        s.shutdown(socket.SHUT_WR)
    out = read_all(s)
    s.close()
    return out


def open_tunnel(addr, target):
    s = connect(addr)
    s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target.encode(), target.encode()))
    head = b""
    while b"\r\n\r\n" not in head:
        d = s.recv(1)
        if not d:
            raise RuntimeError("tunnel closed before its response: %r" % head)
        head += d
    if not head.startswith(b"HTTP/1.1 200 "):
        raise RuntimeError("tunnel refused: %r" % head)
    return s


def echo_through(s, payload):
    s.sendall(payload)
    got = b""
    while len(got) < len(payload):
        d = s.recv(65536)
        if not d:
            break
        got += d
    return got == payload


def cmd_tunnel(addr, target, n):
    s = open_tunnel(addr, target)
    payload = os.urandom(n)
    ok = echo_through(s, payload)
    s.shutdown(socket.SHUT_WR)
    rest = read_all(s)  # the echo server's EOF travels back through the tunnel
    s.close()
    print("ok" if ok and rest == b"" else "mismatch")


def cmd_shutfirst(addr, target, n):
    s = open_tunnel(addr, target)
    s.sendall(b"recv-then-send %d\n" % n)
    s.shutdown(socket.SHUT_WR)
    got = read_all(s)
    s.close()
    want = (bytes(range(256)) * 256 * (n // 65536 + 1))[:n]
    print("ok" if got == want else "mismatch: %d bytes" % len(got))


def cmd_shutlast(addr, target, n, flag=None):
    s = open_tunnel(addr, target)
    s.sendall(b"send-then-recv %s\n" % flag.encode() if flag else b"send-then-recv\n")
    first = read_all(s)  # up to the server's end, which must come before we send
    if first != b"bye\n":
        print("no end from the server first: %r" % first)
        return
    payload = os.urandom(n)
    s.sendall(payload)
    s.shutdown(socket.SHUT_WR)
    if flag:
        sent_out(s)
        open(flag, "w").close()
        print("sent %d %s" % (n, hashlib.sha256(payload).hexdigest()))
        return
    rest = read_all(s)  # both ends are closed now: the tunnel ends
    s.close()
    print("sent %d %s%s" % (n, hashlib.sha256(payload).hexdigest(), " but got %r" % rest if rest else ""))


def sent_out(s):
    # Until this kernel holds none of the bytes sent (20 s at most): all are past it.
    for _ in range(2000):
        if struct.unpack("i", fcntl.ioctl(s.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0] == 0:
            return
        time.sleep(0.01)
    raise RuntimeError("bytes still held here after 20 s")


def cmd_shutlate(addr, target, n, flag, held=None):
    s = open_tunnel(addr, target)
    s.sendall(b"late %s\n" % flag.encode())
    payload = os.urandom(n)
    if held == "held":  # as much as the queues take, the last of it still in this kernel
        s.setblocking(False)
        m = 0
        try:
            while m < n:
                m += s.send(payload[m:m + 65536])
        except BlockingIOError:
            pass
        payload = payload[:m]
    else:
        s.sendall(payload)
    s.shutdown(socket.SHUT_WR)
    if held != "held":
        sent_out(s)
    open(flag, "w").close()
    print("sent %d %s" % (len(payload), hashlib.sha256(payload).hexdigest()))


def cmd_handoff(addr, url, path):
    s = connect(addr)
    s.sendall(b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (url.encode(), url.split("/")[2].encode()))
    if not s.recv(100):
        raise RuntimeError("no answer")
    u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    u.connect(path)
    u.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, s.fileno().to_bytes(4, sys.byteorder))])
    s.close()
    u.close()
    print("handed", flush=True)
    time.sleep(300)


def cmd_flood(addr, target, n, wait):
    # The side under test may have a low descriptor limit; this client must not share it.
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    socks = []
    for _ in range(n):
        s = connect(addr)
        s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target.encode(), target.encode()))
        socks.append(s)
    time.sleep(wait)
    first = len(select.select(socks, [], [], 0)[0])
    established, deadline = 0, time.monotonic() + 20
    while socks and time.monotonic() < deadline:
        for s in select.select(socks, [], [], 0.5)[0]:
            established += s.recv(100).startswith(b"HTTP/1.1 200 ")
            socks.remove(s)
            s.close()
    print("%d of %d answered at first, then %s; %d established" %
          (first, n, "all" if not socks else "%d left" % len(socks), established))


def cmd_burst(addr, target, n, sent):
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    req = ("GET http://%s/f.txt HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" %
           (target, target)).encode()
    socks = [connect(addr) for _ in range(n)]
    for s in socks:
        s.sendall(req)
    open(sent, "w").close()
    got = {s: b"" for s in socks}
    ok, deadline = 0, time.monotonic() + 60
    while got and time.monotonic() < deadline:
        for s in select.select(list(got), [], [], 0.5)[0]:
            b = s.recv(65536)
            if b:
                got[s] += b
                continue
            ok += got.pop(s).startswith(b"HTTP/1.1 200 ")
            s.close()
    print("%d of %d answered 200" % (ok, n))


def cmd_idle(addr, target, n, flag):
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    socks = [open_tunnel(addr, target) for _ in range(n)]
    print("held %d" % n, flush=True)
    first, deadline = True, time.monotonic() + 120
    while not os.path.exists(flag) and time.monotonic() < deadline:
        first = first and echo_through(socks[0], b"moving\n")
        time.sleep(0.2)
    closed = []
    for i, s in enumerate(socks):
        s.settimeout(0.01)
        try:
            closed += [str(i)] if s.recv(1) == b"" else []
        except socket.timeout:
            pass
        except OSError:
            closed.append(str(i))
    print("closed: %s; first echoed: %s" % (" ".join(closed), "ok" if first else "no"))


def cmd_hold(addr, target, n):
    if addr == "direct":
        socks = [connect(target) for _ in range(n)]
    else:
        socks = [open_tunnel(addr, target) for _ in range(n)]
    # Every tunnel is open now; each must still carry its own bytes.
    good = sum(echo_through(s, b"tunnel %d\n" % i) for i, s in enumerate(socks))
    for s in socks:
        s.close()
    print("held %d, echoed %d" % (n, good))


def cmd_slow(addr, data):
    s = connect(addr, timeout=60)
    start = time.monotonic()
    s.sendall(unescape(data))
    out = read_all(s)
    m = re.match(rb"HTTP/1\.1 (\d{3})", out)
    print("%s %.1f" % (m.group(1).decode() if m else "none", time.monotonic() - start))


def cmd_noread(addr, data, n):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # Set before connecting: a small window the kernel does not grow, so the proxy's sends
    # to this client stall at once.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    host, port = addr.rsplit(":", 1)
    s.connect((host, int(port)))
    s.sendall(unescape(data))
    got = b""
    while len(got) < n:
        d = s.recv(n - len(got))
        if not d:
            break
        got += d
    sys.stdout.buffer.write(got)
    sys.stdout.flush()
    while n == 0:
        time.sleep(60)
    s.close()


def vanish(s):
    """Closes abruptly: a reset (linger 0) or a plain close, at random."""
    try:
        if random.random() < 0.5:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()
    except OSError:
        pass


def chaos_one(addr, url, target, rnd):
    try:
        s = connect(addr, timeout=5)
        kind = rnd.randrange(7)
        if kind == 0:  # dies before sending anything
            pass
        elif kind == 1:  # dies in the middle of a head
            s.sendall(b"GET " + url.encode() + b" HTTP/1.1\r\nHo")
        elif kind == 2:  # dies after a head, before the response
            s.sendall(b"GET " + url.encode() + b"/slow/0.3 HTTP/1.1\r\nHost: x\r\n\r\n")
        elif kind == 3:  # dies in the middle of a large response
            s.sendall(b"GET " + url.encode() + b"/bytes/5000000 HTTP/1.1\r\nHost: x\r\n\r\n")
            s.recv(rnd.randrange(1, 200000))
        elif kind == 4:  # dies in the middle of its request body
            s.sendall(b"POST " + url.encode() + b"/echo HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Length: 100000\r\n\r\n" + b"x" * rnd.randrange(0, 50000))
        elif kind == 5:  # dies in the middle of a chunked body
            s.sendall(b"POST " + url.encode() + b"/echo HTTP/1.1\r\nHost: x\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n10\r\n0123456789")
        else:  # dies inside a tunnel
            s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: x\r\n\r\nhello" % target.encode())
            s.recv(rnd.randrange(1, 100))
        time.sleep(rnd.random() * 0.05)
        vanish(s)
    except OSError:
        pass


def cmd_refused(addr, n):
    refused = 0
    for i in range(n):
        host = ".".join(["%05d" % i + "a" * 58] * 3 + ["%05d" % i + "a" * 45]) + ".example"
        s = connect(addr)
        s.sendall(b"GET http://%s/ HTTP/1.1\r\nHost: x\r\n\r\n" % host.encode())
        refused += read_all(s).startswith(b"HTTP/1.1 403 ")
        s.close()
    print("%d refused" % refused)


def cmd_logreader(fifo, out, flag):
    fd = os.open(fifo, os.O_RDONLY)
    with open(out, "wb") as f:
        while True:
            fast = os.path.exists(flag)
            d = os.read(fd, 65536 if fast else 4096)
            if not d:
                break
            f.write(d)
            f.flush()
            if not fast:
                time.sleep(0.3)


def cmd_loris(addr, data, n, flag):
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    socks = []
    for _ in range(n):
        s = connect(addr)
        s.sendall(unescape(data))
        socks.append(s)
    print("held %d" % n, flush=True)
    deadline = time.monotonic() + 60  # a test that failed before making FLAG ends it
    while not os.path.exists(flag) and time.monotonic() < deadline:
        time.sleep(0.05)
    counts = {}
    for s in socks:
        s.setblocking(False)
        try:
            out = s.recv(100)
            key = out[9:12].decode() if out.startswith(b"HTTP/1.1 ") else "closed"
        except BlockingIOError:
            key = "open"
        except OSError:
            key = "reset"
        counts[key] = counts.get(key, 0) + 1
        s.close()
    print(" ".join("%s:%d" % kv for kv in sorted(counts.items())))


def cmd_later(addr, data, flag, sent):
    s = connect(addr)
    deadline = time.monotonic() + 60  # a test that failed before making FLAG ends it
    while not os.path.exists(flag) and time.monotonic() < deadline:
        time.sleep(0.02)
    s.sendall(unescape(data))
    open(sent, "w").close()
    try:
        out = read_all(s)
    except OSError as e:
        out = ("error: %s" % e.strerror).encode()
    sys.stdout.buffer.write(out)
    s.close()


def cmd_chaos(addr, url, target, n):
    rnd = random.Random(int(os.environ.get("CHAOS_SEED", "1")))
    threads = []
    for i in range(n):
        t = threading.Thread(target=chaos_one, args=(addr, url, target, random.Random(rnd.random())))
        t.start()
        threads.append(t)
        if len(threads) >= 50:
            threads.pop(0).join()
    for t in threads:
        t.join()
    print("chaos done")


def main():
    cmd, addr = sys.argv[1], sys.argv[2]
    if cmd == "send":
        sys.stdout.buffer.write(cmd_send(addr, sys.argv[3], "--shut" in sys.argv[4:]))
    elif cmd == "statuses":
        out = cmd_send(addr, sys.argv[3], "--shut" in sys.argv[4:])
        print(" ".join(m.decode() for m in re.findall(rb"(?:^|\n)HTTP/1\.1 (\d{3}) ", out)))
    elif cmd == "tunnel":
        cmd_tunnel(addr, sys.argv[3], int(sys.argv[4]))
    elif cmd == "hold":
        cmd_hold(addr, sys.argv[3], int(sys.argv[4]))
    elif cmd == "slow":
        cmd_slow(addr, sys.argv[3])
    elif cmd == "noread":
        cmd_noread(addr, sys.argv[3], int(sys.argv[4]))
    elif cmd == "shutfirst":
        cmd_shutfirst(addr, sys.argv[3], int(sys.argv[4]))
    elif cmd == "shutlast":
        cmd_shutlast(addr, sys.argv[3], int(sys.argv[4]), *sys.argv[5:6])
    elif cmd == "shutlate":
        cmd_shutlate(addr, sys.argv[3], int(sys.argv[4]), *sys.argv[5:7])
    elif cmd == "handoff":
        cmd_handoff(addr, sys.argv[3], sys.argv[4])
    elif cmd == "flood":
        cmd_flood(addr, sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
    elif cmd == "burst":
        cmd_burst(addr, sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif cmd == "idle":
        cmd_idle(addr, sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif cmd == "refused":
        cmd_refused(addr, int(sys.argv[3]))
    elif cmd == "logreader":
        cmd_logreader(addr, sys.argv[3], sys.argv[4])
    elif cmd == "loris":
        cmd_loris(addr, sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif cmd == "later":
        cmd_later(addr, sys.argv[3], sys.argv[4], sys.argv[5])
    elif cmd == "chaos":
        cmd_chaos(addr, sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
