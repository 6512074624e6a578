// Where the reference documents are, for messages that point at one ("see
// .../CONFIG.md"): an installation has them in <prefix>/share/doc/scopedsm
// (the library in <prefix>/lib), a build tree in the source tree's docs/.
#pragma once

#include <functional>
#include <string>

namespace scopedsm {

// The path of the document `name` (CONFIG.md) for a library loaded from
// `library_path`: <prefix>/share/doc/scopedsm/<name> when the library is
// <prefix>/lib/<file> and that document exists, else <source_docs>/<name>
// when that exists (a build tree), else docs/<name>. `exists` says whether
// a file exists.
std::string doc_path_for(const std::string& name, const std::string& library_path, const std::string& source_docs,
                         const std::function<bool(const std::string&)>& exists);

// doc_path_for for the library this code is in (found with dladdr), the
// source tree it was built from, and the file system.
std::string doc_path(const std::string& name);

}  // namespace scopedsm
