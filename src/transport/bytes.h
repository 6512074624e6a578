// Byte buffers as the transport's parts pass them around.
//
// A finished message (Writer::finish) is a Bytes; once posted it is held as
// SharedBytes, so that one buffer can go to many destinations (a barrier's
// grant, the shutdown notice) and stays alive until MPI is done with every
// send of it.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace scopedsm {

using Bytes = std::vector<std::byte>;
using SharedBytes = std::shared_ptr<const Bytes>;

}  // namespace scopedsm
