#include "protocol/notices.h"

#include <algorithm>

#include "common/checked.h"

namespace scopedsm {

void put_notices(Writer* out, const std::vector<WriteNotice>& notices) {
  out->put<uint32_t>(static_cast<uint32_t>(notices.size()));
  for (const auto& n : notices) {
    out->put<uint32_t>(n.page);
    out->put<int32_t>(pack_writer(n));
  }
}

int32_t pack_writer(const WriteNotice& n) {
  int32_t w = n.writer;
  if (n.writer >= 0 && n.offers_home) w |= kWireOffersHome;
  if (n.writer >= 0 && n.offers_home && n.touch_only) w |= kWireTouchOnly;
  return w;
}

void unpack_writer(int32_t w, WriteNotice* n) {
  n->writer = w;
  if (w >= 0 && (w & kWireOffersHome) != 0) {
    n->offers_home = true;
    n->writer &= ~kWireOffersHome;
    if ((n->writer & kWireTouchOnly) != 0) {
      n->touch_only = true;
      n->writer &= ~kWireTouchOnly;
    }
  }
}

Status get_notices(Reader* in, uint64_t page_limit, int ranks, std::vector<WriteNotice>* out) {
  uint32_t count = 0;
  if (Status s = in->get(&count); !s.ok()) return s;
  // Checked before reserving: a forged count must not size the vector.
  const std::optional<uint64_t> need = checked_mul<uint64_t>(count, 8);
  if (!need || *need > in->remaining()) return Status::Error("notice count exceeds the message");
  out->clear();
  out->reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    WriteNotice n{};
    if (Status s = in->get(&n.page); !s.ok()) return s;
    int32_t w = 0;
    if (Status s = in->get(&w); !s.ok()) return s;
    unpack_writer(w, &n);
    if (n.page >= page_limit) return Status::Error("notice names page " + std::to_string(n.page) + " outside the allocated region");
    if (n.writer != kMultipleWriters && (n.writer < 0 || n.writer >= ranks))
      return Status::Error("notice names writer " + std::to_string(n.writer) + " which is not a rank");
    out->push_back(n);
  }
  return Status::Ok();
}

namespace {

// The merge of two notices for one page (merge_sorted).
WriteNotice merge_one(const WriteNotice& a, const WriteNotice& b, bool touch_wins) {
  if (a.touch_only && b.touch_only) return a.writer <= b.writer ? a : b;
  if (a.touch_only != b.touch_only) {
    const WriteNotice& touch = a.touch_only ? a : b;
    const WriteNotice& write = a.touch_only ? b : a;
    return touch_wins ? touch : write;
  }
  const bool same = a.writer == b.writer;
  return {a.page, same ? a.writer : kMultipleWriters, same && a.offers_home && b.offers_home};
}

}  // namespace

void merge_sorted(std::vector<WriteNotice>* into, const std::vector<WriteNotice>& other, bool touch_wins) {
  if (other.empty()) return;
  std::vector<WriteNotice> out;
  out.reserve(into->size() + other.size());
  auto a = into->cbegin();
  auto b = other.cbegin();
  while (a != into->cend() && b != other.cend()) {
    if (a->page < b->page) {
      out.push_back(*a++);
    } else if (b->page < a->page) {
      out.push_back(*b++);
    } else {
      out.push_back(merge_one(*a, *b, touch_wins));
      ++a;
      ++b;
    }
  }
  out.insert(out.end(), a, into->cend());
  out.insert(out.end(), b, other.end());
  into->swap(out);
}

bool sorted_by_page(const std::vector<WriteNotice>& notices) {
  for (size_t i = 1; i < notices.size(); ++i)
    if (notices[i - 1].page >= notices[i].page) return false;
  return true;
}

void NoticeMerge::add(const WriteNotice& n) {
  auto [it, inserted] = writer_.try_emplace(n.page, n.writer);
  if (!inserted && it->second != n.writer) it->second = kMultipleWriters;
}

std::vector<WriteNotice> NoticeMerge::sorted() const {
  std::vector<WriteNotice> out;
  out.reserve(writer_.size());
  for (const auto& [page, writer] : writer_) out.push_back({page, writer});
  // Sorted, so the receiver invalidates in address order and can batch
  // protection changes over runs of pages.
  std::sort(out.begin(), out.end(), [](const WriteNotice& a, const WriteNotice& b) { return a.page < b.page; });
  return out;
}

std::vector<WriteNotice> NoticeMerge::take() {
  std::vector<WriteNotice> out = sorted();
  writer_.clear();
  return out;
}

}  // namespace scopedsm
