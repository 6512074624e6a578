#include "runtime/checkpoint.h"

#include <dirent.h>
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "common/clock.h"
#include "common/crc32c.h"
#include "common/log.h"

namespace scopedsm {

namespace {

constexpr char kIndexMagic[8] = {'S', 'D', 'S', 'M', 'I', 'D', 'X', '1'};

struct IndexHeader {
  char magic[8];
  uint64_t seq;
  uint32_t rank;
  uint32_t size;
  uint64_t page_size;
  uint64_t entries;
  uint64_t buffers;
};

std::string errno_text(int err) { return std::strerror(err); }

// Writes all of [p, p + n) at the end of `fd`; false with errno on failure.
bool write_all(int fd, const void* p, size_t n) {
  const auto* b = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, b, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    b += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Reads up to n bytes at `offset`; returns how many (short at the end of file), -1 on error.
ssize_t read_at(int fd, void* p, size_t n, uint64_t offset) {
  auto* b = static_cast<char*>(p);
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd, b + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(done);
}

void sync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

bool read_file(const std::string& path, std::string* out, int* err) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *err = errno;
    return false;
  }
  out->clear();
  char buf[65536];
  for (;;) {
    const ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      *err = errno;
      ::close(fd);
      return false;
    }
    if (r == 0) break;
    out->append(buf, static_cast<size_t>(r));
  }
  ::close(fd);
  return true;
}

// `call`: the checkpoint call the program made, which errors name.
void mkdirs(const std::string& path, const char* call) {
  for (size_t at = 1; at <= path.size(); ++at) {
    if (at != path.size() && path[at] != '/') continue;
    const std::string part = path.substr(0, at);
    if (::mkdir(part.c_str(), 0777) != 0 && errno != EEXIST)
      fatal("%s: cannot create the directory %s: %s (SCOPEDSM_CHECKPOINT_DIR)", call, part.c_str(),
            errno_text(errno).c_str());
  }
}

// An open file for writing a checkpoint: every error ends the job naming it.
class OutFile {
 public:
  OutFile(std::string path, const char* call) : path_(std::move(path)), call_(call) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail();
  }
  ~OutFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  void put(const void* p, size_t n) {
    if (!write_all(fd_, p, n)) fail();
    crc_ = crc32c(p, n, crc_);
    bytes_ += n;
  }
  void finish() {
    if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
      fd_ = -1;
      fail();
    }
    fd_ = -1;
  }
  uint64_t bytes() const { return bytes_; }
  uint32_t crc() const { return crc_; }

 private:
  [[noreturn]] void fail() const {
    fatal("%s: cannot write %s: %s; the previous checkpoint stays current", call_, path_.c_str(),
          errno_text(errno).c_str());
  }
  std::string path_;
  const char* call_;
  int fd_ = -1;
  uint64_t bytes_ = 0;
  uint32_t crc_ = 0;
};

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "%08x", v);
  return b;
}

}  // namespace

std::string Checkpoints::gen_dir(uint64_t gen) const {
  char b[32];
  std::snprintf(b, sizeof b, "/gen-%06" PRIu64, gen);
  return dir_ + b;
}
std::string Checkpoints::index_path(uint64_t gen, int rank) const {
  return gen_dir(gen) + "/rank-" + std::to_string(rank) + ".index";
}
std::string Checkpoints::data_path(uint64_t gen, int rank) const {
  return gen_dir(gen) + "/rank-" + std::to_string(rank) + ".data";
}

void Checkpoints::open(MPI_Comm comm, const Config* config, int rank, int size, Region* region, const char* program,
                       const char* init) {
  comm_ = comm;
  config_ = config;
  rank_ = rank;
  size_ = size;
  region_ = region;
  // Rank 0 names the directory for everyone (its current directory).
  std::string dir;
  if (rank == 0) {
    dir = !config->restart_dir.empty() ? config->restart_dir : config->checkpoint_dir;
    if (dir.empty()) {
      std::string base = program != nullptr ? program : "scopedsm";
      base = base.substr(base.find_last_of('/') + 1);
      dir = base + ".checkpoint";
    }
    if (dir[0] != '/') {
      char cwd[4096];
      if (::getcwd(cwd, sizeof cwd) != nullptr) dir = std::string(cwd) + "/" + dir;
    }
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  }
  uint64_t len = dir.size();
  MPI_Bcast(&len, 1, MPI_UINT64_T, 0, comm_);
  dir.resize(len);
  MPI_Bcast(dir.data(), static_cast<int>(len), MPI_CHAR, 0, comm_);
  dir_ = dir;
  if (!config->restart_dir.empty()) load(init);
}

void Checkpoints::load(const char* init) {
  const std::string where = std::string(init) + ": cannot restart from " + dir_ + " (SCOPEDSM_RESTART): ";
  const std::string manifest_path = dir_ + "/manifest";
  // Rank 0 reads the manifest and checks its own checksum; everyone gets it.
  std::string text;
  if (rank_ == 0) {
    int err = 0;
    if (!read_file(manifest_path, &text, &err))
      fatal("%s%s %s", where.c_str(), manifest_path.c_str(),
            err == ENOENT ? "is missing: no checkpoint was completed there" : errno_text(err).c_str());
    const size_t last = text.rfind("end ");
    const bool whole = last != std::string::npos && (last == 0 || text[last - 1] == '\n') && text.back() == '\n';
    if (!whole || hex32(crc32c(text.data(), last)) != text.substr(last + 4, text.size() - last - 5))
      fatal("%s%s is damaged or truncated (its checksum does not match)", where.c_str(), manifest_path.c_str());
  }
  uint64_t len = text.size();
  MPI_Bcast(&len, 1, MPI_UINT64_T, 0, comm_);
  text.resize(len);
  MPI_Bcast(text.data(), static_cast<int>(len), MPI_CHAR, 0, comm_);

  // Parse it (checked already: a line we do not read is a version we do not know).
  uint64_t seq = 0, procs = 0, page_size = 0, region_bytes = 0, index_bytes = 0;
  std::string index_crc;
  bool have_index = false;
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    const std::string line = text.substr(at, nl - at);
    at = nl + 1;
    char kind = 0;
    unsigned long long a = 0, b = 0;
    char crc[16] = "";
    int r = -1;
    if (std::sscanf(line.c_str(), "seq %llu", &a) == 1) seq = a;
    else if (std::sscanf(line.c_str(), "processes %llu", &a) == 1) procs = a;
    else if (std::sscanf(line.c_str(), "page_size %llu", &a) == 1) page_size = a;
    else if (std::sscanf(line.c_str(), "region_bytes %llu", &a) == 1) region_bytes = a;
    else if (std::sscanf(line.c_str(), "alloc %c %llu %llu", &kind, &a, &b) == 3)
      saved_allocs_.push_back({a, b, kind == 'g'});
    else if (std::sscanf(line.c_str(), "index %d %llu %15s", &r, &a, crc) == 3 && r == rank_) {
      index_bytes = a;
      index_crc = crc;
      have_index = true;
    }
  }
  if (procs != static_cast<uint64_t>(size_))
    fatal("%s%s was written by a job of %" PRIu64 " processes, and this job has %d: restart with %" PRIu64
          " processes",
          where.c_str(), manifest_path.c_str(), procs, size_, procs);
  if (page_size != region_->page_size() || region_bytes != region_->bytes())
    fatal("%s%s has pages of %" PRIu64 " bytes in a region of %" PRIu64 " bytes, and this job %zu in %" PRIu64
          ": restart with the checkpointed run's SCOPEDSM_UNIT_PAGES and SCOPEDSM_REGION_SIZE",
          where.c_str(), manifest_path.c_str(), page_size, region_bytes, region_->page_size(), region_->bytes());
  if (seq == 0 || !have_index) fatal("%s%s names no index for rank %d", where.c_str(), manifest_path.c_str(), rank_);

  // Our index: its size and checksum as the manifest says, then its trailer.
  const std::string ipath = index_path(seq, rank_);
  std::string idx;
  int err = 0;
  if (!read_file(ipath, &idx, &err))
    fatal("%s%s %s", where.c_str(), ipath.c_str(), err == ENOENT ? "is missing" : errno_text(err).c_str());
  if (idx.size() != index_bytes)
    fatal("%s%s is truncated or damaged (%zu bytes; the manifest says %" PRIu64 ")", where.c_str(), ipath.c_str(),
          idx.size(), index_bytes);
  IndexHeader h{};
  if (idx.size() < sizeof h + 4) fatal("%s%s is truncated", where.c_str(), ipath.c_str());
  if (hex32(crc32c(idx.data(), idx.size() - 4)) != index_crc)
    fatal("%s%s is damaged (its checksum does not match the manifest's)", where.c_str(), ipath.c_str());
  std::memcpy(&h, idx.data(), sizeof h);
  uint32_t trailer = 0;
  std::memcpy(&trailer, idx.data() + idx.size() - 4, 4);
  if (std::memcmp(h.magic, kIndexMagic, 8) != 0 || h.seq != seq || h.rank != static_cast<uint32_t>(rank_) ||
      trailer != crc32c(idx.data(), idx.size() - 4) ||
      h.entries > (idx.size() - sizeof h) / sizeof(Entry))
    fatal("%s%s is not this checkpoint's index of rank %d", where.c_str(), ipath.c_str(), rank_);
  size_t off = sizeof h;
  index_.resize(h.entries);
  if (h.entries != 0) std::memcpy(index_.data(), idx.data() + off, h.entries * sizeof(Entry));
  off += h.entries * sizeof(Entry);
  for (uint64_t i = 0; i < h.buffers; ++i) {
    uint64_t n = 0;
    uint32_t crc = 0;
    if (off + 12 > idx.size() - 4) fatal("%s%s is truncated", where.c_str(), ipath.c_str());
    std::memcpy(&n, idx.data() + off, 8);
    std::memcpy(&crc, idx.data() + off + 8, 4);
    off += 12;
    if (n > idx.size() - 4 - off || crc32c(idx.data() + off, n) != crc)
      fatal("%s%s is damaged (registered buffer %" PRIu64 ")", where.c_str(), ipath.c_str(), i);
    saved_buffers_.emplace_back(reinterpret_cast<const std::byte*>(idx.data() + off),
                                reinterpret_cast<const std::byte*>(idx.data() + off + n));
    off += n;
  }

  // Our home pages, straight into our memory of them, each checked.
  uint64_t end_page = 0;
  for (const AllocRecord& a : saved_allocs_) end_page = std::max(end_page, a.first + a.pages);
  std::map<uint32_t, int> fds;
  const size_t ps = region_->page_size();
  for (size_t i = 0; i < index_.size();) {
    const Entry& e = index_[i];
    if (e.page >= end_page || e.gen == 0 || e.gen > seq)
      fatal("%s%s names page %u of generation %u, which this checkpoint does not have", where.c_str(), ipath.c_str(),
            e.page, e.gen);
    // A run: consecutive pages, consecutive in one data file.
    size_t j = i + 1;
    while (j < index_.size() && j - i < 2048 && index_[j].gen == e.gen && index_[j].page == e.page + (j - i) &&
           index_[j].offset == e.offset + (j - i) * ps)
      ++j;
    const uint64_t n = j - i;
    int& fd = fds[e.gen];
    const std::string dpath = data_path(e.gen, rank_);
    if (fd == 0) {
      fd = ::open(dpath.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        fatal("%s%s %s", where.c_str(), dpath.c_str(), errno == ENOENT ? "is missing" : errno_text(errno).c_str());
    }
    if (Status st = region_->preallocate(e.page, n); !st.ok()) fatal("%s%s", where.c_str(), st.message().c_str());
    std::byte* at_home = region_->alias(e.page);
    const ssize_t got = read_at(fd, at_home, n * ps, e.offset);
    if (got < 0) fatal("%s%s: %s", where.c_str(), dpath.c_str(), errno_text(errno).c_str());
    for (size_t k = i; k < j; ++k) {
      const uint64_t rel = (k - i) * ps;
      if (static_cast<uint64_t>(got) < rel + ps)
        fatal("%s%s is truncated (page %u at byte %" PRIu64 " is past its end)", where.c_str(), dpath.c_str(),
              index_[k].page, index_[k].offset);
      if (crc32c(at_home + rel, ps) != index_[k].crc)
        fatal("%s%s is damaged (page %u at byte %" PRIu64 ": its checksum does not match)", where.c_str(),
              dpath.c_str(), index_[k].page, index_[k].offset);
    }
    i = j;
  }
  for (auto& [gen, fd] : fds) ::close(fd);

  // Every page's home, from every process's index.
  std::vector<uint32_t> mine;
  mine.reserve(index_.size());
  for (const Entry& e : index_) mine.push_back(e.page);
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    displs[static_cast<size_t>(r)] = total;
    total += counts[static_cast<size_t>(r)];
  }
  std::vector<uint32_t> all(static_cast<size_t>(total));
  MPI_Allgatherv(mine.data(), count, MPI_UINT32_T, all.data(), counts.data(), displs.data(), MPI_UINT32_T,
                 comm_);
  saved_homes_.assign(end_page, kHomeUnknown);
  for (int r = 0; r < size_; ++r)
    for (int i = 0; i < counts[static_cast<size_t>(r)]; ++i)
      saved_homes_[all[static_cast<size_t>(displs[static_cast<size_t>(r)] + i)]] = r;
  seq_ = seq;
  restarted_ = seq;
  SCOPEDSM_LOG(LogLevel::kInfo, "restarted from checkpoint %" PRIu64 " in %s: %zu home pages loaded", seq,
               dir_.c_str(), index_.size());
}

bool Checkpoints::on_allocation(const std::string& call_text, uint64_t first, uint64_t pages, bool guard) {
  const size_t n = allocs_.size();
  allocs_.push_back({first, pages, guard});
  if (n >= saved_allocs_.size()) return false;
  const AllocRecord& s = saved_allocs_[n];
  if (s.first != first || s.pages != pages || s.guard != guard)
    fatal("%s: allocation %zu of the restarted program differs from the checkpoint's (pages %" PRIu64 "-%" PRIu64
          " there, %" PRIu64 "-%" PRIu64 " here): a restarted program must make the allocations of the run it "
          "continues, in the same order (checkpoint %" PRIu64 " in %s)",
          call_text.c_str(), n + 1, s.first, s.first + s.pages, first, first + pages, restarted_, dir_.c_str());
  return true;
}

int32_t Checkpoints::saved_home(uint64_t page) const {
  return page < saved_homes_.size() ? saved_homes_[page] : kHomeUnknown;
}

void Checkpoints::register_buffer(ApiCall call, void* addr, size_t len) {
  if (addr == nullptr && len != 0) fatal("%s(%p, %zu): the buffer is null", call.name, addr, len);
  const size_t n = buffers_.size();
  buffers_.emplace_back(addr, len);
  if (n >= saved_buffers_.size()) return;
  const std::vector<std::byte>& saved = saved_buffers_[n];
  if (saved.size() != len)
    fatal("%s(%p, %zu): registration %zu of the restarted program is %zu bytes, and checkpoint %" PRIu64
          " saved %zu bytes for it: register the same buffers in the same order as the run it continues",
          call.name, addr, len, n + 1, len, restarted_, saved.size());
  if (len != 0) std::memcpy(addr, saved.data(), len);
}

void Checkpoints::maybe_die(uint64_t seq, const char* point) const {
  const std::string& spec = config_->test_checkpoint_kill;
  if (spec.empty()) return;
  int rank = -1;
  unsigned long long s = 0;
  char p[16] = "";
  if (std::sscanf(spec.c_str(), "%d:%llu:%15[a-z]", &rank, &s, p) == 3 && rank == rank_ && s == seq &&
      std::strcmp(p, point) == 0)
    ::raise(SIGKILL);
}

void Checkpoints::collect_garbage() {
  // Every generation older than the current one: its index is never read
  // again, nor its data file unless the current index references it.
  std::set<uint32_t> used;
  for (const Entry& e : index_) used.insert(e.gen);
  DIR* d = ::opendir(dir_.c_str());
  if (d == nullptr) return;
  std::vector<uint64_t> gens;
  while (dirent* ent = ::readdir(d)) {
    unsigned long long g = 0;
    char extra = 0;
    if (std::sscanf(ent->d_name, "gen-%llu%c", &g, &extra) == 1 && g < seq_) gens.push_back(g);
  }
  ::closedir(d);
  for (uint64_t g : gens) {
    ::unlink(index_path(g, rank_).c_str());
    if (used.count(static_cast<uint32_t>(g)) == 0) ::unlink(data_path(g, rank_).c_str());
  }
}

void Checkpoints::take(ApiCall call, SyncClient& sync, Coherence& coherence) {
  const uint64_t t0 = now_ns();
  const uint64_t seq = seq_ + 1;
  if (seq > UINT32_MAX) fatal("%s: too many checkpoints", call.name);
  collect_garbage();
  const std::string gdir = gen_dir(seq);
  mkdirs(gdir, call.name);

  // The pages: changed ones written (in runs of consecutive pages, straight
  // from our memory of them), unchanged ones referenced where they are.
  std::vector<Entry> next;
  const size_t ps = region_->page_size();
  OutFile data(data_path(seq, rank_), call.name);
  size_t old_at = 0;
  uint64_t written = 0;
  uint64_t run_first = 0, run_count = 0;
  auto flush_run = [&] {
    if (run_count == 0) return;
    data.put(region_->alias(run_first), run_count * ps);
    run_count = 0;
  };
  const bool skip_changed = (config_->test_faults & static_cast<uint64_t>(TestFault::kCheckpointSkipChanged)) != 0;
  coherence.visit_home_pages([&](uint64_t page, bool changed) {
    while (old_at < index_.size() && index_[old_at].page < page) ++old_at;
    const bool had = old_at < index_.size() && index_[old_at].page == page;
    if (had && (!changed || skip_changed)) {
      next.push_back(index_[old_at]);
      return;
    }
    const std::byte* p = region_->alias(page);
    next.push_back({static_cast<uint32_t>(page), static_cast<uint32_t>(seq), data.bytes() + run_count * ps,
                    crc32c(p, ps), 0});
    if (run_count != 0 && run_first + run_count != page) flush_run();
    if (run_count == 0) run_first = page;
    ++run_count;
    ++written;
    if (run_count * ps >= (8u << 20)) flush_run();
  });
  flush_run();
  data.finish();

  // The index: header, entries, buffers, then the CRC of all of it.
  OutFile idx(index_path(seq, rank_), call.name);
  IndexHeader h{};
  std::memcpy(h.magic, kIndexMagic, 8);
  h.seq = seq;
  h.rank = static_cast<uint32_t>(rank_);
  h.size = static_cast<uint32_t>(size_);
  h.page_size = ps;
  h.entries = next.size();
  h.buffers = buffers_.size();
  idx.put(&h, sizeof h);
  if (!next.empty()) idx.put(next.data(), next.size() * sizeof(Entry));
  for (const auto& [addr, len] : buffers_) {
    const uint64_t n = len;
    const uint32_t crc = crc32c(addr, len);
    idx.put(&n, 8);
    idx.put(&crc, 4);
    idx.put(addr, len);
  }
  const uint32_t trailer = idx.crc();
  idx.put(&trailer, 4);
  idx.finish();
  sync_dir(gdir);
  maybe_die(seq, "written");

  // Everyone's files are written: rank 0 makes the generation current.
  char mine[64];
  // The CRC of the index up to its trailer (the CRC of the whole file,
  // trailer included, is the same constant for every file).
  std::snprintf(mine, sizeof mine, "index %d %" PRIu64 " %s\n", rank_, idx.bytes(), hex32(trailer).c_str());
  const std::string line(mine);
  std::vector<std::byte> blob(reinterpret_cast<const std::byte*>(line.data()),
                              reinterpret_cast<const std::byte*>(line.data() + line.size()));
  const auto blobs = sync.collective(std::string(call.name) + " [files written]", blob);
  if (rank_ == 0) {
    std::string m = "scopedsm checkpoint 1\nseq " + std::to_string(seq) + "\nprocesses " + std::to_string(size_) +
                    "\npage_size " + std::to_string(ps) + "\nregion_bytes " + std::to_string(region_->bytes()) +
                    "\n";
    for (const AllocRecord& a : allocs_)
      m += std::string("alloc ") + (a.guard ? "g " : "a ") + std::to_string(a.first) + " " +
           std::to_string(a.pages) + "\n";
    for (const auto& b : blobs) m.append(reinterpret_cast<const char*>(b.data()), b.size());
    m += "end " + hex32(crc32c(m.data(), m.size())) + "\n";
    const std::string tmp = dir_ + "/manifest.tmp";
    {
      OutFile f(tmp, call.name);
      f.put(m.data(), m.size());
      f.finish();
    }
    maybe_die(seq, "manifest");
    if (::rename(tmp.c_str(), (dir_ + "/manifest").c_str()) != 0)
      fatal("%s: cannot rename %s to %s/manifest: %s; the previous checkpoint stays current", call.name, tmp.c_str(),
            dir_.c_str(), errno_text(errno).c_str());
    sync_dir(dir_);
    // Generations every process has emptied (collect_garbage ran before
    // the rendezvous everywhere): rmdir removes only empty ones.
    for (uint64_t g = 1; g + 1 < seq; ++g) ::rmdir(gen_dir(g).c_str());
  }
  // Nobody goes on before the checkpoint is current: once the call has
  // returned anywhere, a failure restarts from here.
  sync.collective(std::string(call.name) + " [manifest renamed]", {});
  coherence.checkpoint_saved();
  index_ = std::move(next);
  seq_ = seq;
  SCOPEDSM_LOG(LogLevel::kInfo, "checkpoint %" PRIu64 ": %" PRIu64 " of %zu home pages written in %.3f s", seq,
               written, index_.size(), static_cast<double>(now_ns() - t0) / 1e9);
}

}  // namespace scopedsm
