#include "common/config_doc.h"

#include "common/config.h"

namespace scopedsm {

namespace {

// A table cell: a '|' would end it.
std::string cell(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

std::string code(const std::string& text) { return "`" + text + "`"; }

struct Part {
  const char* name;
  std::string (*make)();
};
constexpr Part kParts[] = {{"settings", &settings_markdown}, {"tool variables", &tool_variables_markdown}};

}  // namespace

std::string settings_markdown() {
  std::string out;
  for (SettingGroup group : kSettingGroups) {
    out += std::string(out.empty() ? "" : "\n") + "### " + setting_group_title(group) + "\n\n";
    out += "| Variable | Default | Accepted | Meaning |\n|---|---|---|---|\n";
    for (const Setting& s : settings()) {
      if (s.group != group) continue;
      const std::string dflt = s.print(Config{}).empty() ? "none" : code(s.default_text());
      out += "| " + code(s.name) + " | " + cell(dflt) + " | " + cell(s.accepted) + " | " + cell(s.doc) + " |\n";
    }
  }
  return out;
}

std::string tool_variables_markdown() {
  std::string out = "| Variable | Read by | Meaning |\n|---|---|---|\n";
  for (const ToolVariable& v : tool_variables())
    out += "| " + code(v.name) + " | " + cell(v.read_by) + " | " + cell(v.meaning) + " |\n";
  return out;
}

Status regenerate_config_doc(const std::string& doc, std::string* out) {
  std::string text = doc;
  for (const Part& part : kParts) {
    const std::string begin = std::string("<!-- generated: ") + part.name + " ";
    const std::string end = std::string("<!-- end of generated: ") + part.name + " -->";
    const size_t b = text.find(begin);
    const size_t body = b == std::string::npos ? b : text.find("-->\n", b);
    const size_t e = text.find(end);
    if (b == std::string::npos || body == std::string::npos || e == std::string::npos || e < body)
      return Status::Error("the markers '" + begin + "...-->' and '" + end + "' are missing or out of order");
    text = text.substr(0, body + 4) + "\n" + part.make() + "\n" + text.substr(e);
  }
  *out = text;
  return Status::Ok();
}

}  // namespace scopedsm
