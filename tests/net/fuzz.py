#!/usr/bin/env python3
"""Seeded fuzzing of the proxy with malformed, pipelined, huge and slow requests.

  fuzz.py PROXY UPSTREAM SEED SECONDS

PROXY and UPSTREAM are HOST:PORT (the proxy allows localhost, UPSTREAM is servers.py http on
127.0.0.1). For SECONDS, each case is a valid request (or several, pipelined) mutated at random,
sent whole or in slow pieces, then half-closed; what comes back must end within 5 s (no hang),
and every response of the proxy's own (a body starting "sbxrun: ") must carry a status it is
meant to give and a body of exactly one line, as long as its Content-Length says. Prints
"N cases, S statuses" and, for each failure, a line starting "FAIL" with the case's bytes.
"""
import random
import re
import socket
import sys
import time

OWN = {400, 403, 408, 413, 414, 431, 501, 502, 503, 504, 505}
HEAD = re.compile(rb"HTTP/1\.1 (\d{3}) [^\r\n]*\r\n((?:[^\r\n]+\r\n)*)\r\n")


def bases(up):
    u = b"http://localhost:%s" % up.encode()
    return [
        b"GET %s/f.txt HTTP/1.1\r\nHost: x\r\n\r\n" % u,
        b"GET %s/f.txt HTTP/1.0\r\nHost: x\r\nUser-Agent: f\r\n\r\n" % u,
        b"POST %s/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" % u,
        b"POST %s/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5\r\nhello\r\n0\r\n\r\n" % u,
        b"CONNECT localhost:%s HTTP/1.1\r\nHost: localhost:%s\r\n\r\n" % (up.encode(), up.encode()),
        b"HEAD %s/f.txt HTTP/1.1\r\nHost: x\r\n\r\n" % u,
        b"GET http://evil.example/ HTTP/1.1\r\nHost: localhost\r\n\r\n",
    ]


# Smuggling and framing forms, each put into a request at random.
FORMS = [
    b"Content-Length: 3\r\nContent-Length: 4\r\n",
    b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n",
    b"Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n",
    b"Transfer-Encoding: chunked, gzip\r\n",
    b"Transfer-Encoding : chunked\r\n",
    b"X: a\r\n folded\r\n",
    b"X: a\nY: b\r\n",
    b"X: a\x00b\r\n",
    b"Host: evil.example\r\n",
    b"Content-Length: -1\r\n",
    b"Content-Length: 99999999999999999999999\r\n",
    b"Content-Length: 0x10\r\n",
    b"Expect: 100-continue\r\n",
    b"Connection: close, Upgrade\r\nUpgrade: h2c\r\n",
    b"\xff\xfe: \x80\r\n",
]


def mutate(rnd, data):
    data = bytearray(data)
    for _ in range(rnd.randint(1, 3)):
        op = rnd.randrange(9)
        i = rnd.randrange(len(data) + 1)
        if op == 0 and data:
            data[min(i, len(data) - 1)] = rnd.randrange(256)
        elif op == 1:
            data[i:i] = bytes(rnd.choice(b"\r\n\x00 :\t\x7f/@#?%") for _ in range(rnd.randint(1, 4)))
        elif op == 2 and data:
            del data[i:i + rnd.randint(1, 16)]
        elif op == 3:
            k = data.find(b"\r\n")
            if k > 0:
                data[k + 2:k + 2] = rnd.choice(FORMS)
        elif op == 4:
            data = bytearray(data.replace(b"\r\n", b"\n", rnd.randint(1, 3)))
        elif op == 5:
            k = data.find(b"\r\n")
            if k > 0:
                data[k + 2:k + 2] = b"X-Big: " + b"a" * rnd.choice([8000, 9000, 70000]) + b"\r\n"
        elif op == 6:
            k = data.find(b"\r\n")
            if k > 0:
                data[k + 2:k + 2] = b"".join(b"X%d: y\r\n" % n for n in range(rnd.choice([50, 101, 500])))
        elif op == 7:
            data = data + data  # pipelined
        else:
            data = data[:i]  # cut short
    return bytes(data)


def send_case(proxy, data, slow):
    host, port = proxy.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=5)
    try:
        if slow:
            for k in range(0, len(data), 7):
                s.sendall(data[k:k + 7])
                time.sleep(0.002)
        else:
            s.sendall(data)
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # the proxy may answer and close before it has read everything
    out, end = b"", time.monotonic() + 5
    try:
        while time.monotonic() < end:
            d = s.recv(65536)
            if not d:
                return out, True
            out += d
    except ConnectionResetError:
        return out, True
    except socket.timeout:
        pass
    finally:
        s.close()
    return out, False


def check(out):
    """The failures in what came back: the proxy's own responses are checked in full."""
    bad, statuses = [], []
    pos = 0
    while True:
        m = HEAD.search(out, pos)
        if not m:
            break
        status = int(m.group(1))
        statuses.append(status)
        fields = dict(
            (k.strip().lower(), v.strip())
            for k, _, v in (f.partition(b":") for f in m.group(2).split(b"\r\n") if f)
        )
        body_at = m.end()
        pos = body_at
        if fields.get(b"content-type") != b"text/plain; charset=utf-8" or \
                not out.startswith(b"sbxrun: ", body_at):
            continue
        n = int(fields.get(b"content-length", b"-1"))
        body = out[body_at:body_at + n]
        if status not in OWN:
            bad.append("own status %d" % status)
        if len(body) != n or body.count(b"\n") != 1 or not body.endswith(b"\n"):
            bad.append("own body not one line: %r" % body[:200])
        pos = body_at + n
    return bad, statuses


def main():
    proxy, up, seed, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    rnd = random.Random(seed)
    base = bases(up)
    end = time.monotonic() + seconds
    cases = fails = 0
    seen = set()
    while time.monotonic() < end:
        data = mutate(rnd, rnd.choice(base))
        slow = rnd.random() < 0.05
        out, ended = send_case(proxy, data, slow)
        bad, statuses = check(out)
        seen.update(statuses)
        if not ended:
            bad.append("no end within 5 s")
        cases += 1
        for b in bad:
            fails += 1
            print("FAIL %s: sent %r" % (b, data[:300]))
    print("%d cases, statuses %s" % (cases, " ".join(str(s) for s in sorted(seen))))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
