#include "protocol/messages.h"

#include "common/checked.h"

namespace scopedsm {

void FieldWriter::text(const char*, const std::string& s, uint32_t) {
  w_->put(static_cast<uint32_t>(s.size()));
  w_->put_bytes(s.data(), s.size());
}

void FieldWriter::blob(const std::vector<std::byte>& b) {
  w_->put(static_cast<uint32_t>(b.size()));
  w_->put_bytes(b.data(), b.size());
}

void FieldWriter::blobs(const std::vector<std::vector<std::byte>>& v) {
  w_->put(static_cast<uint32_t>(v.size()));
  for (const auto& b : v) blob(b);
}

bool FieldReader::get_bytes(size_t n, const std::byte** p) {
  if (status_.ok()) status_ = r_->get_bytes(n, p);
  return status_.ok();
}

void FieldReader::page(uint32_t& x) {
  if (get(&x) && x >= l_.pages) fail("page " + std::to_string(x) + " is not allocated");
}

void FieldReader::run(uint32_t first, uint32_t& n) {
  if (get(&n) && (n == 0 || n > kMaxFetchPages || first + static_cast<uint64_t>(n) > l_.pages))
    fail("a run of " + std::to_string(n) + " pages from page " + std::to_string(first) + " is out of range");
}

void FieldReader::lane(uint32_t& x) {
  if (get(&x) && x > kMaxAsyncFetches)
    fail("reply lane " + std::to_string(x) + " is out of range (0 to " + std::to_string(kMaxAsyncFetches) + ")");
}

void FieldReader::lock(uint32_t& x) {
  if (get(&x) && x >= static_cast<uint32_t>(l_.locks)) fail("lock id " + std::to_string(x) + " out of range");
}

void FieldReader::cv(uint32_t& x) {
  if (get(&x) && x >= static_cast<uint32_t>(l_.condvars))
    fail("condition variable " + std::to_string(x) + " out of range");
}

void FieldReader::rank(const char* name, int32_t& x) {
  if (get(&x) && (x < 0 || x >= l_.ranks)) fail(std::string(name) + " " + std::to_string(x) + " is not a rank");
}

void FieldReader::flag(const char* name, bool& b) {
  uint8_t x = 0;
  if (!get(&x)) return;
  if (x > 1) fail(std::string(name) + " is " + std::to_string(x) + ", not 0 or 1");
  b = x == 1;
}

void FieldReader::notices(std::vector<WriteNotice>& v) {
  if (status_.ok()) status_ = get_notices(r_, l_.pages, l_.ranks, &v);
}

void FieldReader::text(const char* name, std::string& s, uint32_t max) {
  uint32_t n = 0;
  const std::byte* p = nullptr;
  if (!get(&n)) return;
  // Checked before the bytes are looked at: a text has a bound of its own,
  // whatever the message could hold.
  if (n > max) return fail(std::string(name) + " too long");
  if (get_bytes(n, &p)) s.assign(reinterpret_cast<const char*>(p), n);
}

void FieldReader::blob(std::vector<std::byte>& b) {
  uint32_t n = 0;
  const std::byte* p = nullptr;
  if (get(&n) && get_bytes(n, &p)) b.assign(p, p + n);
}

void FieldReader::blobs(std::vector<std::vector<std::byte>>& v) {
  uint32_t count = 0;
  if (!get(&count)) return;
  if (count > static_cast<uint32_t>(l_.ranks)) return fail("more payloads than ranks");
  // Checked before sizing the vector: a forged count must not allocate.
  const std::optional<uint64_t> need = checked_mul<uint64_t>(count, 4);  // a u32 length per payload at least
  if (!need || *need > r_->remaining()) return fail("payload count exceeds the message");
  v.assign(count, {});
  for (auto& b : v) blob(b);
}

void FieldReader::tail(std::span<const std::byte>& bytes) {
  const size_t n = r_->remaining();
  const std::byte* p = nullptr;
  if (get_bytes(n, &p)) bytes = {p, n};
}

Status FieldReader::finish() {
  if (!status_.ok()) return status_;
  return r_->remaining() == 0 ? Status::Ok() : Status::Error("trailing bytes after the payload");
}

}  // namespace scopedsm
