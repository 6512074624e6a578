// diff: make a page's diff at the writer and apply it at the home, in one
// process, with the runtime's own encoder and decoder (protocol/diff.h):
// Writer + encode_diff against the twin + finish, then Reader::open +
// apply_diff onto the home's copy. No MPI, no ScopeDSM runtime.
//
// --percent of the page's 8-byte words change (every byte of each), at
// positions drawn with a fixed seed (--pattern=random), every k-th word
// (--pattern=stride) or one contiguous block (--pattern=block).
// --impl=sketch times bench/proto/diff_sketch instead, which writes the
// runtime's former record format (runs of changed words: u16 first word,
// u16 count, a mask byte per word, the changed bytes); every run reports
// that record's size beside the runtime's ("record_bytes",
// "runs_record_bytes"), to compare the two on the wire.
//
// Baseline, interleaved: memcmp of the page with an equal copy (a full
// scan, as memcmp stops at the first difference) plus memcpy of the page.
// Each sample is the mean of --batch operations.
//
//   diff [--percent=25] [--pattern=random] [--impl=runtime] [--reps=2000]
//        [--rounds=10] [--batch=20]
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "common/options.h"
#include "common/report.h"
#include "proto/diff_sketch.h"
#include "protocol/diff.h"
#include "transport/wire.h"

namespace {

constexpr const char* kName = "diff";
constexpr size_t kHeader = sizeof(scopedsm::MsgHeader);

struct Pages {
  size_t size = 0;
  std::byte* page = nullptr;   // the writer's current contents
  std::byte* twin = nullptr;   // the writer's twin
  std::byte* home = nullptr;   // the home's copy
  std::byte* equal = nullptr;  // a copy equal to `page`, for the baseline
  std::byte* sink = nullptr;   // baseline memcpy target
};

std::byte* page_buffer(size_t size) {
  void* p = std::aligned_alloc(size, size);
  if (p == nullptr) std::abort();
  return static_cast<std::byte*>(p);
}

std::byte* locate(void* ctx, uint32_t) { return static_cast<Pages*>(ctx)->home; }

// The words to change, in increasing order.
std::vector<size_t> changed_words(size_t words, size_t count, const std::string& pattern) {
  std::vector<size_t> out;
  if (count == 0) return out;
  if (pattern == "block") {
    for (size_t w = 0; w < count; ++w) out.push_back(w);
  } else if (pattern == "stride") {
    const size_t step = words / count;
    for (size_t w = 0; w < count; ++w) out.push_back(w * step);
  } else {
    std::vector<size_t> all(words);
    std::iota(all.begin(), all.end(), 0);
    std::mt19937_64 rng(12345);
    std::shuffle(all.begin(), all.end(), rng);
    out.assign(all.begin(), all.begin() + static_cast<long>(count));
    std::sort(out.begin(), out.end());
  }
  return out;
}

// The runtime's encoder: a whole DIFF message holding one page's record.
std::vector<std::byte> runtime_encode(Pages* p) {
  scopedsm::Writer w(scopedsm::MsgType::kDiff);
  scopedsm::encode_diff(0, p->page, p->twin, p->size, &w);
  return w.finish(0);
}

void runtime_apply(Pages* p, const std::vector<std::byte>& msg) {
  scopedsm::Reader r(msg.data(), msg.size());
  scopedsm::MsgType type;
  uint32_t page = 0;
  size_t changed = 0;
  if (!r.open(&type).ok()) std::abort();
  if (r.remaining() > 0 && !scopedsm::apply_diff(&r, p->size, &locate, p, &page, &changed).ok()) std::abort();
}

// The sketch: the same record, in a buffer allocated per message.
struct SketchRecord {
  std::unique_ptr<std::byte[]> buf;
  size_t size = 0;
};

SketchRecord sketch_encode(Pages* p) {
  SketchRecord rec;
  rec.buf.reset(new std::byte[bench::sketch::max_record_size(p->size)]);
  size_t changed = 0;
  rec.size = bench::sketch::encode_diff(0, p->page, p->twin, p->size, rec.buf.get(), &changed);
  return rec;
}

void sketch_apply(Pages* p, const SketchRecord& rec) {
  if (rec.size != 0 && bench::sketch::apply_diff(rec.buf.get(), rec.size, p->home, p->size) != rec.size) std::abort();
}

void baseline_once(Pages* p) {
  int c = std::memcmp(p->page, p->equal, p->size);
  bench::keep(c);
  std::memcpy(p->sink, p->page, p->size);
  bench::keep(p->sink);
}

template <typename F>
std::vector<double> batches(size_t reps, size_t batch, F op) {
  std::vector<double> samples;
  for (size_t i = 0; i < reps; ++i) {
    const uint64_t t0 = bench::now_ns();
    for (size_t k = 0; k < batch; ++k) op();
    const uint64_t t1 = bench::now_ns();
    samples.push_back(bench::ns_to_us(t1 - t0) / static_cast<double>(batch));
  }
  return samples;
}

struct Sizes {
  size_t record = 0;       // the runtime's record
  size_t runs_record = 0;  // the former format's (the sketch's)
};

// Each decoder must rebuild the page from its encoder's record. Returns
// both records' sizes.
Sizes cross_check(Pages* p) {
  std::vector<std::byte> msg = runtime_encode(p);
  SketchRecord rec = sketch_encode(p);
  std::memcpy(p->home, p->twin, p->size);
  runtime_apply(p, msg);
  if (std::memcmp(p->home, p->page, p->size) != 0) bench::die(kName, "apply_diff does not rebuild the page");
  std::memcpy(p->home, p->twin, p->size);
  sketch_apply(p, rec);
  if (std::memcmp(p->home, p->page, p->size) != 0) bench::die(kName, "the sketch does not rebuild the page");
  return {msg.size() - kHeader, rec.size};
}

}  // namespace

int main(int argc, char** argv) {
  bench::Options opt(argc, argv, {"percent", "pattern", "impl", "reps", "rounds", "warmup", "batch"});
  const long percent = opt.integer("percent", 25);
  const std::string pattern = opt.text("pattern", "random");
  const std::string impl = opt.text("impl", "runtime");
  const size_t reps = static_cast<size_t>(opt.integer("reps", 2000));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 10));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 200));
  size_t batch = static_cast<size_t>(opt.integer("batch", 20));
  if (!opt.ok()) bench::die(kName, opt.error());
  if (percent > 100) bench::die(kName, "--percent must be from 0 to 100");
  if (pattern != "random" && pattern != "stride" && pattern != "block")
    bench::die(kName, "--pattern must be random, stride or block");
  if (impl != "runtime" && impl != "sketch") bench::die(kName, "--impl must be runtime or sketch");
  if (batch == 0) batch = 1;
  const bool sketch = impl == "sketch";

  Pages p;
  p.size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  p.page = page_buffer(p.size);
  p.twin = page_buffer(p.size);
  p.home = page_buffer(p.size);
  p.equal = page_buffer(p.size);
  p.sink = page_buffer(p.size);
  std::mt19937_64 rng(42);
  for (size_t i = 0; i < p.size; i += 8) {
    uint64_t v = rng();
    std::memcpy(p.twin + i, &v, 8);
  }
  const size_t words = p.size / 8;
  const size_t count = (words * static_cast<size_t>(percent) + 50) / 100;
  std::memcpy(p.page, p.twin, p.size);
  for (size_t w : changed_words(words, count, pattern))
    for (size_t b = 0; b < 8; ++b) p.page[w * 8 + b] ^= std::byte{0xff};
  std::memcpy(p.equal, p.page, p.size);
  const Sizes record = cross_check(&p);

  // One operation: encode at the writer, apply at the home.
  auto diff_once = [&] {
    if (sketch) sketch_apply(&p, sketch_encode(&p));
    else runtime_apply(&p, runtime_encode(&p));
  };
  batches(warmup, batch, diff_once);
  batches(warmup, batch, [&] { baseline_once(&p); });

  bench::Report report;
  report.bench = "diff_" + std::to_string(percent) + "pct" + (pattern == "random" ? "" : "_" + pattern) +
                 (sketch ? "_sketch" : "");
  report.procs = 1;
  report.reps = static_cast<long>(reps);
  report.rounds = static_cast<long>(rounds);
  bench::Rounds base, encode, apply;
  std::vector<std::byte> msg = runtime_encode(&p);
  SketchRecord rec = sketch_encode(&p);
  for (size_t r = 0; r < rounds; ++r) {
    base.add_round(batches(reps, batch, [&] { baseline_once(&p); }));
    report.measured.add_round(batches(reps, batch, diff_once));
    // The two halves alone, for the breakdown.
    if (sketch) {
      encode.add_round(batches(reps, batch, [&] { rec = sketch_encode(&p); }));
      apply.add_round(batches(reps, batch, [&] { sketch_apply(&p, rec); }));
    } else {
      encode.add_round(batches(reps, batch, [&] { msg = runtime_encode(&p); }));
      apply.add_round(batches(reps, batch, [&] { runtime_apply(&p, msg); }));
    }
  }

  report.has_baseline = true;
  report.baseline_what = "memcmp_full+memcpy_4k";
  report.baseline = base.all();
  report.target_ratio = 3.0;
  report.extra["impl"] = impl;
  report.extra["percent"] = percent;
  report.extra["pattern"] = pattern;
  report.extra["words_changed"] = static_cast<long long>(count);
  report.extra["record_bytes"] = static_cast<long long>(record.record);
  report.extra["runs_record_bytes"] = static_cast<long long>(record.runs_record);
  report.extra["batch"] = static_cast<long long>(batch);
  report.extra["encode"] = bench::summary_json(encode.all());
  report.extra["apply"] = bench::summary_json(apply.all());
  bench::print_report(report);
  for (std::byte* b : {p.page, p.twin, p.home, p.equal, p.sink}) std::free(b);
  return 0;
}
