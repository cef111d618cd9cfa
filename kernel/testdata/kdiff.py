"""Differential test of weft's Go kernel against `go run`.

Usage: kdiff.py KERNEL_NAME CASE.go...      (JUPYTER_PATH must find the kernelspec)

Each case is a whole Go program (see testdata/diff/README.md). It runs with
`go run` in a scratch module and in a fresh kernel through jupyter_client;
the standard outputs are compared exactly. Prints one line per case:
  identical NAME
  refused NAME: ENAME: EVALUE        (the kernel reported an error)
  DIFFERENT NAME                     (no error, other output: a wrong answer)
  GOFAIL NAME                        (go run itself failed: a corpus defect)
then `kernel differential: N of M identical (R refused, W different)`.
Exits non-zero unless every case is identical. KDIFF_JOBS cases run at once.
With KDIFF_JSON=path, also writes the results as JSON there.
"""
import concurrent.futures
import json
import os
import queue
import subprocess
import sys
import tempfile
import time

from jupyter_client.manager import start_new_kernel


def parse(path):
    """Returns the case's modules and its cells (see testdata/diff/README.md)."""
    modules, cells, cur = [], [], []
    main, body, in_main = None, [], False
    with open(path) as f:
        lines = f.read().split("\n")
    # main's body is cut into cells only if it holds `// cell` lines.
    split_main = "\t// cell" in lines
    for line in lines:
        s = line.strip()
        if s.startswith("// module:"):
            modules.append(s[len("// module:"):].strip())
            continue
        if s.startswith("package "):
            continue
        if in_main:
            if line == "}":
                in_main = False
            else:
                body.append(line[1:] if line.startswith("\t") else line)
            continue
        if s == "// cell":
            cells.append("\n".join(cur).strip("\n"))
            cur = []
            continue
        if line == "func main() {" and split_main:
            main, in_main = len(cells), True
            cells.append("\n".join(cur).strip("\n"))
            cur = []
            continue
        if line.startswith("func main() {"):
            line = "func kdiffMain() {" + line[len("func main() {"):]
        cur.append(line)
    cells.append("\n".join(cur).strip("\n"))
    if main is None:
        return modules, [c for c in cells if c.strip()] + ["kdiffMain()"]
    # main's body, cut at its `// cell` lines, runs as cells of
    # statements in place of main (state kept from cell to cell).
    stmts, piece = [], []
    for l in body:
        if l.strip() == "// cell":
            stmts.append("\n".join(piece).strip("\n"))
            piece = []
        else:
            piece.append(l)
    stmts.append("\n".join(piece).strip("\n"))
    cells = cells[:main + 1] + stmts + cells[main + 1:]
    return modules, [c for c in cells if c.strip()]


def go_run(path, modules):
    with tempfile.TemporaryDirectory(prefix="kdiff-") as d:
        env = dict(os.environ, GOWORK="off", GOFLAGS="-mod=mod")
        subprocess.run(["go", "mod", "init", "kdiff.local/case"], cwd=d, env=env, check=True,
                       capture_output=True)
        for m in modules:
            r = subprocess.run(["go", "get", m], cwd=d, env=env, capture_output=True, text=True)
            if r.returncode != 0:
                return None, "go get %s: %s" % (m, r.stderr)
        with open(path) as src, open(os.path.join(d, "main.go"), "w") as dst:
            dst.write(src.read())
        r = subprocess.run(["go", "run", "."], cwd=d, env=env, capture_output=True, text=True,
                           timeout=600)
        if r.returncode != 0:
            return None, r.stderr
        return r.stdout, None


def execute(km, kc, code, timeout):
    """Runs code; returns (stdout text, error or None)."""
    msg_id = kc.execute(code)
    deadline = time.time() + timeout
    reply = None
    while time.time() < deadline:
        if not km.is_alive():
            return "", "KernelDied: the kernel process exited"
        try:
            m = kc.get_shell_msg(timeout=1)
        except queue.Empty:
            continue
        if m["parent_header"].get("msg_id") == msg_id:
            reply = m["content"]
            break
    if reply is None:
        return "", "Timeout: no reply in %ds" % timeout
    out = []
    while True:
        try:
            m = kc.get_iopub_msg(timeout=30)
        except queue.Empty:
            break
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        if m["msg_type"] == "stream" and m["content"]["name"] == "stdout":
            out.append(m["content"]["text"])
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            break
    if reply["status"] != "ok":
        return "".join(out), "%s: %s" % (reply.get("ename"), reply.get("evalue"))
    return "".join(out), None


def in_kernel(name, modules, cells):
    km, kc = start_new_kernel(kernel_name=name, startup_timeout=120)
    try:
        for m in modules:
            _, err = execute(km, kc, "%go get " + m, 600)
            if err:
                return "", err
        out = []
        for c in cells:
            text, err = execute(km, kc, c, 300)
            out.append(text)
            if err:
                return "".join(out), err
        return "".join(out), None
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def run_case(name, p):
    """Runs one case; returns its result and the line to print."""
    case = os.path.basename(p)[:-3]
    modules, cells = parse(p)
    want, goerr = go_run(p, modules)
    r = {"case": case, "modules": modules}
    if goerr is not None:
        r.update(result="GOFAIL", detail=goerr)
        return r, "GOFAIL %s: %s" % (case, goerr.strip())
    got, err = in_kernel(name, modules, cells)
    r.update(want=want, got=got)
    if err is not None:
        r.update(result="refused", detail=err)
        return r, "refused %s: %s" % (case, err.strip().split("\n")[0][:300])
    if got == want:
        r.update(result="identical")
        return r, "identical %s" % case
    r.update(result="DIFFERENT")
    return r, "DIFFERENT %s\n  go run: %r\n  kernel: %r" % (case, want, got)


def main():
    name, paths = sys.argv[1], sys.argv[2:]
    # KDIFF_JOBS cases run at once (default 2): each case's go builds and
    # links are mostly serial, so two overlap well on two cores.
    jobs = max(1, int(os.environ.get("KDIFF_JOBS", "2")))
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for r, line in pool.map(lambda p: run_case(name, p), paths):
            print(line, flush=True)
            results.append(r)
    n = sum(r["result"] == "identical" for r in results)
    refused = sum(r["result"] == "refused" for r in results)
    wrong = sum(r["result"] == "DIFFERENT" for r in results)
    if os.environ.get("KDIFF_JSON"):
        with open(os.environ["KDIFF_JSON"], "w") as f:
            json.dump(results, f, indent=1)
    print("kernel differential: %d of %d identical (%d refused, %d different)" % (n, len(results), refused, wrong))
    return 0 if n == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
