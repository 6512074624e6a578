"""Unit tests of report.py: inputs of every kind, and missing pieces."""
import json
import os
import tempfile
import unittest

from scopedsm_tools import report

SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sample-bench.json")


class ReportTest(unittest.TestCase):
    def run_report(self, *inputs):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for i, content in enumerate(inputs):
                p = os.path.join(d, f"in{i}.json")
                with open(p, "w") as f:
                    f.write(content if isinstance(content, str) else json.dumps(content))
                paths.append(p)
            out = os.path.join(d, "out")
            rc = report.main(paths + ["-o", out], {})
            text = open(os.path.join(out, "report.md")).read() if rc == 0 else ""
            return rc, text

    def test_sample(self):
        with open(SAMPLE) as f:
            rc, text = self.run_report(f.read())
        self.assertEqual(rc, 0)
        for heading in ("Speedup", "Overhead breakdown", "Messages and bytes", "Micro-benchmarks", "Failed runs"):
            self.assertIn(heading, text)

    def test_runs_without_summary_or_stats(self):
        doc = {"runs": [{"app": "a", "variant": "seq", "procs": 1, "config": "default", "ok": True, "time_s": 2.0},
                        {"app": "a", "variant": "dsm", "procs": 2, "config": "default", "ok": True, "time_s": 1.0}]}
        rc, text = self.run_report(doc)
        self.assertEqual(rc, 0)
        self.assertIn("| a | dsm | default | 2 |", text)
        self.assertNotIn("Overhead breakdown", text)

    def test_micro_lines_and_stats_file(self):
        micro = '{"bench":"barrier_np2","procs":2,"median":30,"baseline":{"what":"MPI_Barrier","median":10}}\n'
        stats = {"scopedsm_stats": 1, "processes": 1, "ranks": [{"time_s": {"busy": 1}, "messages_sent": 3}]}
        rc, text = self.run_report(micro, stats)
        self.assertEqual(rc, 0)
        self.assertIn("barrier_np2", text)
        self.assertIn("Overhead breakdown", text)

    def test_unusable_input(self):
        self.assertEqual(self.run_report("not json at all")[0], 2)
        self.assertEqual(self.run_report({"something": "else"})[0], 2)


if __name__ == "__main__":
    unittest.main()
