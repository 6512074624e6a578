"""Unit tests of the loop-scheduling study: the sched-* configurations, the
kernel apps of apps/loops as bench apps, and the report's ranking section
(loopsched.py)."""
import os
import stat
import tempfile
import unittest

import bench_files
from scopedsm_tools import apps, bench, loopsched, results


def stats(grabs, steals, syncs, messages):
    # Two processes, the counts split unevenly as a statistics file has them.
    def split(v):
        return (v // 3, v - v // 3)
    g, s, y, m = split(grabs), split(steals), split(syncs), split(messages)
    return {"ranks": [{"rank": r, "time_s": {}, "counters": {"loop_grabs": g[r], "loop_steals": s[r],
                                                             "loop_syncs": y[r], "loop_messages": m[r]}}
                      for r in (0, 1)]}


def bench_doc(entries, load=None):
    """A bench document: entries of (app, config, procs, [times], stats of the median run)."""
    runs = []
    for app, config, procs, times, st in entries:
        for t in times:
            runs.append({"app": app, "variant": "dsm", "config": config, "procs": procs, "ok": True,
                         "verified": True, "time_s": t, "wall_s": t, "load": load,
                         "stats": st if t == sorted(times)[len(times) // 2] else None})
    return {"mode": "bench", "settings": {"load": load}, "runs": runs, "summary": bench.summarize(runs, {})}


class ConfigsTest(unittest.TestCase):
    def test_one_configuration_per_scheme_with_the_dissertations_parameters(self):
        names = [n for n in bench.CONFIGS if n.startswith("sched-")]
        self.assertEqual(names, ["sched-static", "sched-ss", "sched-bss", "sched-gss", "sched-fs", "sched-tss",
                                 "sched-sss", "sched-afs", "sched-aafs", "sched-abs"])
        for name in names:
            self.assertEqual(list(bench.CONFIGS[name]), ["SCOPEDSM_SCHEDULE"])
        self.assertEqual(bench.CONFIGS["sched-sss"]["SCOPEDSM_SCHEDULE"], "sss,0.90625")
        self.assertEqual(bench.CONFIGS["sched-abs"]["SCOPEDSM_SCHEDULE"], "abs")
        self.assertEqual(list(bench.parse_configs("default,sched")), ["default"] + names)
        self.assertEqual(bench.parse_configs("sched-abs,sched-static"),
                         {"sched-abs": {"SCOPEDSM_SCHEDULE": "abs"}, "sched-static": {"SCOPEDSM_SCHEDULE": "static"}})


class KernelAppsTest(unittest.TestCase):
    def make_build(self, d):
        for name in ("loops", "loops_seq", "sor", "sor_seq"):
            p = os.path.join(d, name)
            with open(p, "wb") as f:
                f.write(b"\x7fELF")
            os.chmod(p, os.stat(p).st_mode | stat.S_IXUSR)

    def test_one_bench_app_per_kernel(self):
        with tempfile.TemporaryDirectory() as d:
            self.make_build(d)
            found = apps.discover(d)
        self.assertEqual(sorted(found), ["loops-ac", "loops-jacobi", "loops-mm", "loops-sor", "loops-tc", "sor"])
        self.assertTrue(found["loops-tc"]["seq"].endswith("loops_seq"))
        self.assertEqual(apps.kernel_args("loops-tc"), ["-k", "tc"])
        self.assertEqual(apps.kernel_args("sor"), [])
        self.assertEqual(apps.kernel_args("loops-nope"), [])
        selected, missing = apps.select(["loops", "sor", "loops-tc", "lu"], found)
        self.assertEqual(selected, ["loops-sor", "loops-jacobi", "loops-tc", "loops-mm", "loops-ac", "sor"])
        self.assertEqual(missing, ["lu"])
        for kernel in apps.KERNELS["loops"][1]:
            self.assertIn("test", apps.SIZES[f"loops-{kernel}"])
            self.assertIn("bench", apps.SIZES[f"loops-{kernel}"])

    def test_plan_puts_the_kernel_before_the_size(self):
        class Opts:
            quick, reps, load_list = False, 1, None
            variant_list, proc_list = ["seq", "dsm"], [2]
            config_map = {"sched-abs": {"SCOPEDSM_SCHEDULE": "abs"}}
            args = ["loops-ac=-n 16"]
        found = {"loops-ac": {"dsm": "/b/loops", "seq": "/b/loops_seq"},
                 "loops-mm": {"dsm": "/b/loops", "seq": "/b/loops_seq"}}
        specs = bench.plan(found, ["loops-ac", "loops-mm"], Opts, {})
        by = {(s["app"], s["variant"]): s for s in specs}
        self.assertEqual(by[("loops-ac", "dsm")]["args"], ["-k", "ac", "-n", "16"])
        self.assertEqual(by[("loops-mm", "seq")]["args"], ["-k", "mm"] + apps.SIZES["loops-mm"]["bench"])
        self.assertEqual(by[("loops-mm", "dsm")]["env"], {"SCOPEDSM_SCHEDULE": "abs"})


class RankingTest(unittest.TestCase):
    def sample(self, load=None):
        return bench_doc([
            ("loops-ac", "sched-static", 2, [3.0, 3.2, 2.9], stats(2, 0, 0, 0)),
            ("loops-ac", "sched-abs", 2, [1.0, 1.1, 1.2], stats(30, 6, 30, 40)),
            ("loops-ac", "sched-ss", 2, [9.0], stats(1000, 0, 1002, 3000)),
            ("loops-ac", "default", 2, [0.5], stats(1, 0, 0, 0)),         # not a scheme: left out
            ("loops-tc", "sched-static", 2, [1.0], stats(2, 0, 0, 0)),    # one scheme only: no ranking
        ], load)

    def test_rankings_order_and_counters(self):
        doc = self.sample()
        ranked = loopsched.rankings(doc["summary"], doc["runs"])
        self.assertEqual(len(ranked), 1)
        (app, procs, setup, _), rows = ranked[0]
        self.assertEqual((app, procs, setup), ("loops-ac", 2, "dedicated"))
        self.assertEqual([r["scheme"] for r in rows], ["abs", "static", "ss"])
        self.assertEqual(loopsched.ranking_line(rows), "ABS < Static < SS")
        abs_row = rows[0]
        self.assertEqual(abs_row["time_s"], 1.1)
        self.assertAlmostEqual(rows[1]["ratio"], 3.0 / 1.1)
        self.assertEqual((abs_row["grabs"], abs_row["steals"]), (30, 6))
        self.assertAlmostEqual(abs_row["syncs_per_grab"], 1.0)
        self.assertAlmostEqual(abs_row["msgs_per_grab"], 40 / 30)

    def test_a_failed_scheme_comes_last_without_a_time(self):
        doc = self.sample()
        for e in doc["summary"]:
            if e["config"] == "sched-static":
                e["ok"] = False
        (_, rows), = loopsched.rankings(doc["summary"], doc["runs"])
        self.assertEqual([r["scheme"] for r in rows], ["abs", "ss", "static"])
        self.assertIsNone(rows[-1]["time_s"])
        self.assertEqual(loopsched.ranking_line(rows), "ABS < SS")

    def test_setups(self):
        self.assertEqual(loopsched.setup_of(None), "dedicated")
        self.assertEqual(loopsched.setup_of([0, 0]), "dedicated")
        self.assertEqual(loopsched.setup_of([0, 2, 0, 1]), "loaded 0,2,0,1")
        self.assertEqual(loopsched.scheme_of("sched-abs"), "abs")
        self.assertEqual(results.base_config({"config": "sched-abs@loaded", "base_config": "sched-abs"}), "sched-abs")
        self.assertIsNone(loopsched.scheme_of("sched-nope"))
        self.assertIsNone(loopsched.scheme_of("default"))

    def test_report_ranks_a_dedicated_and_a_loaded_file_apart(self):
        dedicated = self.sample()
        loaded = self.sample([0, 2])
        # A file from before runs recorded their load: the file's setting counts.
        for r in loaded["runs"] + loaded["summary"]:
            r.pop("load", None)
        status, text, drawn = bench_files.report_of([("dedicated.json", dedicated), ("loaded.json", loaded)])
        self.assertEqual(status, 0)
        self.assertEqual("loopsched" in drawn, bench_files.can_plot())
        self.assertEqual("![loop schedules](loopsched.png)" in text, bench_files.can_plot())
        self.assertIn("## Loop scheduling: the schemes ranked", text)
        self.assertIn("| loops-ac | 2 | dedicated (`dedicated`) | ABS < Static < SS |", text)
        self.assertIn("| loops-ac | 2 | loaded 0,2 (`loaded`) | ABS < Static < SS |", text)
        self.assertIn("| 1 | ABS | 1.1 | 1 | 30 | 6 | 1 | 1.33 |", text)
        self.assertNotIn("loops-tc, np=2", text)


if __name__ == "__main__":
    unittest.main()
