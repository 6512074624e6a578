"""Parsing what programs print and write: SCOPEDSM_RESULT lines of the
applications, the runtime's statistics JSON (SCOPEDSM_STATS_FILE), its
trace (SCOPEDSM_TRACE), and the JSON objects of the micro-benchmarks. Plus
the small statistics of repeats.
"""
import bisect
import json
import statistics

RESULT_TAG = "SCOPEDSM_RESULT"
# The JIAJIA overhead categories, in the order of the runtime's time_s object.
TIME_CATEGORIES = ["busy", "data", "segv", "syn", "atomic", "server", "diff"]
# Those of the application thread, which add up to its elapsed time; server
# (the service thread) and diff (made inside data and syn, applied while
# serving) run beside them.
APP_THREAD_CATEGORIES = ["busy", "data", "segv", "syn", "atomic"]
# The trace's event categories (docs/CONFIG.md, SCOPEDSM_TRACE).
TRACE_CATEGORIES = ["fault", "fetch", "diff", "lock", "barrier", "atomic", "serve"]
# The requests whose sender waits for an answer (src/transport/message_table.h):
# the ones a trace can split into round-trip legs. REL, RECORD, SETCV and
# the like are one-way: their sender has moved on when they are served.
ROUND_TRIP_REQUESTS = {"GETP", "GETPV", "DIFF", "ACQ", "WAIT", "WAITCV", "COLL", "HOMECLAIM", "ATOMIC"}


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
    ranks = stats_ranks(stats)
    times = {c: sum(r["time_s"][c] for r in ranks) / (len(ranks) or 1) for c in TIME_CATEGORIES}
    return {"ranks": len(ranks), "time_s": times, "messages": sum(r["messages"] for r in ranks),
            "bytes": sum(r["bytes"] for r in ranks)}


def _number(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def stats_program(stats, fallback):
    """The program a statistics object describes (its "program"), else `fallback`."""
    program = (stats or {}).get("program") if isinstance(stats, dict) else None
    return program if isinstance(program, str) and program else fallback


def stats_ranks(stats):
    """One row per rank of a statistics object: rank, host, each time
    category (s), faults, fetches, and messages and bytes sent."""
    rows = []
    for i, r in enumerate((stats or {}).get("ranks") or []):
        if not isinstance(r, dict):
            continue
        t = r.get("time_s") if isinstance(r.get("time_s"), dict) else {}
        c = r.get("counters") if isinstance(r.get("counters"), dict) else {}
        rank = r.get("rank")
        rows.append({"rank": rank if isinstance(rank, int) else i, "host": r.get("host"),
                     "total": _number(t.get("total", r.get("elapsed_s"))),
                     "time_s": {k: _number(t.get(k)) for k in TIME_CATEGORIES},
                     "faults": _number(c.get("read_faults")) + _number(c.get("write_faults")),
                     "fetches": _number(c.get("remote_fetches")),
                     "messages": _number(r.get("messages_sent")), "bytes": _number(r.get("bytes_sent"))})
    return rows


def is_trace(data):
    """Whether `data` is a trace-event document (an object with traceEvents,
    or a bare list of events)."""
    if isinstance(data, dict):
        return isinstance(data.get("traceEvents"), list)
    return isinstance(data, list) and bool(data) and all(isinstance(e, dict) and "ph" in e for e in data)


def _trace_events(data):
    """The events of a trace document (object form or bare list), dicts only."""
    events = data.get("traceEvents", []) if isinstance(data, dict) else data
    return [e for e in events if isinstance(e, dict)]


def _process_names(events):
    """pid -> its process_name ("rank 3 (alpha)")."""
    return {e.get("pid"): e["args"].get("name") for e in events
            if e.get("ph") == "M" and e.get("name") == "process_name" and isinstance(e.get("args"), dict)}


def trace_summary(data):
    """Per rank (pid) of a trace: {"rank", "name", "categories": {cat: {"count", "ms"}}},
    from its complete ("X") events; the time of nested events (a fetch
    inside a fault) counts in both categories. Ranks in order."""
    events = _trace_events(data)
    names = _process_names(events)
    ranks = {}
    for e in events:
        if e.get("ph") != "X":
            continue
        pid = e.get("pid")
        cats = ranks.setdefault(pid, {})
        c = cats.setdefault(str(e.get("cat")), {"count": 0, "ms": 0.0})
        c["count"] += 1
        c["ms"] += _number(e.get("dur")) / 1000.0
    order = sorted(ranks, key=lambda p: (not isinstance(p, int), p if isinstance(p, int) else str(p)))
    return [{"rank": p, "name": names.get(p), "categories": ranks[p]} for p in order]


def _host_of(process_name):
    """"rank 3 (alpha)" -> "alpha" (None if the name has no host)."""
    if not isinstance(process_name, str) or "(" not in process_name or not process_name.endswith(")"):
        return None
    return process_name[process_name.index("(") + 1:-1]


def trace_round_trips(data):
    """Where the time of each served request went, from a trace: for every
    request of ROUND_TRIP_REQUESTS a rank served for another rank of the
    same host, the requester's innermost application-thread event around
    the moment it was served (its lock, fetch, cv wait...) is split into
    the request leg (event start to serve start: encoding, sending,
    delivery, and the home noticing), the serve itself, and the reply leg
    (serve end to event end: delivery and the requester noticing). Returns rows
    {"request", "event", "count", "event_us", "request_us", "serve_us",
    "reply_us", "aligned"} of medians, grouped by request type and event.

    Ranks of one host share a clock: with otherData.clock_origin_ns the
    ranks are lined up exactly ("aligned"); without it (older traces) each
    rank's time counts from its own end of jia_init, a few microseconds
    apart, so the two legs are only approximate (their sum is exact).
    Requests between hosts are left out (different clocks)."""
    events = _trace_events(data)
    other = data.get("otherData") if isinstance(data, dict) and isinstance(data.get("otherData"), dict) else {}
    origins = other.get("clock_origin_ns") if isinstance(other.get("clock_origin_ns"), dict) else {}
    hosts = {pid: _host_of(name) for pid, name in _process_names(events).items()}
    app, served = {}, []
    for e in events:
        if e.get("ph") != "X":
            continue
        if e.get("cat") == "serve":
            if e.get("name") in ROUND_TRIP_REQUESTS:
                served.append(e)
        elif e.get("tid") == 0:
            app.setdefault(e.get("pid"), []).append((_number(e.get("ts")), _number(e.get("dur")), str(e.get("name"))))
    for evs in app.values():
        evs.sort()
    starts = {pid: [ev[0] for ev in evs] for pid, evs in app.items()}
    aligned = bool(origins) and all(str(pid) in origins for pid in hosts)

    def skew_us(home, src):  # add to home's times to put them on src's timeline
        if not aligned:
            return 0.0
        return (_number(origins[str(home)]) - _number(origins[str(src)])) / 1000.0

    groups = {}
    for s in served:
        home = s.get("pid")
        src = (s.get("args") or {}).get("from")
        if src is None or src == home or src not in app or hosts.get(src) is None or hosts.get(src) != hosts.get(home):
            continue
        t = _number(s.get("ts")) + skew_us(home, src)  # on the requester's timeline
        end = t + _number(s.get("dur"))
        evs, st = app[src], starts[src]
        i = bisect.bisect_right(st, t) - 1
        found = None
        # The innermost enclosing event: the latest-starting one that
        # contains the serve; events nest only a few deep.
        for j in range(i, max(i - 8, -1), -1):
            ts, dur, name = evs[j]
            if ts <= t and end <= ts + dur:
                found = evs[j]
                break
        if found is None:
            continue
        ts, dur, name = found
        g = groups.setdefault((str(s.get("name")), name), {"event": [], "request": [], "serve": [], "reply": []})
        g["event"].append(dur)
        g["request"].append(t - ts)
        g["serve"].append(end - t)
        g["reply"].append(ts + dur - end)
    rows = []
    for (request, event), g in sorted(groups.items(), key=lambda kv: -len(kv[1]["event"])):
        rows.append({"request": request, "event": event, "count": len(g["event"]),
                     "event_us": statistics.median(g["event"]), "request_us": statistics.median(g["request"]),
                     "serve_us": statistics.median(g["serve"]), "reply_us": statistics.median(g["reply"]),
                     "aligned": aligned})
    return rows


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


def base_config(entry):
    """The configuration name bench gave a run or summary entry, also when
    `scopedsm report` has renamed it "<config>@<file>" to tell merged files
    apart."""
    return str(entry.get("base_config") or entry.get("config") or "")


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
