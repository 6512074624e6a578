"""Unit tests of results.py: RESULT lines, statistics and micro-benchmark objects."""
import json
import os
import tempfile
import unittest

from scopedsm_tools import results


class ResultLinesTest(unittest.TestCase):
    def test_finds_result_among_other_output(self):
        text = ("starting\n"
                'SCOPEDSM_RESULT {"app":"sor","variant":"dsm","procs":2,"size":"n=64","time_s":0.5,"verified":true}\n'
                "SCOPEDSM_RESULT {broken\n"
                '[1,0]<stdout>:SCOPEDSM_RESULT {"app":"mm","variant":"seq","verified":false}\n')
        found = results.parse_result_lines(text)
        self.assertEqual([r["app"] for r in found], ["sor", "mm"])
        self.assertTrue(results.is_verified(found[0]))
        self.assertFalse(results.is_verified(found[1]))
        self.assertFalse(results.is_verified({"verified": "yes"}))
        self.assertFalse(results.is_verified(None))

    def test_no_result(self):
        self.assertEqual(results.parse_result_lines("nothing here\n"), [])


class StatsTest(unittest.TestCase):
    def test_totals_average_time_and_sum_traffic(self):
        stats = {"ranks": [
            {"time_s": {"busy": 1.0, "data": 0.5, "syn": 0.2}, "messages_sent": 10, "bytes_sent": 1000},
            {"time_s": {"busy": 3.0, "data": 0.5}, "messages_sent": 30, "bytes_sent": 3000},
            "not a rank"]}
        t = results.stats_totals(stats)
        self.assertEqual(t["ranks"], 2)
        self.assertAlmostEqual(t["time_s"]["busy"], 2.0)
        self.assertAlmostEqual(t["time_s"]["syn"], 0.1)
        self.assertEqual(t["time_s"]["diff"], 0.0)
        self.assertEqual((t["messages"], t["bytes"]), (40, 4000))
        self.assertEqual(results.stats_totals(None)["ranks"], 0)

    def test_load_stats(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.json")
            self.assertIsNone(results.load_stats(path)[0])
            with open(path, "w") as f:
                f.write("{not json")
            self.assertIn("not valid JSON", results.load_stats(path)[1])
            with open(path, "w") as f:
                json.dump({"scopedsm_stats": 1, "ranks": []}, f)
            self.assertEqual(results.load_stats(path)[0]["ranks"], [])


class MicroTest(unittest.TestCase):
    def test_ratio_from_baseline(self):
        objs = results.parse_json_objects('noise\n{"bench":"lock","median":6,"unit":"us",'
                                          '"baseline":{"what":"mpi","median":2}}\n{"x":1}\n')
        self.assertEqual(len(objs), 2)
        self.assertEqual(results.micro_ratio(objs[0]), ("lock", 6, 2, 3.0, "us"))
        self.assertIsNone(results.micro_ratio(objs[1]))

    def test_reported_ratio_wins_and_missing_baseline(self):
        self.assertEqual(results.micro_ratio({"bench": "b", "median": 4, "baseline": {"median": 2}, "ratio": 1.9})[3],
                         1.9)
        self.assertIsNone(results.micro_ratio({"bench": "b", "median": 4, "baseline": None})[3])


class SpreadTest(unittest.TestCase):
    def test_spread(self):
        self.assertEqual(results.spread([3, 1, None, 2]), {"median": 2, "min": 1, "max": 3, "count": 3})
        self.assertIsNone(results.spread([None]))


if __name__ == "__main__":
    unittest.main()
