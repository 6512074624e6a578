"""Unit tests of ooc.py: the out-of-core study's rows, stall removed and report section."""
import unittest

import bench_files
from scopedsm_tools import bench, ooc


def stats(data_times, backing="memory", sharing="on", fetch="auto", **counters):
    # One entry per process; the named counters all go to the last process.
    n = len(data_times)
    return {"config": {"home_backing": backing, "node_sharing": sharing, "fetch": fetch},
            "ranks": [{"rank": r, "time_s": {"data": t, "total": 1.0},
                       "counters": dict(counters) if r == n - 1 else {}} for r, t in enumerate(data_times)]}


def doc(entries):
    """entries: (config, size, [(time, stats) per repetition])."""
    runs, summary = [], []
    for config, size, reps in entries:
        first = len(runs)
        for time, st in reps:
            runs.append({"app": "ooc", "variant": "dsm", "config": config, "procs": 2, "size": size, "ok": True,
                         "time_s": time, "stats": st})
        summary.append({"app": "ooc", "variant": "dsm", "config": config, "procs": 2, "size": size,
                        "time_s": {"median": sorted(t for t, _ in reps)[len(reps) // 2]}, "stats_run": first})
    return {"runs": runs, "summary": summary, "mode": "bench"}


class OocTest(unittest.TestCase):
    def remote(self):
        return doc([
            ("ooc-demand", "kernel=cg n=64 iters=2 hints=0",
             [(2.0, stats([0.5, 1.0])), (2.2, stats([0.4, 1.2])), (1.8, stats([0.9, 0.8]))]),
            ("ooc-explicit", "kernel=cg n=64 iters=2 hints=1 chunk=8",
             [(1.5, stats([0.5, 0.5], read_faults=11, write_faults=1, remote_fetches=7, hint_prefetch_pages=100, hint_prefetch_filtered=60,
                          hint_prefetch_requests=5, hint_prefetch_late=3, pages_released=40))]),
            ("ooc-auto", "kernel=cg n=64 iters=2 hints=0",
             [(2.5, stats([1.5, 0.2], auto_prefetches=30, auto_prefetch_filtered=2, auto_prefetch_wasted=7,
                          auto_releases=9, pages_released=8))]),
            ("default", "kernel=cg n=64 iters=2 hints=0", [(9.0, stats([9.0, 9.0]))]),  # not a case: no row
        ])

    def test_cases_are_bench_configurations(self):
        for config in ooc.CASES:
            self.assertIn(config, bench.CONFIGS)
        self.assertEqual(bench.CONFIGS["ooc-explicit"]["args"], ["-H", "1"])
        self.assertEqual(bench.CONFIGS["ooc-both"]["SCOPEDSM_AUTO_HINTS"], "on")

    def test_rows_medians_and_stall_removed(self):
        d = self.remote()
        rows = ooc.rows(d["summary"], d["runs"])
        self.assertEqual(len(rows), 1)
        kernel, case, procs, by = rows[0]
        # The size's hints= field is dropped, so explicit and demand share a row.
        self.assertEqual((kernel, case, procs), ("kernel=cg n=64 iters=2", "remote", 2))
        self.assertEqual(list(by), [("ooc-demand", None), ("ooc-explicit", 8), ("ooc-auto", None)])
        # Stall: the slowest process of each run (1.0, 1.2, 0.9), then the median.
        self.assertEqual(by[("ooc-demand", None)]["stall"], 1.0)
        self.assertEqual(by[("ooc-demand", None)]["total"], 2.0)
        self.assertEqual(by[("ooc-demand", None)]["runs"], 3)
        self.assertEqual(by[("ooc-demand", None)]["removed"], 0.0)
        self.assertAlmostEqual(by[("ooc-explicit", 8)]["removed"], 0.5)
        self.assertAlmostEqual(by[("ooc-auto", None)]["removed"], -0.5)  # worse than demand: negative
        # Counters: explicit and automatic hints together.
        self.assertEqual(by[("ooc-explicit", 8)]["issued"], 100)
        self.assertEqual(by[("ooc-explicit", 8)]["filtered"], 60)
        self.assertEqual(by[("ooc-explicit", 8)]["late"], 3)
        self.assertEqual(by[("ooc-auto", None)]["issued"], 32)  # 30 fetched and 2 filtered
        self.assertEqual(by[("ooc-auto", None)]["wasted"], 7)
        self.assertEqual(by[("ooc-auto", None)]["released"], 8)

    def test_home_case_from_the_backing_and_no_demand_run(self):
        d = doc([("ooc-auto", "kernel=fft n=8 iters=1 hints=0",
                  [(1.0, stats([0.3, 0.2], backing="file:/var/tmp/x"))])])
        rows = ooc.rows(d["summary"], d["runs"])
        self.assertEqual(rows[0][1], "home")
        self.assertIsNone(rows[0][3][("ooc-auto", None)]["removed"])  # no demand run to compare with
        self.assertIn("| – |", "\n".join(ooc.markdown(rows)))

    def test_node_sharing_off_is_a_case_of_its_own(self):
        d = doc([("ooc-demand", "kernel=cg n=8 iters=1 hints=0", [(1.0, stats([0.4]))]),
                 ("ooc-demand", "kernel=cg n=8 iters=1 hints=0", [(2.0, stats([0.8], sharing="off"))])])
        d["runs"][1]["source"] = d["summary"][1]["source"] = "off"
        rows = ooc.rows(d["summary"], d["runs"])
        self.assertEqual([(r[1], r[3][("ooc-demand", None)]["stall"]) for r in rows],
                         [("remote", 0.4), ("remote, node sharing off", 0.8)])

    def test_fetches_by_message_are_a_case_of_their_own(self):
        d = doc([("ooc-demand", "kernel=cg n=8 iters=1 hints=0", [(2.0, stats([0.8], sharing="off"))]),
                 ("ooc-demand", "kernel=cg n=8 iters=1 hints=0", [(3.0, stats([1.6], sharing="off", fetch="message"))])])
        d["runs"][1]["source"] = d["summary"][1]["source"] = "msg"
        rows = ooc.rows(d["summary"], d["runs"])
        self.assertEqual([r[1] for r in rows], ["remote, node sharing off", "remote, node sharing off, by message"])

    def test_sync_prefetch_sits_beside_the_async_in_one_row(self):
        d = doc([("ooc-demand", "kernel=cg n=8 iters=1 hints=0", [(2.0, stats([1.0]))]),
                 ("ooc-auto", "kernel=cg n=8 iters=1 hints=0", [(1.0, stats([0.25]))]),
                 ("ooc-explicit", "kernel=cg n=8 iters=1 hints=1 chunk=8", [(1.5, stats([0.5]))]),
                 ("ooc-auto-sync", "kernel=cg n=8 iters=1 hints=0", [(1.5, stats([0.75]))]),
                 ("ooc-explicit-sync", "kernel=cg n=8 iters=1 hints=1 chunk=8", [(1.6, stats([0.6]))])])
        rows = ooc.rows(d["summary"], d["runs"])
        self.assertEqual(len(rows), 1)
        by = rows[0][3]
        self.assertEqual(list(by), [("ooc-demand", None), ("ooc-explicit-sync", 8), ("ooc-explicit", 8),
                                    ("ooc-auto-sync", None), ("ooc-auto", None)])
        self.assertAlmostEqual(by[("ooc-auto-sync", None)]["removed"], 0.25)
        self.assertAlmostEqual(by[("ooc-auto", None)]["removed"], 0.75)
        md = "\n".join(ooc.markdown(rows))
        self.assertIn("| auto, sync | 0.750 |", md)
        self.assertIn("| explicit, sync (8-page hints) | 0.600 |", md)

    def test_explicit_hints_of_two_chunk_sizes_are_two_cases(self):
        d = doc([("ooc-demand", "kernel=mm n=8 iters=1 hints=0", [(2.0, stats([1.0]))]),
                 ("ooc-explicit", "kernel=mm n=8 iters=1 hints=1 chunk=32", [(1.0, stats([0.25]))]),
                 ("ooc-explicit", "kernel=mm n=8 iters=1 hints=1 chunk=8", [(1.5, stats([0.5]))])])
        rows = ooc.rows(d["summary"], d["runs"])
        self.assertEqual(len(rows), 1)
        by = rows[0][3]
        self.assertEqual(list(by), [("ooc-demand", None), ("ooc-explicit", 8), ("ooc-explicit", 32)])
        self.assertAlmostEqual(by[("ooc-explicit", 32)]["removed"], 0.75)
        md = "\n".join(ooc.markdown(rows))
        self.assertIn("| explicit (32-page hints) | 0.250 |", md)

    def test_markdown_and_report_over_two_files(self):
        home = doc([("ooc-demand", "kernel=cg n=64 iters=2 hints=0",
                     [(4.0, stats([2.0, 1.0], backing="file:/var/tmp/x"))]),
                    ("ooc-both", "kernel=cg n=64 iters=2 hints=1",  # before ooc -c: chunk 8
                     [(3.0, stats([0.5, 0.5], backing="file:/var/tmp/x", hint_prefetch_pages=5))])])
        md = "\n".join(ooc.markdown(ooc.rows(self.remote()["summary"], self.remote()["runs"])))
        self.assertIn("| kernel=cg n=64 iters=2 | remote | 2 | explicit (8-page hints) | 0.500 | 1.500 | 12 | 7 | 100 | 60 | 5 | 3 | 0 | "
                      "40 | +50.0% |", md)
        status, text, drawn = bench_files.report_of([("remote.json", self.remote()), ("home.json", home)])
        self.assertEqual(status, 0)
        self.assertIn("## Out of core", text)
        self.assertIn("| kernel=cg n=64 iters=2 | home | 2 | both (8-page hints) | 0.500 | 3.000 | 0 | 0 | 5 |", text)
        self.assertIn("| +75.0% |", text)
        self.assertIn("| kernel=cg n=64 iters=2 | remote | 2 | auto |", text)
        self.assertEqual("ooc" in drawn, bench_files.can_plot())
        self.assertEqual("![out of core](ooc.png)" in text, bench_files.can_plot())


if __name__ == "__main__":
    unittest.main()
