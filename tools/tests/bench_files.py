"""Bench result documents written as the files `scopedsm report` reads (for the tools' unit tests)."""
import json
import os
import tempfile

from scopedsm_tools import plots, report


def write_docs(directory, named_docs):
    """Writes each (file name, document) of `named_docs` into `directory` as JSON; returns their paths, in order."""
    paths = []
    for name, doc in named_docs:
        paths.append(os.path.join(directory, name))
        with open(paths[-1], "w") as f:
            json.dump(doc, f)
    return paths


def report_of(named_docs):
    """Runs `scopedsm report` over `named_docs` written as files; returns
    (exit status, the text of report.md, the names of the PNGs it drew)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        status = report.main(write_docs(tmp, named_docs) + ["-o", out], {})
        text = ""
        if status == 0:
            with open(os.path.join(out, "report.md")) as f:
                text = f.read()
        drawn = {n[:-4] for n in os.listdir(out) if n.endswith(".png")} if os.path.isdir(out) else set()
    return status, text, drawn


def can_plot():
    """Whether this machine has matplotlib, so that report draws its plots."""
    return plots._pyplot() is not None
