"""Executes a notebook top to bottom with Debian's nbclient and fails on any
error output. usage: execute.py KERNEL_NAME NOTEBOOK WORKDIR [OUT]"""
import sys

import nbformat
from nbclient import NotebookClient

kernel, path, workdir = sys.argv[1:4]
nb = nbformat.read(path, as_version=4)
client = NotebookClient(nb, kernel_name=kernel, timeout=600, allow_errors=False,
                        resources={"metadata": {"path": workdir}})
client.execute()
errors = []
for i, cell in enumerate(nb.cells):
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            errors.append(f"cell {i}: {out.get('ename')}: {out.get('evalue')}")
        if out.get("output_type") == "stream" and out.get("name") == "stderr" and "panic" in out.get("text", ""):
            errors.append(f"cell {i}: stderr: {out.get('text')}")
if len(sys.argv) > 4:
    nbformat.write(nb, sys.argv[4])
if errors:
    print("\n".join(errors))
    sys.exit(1)
kinds = sorted({k for c in nb.cells for o in c.get("outputs", []) for k in o.get("data", {})})
print("ok", len(nb.cells), "cells; output types:", " ".join(kinds))
