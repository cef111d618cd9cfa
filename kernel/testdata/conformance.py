"""jupyter_kernel_test's conformance suite with Go samples for weft's kernel.

Run by kernel/conformance_test.go as
    python3 -m unittest -v conformance
with JUPYTER_PATH finding the kernelspec named by $WEFT_KERNEL_NAME.
Every test of the suite has a sample, so none is skipped; the Go test fails
if one is. The tests at the end are weft's own: Debian's suite (0.4.5) has no
comm tests and does not check inspect's text, completion of fields or
error positions.
"""
import os
import unittest

import jupyter_kernel_test as jkt
from jupyter_kernel_test.msgspec_v5 import validate_message


class WeftGoKernelTests(jkt.KernelTests):
    kernel_name = os.environ["WEFT_KERNEL_NAME"]
    language_name = "go"
    file_extension = ".go"

    code_hello_world = 'import "fmt"\nfmt.Println("hello, world")'
    # os.Stderr written from a cell and from a goroutine it waits for.
    code_stderr = ('import ("fmt"; "os"; "sync")\n'
                   'fmt.Fprintln(os.Stderr, "to stderr")\n'
                   'var wg sync.WaitGroup\n'
                   'wg.Add(1)\n'
                   'go func() { defer wg.Done(); fmt.Fprintln(os.Stderr, "from a goroutine") }()\n'
                   'wg.Wait()')

    # Completion inside the cell: the import is in the same code.
    completion_samples = [
        {"text": 'import "fmt"\nfmt.Printl', "matches": {"Println"}},
        {"text": 'import "strings"\nstrings.HasPre', "matches": {"HasPrefix"}},
    ]

    complete_code_samples = ["x := 1", 'import "fmt"\nfmt.Println(1)', "func f() int { return 1 }"]
    incomplete_code_samples = ["func f() {", "for i := 0; i < 3; i++ {", "x := []int{1,"]
    invalid_code_samples = ["x := )", "func f() }", "x := 1 2", "if x { } else else { }"]

    code_page_something = "?fmt.Println"

    code_generate_error = 'panic("boom")'

    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": "1 + 2", "result": "3"},
        {"code": 'display.HTML("<b>x</b>")', "mime": "text/html", "result": "<b>x</b>"},
    ]

    code_display_data = [
        {"code": 'Display(display.HTML("<b>x</b>"))', "mime": "text/html"},
        {"code": 'display.Display(display.Markdown("*x*"))', "mime": "text/markdown"},
    ]

    code_history_pattern = "6 \\* 7"
    supported_history_operations = ("tail", "range", "search")

    code_inspect_sample = "fmt.Println"

    code_clear_output = "display.ClearOutput(false)"

    # The suite's execute_helper waits 0.1 s for each iopub message after
    # the execute_reply (1 s for busy): on a machine loaded by other jobs
    # the idle status, sent right after the reply, can take longer to
    # come through the kernel's relay. Within it the waits are at least
    # IOPUB_WAIT; nothing else changes (it ends at the idle status, not at
    # a timeout, and flush_channels keeps its own).
    IOPUB_WAIT = 10

    def execute_helper(self, *args, **kwargs):
        channel = self.kc.iopub_channel
        get = channel.get_msg

        def patient(*a, timeout=None, **kw):
            return get(*a, timeout=max(timeout or 0, self.IOPUB_WAIT), **kw)

        channel.get_msg = patient
        try:
            return super().execute_helper(*args, **kwargs)
        finally:
            channel.get_msg = get

    # weft's own checks of what the suite leaves loose.

    def test_inspect_doc(self):
        # The doc text, not only the signature.
        self.flush_channels()
        msg_id = self.kc.inspect("strings.ToUpper", 9)
        reply = self.get_non_kernel_info_reply(timeout=jkt.TIMEOUT)
        validate_message(reply, "inspect_reply", msg_id)
        text = reply["content"]["data"]["text/plain"]
        self.assertIn("func strings.ToUpper", text)
        self.assertIn("ToUpper returns s with all Unicode letters mapped to their upper case", text)

    def test_completion_in_scope(self):
        # Fields of a value in scope, and the indent of an open block.
        self.execute_helper("type Pt struct{ X, Y int }\norigin := Pt{}")
        msg_id = self.kc.complete("origin.", 7)
        reply = self.get_non_kernel_info_reply(timeout=jkt.TIMEOUT)
        validate_message(reply, "complete_reply", msg_id)
        self.assertEqual(set(reply["content"]["matches"]), {"X", "Y"})
        self.assertEqual(reply["content"]["cursor_start"], 7)
        msg_id = self.kc.is_complete("func f() {\n\tif true {")
        reply = self.get_non_kernel_info_reply(timeout=jkt.TIMEOUT)
        self.assertEqual(reply["content"], {"status": "incomplete", "indent": "\t\t"})

    def test_error_position(self):
        # Positions are the cell's line:col, also on its first line.
        self.flush_channels()
        reply, output_msgs = self.execute_helper("x := 1/0")
        self.assertEqual(reply["content"]["status"], "error")
        self.assertTrue(reply["content"]["evalue"].startswith("1:6: "), reply["content"]["evalue"])
        reply, output_msgs = self.execute_helper('import "fmt"\n\nfmt.Println(undefinedName)')
        self.assertIn("3:13", reply["content"]["evalue"])

    def test_comm_info(self):
        self.flush_channels()
        msg = self.kc.session.msg("comm_info_request", {})
        self.kc.shell_channel.send(msg)
        reply = self.get_non_kernel_info_reply(timeout=jkt.TIMEOUT)
        self.assertEqual(reply["msg_type"], "comm_info_reply")
        self.assertEqual(reply["parent_header"]["msg_id"], msg["header"]["msg_id"])
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertEqual(reply["content"]["comms"], {})

    def test_comm_open(self):
        # No comm target exists: the kernel closes the comm, as ipykernel
        # does for an unknown target, and stays responsive.
        self.flush_channels()
        msg = self.kc.session.msg("comm_open", {"comm_id": "c1", "target_name": "nothing", "data": {}})
        self.kc.shell_channel.send(msg)
        closed = False
        for _ in range(20):
            m = self.kc.get_iopub_msg(timeout=jkt.TIMEOUT)
            if m["msg_type"] == "comm_close":  # the 0.4.5 schema lacks comm_close
                self.assertEqual(m["content"]["comm_id"], "c1")
                closed = True
                continue
            validate_message(m, m["msg_type"], msg["header"]["msg_id"])
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
        self.assertTrue(closed, "comm_close not received")
        reply, _ = self.execute_helper("6 * 7")
        self.assertEqual(reply["content"]["status"], "ok")


if __name__ == "__main__":
    unittest.main()
