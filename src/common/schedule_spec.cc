#include "common/schedule_spec.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace scopedsm {

namespace {

struct SchemeName {
  Scheme scheme;
  const char* name;
};
constexpr SchemeName kNames[] = {
    {Scheme::kStatic, "static"}, {Scheme::kSS, "ss"},     {Scheme::kBSS, "bss"},   {Scheme::kGSS, "gss"},
    {Scheme::kFactoring, "fs"},  {Scheme::kTSS, "tss"},   {Scheme::kAFS, "afs"},   {Scheme::kSSS, "sss"},
    {Scheme::kAAFS, "aafs"},     {Scheme::kABS, "abs"},
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

bool parse_count(const std::string& text, int64_t* out) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < 1) return false;
  *out = v;
  return true;
}

}  // namespace

const char* schedule_grammar() {
  return "static, ss, bss[,K], gss[,K], fs, tss[,first[,last]], afs[,k], sss[,alpha], aafs[,k], abs[,gss[,k]] or "
         "abs,bss[,K] (K, k, first, last: positive integers; 0 < alpha < 1), or OpenMP's static,K, dynamic[,K], "
         "guided[,K] or auto, with an optional monotonic: or nonmonotonic: prefix";
}

bool is_affinity_scheme(Scheme s) { return s == Scheme::kAFS || s == Scheme::kAAFS || s == Scheme::kABS; }

Status parse_schedule(const std::string& text, Schedule* out) {
  const auto bad = [&] { return Status::Error("'" + text + "' is not a schedule: expected " + schedule_grammar()); };
  std::string body = text;
  for (const char* modifier : {"monotonic:", "nonmonotonic:"})
    if (body.rfind(modifier, 0) == 0) body.erase(0, std::string(modifier).size());
  std::vector<std::string> parts = split(body);
  if (parts[0] == "factoring") parts[0] = "fs";
  // OpenMP's names for the same schemes.
  if (parts[0] == "dynamic") parts[0] = parts.size() == 1 ? "ss" : "bss";
  if (parts[0] == "static" && parts.size() > 1) parts[0] = "bss";
  if (parts[0] == "guided") parts[0] = "gss";
  if (parts[0] == "auto" && parts.size() == 1) parts[0] = "static";
  Schedule s;
  bool named = false;
  for (const SchemeName& n : kNames) {
    if (parts[0] == n.name) {
      s.scheme = n.scheme;
      named = true;
    }
  }
  if (!named) return bad();
  const size_t args = parts.size() - 1;
  switch (s.scheme) {
    case Scheme::kStatic:
    case Scheme::kSS:
    case Scheme::kFactoring:
      if (args != 0) return bad();
      break;
    case Scheme::kGSS:
      if (args > 1 || (args == 1 && !parse_count(parts[1], &s.min_chunk))) return bad();
      break;
    case Scheme::kBSS:
      if (args > 1 || (args == 1 && !parse_count(parts[1], &s.chunk))) return bad();
      break;
    case Scheme::kTSS:
      if (args > 2 || (args >= 1 && !parse_count(parts[1], &s.tss_first)) ||
          (args == 2 && !parse_count(parts[2], &s.tss_last)))
        return bad();
      if (args == 2 && s.tss_last > s.tss_first) return bad();
      break;
    case Scheme::kAFS:
    case Scheme::kAAFS:
      if (args > 1 || (args == 1 && !parse_count(parts[1], &s.divisor))) return bad();
      break;
    case Scheme::kSSS: {
      if (args > 1) return bad();
      if (args == 1) {
        char* end = nullptr;
        errno = 0;
        s.alpha = std::strtod(parts[1].c_str(), &end);
        if (parts[1].empty() || errno != 0 || *end != '\0' || !(s.alpha > 0 && s.alpha < 1)) return bad();
      }
      break;
    }
    case Scheme::kABS:
      if (args == 0) break;
      if (parts[1] == "bss") {
        s.local_bss = true;
        if (args > 2 || (args == 2 && !parse_count(parts[2], &s.chunk))) return bad();
      } else if (parts[1] == "gss") {
        if (args > 2 || (args == 2 && !parse_count(parts[2], &s.divisor))) return bad();
      } else {
        return bad();
      }
      break;
  }
  *out = s;
  return Status::Ok();
}

std::string schedule_text(const Schedule& s) {
  std::string t;
  for (const SchemeName& n : kNames)
    if (n.scheme == s.scheme) t = n.name;
  const auto arg = [&t](int64_t v) {
    if (v > 0) t += "," + std::to_string(v);
  };
  switch (s.scheme) {
    case Scheme::kBSS: arg(s.chunk); break;
    case Scheme::kGSS: arg(s.min_chunk); break;
    case Scheme::kTSS:
      arg(s.tss_first);
      if (s.tss_first > 0) arg(s.tss_last);
      break;
    case Scheme::kAFS:
    case Scheme::kAAFS: arg(s.divisor); break;
    case Scheme::kSSS: {
      char buf[32];
      std::snprintf(buf, sizeof buf, ",%.17g", s.alpha);
      if (s.alpha != Schedule().alpha) t += buf;
      break;
    }
    case Scheme::kABS:
      t += s.local_bss ? ",bss" : ",gss";
      arg(s.local_bss ? s.chunk : s.divisor);
      break;
    default: break;
  }
  return t;
}

}  // namespace scopedsm
