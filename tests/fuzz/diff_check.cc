#include "diff_check.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"
#include "protocol/diff.h"

namespace scopedsm::fuzz {

namespace {

using Page = std::vector<std::byte>;

// Accepted pages share these buffers (page % kSlots), so a record that
// writes the wrong page shows up as a change in another slot.
constexpr size_t kSlots = 3;

struct Home {
  const Setup* setup = nullptr;
  std::vector<Page> slots;
  int calls = 0;
  uint32_t asked = 0;

  static std::byte* locate(void* ctx, uint32_t page) {
    auto* h = static_cast<Home*>(ctx);
    ++h->calls;
    h->asked = page;
    return accepts(*h->setup, page) ? h->slots[page % kSlots].data() : nullptr;
  }
};

// A locator for exactly one page.
struct One {
  uint32_t page = 0;
  std::byte* data = nullptr;
  static std::byte* locate(void* ctx, uint32_t page) {
    auto* o = static_cast<One*>(ctx);
    return page == o->page ? o->data : nullptr;
  }
};

uint32_t u32_at(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint16_t u16_at(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void fill(Page* page, unsigned seed) {
  for (size_t i = 0; i < page->size(); ++i) (*page)[i] = static_cast<std::byte>((seed + i * 7) & 0xff);
}

// What protocol/diff.h says one record starting at `p` does, read directly
// from the format description rather than from diff.cc.
struct Expected {
  bool ok = false;
  uint32_t page = 0;
  size_t consumed = 0;
  size_t changed = 0;
  Page after;
};

Expected reference(const std::byte* p, size_t n, const Setup& s, const std::vector<Page>& slots) {
  Expected e;
  if (n < 8) return e;
  e.page = u32_at(p);
  const size_t body = u32_at(p + 4);
  if (n - 8 < body || !accepts(s, e.page)) return e;
  e.after = slots[e.page % kSlots];
  const std::byte* b = p + 8;
  const size_t words = s.page_size / 8;
  const size_t blocks = (words + 7) / 8;
  size_t pos = 0, next = 0;
  while (pos < body) {
    if (body - pos < 10) return e;
    const size_t head = u16_at(b + pos);
    const size_t block = head & 0x1fff, words_in_head = (head >> 13) + 1;
    uint64_t mask;
    std::memcpy(&mask, b + pos + 2, 8);
    pos += 10;
    if (mask == 0 || block < next || block >= blocks) return e;
    std::vector<size_t> changed_words;
    for (size_t j = 0; j < 8; ++j)
      if ((mask >> (8 * j) & 0xff) != 0) {
        if (block * 8 + j >= words) return e;  // a byte past the page's end
        changed_words.push_back(j);
      }
    if (changed_words.size() != words_in_head || body - pos < 8 * changed_words.size()) return e;
    for (const size_t j : changed_words) {
      for (size_t bit = 0; bit < 8; ++bit)
        if ((mask >> (8 * j + bit)) & 1u) e.after[(block * 8 + j) * 8 + bit] = b[pos + bit];
      pos += 8;
    }
    e.changed += static_cast<size_t>(std::popcount(mask));
    next = block + 1;
  }
  e.ok = true;
  e.consumed = 8 + body;
  return e;
}

// encode_diff(page vs twin) names exactly the differing bytes and applies
// back to the twin as the page.
void check_encoder(const Page& twin, const Page& page, uint32_t index, size_t page_size) {
  size_t differ = 0;
  for (size_t i = 0; i < page_size; ++i) differ += page[i] != twin[i];
  Writer w(MsgType::kDiff);
  const size_t start = w.size();
  const size_t changed = encode_diff(index, page.data(), twin.data(), page_size, &w);
  FUZZ_CHECK(changed == differ);
  const std::vector<std::byte> bytes = w.finish(0);
  FUZZ_CHECK((changed == 0) == (bytes.size() == start));
  if (changed == 0) return;
  Page copy = twin;
  One one{index, copy.data()};
  Reader r(bytes.data() + start, bytes.size() - start);
  uint32_t got = 0;
  size_t applied = 0;
  FUZZ_CHECK(apply_diff(&r, page_size, &One::locate, &one, &got, &applied).ok());
  FUZZ_CHECK(r.remaining() == 0);
  FUZZ_CHECK(got == index && applied == changed);
  FUZZ_CHECK(copy == page);
}

}  // namespace

void check_diff_stream(const std::byte* body, size_t n, const Setup& s) {
  Home home;
  home.setup = &s;
  for (size_t i = 0; i < kSlots; ++i) {
    home.slots.emplace_back(s.page_size);
    fill(&home.slots.back(), static_cast<unsigned>(i * 31 + 5));
  }
  Reader r(body, n);
  while (r.remaining() > 0) {
    const size_t at = n - r.remaining();
    const std::vector<Page> before = home.slots;
    const Expected e = reference(body + at, n - at, s, before);
    uint32_t page = 0xfeedface;
    size_t changed = 0xabcdef;
    home.calls = 0;
    const Status st = apply_diff(&r, s.page_size, &Home::locate, &home, &page, &changed);
    FUZZ_CHECK(st.ok() == e.ok);
    FUZZ_CHECK(home.calls <= 1);
    if (!st.ok()) {
      FUZZ_CHECK(!st.message().empty());
      FUZZ_CHECK(home.slots == before);
      return;  // the home server reports the first bad record and stops
    }
    FUZZ_CHECK(home.calls == 1 && home.asked == e.page);
    FUZZ_CHECK(page == e.page && changed == e.changed);
    FUZZ_CHECK(n - r.remaining() - at == e.consumed);
    const size_t slot = page % kSlots;
    for (size_t i = 0; i < kSlots; ++i) FUZZ_CHECK(home.slots[i] == (i == slot ? e.after : before[i]));
    check_encoder(before[slot], home.slots[slot], page, s.page_size);
  }
}

void check_diff_body(const std::byte* body, size_t n, const Setup& s) {
  if (n > UINT32_MAX) return;
  Writer w(MsgType::kDiff);
  const size_t start = w.size();
  w.put<uint32_t>(s.limits.pages > 2 ? 2 : 0);  // accepted by every rule but "none"
  w.put<uint32_t>(static_cast<uint32_t>(n));
  w.put_bytes(body, n);
  const std::vector<std::byte> record = w.finish(0);
  const std::vector<std::byte> payload(record.begin() + static_cast<std::ptrdiff_t>(start), record.end());
  check_diff_stream(payload.data(), payload.size(), s);
}

void check_diff_encoder(const std::byte* bytes, size_t n, const Setup& s) {
  const size_t ps = s.page_size;
  Page twin(ps);
  fill(&twin, n > 0 ? static_cast<unsigned>(bytes[0]) : 0u);
  Page page = twin;
  // Three bytes per write: a 16-bit offset and the value.
  for (size_t i = 1; i + 3 <= n; i += 3) page[(static_cast<size_t>(u16_at(bytes + i))) % ps] = bytes[i + 2];
  check_encoder(twin, page, 3, ps);
}

}  // namespace scopedsm::fuzz
