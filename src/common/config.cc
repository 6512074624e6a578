// The machinery of the settings: reading them (parse_config), writing them
// (config_settings), and telling a misspelt variable from a known one. The
// settings themselves are declared in config_table.cc.
#include "common/config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace scopedsm {

namespace {

Status bad(const std::string& name, const std::string& value, const std::string& accepted) {
  return Status::Error(name + "='" + value + "' is invalid: expected " + accepted);
}

// Levenshtein distance: single-character insertions, deletions and substitutions.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool is_known_variable(const std::string& name) {
  if (find_setting(name) != nullptr) return true;
  for (const ToolVariable& v : tool_variables())
    if (name == v.name) return true;
  return false;
}

// The unknown ones of `names`, each with its closest known variable.
std::vector<Config::UnknownVariable> unknown_variables(const std::vector<std::string>& names) {
  std::vector<Config::UnknownVariable> unknown;
  for (const std::string& name : names) {
    if (name.rfind("SCOPEDSM_", 0) != 0 || is_known_variable(name)) continue;
    bool seen = false;
    for (const auto& u : unknown) seen = seen || u.name == name;
    if (!seen) unknown.push_back({name, closest_known_variable(name)});
  }
  return unknown;
}

}  // namespace

std::string Setting::key() const {
  std::string k = name.substr(std::string("SCOPEDSM_").size());
  for (char& ch : k) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return k;
}

std::string Setting::default_text() const {
  const std::string text = print(Config{});
  return text.empty() ? "none" : text;
}

Status Setting::read(const std::string& text, Config* c) const {
  std::string detail;
  if (parse(text, c, &detail)) return Status::Ok();
  return bad(name, text, detail.empty() ? accepted : accepted + " (" + detail + ")");
}

const Setting* find_setting(const std::string& name) {
  for (const Setting& s : settings())
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> scopedsm_variable_names() {
  std::vector<std::string> names;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "SCOPEDSM_", 9) != 0) continue;
    const char* eq = std::strchr(*e, '=');
    names.emplace_back(*e, eq == nullptr ? std::strlen(*e) : static_cast<size_t>(eq - *e));
  }
  return names;
}

std::string closest_known_variable(const std::string& name) {
  std::string best;
  size_t best_distance = SIZE_MAX;
  const auto consider = [&](const std::string& known) {
    const size_t d = edit_distance(name, known);
    if (d < best_distance) {
      best = known;
      best_distance = d;
    }
  };
  for (const Setting& s : settings()) consider(s.name);
  for (const ToolVariable& v : tool_variables()) consider(v.name);
  return best;
}

std::string describe_unknown(const Config::UnknownVariable& u) {
  return u.name + " is not a ScopeDSM variable (did you mean " + u.closest + "?)";
}

EnvLookup process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Status parse_config(const EnvLookup& lookup, Config* out, const std::vector<std::string>& names) {
  Config c;
  for (const Setting& setting : settings())
    if (auto v = lookup(setting.name.c_str()))
      if (Status s = setting.read(*v, &c); !s.ok()) return s;
  for (const SettingRule& rule : setting_rules())
    if (rule.refused(c)) return Status::Error(rule.message);
  c.unknown = unknown_variables(names);
  if (c.strict && !c.unknown.empty()) {
    std::string message;
    for (const auto& u : c.unknown) message += (message.empty() ? "" : "; ") + describe_unknown(u);
    return Status::Error("an unknown variable under SCOPEDSM_STRICT=on: " + message);
  }
  *out = c;
  return Status::Ok();
}

Status parse_net(const std::string& text, NetParams* out) {
  Config c;
  Status s = find_setting("SCOPEDSM_NET")->read(text, &c);
  if (s.ok()) *out = c.net;
  return s;
}

std::vector<std::pair<std::string, std::string>> config_settings(const Config& c) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Setting& s : settings()) {
    const std::string value = s.print(c);
    if (s.quiet_at_default && value == s.print(Config{})) continue;
    out.emplace_back(s.key(), value);
  }
  return out;
}

std::string describe_config(const Config& c) {
  std::string out;
  for (const auto& [name, value] : config_settings(c)) out += (out.empty() ? "" : " ") + name + "=" + value;
  return out;
}

}  // namespace scopedsm
