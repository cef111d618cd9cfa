"""Cell latency of a Jupyter kernel, measured through jupyter_client.

Usage: klatency.py KERNEL_NAME FLAVOUR [N]   (JUPYTER_PATH must find the kernelspec)

FLAVOUR is weft or gonb: the cells are the same Go, written in each
kernel's syntax (gonb's `%%` runs a cell's statements in main; its
`!*go get` fetches a module into the session's module). Each case starts
with a setup cell (not timed), then times N executions of its cell from
execute_request to the idle status that ends it. The `%go get` case uses
an empty module cache of its own for "first" (the kernel's GOMODCACHE is
set before the kernel starts) and the warm cache for "cached". Prints one
line per case: `NAME mean_ms min_ms N`.
"""
import os
import shutil
import sys
import tempfile
import time

from jupyter_client.manager import start_new_kernel

MODULE = "github.com/spaolacci/murmur3@v1.1.0"

CELLS = {
    "weft": {
        "trivial": ("", "1 + 1"),
        "gonum": ('import "gonum.org/v1/gonum/stat"', "stat.Mean([]float64{1, 2, 3, 4}, nil)"),
        "goget": ("", "%go get " + MODULE),
    },
    "gonb": {
        "trivial": ("", "%%\nfmt.Println(1 + 1)"),
        "gonum": ('!*go get gonum.org/v1/gonum@v0.16.0\nimport "gonum.org/v1/gonum/stat"',
                  "%%\nfmt.Println(stat.Mean([]float64{1, 2, 3, 4}, nil))"),
        "goget": ("", "!*go get " + MODULE),
    },
}


def run(kc, code):
    """Executes code; returns seconds to idle, and any error or stderr text."""
    start = time.monotonic()
    msg_id = kc.execute(code)
    err = ""
    while True:
        m = kc.get_iopub_msg(timeout=600)
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        t = m["msg_type"]
        if t == "error":
            err += m["content"]["ename"] + ": " + m["content"]["evalue"]
        if t == "status" and m["content"]["execution_state"] == "idle":
            return time.monotonic() - start, err


def measure(name, flavour, case, n, env):
    setup, cell = CELLS[flavour][case]
    km, kc = start_new_kernel(kernel_name=name, env=env, startup_timeout=120)
    try:
        if setup:
            _, err = run(kc, setup)
            if err:
                sys.exit(f"{case}: setup: {err}")
        times = []
        for _ in range(n):
            t, err = run(kc, cell)
            if err:
                sys.exit(f"{case}: {err}")
            times.append(t)
        return times
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main():
    name, flavour = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    env = dict(os.environ)
    for case in ("trivial", "gonum"):
        ts = measure(name, flavour, case, n, env)
        print(f"{flavour} {case} {1000 * sum(ts) / len(ts):.0f} {1000 * min(ts):.0f} {len(ts)}", flush=True)
    firsts = []
    for _ in range(max(1, n // 2)):
        cache = tempfile.mkdtemp(prefix="klat-modcache-")
        try:
            ts = measure(name, flavour, "goget", 1, dict(env, GOMODCACHE=cache))
            firsts += ts
        finally:
            os.system(f"GOMODCACHE={cache} go clean -modcache >/dev/null 2>&1")
            shutil.rmtree(cache, ignore_errors=True)
    print(f"{flavour} goget_first {1000 * sum(firsts) / len(firsts):.0f} {1000 * min(firsts):.0f} {len(firsts)}", flush=True)
    ts = measure(name, flavour, "goget", n, env)
    print(f"{flavour} goget_cached {1000 * sum(ts) / len(ts):.0f} {1000 * min(ts):.0f} {len(ts)}", flush=True)


if __name__ == "__main__":
    main()
