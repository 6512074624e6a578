"""Unit tests of commparams.py and its bench options: the sweeps'
configurations, --set, --hosts checks, and Table 2 and Table 3 of the report
on small synthetic results."""
import contextlib
import io
import unittest

import bench_files
from scopedsm_tools import bench, commparams, report


def net(name):
    return dict(kv.split("=") for kv in bench.CONFIGS[name]["SCOPEDSM_NET"].split(","))


def stats(busy, net_on, faults=0, fetches=0, locks=0, acq=0, barriers=0, messages=0, node_procs=2):
    """Two processes, each with half the counts and `busy` seconds of compute."""
    ranks = []
    for r in (0, 1):
        ranks.append({"rank": r, "time_s": {"busy": busy}, "messages_sent": messages // 2, "bytes_sent": 1024,
                      "injected_s": {"interrupt": 0.5 if net_on else 0.0},
                      "counters": {"read_faults": faults // 2, "write_faults": 0, "remote_fetches": fetches // 2,
                                   "locks": locks // 2, "msgs_sent_ACQ": acq // 2, "barriers": barriers // 2,
                                   "node_procs": node_procs}})
    return {"config": {"net": "interrupt=2500" if net_on else "off"}, "ranks": ranks}


def doc(entries, settings=None):
    """A bench result from (app, config, procs, median time, statistics or None)."""
    runs, summary = [], []
    for app, config, procs, time, st in entries:
        runs.append({"app": app, "variant": "dsm", "config": config, "procs": procs, "ok": True, "time_s": time,
                     "stats": st})
        summary.append({"app": app, "variant": "dsm", "config": config, "procs": procs, "ok": True,
                        "time_s": {"median": time}, "stats_run": len(runs) - 1})
    return {"mode": "bench", "runs": runs, "summary": summary, "settings": settings or {}}


class ConfigurationsTest(unittest.TestCase):
    def test_achievable_point_in_both_mappings(self):
        # docs/CONFIG.md's example: the achievable point at 200 MHz.
        self.assertEqual(bench.CONFIGS["net-achievable"]["SCOPEDSM_NET"],
                         "overhead=3000,occupancy=5000,bandwidth=100,interrupt=2500")
        # Relative mapping: a cycle is 0.2 ns, 0.5 MB/MHz is 2500 MB/s.
        self.assertEqual(net("net-achievable-rel"),
                         {"overhead": "120", "occupancy": "200", "bandwidth": "2500", "interrupt": "100"})

    def test_one_parameter_varies_the_others_achievable(self):
        self.assertEqual(net("net-interrupt-50000"), dict(net("net-achievable"), interrupt="250000"))
        self.assertEqual(net("net-bandwidth-0.25"), dict(net("net-achievable"), bandwidth="50"))
        self.assertEqual(net("net-occupancy-50-rel"), dict(net("net-achievable-rel"), occupancy="10"))
        self.assertEqual(net("net-overhead-0-rel"), dict(net("net-achievable-rel"), overhead="0"))
        for _, param, _, names in commparams.parameter_sweeps():
            self.assertEqual(len({net(n)[param] for n in names}), len(names), param)

    def test_sweeps_expand_in_configs(self):
        configs = bench.parse_configs("sweep-interrupt-rel")
        self.assertEqual(list(configs), ["default"] + [f"net-interrupt-{v}-rel" for v in
                                                       (0, 500, 1000, 2500, 5000, 10000, 50000)])
        self.assertEqual(list(bench.parse_configs("sweep-node-procs")),
                         ["default", "node-procs-1", "node-procs-2", "node-procs-4", "node-procs-8"])
        self.assertEqual(bench.CONFIGS["node-procs-4"], {"SCOPEDSM_NODE_PROCS": "4"})
        self.assertEqual(list(bench.parse_configs("sweep-unit")), ["default", "unit2", "unit4", "unit8", "unit16"])
        for name, members in bench.SWEEPS.items():
            for m in members:
                self.assertIn(m, bench.CONFIGS, name)

    def test_set_adds_to_every_configuration(self):
        configs = bench.apply_settings(bench.parse_configs("default,net-achievable"), ["SCOPEDSM_FETCH=message"])
        self.assertEqual(configs["default"], {"SCOPEDSM_FETCH": "message"})
        self.assertEqual(configs["net-achievable"]["SCOPEDSM_FETCH"], "message")
        self.assertIn("SCOPEDSM_NET", configs["net-achievable"])
        # A value with '=' and ',' in it (the whole SCOPEDSM_NET).
        configs = bench.apply_settings({"node-procs-2": {"SCOPEDSM_NODE_PROCS": "2"}},
                                       ["SCOPEDSM_NET=overhead=3000,interrupt=2500"])
        self.assertEqual(configs["node-procs-2"]["SCOPEDSM_NET"], "overhead=3000,interrupt=2500")
        with self.assertRaisesRegex(bench.BenchError, "contradicts configuration 'net-achievable'"):
            bench.apply_settings(bench.parse_configs("net-achievable"), ["SCOPEDSM_NET=off"])
        with self.assertRaisesRegex(bench.BenchError, "--set takes SCOPEDSM_VAR=VALUE"):
            bench.apply_settings({}, ["FETCH=rma"])

    def test_hosts_must_all_get_processes(self):
        bench.check_hosts(2, [2, 4, 8])
        with self.assertRaisesRegex(bench.BenchError, "leave a host empty"):
            bench.check_hosts(2, [1])
        with self.assertRaisesRegex(bench.BenchError, "leave a host empty"):
            bench.check_hosts(4, [5])  # 2 per host: the fourth host gets none

    def test_bench_refuses_bad_options_in_one_line(self):
        for argv, what in ((["--configs", "sweep-nothing"], "neither a known configuration"),
                           (["--set", "oops"], "--set takes"), (["--hosts", "2", "--procs", "1"], "host empty")):
            with self.subTest(argv=argv):
                err = io.StringIO()
                with contextlib.redirect_stderr(err):
                    self.assertEqual(bench.main(argv, {}), 2)
                self.assertIn(what, err.getvalue())
                self.assertEqual(len(err.getvalue().strip().splitlines()), 1)


class TablesTest(unittest.TestCase):
    def sample(self):
        return doc([
            ("fft", "default", 2, 1.0, stats(0.002, False, faults=40, fetches=20, locks=4, acq=2, barriers=10,
                                              messages=100)),
            ("fft", "net-achievable", 2, 1.5, stats(0.5, True, faults=40, fetches=20, messages=100)),
            ("fft", "net-interrupt-0", 2, 1.0, None), ("fft", "net-interrupt-2500", 2, 2.0, None),
            ("fft", "net-interrupt-50000", 2, 4.0, None),
            ("fft", "net-bandwidth-2", 2, 1.0, None), ("fft", "net-bandwidth-0.25", 2, 2.0, None),
            ("fft", "unit2", 2, 0.5, None), ("fft", "unit16", 2, 0.25, None),
            ("fft", "net-overhead-0-rel", 2, 1.0, None),  # one point only: no slowdown
            ("sor", "net-interrupt-0", 4, 1.0, None)])  # one point only: no row

    def test_table3_uses_the_ends_of_each_sweep(self):
        d = self.sample()
        rows = commparams.table3(d["summary"])
        self.assertEqual([(a, p, t) for a, p, t, _ in rows], [("fft", 2, "")])
        cols = dict(zip([t for t, _ in commparams.table3_columns()], rows[0][3]))
        self.assertAlmostEqual(cols["interrupt cost (abs)"], 75.0)  # 1 - 1.0/4.0
        self.assertAlmostEqual(cols["I/O bandwidth (abs)"], 50.0)   # 2 MB/MHz first, 0.25 last
        self.assertAlmostEqual(cols["page size"], -300.0)           # default 1.0 first, unit16 0.25 last
        self.assertIsNone(cols["host overhead (rel)"])
        self.assertIsNone(cols["procs/node"])

    def test_table2_rates_use_uninjected_compute_time(self):
        d = self.sample()
        rows = {c: (np_, busy, rates) for _, _, _, c, np_, busy, rates in commparams.table2(d["summary"], d["runs"])}
        self.assertEqual(set(rows), {"default", "net-achievable"})
        node_procs, busy, rates = rows["default"]
        self.assertEqual(node_procs, 2)
        self.assertAlmostEqual(busy, 0.002)
        # 40 faults over 0.004 s of compute; 10^7 cycles at 5000 MHz = 2 ms: 20.
        self.assertAlmostEqual(rates["faults"], 20.0)
        self.assertAlmostEqual(rates["remote_locks"], 1.0)
        self.assertAlmostEqual(rates["barriers"], 5.0)
        # The achievable point's events over default's compute, not its own 0.5 s.
        self.assertAlmostEqual(rows["net-achievable"][2]["faults"], 20.0)

    def test_report_sections_and_file_tags(self):
        # rma and message: tags from --set; the interrupt sweep of each in a
        # file of its own, and the bandwidth sweep in another: one row per tag.
        inputs = []
        for fetch, scale in (("rma", 1.0), ("message", 2.0)):
            d = self.sample()
            for e in d["summary"]:
                if e["config"] == "net-interrupt-50000":
                    e["time_s"]["median"] *= scale
            keep = {"default", "net-achievable", "net-interrupt-0", "net-interrupt-2500", "net-interrupt-50000"}
            interrupt = doc([(r["app"], r["config"], r["procs"], s["time_s"]["median"], r["stats"])
                             for r, s in zip(d["runs"], d["summary"]) if r["config"] in keep],
                            {"set": [f"SCOPEDSM_FETCH={fetch}"], "hosts": 2})
            bandwidth = doc([("fft", "default", 2, 1.0, None), ("fft", "net-bandwidth-2", 2, 1.0, None),
                             ("fft", "net-bandwidth-0.25", 2, 3.0 * scale, None)],
                            {"set": [f"SCOPEDSM_FETCH={fetch}"], "hosts": 2})
            inputs += [(f"interrupt-{fetch}", interrupt), (f"bandwidth-{fetch}", bandwidth)]
        status, text, drawn = bench_files.report_of([(f"{name}.json", d) for name, d in inputs])
        self.assertEqual(status, 0)
        # Table 3 drawn where matplotlib is, and named in the report.
        self.assertEqual("commparams" in drawn, bench_files.can_plot())
        self.assertEqual("![Table 3](commparams.png)" in text, bench_files.can_plot())
        self.assertIn("## Bilas and Singh's Table 3", text)
        self.assertIn("## Bilas and Singh's Table 2", text)
        self.assertIn("### interrupt cost (absolute): compute time relative to the first point", text)
        # One row per tag: rma 1 - 1/4 (interrupt), 1 - 1/3 (bandwidth); message 1 - 1/8, 1 - 1/6.
        t3 = text[text.index("## Bilas and Singh's Table 3"):]
        self.assertRegex(t3, r"\| fft \| 2 \| SCOPEDSM_FETCH=rma hosts=2 \| – \| – \| \+66\.7% \| \+75\.0% \|")
        self.assertRegex(t3, r"\| fft \| 2 \| SCOPEDSM_FETCH=message hosts=2 \| – \| – \| \+83\.3% \| \+87\.5% \|")
        self.assertEqual(len([line for line in t3.split("###")[0].splitlines() if line.startswith("| fft")]), 2)
        self.assertRegex(text, r"\| fft \| 2 \| SCOPEDSM_FETCH=rma hosts=2 \| net-achievable \| 2 \|")


if __name__ == "__main__":
    unittest.main()
