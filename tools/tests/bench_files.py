"""Bench result documents written as the files `scopedsm report` reads (for the tools' unit tests)."""
import json
import os


def write_docs(directory, named_docs):
    """Writes each (file name, document) of `named_docs` into `directory` as JSON; returns their paths, in order."""
    paths = []
    for name, doc in named_docs:
        paths.append(os.path.join(directory, name))
        with open(paths[-1], "w") as f:
            json.dump(doc, f)
    return paths
