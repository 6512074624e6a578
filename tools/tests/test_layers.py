"""tools/check_layers.py: the real tree has no layer violation, and a tree
with one is caught (the check can fail)."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import check_layers  # noqa: E402

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


def make_tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


class Layers(unittest.TestCase):
    def test_the_source_tree_keeps_its_layers(self):
        self.assertEqual(check_layers.violations(SRC), [])

    def test_an_upward_include_is_caught(self):
        with tempfile.TemporaryDirectory() as root:
            make_tree(root, {"protocol/a.h": '#include "runtime/state.h"\n', "runtime/state.h": "\n"})
            bad = check_layers.violations(root)
            self.assertEqual(len(bad), 1)
            self.assertIn("protocol/a.h:1: includes runtime/", bad[0])

    def test_a_same_layer_sibling_include_is_caught(self):
        with tempfile.TemporaryDirectory() as root:
            make_tree(root, {"memory/a.cc": '#include "transport/wire.h"\n', "transport/wire.h": "\n"})
            self.assertEqual(len(check_layers.violations(root)), 1)

    def test_downward_and_own_includes_pass(self):
        with tempfile.TemporaryDirectory() as root:
            make_tree(root, {"sync/a.cc": '#include "protocol/b.h"\n#include "sync/c.h"\n#include "common/d.h"\n'})
            self.assertEqual(check_layers.violations(root), [])

    def test_an_unknown_folder_is_reported(self):
        with tempfile.TemporaryDirectory() as root:
            make_tree(root, {"misc/a.cc": "\n"})
            self.assertEqual(len(check_layers.violations(root)), 1)


if __name__ == "__main__":
    unittest.main()
