#include "common/doc_path.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>

#ifndef SCOPEDSM_SOURCE_DOCS
#define SCOPEDSM_SOURCE_DOCS ""
#endif

namespace scopedsm {

namespace {

std::string parent(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::string doc_path_for(const std::string& name, const std::string& library_path, const std::string& source_docs,
                         const std::function<bool(const std::string&)>& exists) {
  const std::string libdir = parent(library_path);
  if (!libdir.empty()) {
    const std::string prefix = parent(libdir);
    const std::string installed = (prefix == "/" ? "" : prefix) + "/share/doc/scopedsm/" + name;
    if (!prefix.empty() && exists(installed)) return installed;
  }
  if (!source_docs.empty() && exists(source_docs + "/" + name)) return source_docs + "/" + name;
  return "docs/" + name;
}

std::string doc_path(const std::string& name) {
  Dl_info info{};
  std::string library;
  if (dladdr(reinterpret_cast<void*>(&doc_path), &info) != 0 && info.dli_fname != nullptr) {
    char real[PATH_MAX];
    library = realpath(info.dli_fname, real) != nullptr ? real : info.dli_fname;
  }
  return doc_path_for(name, library, SCOPEDSM_SOURCE_DOCS, [](const std::string& path) {
    struct stat st{};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  });
}

}  // namespace scopedsm
