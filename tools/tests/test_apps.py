"""Unit tests of apps.py and bench planning helpers."""
import unittest

from scopedsm_tools import apps, bench


class AppsTest(unittest.TestCase):
    def test_variants(self):
        self.assertEqual(apps.split_variant("sor_mpi"), ("sor", "mpi"))
        self.assertEqual(apps.split_variant("water_seq"), ("water", "seq"))
        self.assertEqual(apps.split_variant("em3d"), ("em3d", "dsm"))
        self.assertEqual(apps.split_variant("_seq"), ("_seq", "dsm"))

    def test_bench_args_from_usage(self):
        usage = ("usage: sor [-n size] [-i iterations]\n"
                 "  -n  interior points per side, even (default 256; benchmark 2048)\n"
                 "  -i  iterations (default 10; benchmark 100)\n"
                 "  -v  verbose\n")
        self.assertEqual(apps.bench_args_from_usage(usage), ["-n", "2048", "-i", "100"])
        cg = ("usage: cg [-c class] [-n rows]\n"
              "  -c  size class T (test, default), S, W, A or B (benchmark)\n"
              "  -n, -k, -i  a custom size instead (verified against a sequential run)\n")
        self.assertEqual(apps.bench_args_from_usage(cg), ["-c", "B"])

    def test_args_from_ctest_json(self):
        data = {"tests": [
            {"name": "app.x.np1", "command": ["/usr/bin/mpiexec", "-n", "1", "--oversubscribe", "/b/apps/x", "-n", "8"]},
            {"name": "app.x.np2", "command": ["/usr/bin/mpiexec", "-n", "2", "/b/apps/x", "-n", "99"]},
            {"name": "app.x.seq", "command": ["/b/apps/x_seq", "-n", "8"]},
            {"name": "other"}]}
        found = apps.args_from_ctest_json(data, ["/b/apps/x", "/b/apps/x_seq"])
        self.assertEqual(found, {"/b/apps/x": ["-n", "8"], "/b/apps/x_seq": ["-n", "8"]})

    def test_with_threads(self):
        self.assertEqual(apps.with_threads(["-n", "8", "-t", "2"], 4), ["-n", "8", "-t", "4"])
        self.assertEqual(apps.with_threads([], 1), ["-t", "1"])


class BenchOptionsTest(unittest.TestCase):
    def test_configs(self):
        c = bench.parse_configs("default,first-touch,SCOPEDSM_CACHE_PAGES=64+SCOPEDSM_LOG=info")
        self.assertEqual(c["default"], {})
        self.assertEqual(c["first-touch"], {"SCOPEDSM_HOME_POLICY": "first-touch"})
        self.assertEqual(c["SCOPEDSM_CACHE_PAGES=64+SCOPEDSM_LOG=info"],
                         {"SCOPEDSM_CACHE_PAGES": "64", "SCOPEDSM_LOG": "info"})
        with self.assertRaises(bench.BenchError):
            bench.parse_configs("fast")

    def test_the_page_size_sweep_sets_only_the_unit(self):
        sweep = bench.parse_configs("default,unit2,unit4,unit8,unit16")
        self.assertEqual(list(sweep), ["default", "unit2", "unit4", "unit8", "unit16"])
        for k in (2, 4, 8, 16):
            self.assertEqual(sweep[f"unit{k}"], {"SCOPEDSM_UNIT_PAGES": str(k)})

    def test_a_configuration_may_carry_app_arguments(self):
        c = bench.parse_configs("ooc-demand,ooc-explicit,ooc-auto,ooc-both")
        self.assertEqual(bench.split_config(c["ooc-demand"]), ({"SCOPEDSM_AUTO_HINTS": "off"}, []))
        self.assertEqual(bench.split_config(c["ooc-both"]), ({"SCOPEDSM_AUTO_HINTS": "on"}, ["-H", "1"]))

        class Opts:
            quick = False
            variant_list = ["seq", "dsm"]
            proc_list = [2]
            reps = 1
            load_list = None
            config_map = c
            args = ["ooc=-k fft -n 1024"]
        found = {"ooc": {"dsm": "/b/apps/ooc", "seq": "/b/apps/ooc_seq"}}
        specs = bench.plan(found, ["ooc"], Opts, {})
        by = {(s["variant"], s["config"]): s for s in specs}
        self.assertEqual(by[("dsm", "ooc-explicit")]["args"], ["-k", "fft", "-n", "1024", "-H", "1"])
        self.assertEqual(by[("dsm", "ooc-explicit")]["env"], {"SCOPEDSM_AUTO_HINTS": "off"})
        self.assertEqual(by[("dsm", "ooc-auto")]["args"], ["-k", "fft", "-n", "1024"])
        self.assertEqual(by[("seq", "default")]["args"], ["-k", "fft", "-n", "1024"])  # the baseline: no hints

    def test_summarize_medians_and_speedup(self):
        runs = [{"app": "a", "variant": "dsm", "config": "default", "procs": 2, "ok": True, "verified": True,
                 "time_s": t, "wall_s": t + 1} for t in (3.0, 1.0, 2.0)]
        runs.append({"app": "a", "variant": "dsm", "config": "default", "procs": 4, "ok": False,
                     "verified": False, "time_s": None, "wall_s": 5.0})
        s = {(e["procs"]): e for e in bench.summarize(runs, {"a": 4.0})}
        self.assertEqual(s[2]["time_s"]["median"], 2.0)
        self.assertEqual(s[2]["speedup"], 2.0)
        self.assertEqual(s[2]["stats_run"], 2)
        self.assertFalse(s[4]["ok"])
        self.assertIsNone(s[4]["speedup"])

    def test_taskmig_efficiency(self):
        runs = [{"app": "taskmig", "variant": "dsm", "config": c, "procs": 4, "ok": True, "verified": True,
                 "time_s": t, "wall_s": t} for c, t in (("taskmig-dedicated", 4.0), ("taskmig-static", 10.0),
                                                        ("taskmig-compute", 8.0), ("taskmig-data", 5.0))]
        # 4 ranks on 2 CPUs with loads 2,1,3,1: CPU 0 holds ranks 0, 2 and 5
        # busy processes (share 2/7 of dedicated), CPU 1 ranks 1, 3 and 2 (2/4).
        power = (2 / 7 + 2 / 4 + 2 / 7 + 2 / 4) / 4
        self.assertAlmostEqual(bench.power_left([2, 1, 3, 1], 4, 2), power)
        e = {x["config"]: x for x in bench.taskmig_efficiency(bench.summarize(runs, {}), [2, 1, 3, 1], 2)}
        self.assertAlmostEqual(e["taskmig-data"]["efficiency"], 4.0 / power / 5.0)
        self.assertAlmostEqual(e["taskmig-compute"]["efficiency"], 4.0 / power / 8.0)
        self.assertAlmostEqual(e["taskmig-data"]["gain_over_static"], 10.0 / 5.0 - 1)
        self.assertEqual(e["taskmig-data"]["t_static_s"], 10.0)

    def test_taskmig_power_of_the_dissertations_loads(self):
        # Loads 2, 1, 3, 1 on processors 2, 4, 6, 8 of 8, one rank per CPU:
        # Power' = 0.6975 Power (the digest's figure, 1/3 rounded to 0.33),
        # hence its factor 1.43.
        power = bench.power_left([0, 2, 0, 1, 0, 3, 0, 1], 8, 8)
        self.assertAlmostEqual(power, (4 + 0.5 + 0.5 + 1 / 3 + 0.25) / 8)
        self.assertAlmostEqual(1 / power, 1.43, places=2)

    def test_taskmig_report_pairs_configurations_across_files(self):
        from scopedsm_tools import taskmig
        # As report leaves them when it merges files: renamed, the bench name kept.
        summary = [{"app": "taskmig", "variant": "dsm", "procs": 4, "ok": True, "config": c,
                    "base_config": c.split("@")[0], "load": l, "time_s": {"median": t}}
                   for c, l, t in (("taskmig-dedicated@a", [0, 0, 0, 0], 4.0), ("taskmig-static@b", [2, 1, 3, 1], 10.0),
                                   ("taskmig-data@b", [2, 1, 3, 1], 5.0))]
        rows = taskmig.rows(summary, 2)
        power = (2 / 7 + 2 / 4 + 2 / 7 + 2 / 4) / 4
        self.assertEqual([r["config"] for r in rows], ["taskmig-static", "taskmig-data"])
        self.assertAlmostEqual(rows[1]["efficiency"], 4.0 / power / 5.0)
        text = "\n".join(taskmig.markdown(rows))
        self.assertIn("| taskmig | 4 | TaskMig | 5 |", text)
        self.assertIn("100.0 %", text)

    def test_dedicated_runs_are_pinned_without_load(self):
        self.assertEqual(bench.run_loads([2, 1, 3, 1], "dsm", "taskmig-dedicated", 4), [0, 0, 0, 0])
        self.assertEqual(bench.run_loads([2, 1, 3, 1], "dsm", "taskmig-static", 4), [2, 1, 3, 1])
        self.assertIsNone(bench.run_loads([2, 1, 3, 1], "seq", "default", 1))

    def test_load_wraps_only_the_dsm_runs(self):
        from scopedsm_tools import runner
        cmd = runner.command_for("dsm", "/b/apps/x", ["-n", "8"], 4, "/usr/bin/mpiexec", "openmpi", {}, [2, 1, 3, 1])
        i = cmd.index("--")
        self.assertEqual(cmd[i - 1], "2,1,3,1")
        self.assertTrue(cmd[i - 2].endswith("load.py"))
        self.assertEqual(cmd[i + 1:], ["/b/apps/x", "-n", "8"])
        self.assertEqual(runner.command_for("seq", "/b/apps/x_seq", ["-n", "8"], 1, None, None, {}, [2]),
                         ["/b/apps/x_seq", "-n", "8"])


if __name__ == "__main__":
    unittest.main()
