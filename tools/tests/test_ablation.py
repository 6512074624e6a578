"""Unit tests of ablation.py: the Tab 4.5 rows, changes and report section."""
import tempfile
import unittest

import bench_files
from scopedsm_tools import ablation, bench, report


def stats(messages, kib, faults, fetches):
    # Two processes sharing the counts unevenly, as the statistics file has them.
    half = [(messages // 2, messages - messages // 2), (kib * 1024 // 2, kib * 1024 - kib * 1024 // 2)]
    return {"ranks": [{"rank": r, "messages_sent": half[0][r], "bytes_sent": half[1][r],
                       "counters": {"read_faults": faults if r == 0 else 0, "write_faults": 0,
                                    "remote_fetches": fetches if r == 1 else 0},
                       "time_s": {}} for r in (0, 1)]}


def doc(entries):
    runs, summary = [], []
    for app, config, procs, time, st in entries:
        runs.append({"app": app, "variant": "dsm", "config": config, "procs": procs, "ok": True, "time_s": time,
                     "stats": st})
        summary.append({"app": app, "variant": "dsm", "config": config, "procs": procs,
                        "time_s": {"median": time}, "stats_run": len(runs) - 1})
    return {"runs": runs, "summary": summary}


class AblationTest(unittest.TestCase):
    def sample(self):
        return doc([("sor", "jia-base", 2, 4.0, stats(1000, 400, 200, 50)),
                    ("sor", "jia-w", 2, 2.0, stats(1000, 200, 100, 50)),
                    ("sor", "jia-w-b", 2, 2.0, stats(900, 200, 100, 50)),
                    ("sor", "default", 2, 2.0, stats(900, 200, 100, 50)),
                    ("lu", "jia-base", 4, 1.0, stats(10, 1, 1, 1))])  # one step only: no row

    def test_steps_are_bench_configurations_in_order(self):
        for name, _ in ablation.STEPS:
            self.assertIn(name, bench.CONFIGS)
        self.assertEqual(bench.CONFIGS["jia-base"]["SCOPEDSM_BARRIER"], "central")
        # The "+b" steps: the dissemination barrier (JIAJIA's BROADCAST),
        # whatever the default form is.
        self.assertEqual(bench.CONFIGS["jia-w-b"], {"SCOPEDSM_BARRIER": "dissemination"})
        # JIA_w+c and JIA_w+c+b: JIA_w and JIA_w+b with cache-only write detection.
        self.assertEqual(bench.CONFIGS["jia-w-c"], dict(bench.CONFIGS["jia-w"], SCOPEDSM_WRITE_DETECT="cache-only"))
        self.assertEqual(bench.CONFIGS["jia-w-c-b"], dict(bench.CONFIGS["jia-w-b"], SCOPEDSM_WRITE_DETECT="cache-only"))
        self.assertEqual([s for s, _ in ablation.STEPS][:4], ["jia-base", "jia-w", "jia-w-c", "jia-w-c-b"])

    def test_rows_and_changes(self):
        d = self.sample()
        rows = ablation.rows(d["summary"], d["runs"])
        self.assertEqual([(a, p) for a, p, _ in rows], [("sor", 2)])
        by_step = rows[0][2]
        self.assertEqual(set(by_step), {"jia-base", "jia-w", "jia-w-b"})
        self.assertEqual(by_step["jia-base"], {"messages": 1000, "kib": 400.0, "faults": 200, "fetches": 50,
                                               "time_s": 4.0})
        ch = ablation.step_changes(by_step)
        self.assertNotIn("jia-base", ch)
        self.assertEqual(ch["jia-w"]["kib"], -50.0)
        self.assertEqual(ch["jia-w"]["time_s"], -50.0)
        self.assertEqual(ch["jia-w"]["messages"], 0.0)
        self.assertEqual(ch["jia-w-b"]["messages"], -10.0)
        self.assertIsNone(ablation.change(0, 5))

    def test_markdown_and_report(self):
        d = self.sample()
        md = "\n".join(ablation.markdown(ablation.rows(d["summary"], d["runs"])))
        self.assertIn("| sor | 2 | 400 | 200 (-50.0%) | 200 (+0.0%) |", md)
        self.assertNotIn("HMIG |", md)  # no hmig runs: no column
        status, text, drawn = bench_files.report_of([("b.json", d)])
        self.assertEqual(status, 0)
        self.assertIn("The dissertation's ablation", text)
        self.assertIn("(-50.0%)", text)
        self.assertEqual("ablation" in drawn, bench_files.can_plot())

    def test_steps_pair_across_merged_files(self):
        # Two bench files read together: report renames their configurations
        # "<config>@<file>", and the steps must still pair up.
        a = dict(doc([("sor", "jia-base", 2, 4.0, stats(1000, 400, 200, 50)),
                      ("sor", "jia-w", 2, 2.0, stats(1000, 200, 100, 50))]), mode="bench")
        b = dict(doc([("sor", "jia-w-c", 2, 1.0, stats(500, 100, 50, 25))]), mode="bench")
        with tempfile.TemporaryDirectory() as tmp:
            paths = bench_files.write_docs(tmp, [("a.json", a), ("b.json", b)])
            merged = report.load_inputs(paths)
            self.assertIn("jia-w@a", {e["config"] for e in merged["summary"]})
            rows = ablation.rows(merged["summary"], merged["runs"])
            self.assertEqual(len(rows), 1)
            self.assertEqual(set(rows[0][2]), {"jia-base", "jia-w", "jia-w-c"})


if __name__ == "__main__":
    unittest.main()
