#include "omp/schedule.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace scopedsm::omp {

uint64_t iteration_count(const LoopSpec& s) {
  if (s.ull) {
    const auto start = static_cast<uint64_t>(s.start), end = static_cast<uint64_t>(s.end);
    const auto step = static_cast<uint64_t>(s.incr);
    if (s.up) {
      if (step == 0 || start >= end) return 0;
      return (end - start - 1) / step + 1;
    }
    const uint64_t down = 0 - step;  // the step's magnitude
    if (down == 0 || start <= end) return 0;
    return (start - end - 1) / down + 1;
  }
  const __int128 start = s.start, end = s.end, step = s.incr;
  if (step > 0 && start < end) return static_cast<uint64_t>((end - start - 1) / step + 1);
  if (step < 0 && start > end) return static_cast<uint64_t>((start - end - 1) / -step + 1);
  return 0;
}

bool static_chunk(uint64_t n, uint64_t chunk, int t, int threads, uint64_t k, uint64_t* lo, uint64_t* hi) {
  if (threads < 1 || t < 0 || t >= threads) return false;
  const auto T = static_cast<uint64_t>(threads), i = static_cast<uint64_t>(t);
  if (chunk == 0) {
    if (k != 0) return false;
    const uint64_t q = n / T, extra = n % T;
    const uint64_t first = q * i + std::min(i, extra);
    const uint64_t len = q + (i < extra ? 1 : 0);
    if (len == 0) return false;
    *lo = first;
    *hi = first + len;
    return true;
  }
  // Chunk number k * T + i, if it starts inside the loop.
  const unsigned __int128 c = static_cast<unsigned __int128>(k) * T + i;
  const unsigned __int128 first = c * chunk;
  if (first >= n) return false;
  *lo = static_cast<uint64_t>(first);
  *hi = static_cast<uint64_t>(std::min<unsigned __int128>(first + chunk, n));
  return true;
}

uint64_t guided_chunk(uint64_t remaining, int threads, uint64_t chunk) {
  if (remaining == 0) return 0;
  const uint64_t T = threads < 1 ? 1 : static_cast<uint64_t>(threads);
  uint64_t q = remaining / T + (remaining % T != 0 ? 1 : 0);
  q = std::max<uint64_t>(q, chunk == 0 ? 1 : chunk);
  return std::min(q, remaining);
}

void program_bounds(const LoopSpec& s, uint64_t n, uint64_t lo, uint64_t hi, int64_t* first, int64_t* last) {
  auto at = [&](uint64_t i) -> int64_t {
    if (s.ull) return static_cast<int64_t>(static_cast<uint64_t>(s.start) + i * static_cast<uint64_t>(s.incr));
    return static_cast<int64_t>(static_cast<__int128>(s.start) + static_cast<__int128>(i) * s.incr);
  };
  *first = at(lo);
  *last = hi >= n ? s.end : at(hi);
}

namespace {

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool parse_schedule(const std::string& text, int* kind, int* chunk, bool* monotonic, std::string* error) {
  std::string t = lower(trim(text));
  bool mono = false;
  if (const size_t colon = t.find(':'); colon != std::string::npos) {
    const std::string mod = trim(t.substr(0, colon));
    if (mod == "monotonic") mono = true;
    else if (mod != "nonmonotonic") {
      *error = "the modifier '" + mod + "' is neither monotonic nor nonmonotonic";
      return false;
    }
    t = trim(t.substr(colon + 1));
  }
  std::string name = t, size;
  if (const size_t comma = t.find(','); comma != std::string::npos) {
    name = trim(t.substr(0, comma));
    size = trim(t.substr(comma + 1));
  }
  int k = 0;
  if (name == "static") k = 1;
  else if (name == "dynamic") k = 2;
  else if (name == "guided") k = 3;
  else if (name == "auto") k = 4;
  else {
    *error = "'" + name + "' is not a schedule (static, dynamic, guided or auto)";
    return false;
  }
  int c = 0;
  if (!size.empty()) {
    char* endp = nullptr;
    const long v = std::strtol(size.c_str(), &endp, 10);
    if (*endp != '\0' || v < 1 || v > 2147483647) {
      *error = "the chunk size '" + size + "' is not a positive integer";
      return false;
    }
    if (k == 4) {
      *error = "auto takes no chunk size";
      return false;
    }
    c = static_cast<int>(v);
  }
  *kind = k;
  *chunk = c;
  *monotonic = mono;
  return true;
}

}  // namespace scopedsm::omp
