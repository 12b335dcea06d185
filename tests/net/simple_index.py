#!/usr/bin/env python3
"""A package index in the simple repository layout (PEP 503) under DIR, for pip download tests:
DIR/simple/demo/index.html links DIR/packages/demo-1.0-py3-none-any.whl with its sha256.

  simple_index.py DIR
"""
import hashlib
import os
import sys
import zipfile

www = sys.argv[1]
os.makedirs(www + "/packages", exist_ok=True)
os.makedirs(www + "/simple/demo", exist_ok=True)
whl = www + "/packages/demo-1.0-py3-none-any.whl"
files = {
    "demo/__init__.py": "VALUE = 1\n",
    "demo-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
    "demo-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
    "Tag: py3-none-any\n",
}
record = "".join("%s,,\n" % n for n in files) + "demo-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(whl, "w") as z:
    for n, t in files.items():
        z.writestr(n, t)
    z.writestr("demo-1.0.dist-info/RECORD", record)
digest = hashlib.sha256(open(whl, "rb").read()).hexdigest()
with open(www + "/simple/demo/index.html", "w") as f:
    f.write('<a href="../../packages/demo-1.0-py3-none-any.whl#sha256=%s">'
            "demo-1.0-py3-none-any.whl</a>\n" % digest)
