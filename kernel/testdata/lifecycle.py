"""Drives weft's Go kernel through its lifecycle with Debian's jupyter_client.

Usage: lifecycle.py MODE KERNEL_NAME MODEL OUT [WORK]   (JUPYTER_PATH must find the kernelspec)

WORK is "campaign" (the default: a campaign of MODEL into OUT, 1000 seeds) or
"check" (an exhaustive check of MODEL). MODE is "hold", "shutdown",
"thread" or "interrupt". All start the kernel, define a variable in a first
cell and start WORK in a second cell, with display.Context() and a live
progress display; once it has made progress they print one JSON line
{"kernel_pid": PID} on stdout. "hold" then waits for ever: the Go test
(kernel/lifecycle_linux_test.go) kills this client, or the kernel, and watches
what remains. "shutdown" reads a line from stdin, sends shutdown_request and
waits for ever. "thread" starts the kernel from a thread that exits once the
kernel is ready, so the kernel gets its parent-death signal while its parent
lives on; after 3 s it prints {"alive": true} if the kernel still runs. "interrupt" sends
interrupt_request (the kernelspec's interrupt_mode is "message"), then prints
a second JSON line with what it saw: the interrupted cell's reply and the
seconds it took, the next cell's reply and value (the first cell's variable
plus one, and whether WORK returned an interrupted summary into the session),
then shuts the kernel down.
"""
import json
import queue
import sys
import threading
import time

from jupyter_client.manager import KernelManager


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def wait_reply(kc, msg_id, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            m = kc.get_shell_msg(timeout=max(0.1, deadline - time.time()))
        except queue.Empty:
            break
        if m["parent_header"].get("msg_id") == msg_id:
            return m["content"]
    return None


def iopub_of(kc, msg_id, timeout):
    """Returns the IOPub messages of msg_id up to its idle status."""
    out = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            m = kc.get_iopub_msg(timeout=max(0.1, deadline - time.time()))
        except queue.Empty:
            break
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        out.append(m)
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            break
    return out


def wait_progress(kc, msg_id, runs, timeout=600):
    """Waits until the work's progress display reports runs done."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            m = kc.get_iopub_msg(timeout=max(0.1, deadline - time.time()))
        except queue.Empty:
            break
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        if m["msg_type"] in ("error", "execute_result"):
            raise SystemExit("the work's cell ended early: %r" % (m["content"],))
        if m["msg_type"] in ("display_data", "update_display_data"):
            text = m["content"]["data"].get("text/plain", "")
            # "campaign: N/T (P%)" or "states: N"
            try:
                done = int(text.split(":")[1].split("/")[0])
            except (IndexError, ValueError):
                continue
            if done >= runs:
                return done
    raise SystemExit("no progress within %ds" % timeout)


LOAD = """
import (
	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)
m, err := model.Load(MODEL)
if err != nil {
	panic(err)
}
"""

WORK = {
    "campaign": (LOAD + """p := display.NewProgress("campaign", 0)
sum, err := mcsdk.Campaign(display.Context(), m, mcsdk.CampaignOptions{Seeds: 1000, Out: OUT,
	Progress: func(pr mcsdk.CampaignProgress) { p.Set(pr.Done) }})
p.Finish()
""", 1, "sum != nil && sum.Interrupted"),
    "check": (LOAD + """p := display.NewProgress("states", 0)
res, err := mcsdk.Check(m, mcsdk.CheckOptions{Context: display.Context(),
	Progress: func(states, runs int) { p.Set(states) }})
p.Finish()
""", 1, "res != nil && res.Interrupted"),
}


def main():
    mode, name, model, out = sys.argv[1:5]
    code, progress, interrupted = WORK[sys.argv[5] if len(sys.argv) > 5 else "campaign"]
    code = code.replace("MODEL", json.dumps(model)).replace("OUT", json.dumps(out))
    km = KernelManager(kernel_name=name)
    release = threading.Event()
    if mode == "thread":
        starter = threading.Thread(target=lambda: (km.start_kernel(), release.wait()))
        starter.start()
        while km.provisioner is None or km.provisioner.process is None:
            time.sleep(0.05)
    else:
        km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)
    first = kc.execute("kept := 41")
    wait_reply(kc, first, 120)
    if mode == "thread":
        release.set()
        starter.join()
    cell = kc.execute(code)
    wait_progress(kc, cell, progress)
    emit({"kernel_pid": km.provisioner.process.pid})
    if mode == "shutdown":
        sys.stdin.readline()
        kc.shutdown()
    if mode in ("hold", "shutdown"):
        while True:
            time.sleep(3600)
    if mode == "thread":
        time.sleep(3)
        emit({"alive": km.is_alive()})
        km.shutdown_kernel(now=True)
        return
    t = time.time()
    km.interrupt_kernel()
    reply = wait_reply(kc, cell, 120)
    took = time.time() - t
    msgs = iopub_of(kc, cell, 10)
    after = kc.execute('import "fmt"\nfmt.Sprintf("%d %v", kept+1, ' + interrupted + ')')
    after_reply = wait_reply(kc, after, 120)
    after_msgs = iopub_of(kc, after, 10)
    value = None
    for m in after_msgs:
        if m["msg_type"] == "execute_result":
            value = m["content"]["data"].get("text/plain")
    emit({"reply": reply, "seconds": took, "errors": [m["content"] for m in msgs if m["msg_type"] == "error"],
          "streams": [m["content"]["text"] for m in msgs if m["msg_type"] == "stream"],
          "after": after_reply, "after_value": value})
    kc.shutdown()
    for _ in range(200):
        if not km.is_alive():
            break
        time.sleep(0.05)
    kc.stop_channels()
    if km.is_alive():
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    main()
