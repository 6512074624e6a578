"""Parsing what programs print and write: SCOPEDSM_RESULT lines of the
applications, the runtime's statistics JSON (SCOPEDSM_STATS_FILE), and the
JSON objects of the micro-benchmarks. Plus the small statistics of repeats.
"""
import json
import statistics

RESULT_TAG = "SCOPEDSM_RESULT"
# The JIAJIA overhead categories, in the order of the runtime's time_s object.
TIME_CATEGORIES = ["busy", "data", "segv", "syn", "server", "diff"]


def parse_result_lines(text):
    """Every `SCOPEDSM_RESULT {json}` object in `text`, in order. A line whose
    JSON does not parse is skipped. The tag may follow a launcher's prefix."""
    found = []
    for line in text.splitlines():
        at = line.find(RESULT_TAG)
        if at < 0:
            continue
        body = line[at + len(RESULT_TAG):].strip()
        try:
            obj = json.loads(body)
        except ValueError:
            continue
        if isinstance(obj, dict):
            found.append(obj)
    return found


def is_verified(result):
    """True only for an explicit true (a JSON boolean, or 1)."""
    v = result.get("verified") if isinstance(result, dict) else None
    return v is True or v == 1


def load_stats(path):
    """(stats dict, None) from a SCOPEDSM_STATS_FILE, or (None, why not)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        return None, f"no statistics file ({e.strerror})"
    try:
        data = json.loads(text)
    except ValueError as e:
        return None, f"statistics file is not valid JSON ({e})"
    if not isinstance(data, dict) or not isinstance(data.get("ranks"), list):
        return None, "statistics file has no 'ranks' list"
    return data, None


def stats_totals(stats):
    """From a statistics object: per-category seconds averaged over ranks,
    and messages and bytes sent summed over ranks. Missing pieces count 0."""
    ranks = [r for r in (stats or {}).get("ranks", []) if isinstance(r, dict)]
    times = {c: 0.0 for c in TIME_CATEGORIES}
    messages = 0
    sent = 0
    for r in ranks:
        t = r.get("time_s") or {}
        for c in TIME_CATEGORIES:
            v = t.get(c)
            if isinstance(v, (int, float)):
                times[c] += v
        m = r.get("messages_sent")
        b = r.get("bytes_sent")
        messages += m if isinstance(m, (int, float)) else 0
        sent += b if isinstance(b, (int, float)) else 0
    if ranks:
        times = {c: v / len(ranks) for c, v in times.items()}
    return {"ranks": len(ranks), "time_s": times, "messages": messages, "bytes": sent}


def parse_json_objects(text):
    """Every line of `text` that is a whole JSON object (micro-benchmark output)."""
    found = []
    for line in text.splitlines():
        line = line.strip()
        if not (line.startswith("{") and line.endswith("}")):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            found.append(obj)
    return found


def micro_ratio(obj):
    """(name, median, baseline median, ratio, unit) of a micro-benchmark
    object, or None if it has no median. ratio is None without a baseline."""
    if not isinstance(obj, dict):
        return None
    median = obj.get("median")
    if not isinstance(median, (int, float)):
        return None
    base = obj.get("baseline")
    base_median = None
    if isinstance(base, dict) and isinstance(base.get("median"), (int, float)):
        base_median = base["median"]
    elif isinstance(obj.get("baseline_median"), (int, float)):
        base_median = obj["baseline_median"]
    ratio = obj.get("ratio")
    if not isinstance(ratio, (int, float)):
        ratio = median / base_median if base_median else None
    name = obj.get("run") or obj.get("bench") or obj.get("name") or "?"
    return name, median, base_median, ratio, obj.get("unit", "")


def spread(values):
    """{"median", "min", "max", "count"} of the numbers in `values` (None if none)."""
    nums = [v for v in values if isinstance(v, (int, float))]
    if not nums:
        return None
    return {"median": statistics.median(nums), "min": min(nums), "max": max(nums), "count": len(nums)}
