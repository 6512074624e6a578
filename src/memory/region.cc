#include "memory/region.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace scopedsm {

namespace {

int prot_bits(Prot p) {
  switch (p) {
    case Prot::kNone: return PROT_NONE;
    case Prot::kRead: return PROT_READ;
    case Prot::kReadWrite: return PROT_READ | PROT_WRITE;
  }
  return PROT_NONE;
}

uint64_t read_max_map_count() {
  std::ifstream f("/proc/sys/vm/max_map_count");
  uint64_t v = 65530;
  if (f) f >> v;
  return v;
}

uint64_t count_current_maps() {
  std::ifstream f("/proc/self/maps");
  uint64_t n = 0;
  std::string line;
  while (std::getline(f, line)) ++n;
  return n;
}

#if defined(__SANITIZE_THREAD__)
#define SCOPEDSM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SCOPEDSM_TSAN 1
#endif
#endif

// Candidate addresses: 1 GiB aligned, between 16 TiB and 80 TiB, well away
// from the executable, the heap and the mmap area near the top of the
// 47-bit user space where libraries and MPI's own segments land.
// ThreadSanitizer keeps its shadow memory in that range and refuses
// mappings outside its application ranges; its low application range
// (up to 512 GiB, empty in a PIE process) holds the region instead.
uintptr_t random_candidate(std::mt19937_64& rng, uint64_t bytes) {
#ifdef SCOPEDSM_TSAN
  const uintptr_t lo = 0x001000000000ull, hi = 0x007000000000ull;
#else
  const uintptr_t lo = 0x100000000000ull, hi = 0x500000000000ull;
#endif
  const uintptr_t align = 1ull << 30;
  if (bytes + align >= hi - lo) return lo;  // (the configuration caps regions well below this)
  uintptr_t span = (hi - lo - bytes) / align;
  return lo + (rng() % span) * align;
}

// A file in `dir` that has no name: O_TMPFILE, or where the file system
// does not support it a unique name unlinked at once. Sets `name` to how
// messages call it.
int open_backing_file(const std::string& dir, std::string* name, std::string* error) {
  int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) {
    *name = "an unnamed file (O_TMPFILE) in " + dir;
    return fd;
  }
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
    *error = "cannot create a file in " + dir + ": " + std::strerror(errno);
    return -1;
  }
  std::string path = dir + "/scopedsm-home-" + std::to_string(getpid()) + "-XXXXXX";
  std::vector<char> buf(path.begin(), path.end());
  buf.push_back('\0');
  fd = mkostemp(buf.data(), O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot create a file in " + dir + ": " + std::strerror(errno);
    return -1;
  }
  unlink(buf.data());
  *name = std::string(buf.data()) + " (unlinked)";
  return fd;
}

}  // namespace

__attribute__((no_sanitize("address"))) void copy_image(void* dst, const void* src, size_t n) {
  auto* d = static_cast<volatile unsigned char*>(dst);
  const auto* s = static_cast<const volatile unsigned char*>(src);
  for (size_t i = 0; i < n; ++i) d[i] = s[i];
}

Region::~Region() { release(); }

Status Region::reserve(MPI_Comm comm, uint64_t bytes, uint32_t unit_pages, const std::string& backing_dir,
                       FixedPlace fixed) {
  os_page_size_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  page_size_ = os_page_size_ * unit_pages;
  bytes_ = (bytes + page_size_ - 1) / page_size_ * page_size_;
  num_pages_ = bytes_ / page_size_;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);

  file_bytes_ = bytes_ + HomeShare::bytes_for(num_pages_, page_size_);
  if (backing_dir.empty()) {
    memfd_ = memfd_create("scopedsm-region", MFD_CLOEXEC);
    if (memfd_ < 0) return Status::Error(std::string("memfd_create failed: ") + std::strerror(errno));
    backing_name_ = "the region's memfd";
  } else {
    std::string error;
    memfd_ = open_backing_file(backing_dir, &backing_name_, &error);
    if (memfd_ < 0) return Status::Error("SCOPEDSM_HOME_BACKING=file:" + backing_dir + ": " + error);
    file_backed_ = true;
  }
  if (ftruncate(memfd_, static_cast<off_t>(file_bytes_)) != 0)
    return Status::Error("ftruncate of " + backing_name_ + " to " + std::to_string(file_bytes_) +
                         " bytes failed: " + std::strerror(errno));
  if (file_backed_) {
    // The home records after the pages are written by every copier: their
    // blocks are reserved now.
    const int e = posix_fallocate(memfd_, static_cast<off_t>(bytes_), static_cast<off_t>(file_bytes_ - bytes_));
    if (e != 0)
      return Status::Error(std::string(e == ENOSPC ? "the disk is full: " : "") + "cannot reserve " +
                           std::to_string(file_bytes_ - bytes_) + " bytes of disk in " + backing_name_ +
                           " for the home records (they grow with SCOPEDSM_REGION_SIZE): " + std::strerror(e));
  }

  // The views at addresses of the kernel's choosing first, then the app view
  // at an agreed one: the agreed candidates can avoid what is taken, while a
  // view mapped afterwards might find no hole left for the largest regions
  // (two views of 32 TiB beside AddressSanitizer's reservations).
  void* alias = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, memfd_, 0);
  if (alias == MAP_FAILED) return Status::Error(std::string("mapping the region's alias view failed: ") + std::strerror(errno));
  alias_ = static_cast<std::byte*>(alias);
  no_read_around(alias_);
  // The HomeShare gets a mapping of its own: address space is scarce for
  // the largest regions (two views of 32 TiB), and a separate mapping can
  // go wherever there is room.
  std::byte* share = map_share(memfd_);
  if (share == nullptr) return Status::Error(std::string("mapping the region's home records failed: ") + std::strerror(errno));
  share_map_ = share;
  share_ = HomeShare(share, num_pages_);

  if (fixed.base != 0) {
    Status st = map_fixed(comm, fixed);
    if (!st.ok()) return st;
  }
  // Rank 0 proposes an address; everyone tries it; repeat until all agree.
  std::mt19937_64 rng(static_cast<uint64_t>(getpid()) * 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(time(nullptr)));
  for (int attempt = 0; attempt < 64 && base_ == nullptr; ++attempt) {
    unsigned long long cand = 0;
    if (rank == 0) cand = random_candidate(rng, bytes_);
    MPI_Bcast(&cand, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    void* want = reinterpret_cast<void*>(static_cast<uintptr_t>(cand));
    void* got = mmap(want, bytes_, PROT_NONE, MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, memfd_, 0);
    int ok = got == want ? 1 : 0;
    if (got != MAP_FAILED && got != want) munmap(got, bytes_);  // kernel without NOREPLACE
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (all) {
      base_ = static_cast<std::byte*>(want);
      no_read_around(base_);
      break;
    }
    if (ok) munmap(want, bytes_);
  }
  if (base_ == nullptr) return Status::Error("could not find an address range free in every process for the shared region; "
                                             "try a smaller SCOPEDSM_REGION_SIZE");

  void* prots = mmap(nullptr, num_pages_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (prots == MAP_FAILED) return Status::Error("allocating the protection map failed");
  prots_ = static_cast<uint8_t*>(prots);

  // The boundary budget: what the kernel allows minus what the process
  // already uses, with a margin for MPI and malloc growing later.
  uint64_t limit = read_max_map_count();
  uint64_t used = count_current_maps();
  budget_ = limit > used + 2048 ? limit - used - 2048 : 0;
  reserved_budget_ = budget_;
  return Status::Ok();
}

Status Region::map_fixed(MPI_Comm comm, FixedPlace fixed) {
  const uint64_t head = (fixed.replace + page_size_ - 1) / page_size_ * page_size_;
  if (fixed.base % page_size_ != 0 || head > bytes_)
    return Status::Error("the program's shared globals (" + std::to_string(fixed.replace) + " bytes at " +
                         std::to_string(fixed.base) + ") do not fit the start of a region of " +
                         std::to_string(bytes_) + " bytes in pages of " + std::to_string(page_size_) +
                         "; raise SCOPEDSM_REGION_SIZE");
  auto* want = reinterpret_cast<std::byte*>(fixed.base);
  // The tail must be free (nothing of ours or the libraries' is there)...
  int ok = 1;
  if (head < bytes_) {
    void* got = mmap(want + head, bytes_ - head, PROT_NONE, MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, memfd_,
                     static_cast<off_t>(head));
    if (got != want + head) {
      if (got != MAP_FAILED) munmap(got, bytes_ - head);
      ok = 0;
    }
  }
  // ...and the head replaces the globals, which the caller has saved.
  if (ok && head > 0 &&
      mmap(want, head, PROT_NONE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, memfd_, 0) != static_cast<void*>(want))
    ok = 0;
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all)
    return Status::Error("the shared region of " + std::to_string(bytes_) + " bytes cannot be placed after the "
                         "program's globals in every process (the address range is in use); try a smaller "
                         "SCOPEDSM_REGION_SIZE");
  base_ = want;
  no_read_around(base_);
  return Status::Ok();
}

Status Region::shadow(uint64_t first, uint64_t count, const void* contents, size_t bytes) {
  const size_t len = count * page_size_;
  void* p = mmap(app(first), len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (p != static_cast<void*>(app(first)))
    return Status::Error(std::string("mapping private memory over the shared globals failed: ") + std::strerror(errno));
  copy_image(p, contents, std::min(bytes, len));
  return Status::Ok();
}

Status Region::unshadow(uint64_t first, uint64_t count) {
  void* p = mmap(app(first), count * page_size_, PROT_NONE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, memfd_,
                 static_cast<off_t>(first * page_size_));
  if (p != static_cast<void*>(app(first)))
    return Status::Error(std::string("mapping the shared globals back failed: ") + std::strerror(errno));
  no_read_around(app(first));
  for (uint64_t i = first; i < first + count;) {
    uint64_t j = i + 1;
    while (j < first + count && prots_[j] == prots_[i]) ++j;
    if (prots_[i] != static_cast<uint8_t>(Prot::kNone) &&
        mprotect(app(i), (j - i) * page_size_, prot_bits(static_cast<Prot>(prots_[i]))) != 0)
      return Status::Error(std::string("mprotect failed: ") + std::strerror(errno));
    i = j;
  }
  return Status::Ok();
}

uint64_t Region::set_boundary_budget(uint64_t budget) {
  const uint64_t before = budget_;
  budget_ = budget == 0 ? reserved_budget_ : budget;
  return before;
}

std::byte* Region::map_share(int fd) const {
  void* p = mmap(nullptr, share_bytes(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd,
                 static_cast<off_t>(bytes_));
  return p == MAP_FAILED ? nullptr : static_cast<std::byte*>(p);
}

Status Region::map_peers(const std::vector<int>& fds, int own) {
  peers_.assign(fds.size(), nullptr);
  peer_share_maps_.assign(fds.size(), nullptr);
  peer_shares_.assign(fds.size(), HomeShare());
  Status result = Status::Ok();
  for (size_t i = 0; i < fds.size(); ++i) {
    if (static_cast<int>(i) == own) {
      peers_[i] = alias_;
      peer_share_maps_[i] = share_map_;
      peer_shares_[i] = share_;
    } else if (result.ok()) {
      void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fds[i], 0);
      if (p != MAP_FAILED) no_read_around(static_cast<std::byte*>(p));
      std::byte* share = p == MAP_FAILED ? nullptr : map_share(fds[i]);
      if (p == MAP_FAILED || share == nullptr) {
        result = Status::Error(std::string("mapping a node peer's memory failed: ") + std::strerror(errno));
        if (p != MAP_FAILED) munmap(p, bytes_);
      } else {
        peers_[i] = static_cast<std::byte*>(p);
        peer_share_maps_[i] = share;
        peer_shares_[i] = HomeShare(share, num_pages_);
      }
    }
    close(fds[i]);  // the mapping keeps the memory
  }
  if (!result.ok()) unmap_peers();
  return result;
}

void Region::unmap_peers() {
  for (std::byte* p : peers_)
    if (p != nullptr && p != alias_) munmap(p, bytes_);
  for (std::byte* p : peer_share_maps_)
    if (p != nullptr && p != share_map_) munmap(p, share_bytes());
  peers_.clear();
  peer_share_maps_.clear();
  peer_shares_.clear();
}

void Region::release() {
  unmap_peers();
  if (base_ != nullptr) munmap(base_, bytes_);
  if (alias_ != nullptr) munmap(alias_, bytes_);
  if (share_map_ != nullptr) munmap(share_map_, share_bytes());
  share_map_ = nullptr;
  if (prots_ != nullptr) munmap(prots_, num_pages_);
  if (memfd_ >= 0) close(memfd_);
  base_ = alias_ = nullptr;
  prots_ = nullptr;
  memfd_ = -1;
}

void Region::retire(uint64_t keep_pages) {
  if (base_ != nullptr) {
    const uint64_t keep = std::min(keep_pages, num_pages_) * page_size_;
    // The kept pages' mapping holds the memfd's memory alive after release().
    if (keep > 0) mprotect(base_, keep, PROT_READ | PROT_WRITE);
    void* p = keep == bytes_ ? base_
                             : mmap(base_ + keep, bytes_ - keep, PROT_NONE,
                                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) base_ = nullptr;  // the range stays reserved; do not unmap it
  }
  release();
}

uint64_t Region::boundaries_after(uint64_t first, uint64_t count, Prot prot) const {
  const uint8_t p = static_cast<uint8_t>(prot);
  const uint64_t last = first + count - 1;
  // Boundaries touching [first, last] before and after the change.
  uint64_t before = 0, after = 0;
  if (first > 0) {
    before += prots_[first - 1] != prots_[first];
    after += prots_[first - 1] != p;
  }
  if (last + 1 < num_pages_) {
    before += prots_[last] != prots_[last + 1];
    after += prots_[last + 1] != p;
  }
  for (uint64_t i = first; i < last; ++i) before += prots_[i] != prots_[i + 1];
  return boundaries_ - before + after;
}

bool Region::fits_budget(uint64_t first, uint64_t count, Prot prot) const {
  if (count == 0) return true;
  const uint64_t next = boundaries_after(first, count, prot);
  return next <= budget_ || next <= boundaries_;
}

Status Region::protect(uint64_t first, uint64_t count, Prot prot) {
  if (count == 0) return Status::Ok();
  const uint64_t next = boundaries_after(first, count, prot);
  if (mprotect(app(first), count * page_size_, prot_bits(prot)) != 0)
    return Status::Error(std::string("mprotect failed: ") + std::strerror(errno));
  std::memset(prots_ + first, static_cast<uint8_t>(prot), count);
  boundaries_ = next;
  return Status::Ok();
}

void Region::no_read_around(std::byte* view) const {
  // A file mapping's fault reads its neighbours in too (the kernel's
  // read-around). Here the neighbours of a home page or a cached copy are
  // mostly other pages' slots, so that would fill memory with pages nobody
  // uses (the thesis's memory pollution): one page per fault, and
  // scopedsm_prefetch reads ahead where the program says.
  if (file_backed_) madvise(view, bytes_, MADV_RANDOM);
}

Status Region::preallocate(uint64_t first, uint64_t count) const {
  if (!file_backed_ || count == 0) return Status::Ok();
  const int e = posix_fallocate(memfd_, static_cast<off_t>(first * page_size_), static_cast<off_t>(count * page_size_));
  if (e == 0) return Status::Ok();
  return Status::Error("cannot reserve disk space for " + std::to_string(count) + " page(s) at offset " +
                       std::to_string(first * page_size_) + " of " + backing_name_ + ": " + std::strerror(e));
}

uint64_t Region::read_ahead(uint64_t first, uint64_t count, const std::function<bool(uint64_t)>& wanted) const {
  if (!file_backed_ || count == 0) return 0;
  // mincore reports OS pages: a unit is missing if any of its OS pages is.
  const size_t per_unit = page_size_ / os_page_size_;
  std::vector<unsigned char> resident(count * per_unit);
  if (mincore(alias(first), count * page_size_, resident.data()) != 0) return 0;
  auto unit_resident = [&](uint64_t i) {
    for (size_t k = 0; k < per_unit; ++k)
      if (!(resident[i * per_unit + k] & 1)) return false;
    return true;
  };
  auto missing_here = [&](uint64_t i) { return !unit_resident(i) && wanted(first + i); };
  uint64_t missing = 0;
  uint64_t i = 0;
  while (i < count) {
    if (!missing_here(i)) {
      ++i;
      continue;
    }
    uint64_t j = i + 1;
    while (j < count && missing_here(j)) ++j;
    madvise(alias(first + i), (j - i) * page_size_, MADV_WILLNEED);
    missing += j - i;
    i = j;
  }
  return missing;
}

void Region::give_back(uint64_t first, uint64_t count) const {
  if (!file_backed_ || count == 0) return;
  // Shared file mappings: dropping them loses nothing (the page cache and
  // the file hold the contents); the protections of the app view stay.
  madvise(app(first), count * page_size_, MADV_DONTNEED);
  madvise(alias(first), count * page_size_, MADV_DONTNEED);
  // Starts writing dirty pages back and drops clean unmapped ones.
  posix_fadvise(memfd_, static_cast<off_t>(first * page_size_), static_cast<off_t>(count * page_size_),
                POSIX_FADV_DONTNEED);
}

void Region::discard(uint64_t first, uint64_t count) {
  fallocate(memfd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(first * page_size_),
            static_cast<off_t>(count * page_size_));
}

}  // namespace scopedsm
