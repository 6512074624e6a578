// docs/CONFIG.md's generated parts, made from the declarations of
// config_table.cc: the tables of settings (one per group) and of the tools'
// variables. Each sits between a pair of markers,
//   <!-- generated: NAME ... -->  and  <!-- end of generated: NAME -->,
// with NAME "settings" or "tool variables". `ninja config-doc` rewrites
// them (tools/config_doc.cc); a unit test checks that they are current.
// Built into those two programs, not into the runtime.
#pragma once

#include <string>

#include "common/status.h"

namespace scopedsm {

// The settings' tables, a "### <group>" heading before each group's.
std::string settings_markdown();
// The table of the variables the tools read.
std::string tool_variables_markdown();
// `doc` with every generated part replaced by what the declarations make
// now; an error if a marker is missing or out of order.
Status regenerate_config_doc(const std::string& doc, std::string* out);

}  // namespace scopedsm
