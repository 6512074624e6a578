"""Unit tests of report.py: inputs of every kind, and missing pieces."""
import json
import os
import tempfile
import unittest

from scopedsm_tools import plots, report, results

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

    STATS = {"scopedsm_stats": 2, "program": "sor", "argv": ["./sor", "-n", "64"], "started": "2025-01-02T03:04:05Z",
             "processes": 2, "ranks": [
                 {"rank": 0, "host": "alpha", "time_s": {"total": 2.0, "busy": 1.5, "data": 0.25, "syn": 0.25},
                  "counters": {"read_faults": 3, "write_faults": 1, "remote_fetches": 2}, "messages_sent": 5},
                 {"rank": 1, "host": "beta", "time_s": {"total": 2.0, "busy": 1.0, "syn": 1.0, "server": 0.5},
                  "counters": {}, "messages_sent": 7, "bytes_sent": 2048}]}

    def test_one_stats_file_alone(self):
        rc, text = self.run_report(self.STATS)
        self.assertEqual(rc, 0)
        # Nothing to compare speedups or times with: no such tables, and no
        # rows of dashes standing in for them.
        self.assertNotIn("Speedup", text)
        self.assertNotIn("Compute time", text)
        self.assertNotRegex(text, r"\| – \| – \|")
        # The program's name, not the file's.
        self.assertIn("| sor | stats file | 2 |", text)
        self.assertIn("## Where each process spent its time: sor (`in0.json`)", text)
        self.assertIn("| 0 | alpha | 2 | 1.5 | 0.25 | 0 | 0.25 | 0 | 0 | 0 | 4 | 2 | 5 | 0 |", text)
        self.assertIn("| 1 | beta | 2 | 1 | 0 | 0 | 1 | 0 | 0.5 | 0 | 0 | 0 | 7 | 2 |", text)

    def test_stats_file_without_program_keeps_the_file_name(self):
        stats = dict(self.STATS)
        del stats["program"]
        rc, text = self.run_report(stats)
        self.assertEqual(rc, 0)
        self.assertIn("| in0.json | stats file | 2 |", text)

    def test_per_rank_plot(self):
        if plots._pyplot() is None:
            self.skipTest("no matplotlib")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.json")
            with open(path, "w") as f:
                json.dump(self.STATS, f)
            self.assertEqual(report.main([path, "-o", os.path.join(d, "out")], {}), 0)
            self.assertTrue(os.path.getsize(os.path.join(d, "out", "ranks-run.png")) > 0)
            self.assertIn("![ranks-run](ranks-run.png)", open(os.path.join(d, "out", "report.md")).read())

    def test_per_rank_plots_of_files_with_one_name_do_not_overwrite_each_other(self):
        if plots._pyplot() is None:
            self.skipTest("no matplotlib")
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for sub in ("before", "after"):
                os.mkdir(os.path.join(d, sub))
                paths.append(os.path.join(d, sub, "run.json"))
                with open(paths[-1], "w") as f:
                    json.dump(self.STATS, f)
            self.assertEqual(report.main(paths + ["-o", os.path.join(d, "out")], {}), 0)
            md = open(os.path.join(d, "out", "report.md")).read()
            self.assertIn("![ranks-run](ranks-run.png)", md)
            self.assertIn("![ranks-run-2](ranks-run-2.png)", md)
            self.assertTrue(os.path.getsize(os.path.join(d, "out", "ranks-run-2.png")) > 0)

    TRACE = {"traceEvents": [
        {"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "rank 0 (alpha)"}},
        {"name": "read fault", "cat": "fault", "ph": "X", "ts": 1.0, "dur": 500.0, "pid": 0, "tid": 0},
        {"name": "fetch", "cat": "fetch", "ph": "X", "ts": 2.0, "dur": 400.0, "pid": 0, "tid": 0},
        {"name": "read fault", "cat": "fault", "ph": "X", "ts": 900.0, "dur": 1500.0, "pid": 0, "tid": 0},
        {"name": "GETP", "cat": "serve", "ph": "X", "ts": 3.0, "dur": 10.0, "pid": 1, "tid": 1}],
        "otherData": {"program": "sor", "dropped_events": 0}}

    def test_trace_summary(self):
        rc, text = self.run_report(self.TRACE)
        self.assertEqual(rc, 0)
        self.assertIn("## Trace: sor (`in0.json`)", text)
        self.assertIn("| rank | fault (n / ms) | fetch (n / ms) | diff (n / ms) | lock (n / ms) | barrier (n / ms) "
                      "| atomic (n / ms) | serve (n / ms) |", text)
        self.assertIn("| 0 | 2 / 2 | 1 / 0.4 | – | – | – | – | – |", text)
        self.assertIn("| 1 | – | – | – | – | – | – | 1 / 0.01 |", text)
        self.assertNotIn("No speedups", text)

    def test_trace_as_bare_event_list(self):
        self.assertTrue(results.is_trace(self.TRACE["traceEvents"]))
        summary = results.trace_summary(self.TRACE["traceEvents"])
        self.assertEqual([r["rank"] for r in summary], [0, 1])
        self.assertEqual(summary[0]["name"], "rank 0 (alpha)")

    @staticmethod
    def round_trip_trace(origins=None, host1="alpha"):
        """Rank 0 locks from 10 to 20 us and fetches inside a write fault
        from 30 to 40; rank 1 (whose jia_init ended 2 us after rank 0's)
        serves its ACQ from 14 to 16 and its GETP from 33 to 35 on rank 0's
        timeline, and a one-way REL inside the lock."""
        events = [
            {"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "rank 0 (alpha)"}},
            {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": f"rank 1 ({host1})"}},
            {"name": "lock", "cat": "lock", "ph": "X", "ts": 10.0, "dur": 10.0, "pid": 0, "tid": 0},
            {"name": "write fault", "cat": "fault", "ph": "X", "ts": 29.0, "dur": 12.0, "pid": 0, "tid": 0},
            {"name": "fetch", "cat": "fetch", "ph": "X", "ts": 30.0, "dur": 10.0, "pid": 0, "tid": 0},
            {"name": "ACQ", "cat": "serve", "ph": "X", "ts": 12.0, "dur": 2.0, "pid": 1, "tid": 1,
             "args": {"from": 0}},
            {"name": "REL", "cat": "serve", "ph": "X", "ts": 13.0, "dur": 1.0, "pid": 1, "tid": 1,
             "args": {"from": 0}},
            {"name": "GETP", "cat": "serve", "ph": "X", "ts": 31.0, "dur": 2.0, "pid": 1, "tid": 0,
             "args": {"from": 0}}]
        other = {"program": "lock", "dropped_events": 0}
        if origins is not None:
            other["clock_origin_ns"] = origins
        return {"traceEvents": events, "otherData": other}

    def test_round_trips_split_at_the_serve(self):
        rows = results.trace_round_trips(self.round_trip_trace({"0": 1000000, "1": 1002000}))
        by = {(r["request"], r["event"]): r for r in rows}
        # One-way requests (REL) are no round trip; the GETP's requester is
        # the innermost event around it, the fetch, not the fault.
        self.assertEqual(set(by), {("ACQ", "lock"), ("GETP", "fetch")})
        acq = by[("ACQ", "lock")]
        self.assertEqual((acq["count"], acq["event_us"], acq["request_us"], acq["serve_us"], acq["reply_us"]),
                         (1, 10.0, 4.0, 2.0, 4.0))
        self.assertTrue(acq["aligned"])
        getp = by[("GETP", "fetch")]
        self.assertEqual((getp["request_us"], getp["serve_us"], getp["reply_us"]), (3.0, 2.0, 5.0))

    def test_round_trips_without_clock_origins_keep_the_sum(self):
        acq = [r for r in results.trace_round_trips(self.round_trip_trace()) if r["request"] == "ACQ"][0]
        self.assertFalse(acq["aligned"])
        self.assertEqual((acq["request_us"], acq["serve_us"], acq["reply_us"]), (2.0, 2.0, 6.0))
        rc, text = self.run_report(self.round_trip_trace())
        self.assertEqual(rc, 0)
        self.assertIn("### Round trips", text)
        self.assertIn("| ACQ | lock | 1 | 10 | 2 | 2 | 6 |", text)
        self.assertIn("no clock origins", text)

    def test_round_trips_between_hosts_are_left_out(self):
        self.assertEqual(results.trace_round_trips(self.round_trip_trace({"0": 0, "1": 0}, host1="beta")), [])
        rc, text = self.run_report(self.round_trip_trace({"0": 0, "1": 0}, host1="beta"))
        self.assertEqual(rc, 0)
        self.assertNotIn("### Round trips", text)

    def test_speedup_series_are_told_apart(self):
        self.assertEqual(len(set(plots.series_styles(70))), 70)
        plt = plots._pyplot()
        if plt is None:
            self.skipTest("no matplotlib")
        figures = []

        class KeepFigure:  # pyplot, but keeps the figure the plot closes
            def __getattr__(self, name):
                return getattr(plt, name)

            def close(self, fig):
                figures.append(fig)
                plt.close(fig)

        # Twelve series, more than matplotlib's cycle of ten colours.
        apps = ["cg", "em3d", "ep", "is", "lu", "mm"]
        rows = [(a, v, "default", [1.0, 1.8], [1.0, 0.6], "x") for a in apps for v in ("dsm", "mpi")]
        with tempfile.TemporaryDirectory() as d:
            self.assertTrue(plots.speedup(KeepFigure(), ([1, 2], rows), os.path.join(d, "speedup.png")))
        lines = [ln for ln in figures[0].axes[0].get_lines() if ln.get_label() != "ideal"]
        self.assertEqual(len(lines), 12)
        self.assertEqual(len({(ln.get_color(), ln.get_marker()) for ln in lines}), 12)

    def test_unusable_input(self):
        self.assertEqual(self.run_report("not json at all")[0], 2)
        self.assertEqual(self.run_report({"something": "else"})[0], 2)


if __name__ == "__main__":
    unittest.main()
