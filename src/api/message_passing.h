// Message passing between processes (jia_send, jia_recv, jia_bcast,
// jia_reduce and their scopedsm_ forms). It moves bytes only; it is not a
// coherence point. Waits poll, then sleep on the wake-up word, like every
// runtime wait; a receiver wakes the sender when it has taken a message.
// Buffers in shared memory go through a private copy, since MPI (or the
// kernel, for single-copy transfers) cannot take our page faults.
#pragma once

#include <cstddef>

namespace scopedsm {

class Runtime;

void mp_send(Runtime& rt, const char* call, const void* buf, size_t len, int to, int tag);
size_t mp_recv(Runtime& rt, const char* call, void* buf, size_t len, int from, int tag);
void mp_bcast(Runtime& rt, const char* call, void* buf, size_t len, int root);
void mp_reduce(Runtime& rt, const char* call, const void* send, void* recv, int count, int op, int root);

}  // namespace scopedsm
