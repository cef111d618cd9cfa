"""Runs cells in one kernel through jupyter_client and prints, as JSON, for
each cell its status, ename, evalue and stdout, and whether the kernel
process was still alive after it.

Usage: cells.py KERNEL_NAME CELLS.json     (a JSON list of code strings)
"""
import json
import sys

from jupyter_client.manager import start_new_kernel

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from kdiff import execute  # noqa: E402


def main():
    name, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        cells = json.load(f)
    km, kc = start_new_kernel(kernel_name=name, startup_timeout=120)
    out = []
    try:
        for c in cells:
            text, err = execute(km, kc, c, 300)
            ename, _, evalue = (err or "").partition(": ")
            out.append({"status": "error" if err else "ok", "ename": ename, "evalue": evalue,
                        "stdout": text, "alive": km.is_alive()})
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
