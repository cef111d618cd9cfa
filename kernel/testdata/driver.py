"""Drives weft's Go kernel with Debian's jupyter_client and reports what it saw.

Usage: driver.py protocol KERNEL_NAME          (JUPYTER_PATH must find the kernelspec)
       driver.py notebook KERNEL_NAME NOTEBOOK

Prints one JSON object of observations on stdout; the Go test
(kernel/jupyter_test.go) asserts on it. Kernel stderr passes through.
"""
import json
import os
import signal
import sys
import time
import queue

import zmq
import nbformat
from jupyter_client.manager import start_new_kernel
from jupyter_client.session import Session


def collect(kc, msg_id, timeout=30):
    """Returns the IOPub messages of request msg_id up to its idle status."""
    out = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            m = kc.get_iopub_msg(timeout=max(0.1, deadline - time.time()))
        except queue.Empty:
            break
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        out.append({"msg_type": m["msg_type"], "content": m["content"]})
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            break
    return out


def shell_reply(kc, msg_id, timeout):
    """The shell reply to msg_id. jupyter_client's start-up handshake
    (wait_for_ready) sends kernel_info_request again each second until one
    is answered, so a kernel slow to start on a loaded machine leaves
    replies to those on the shell channel: they are skipped. Any other
    reply must answer msg_id."""
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") != msg_id and reply["msg_type"] == "kernel_info_reply":
            continue
        assert reply["parent_header"]["msg_id"] == msg_id, reply["msg_type"]
        return reply


def run(kc, code, stdin=None, silent=False, timeout=30):
    """Executes code; returns the reply content and the IOPub messages."""
    msg_id = kc.execute(code, silent=silent, allow_stdin=stdin is not None)
    if stdin is not None:
        req = kc.get_stdin_msg(timeout=timeout)
        kc.input(stdin)
    reply = shell_reply(kc, msg_id, timeout)
    return {"reply": reply["content"], "iopub": collect(kc, msg_id, timeout)}


def shell(kc, method, *args, **kw):
    msg_id = getattr(kc, method)(*args, **kw)
    reply = shell_reply(kc, msg_id, 10)
    collect(kc, msg_id, 5)
    return {"msg_type": reply["msg_type"], "content": reply["content"]}


def bad_signature(km, kc):
    """Sends an execute_request signed with the wrong key over a raw socket."""
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.connect("%s://%s:%d" % (km.transport, km.ip, km.shell_port))
    wrong = Session(key=b"not-the-key", username="intruder")
    wrong.send(sock, "execute_request", {"code": "intruder := 1", "silent": False, "store_history": True,
                                         "user_expressions": {}, "allow_stdin": False})
    time.sleep(0.5)
    got = None
    if sock.poll(500):
        got = sock.recv_multipart()
    sock.close(0)
    return {"answered": got is not None, "after": run(kc, "intruder")}


def interrupt(km, kc, how):
    msg_id = kc.execute("spin := 0\nfor { spin++ }")
    time.sleep(0.7)
    t = time.time()
    if how == "message":
        km.interrupt_kernel()
    else:
        os.kill(km.provisioner.process.pid, signal.SIGINT)
    reply = shell_reply(kc, msg_id, 20)
    took = time.time() - t
    collect(kc, msg_id, 5)
    return {"reply": reply["content"], "seconds": took, "after": run(kc, "spin > 0")}


def protocol(name):
    obs = {}
    km, kc = start_new_kernel(kernel_name=name, startup_timeout=60)
    try:
        obs["kernel_info"] = shell(kc, "kernel_info")
        obs["cells"] = [run(kc, c) for c in [
            "x := 41",
            "x + 1",
            'import "fmt"\nfmt.Println("hi", x)',
            'panic("boom")',
            "undefinedName + 1",
        ]]
        obs["silent"] = run(kc, "x", silent=True)
        obs["count_after_silent"] = run(kc, "x")
        obs["mime"] = {k: run(kc, v) for k, v in {
            "HTML": 'display.HTML("<b>b</b>")',
            "Markdown": 'display.Markdown("# t")',
            "SVG": 'display.SVG("<svg xmlns=\\"http://www.w3.org/2000/svg\\"/>")',
            "PNG": "display.PNG([]byte{0x89, 'P', 'N', 'G'})",
            "JPEG": "display.JPEG([]byte{0xff, 0xd8})",
            "JSON": 'display.JSON(map[string]any{"a": 1})',
            "Latex": 'display.Latex("x^2")',
            "Math": 'display.Math("x^2")',
            "MIME": 'display.MIME(map[string]any{"text/csv": "a,b"}, nil)',
            "Method": 'type Card struct{ N int }\nfunc (c Card) HTML() string { return fmt.Sprintf("<i>%d</i>", c.N) }\nCard{3}',
            "Display": 'display.Display(display.Markdown("shown"))',
        }.items()}
        obs["update"] = run(kc, 'h := display.Show(display.Markdown("a"))\nh.Update(display.Markdown("b"))')
        obs["progress"] = run(kc, 'p := display.NewProgress("runs", 4)\nfor i := 1; i <= 4; i++ { p.Set(i) }')
        run(kc, 'import "strings"')
        obs["complete_pkg"] = shell(kc, "complete", "strings.ToU", 11)
        obs["complete_top"] = shell(kc, "complete", "fm", 2)
        obs["inspect"] = shell(kc, "inspect", "strings.ToUpper", 10)
        obs["is_complete"] = {c: shell(kc, "is_complete", c)["content"] for c in ["x := 1", "func f() {", "x := )", "y := x +"]}
        obs["history"] = shell(kc, "history", hist_access_type="tail", n=3, output=False, raw=True)
        obs["comm_info"] = shell(kc, "comm_info")
        obs["stdin"] = run(kc, "var s string\nfmt.Scanln(&s)\ns", stdin="typed")
        obs["bad_signature"] = bad_signature(km, kc)
        obs["interrupt_message"] = interrupt(km, kc, "message")
        obs["interrupt_signal"] = interrupt(km, kc, "signal")
        obs["generic"] = run(kc, "func Max[T int | float64](a, b T) T { if a > b { return a }; return b }\nMax(2.5, 1.5)")
        obs["goroutine_panic"] = run(kc, 'import "time"\ngo func() { panic("background") }()\ntime.Sleep(300 * time.Millisecond)')
        obs["alive_after_goroutine_panic"] = run(kc, "x * 2")
        kc.shutdown()
        rep = kc.get_control_msg(timeout=10)
        obs["shutdown"] = {"msg_type": rep["msg_type"], "content": rep["content"]}
        proc = km.provisioner.process
        for _ in range(100):
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        obs["exit_code"] = proc.poll()
    finally:
        kc.stop_channels()
        if km.is_alive():
            km.shutdown_kernel(now=True)
    return obs


def notebook(name, path):
    from nbclient import NotebookClient
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, kernel_name=name, timeout=60).execute()
    return {"cells": [{"source": c.source, "outputs": c.get("outputs", []), "execution_count": c.get("execution_count")}
                      for c in nb.cells if c.cell_type == "code"]}


if __name__ == "__main__":
    mode, name = sys.argv[1], sys.argv[2]
    obs = protocol(name) if mode == "protocol" else notebook(name, sys.argv[3])
    json.dump(obs, sys.stdout, indent=1, default=str)
