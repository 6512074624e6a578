/* The __atomic_* library calls (libatomic's ABI) for OpenMP programs built
 * with -fno-inline-atomics, which scopedsm-cc -fopenmp adds: `omp atomic`,
 * reductions and the program's own __atomic builtins become these calls.
 * A word in the shared region goes to the atomics at its home
 * (docs/MEMORY_MODEL.md, "Atomics at the home"), so that every process's
 * update lands on the one authoritative copy; any other word gets the
 * CPU's atomic instruction, as libatomic would do.
 *
 * Four- and eight-byte words map onto the home's operations directly
 * (subtraction is the addition of the negated operand; nand a
 * compare-and-swap loop). One- and two-byte words are updated by a
 * compare-and-swap loop on the aligned four-byte word that holds them.
 * Sixteen-byte atomics on shared memory are not supported (the job ends
 * saying so); in private memory they are the CPU's.
 *
 * Each function is defined under an internal name with the libcall's name
 * as its assembler name, so that the compiler does not take the definition
 * for its own builtin. */
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <string.h>

/* omp/atomic_bridge.cc: 1 if addr is shared memory of a running runtime and
 * the operation was done at its home (*old set), else 0. op and type are
 * scopedsm.h's numbers. */
int scopedsm_omp_atomic_shared(void* addr, int op, int type, uint64_t operand, uint64_t expected, int memorder,
                               uint64_t* old);
/* 1 if addr lies in the shared region of a running runtime. */
int scopedsm_omp_is_shared(const void* addr);
/* Ends the job: a 16-byte atomic on shared memory. */
void scopedsm_omp_atomic16_shared(const void* addr) __attribute__((noreturn));

enum { OP_ADD = 0, OP_XCHG = 1, OP_CAS = 2, OP_AND = 3, OP_OR = 4, OP_XOR = 5, OP_LOAD = 8 };
enum { T_U32 = 1, T_U64 = 3 };

/* ---- 4 and 8 bytes --------------------------------------------------------- */

#define WORD_OPS(N, T, TY)                                                                                        \
  T load_##N(volatile void* p, int m) __asm__("__atomic_load_" #N);                                       \
  T load_##N(volatile void* p, int m) {                                                                   \
    uint64_t old;                                                                                                 \
    if (scopedsm_omp_atomic_shared((void*)p, OP_LOAD, TY, 0, 0, m, &old)) return (T)old;                         \
    return __atomic_load_n((volatile T*)p, __ATOMIC_SEQ_CST);                                                     \
  }                                                                                                               \
  void store_##N(volatile void* p, T v, int m) __asm__("__atomic_store_" #N);                             \
  void store_##N(volatile void* p, T v, int m) {                                                          \
    uint64_t old;                                                                                                 \
    if (scopedsm_omp_atomic_shared((void*)p, OP_XCHG, TY, v, 0, m, &old)) return;                                \
    __atomic_store_n((volatile T*)p, v, __ATOMIC_SEQ_CST);                                                        \
  }                                                                                                               \
  T exchange_##N(volatile void* p, T v, int m) __asm__("__atomic_exchange_" #N);                          \
  T exchange_##N(volatile void* p, T v, int m) {                                                          \
    uint64_t old;                                                                                                 \
    if (scopedsm_omp_atomic_shared((void*)p, OP_XCHG, TY, v, 0, m, &old)) return (T)old;                         \
    return __atomic_exchange_n((volatile T*)p, v, __ATOMIC_SEQ_CST);                                              \
  }                                                                                                               \
  bool cas_##N(volatile void* p, void* e, T d, bool w, int s, int f) __asm__("__atomic_compare_exchange_" #N); \
  bool cas_##N(volatile void* p, void* e, T d, bool w, int s, int f) {                                    \
    (void)w;                                                                                                      \
    (void)f;                                                                                                      \
    T expected;                                                                                                   \
    memcpy(&expected, e, sizeof expected);                                                                        \
    uint64_t old;                                                                                                 \
    if (scopedsm_omp_atomic_shared((void*)p, OP_CAS, TY, d, expected, s, &old)) {                                \
      if ((T)old == expected) return true;                                                                        \
      T was = (T)old;                                                                                             \
      memcpy(e, &was, sizeof was);                                                                                \
      return false;                                                                                               \
    }                                                                                                             \
    return __atomic_compare_exchange_n((volatile T*)p, (T*)e, d, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);      \
  }                                                                                                               \
  /* fetch_OP returns the old value, OP_fetch the new one. */                                                     \
  static T rmw_##N(volatile void* p, T v, int m, int op, int neg, int nand) {                                    \
    uint64_t old;                                                                                                 \
    if (!nand && scopedsm_omp_atomic_shared((void*)p, op, TY, neg ? (T)(0 - v) : v, 0, m, &old)) return (T)old;  \
    if (nand && scopedsm_omp_is_shared((const void*)p)) {                                                         \
      T cur = load_##N(p, 0);                                                                                     \
      while (!cas_##N(p, &cur, (T)~(cur & v), false, m, 0)) {                                                     \
      }                                                                                                           \
      return cur;                                                                                                 \
    }                                                                                                             \
    volatile T* q = (volatile T*)p;                                                                               \
    if (nand) return __atomic_fetch_nand(q, v, __ATOMIC_SEQ_CST);                                                 \
    switch (op) {                                                                                                 \
      case OP_ADD: return neg ? __atomic_fetch_sub(q, v, __ATOMIC_SEQ_CST) : __atomic_fetch_add(q, v, __ATOMIC_SEQ_CST); \
      case OP_AND: return __atomic_fetch_and(q, v, __ATOMIC_SEQ_CST);                                             \
      case OP_OR: return __atomic_fetch_or(q, v, __ATOMIC_SEQ_CST);                                               \
      default: return __atomic_fetch_xor(q, v, __ATOMIC_SEQ_CST);                                                 \
    }                                                                                                             \
  }                                                                                                               \
  RMW(N, T, add, OP_ADD, 0, 0, +)                                                                                 \
  RMW(N, T, sub, OP_ADD, 1, 0, -)                                                                                 \
  RMW(N, T, and, OP_AND, 0, 0, &)                                                                                 \
  RMW(N, T, or, OP_OR, 0, 0, |)                                                                                   \
  RMW(N, T, xor, OP_XOR, 0, 0, ^)                                                                                 \
  T fetch_nand_##N(volatile void* p, T v, int m) __asm__("__atomic_fetch_nand_" #N);                      \
  T fetch_nand_##N(volatile void* p, T v, int m) { return rmw_##N(p, v, m, 0, 0, 1); }                    \
  T nand_fetch_##N(volatile void* p, T v, int m) __asm__("__atomic_nand_fetch_" #N);                      \
  T nand_fetch_##N(volatile void* p, T v, int m) { return (T)~(rmw_##N(p, v, m, 0, 0, 1) & v); }

#define RMW(N, T, NAME, OP, NEG, NAND, SYM)                                                                       \
  T fetch_##NAME##_##N(volatile void* p, T v, int m) __asm__("__atomic_fetch_" #NAME "_" #N);             \
  T fetch_##NAME##_##N(volatile void* p, T v, int m) { return rmw_##N(p, v, m, OP, NEG, NAND); }           \
  T NAME##_fetch_##N(volatile void* p, T v, int m) __asm__("__atomic_" #NAME "_fetch_" #N);               \
  T NAME##_fetch_##N(volatile void* p, T v, int m) { return (T)(rmw_##N(p, v, m, OP, NEG, NAND) SYM v); }

WORD_OPS(4, uint32_t, T_U32)
WORD_OPS(8, uint64_t, T_U64)

/* ---- 1 and 2 bytes: a compare-and-swap loop on the aligned 4-byte word ------------ */

#define SUB_OPS(N, T)                                                                                             \
  /* Applies f to the sub-word at p in shared memory; returns the old value. */                                   \
  static T sub_update_##N(volatile void* p, int m, int kind, T v, T expected, bool* swapped) {                   \
    uintptr_t a = (uintptr_t)p;                                                                                   \
    volatile void* w = (volatile void*)(a & ~(uintptr_t)3);                                                       \
    const int shift = (int)((a & 3) * 8);                                                                         \
    const uint32_t mask = (uint32_t)((1ull << (8 * N)) - 1) << shift;                                             \
    uint32_t cur = load_4(w, 0);                                                                                  \
    for (;;) {                                                                                                    \
      T old = (T)((cur & mask) >> shift);                                                                         \
      T now;                                                                                                      \
      switch (kind) {                                                                                             \
        case 0: now = (T)(old + v); break;                                                                        \
        case 1: now = (T)(old - v); break;                                                                        \
        case 2: now = (T)(old & v); break;                                                                        \
        case 3: now = (T)(old | v); break;                                                                        \
        case 4: now = (T)(old ^ v); break;                                                                        \
        case 5: now = (T)~(old & v); break;                                                                       \
        case 6: now = v; break;                                                                                   \
        case 7: /* compare-exchange */                                                                            \
          if (old != expected) {                                                                                  \
            *swapped = false;                                                                                     \
            return old;                                                                                           \
          }                                                                                                       \
          now = v;                                                                                                \
          break;                                                                                                  \
        default: return old; /* load */                                                                           \
      }                                                                                                           \
      const uint32_t next = (cur & ~mask) | ((uint32_t)now << shift);                                             \
      if (cas_4(w, &cur, next, false, m, 0)) {                                                                    \
        if (swapped) *swapped = true;                                                                             \
        return old;                                                                                               \
      }                                                                                                           \
    }                                                                                                             \
  }                                                                                                               \
  T load_##N(volatile void* p, int m) __asm__("__atomic_load_" #N);                                       \
  T load_##N(volatile void* p, int m) {                                                                   \
    if (scopedsm_omp_is_shared((const void*)p)) return sub_update_##N(p, m, 8, 0, 0, 0);                          \
    return __atomic_load_n((volatile T*)p, __ATOMIC_SEQ_CST);                                                     \
  }                                                                                                               \
  void store_##N(volatile void* p, T v, int m) __asm__("__atomic_store_" #N);                             \
  void store_##N(volatile void* p, T v, int m) {                                                          \
    if (scopedsm_omp_is_shared((const void*)p)) {                                                                 \
      (void)sub_update_##N(p, m, 6, v, 0, 0);                                                                     \
      return;                                                                                                     \
    }                                                                                                             \
    __atomic_store_n((volatile T*)p, v, __ATOMIC_SEQ_CST);                                                        \
  }                                                                                                               \
  T exchange_##N(volatile void* p, T v, int m) __asm__("__atomic_exchange_" #N);                          \
  T exchange_##N(volatile void* p, T v, int m) {                                                          \
    if (scopedsm_omp_is_shared((const void*)p)) return sub_update_##N(p, m, 6, v, 0, 0);                          \
    return __atomic_exchange_n((volatile T*)p, v, __ATOMIC_SEQ_CST);                                              \
  }                                                                                                               \
  bool cas_##N(volatile void* p, void* e, T d, bool w, int s, int f) __asm__("__atomic_compare_exchange_" #N); \
  bool cas_##N(volatile void* p, void* e, T d, bool w, int s, int f) {                                    \
    (void)w;                                                                                                      \
    (void)f;                                                                                                      \
    T expected;                                                                                                   \
    memcpy(&expected, e, sizeof expected);                                                                        \
    if (scopedsm_omp_is_shared((const void*)p)) {                                                                 \
      bool swapped = false;                                                                                       \
      T old = sub_update_##N(p, s, 7, d, expected, &swapped);                                                     \
      if (!swapped) memcpy(e, &old, sizeof old);                                                                  \
      return swapped;                                                                                             \
    }                                                                                                             \
    return __atomic_compare_exchange_n((volatile T*)p, (T*)e, d, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);      \
  }                                                                                                               \
  SUB_RMW(N, T, add, 0, +, __atomic_fetch_add)                                                                    \
  SUB_RMW(N, T, sub, 1, -, __atomic_fetch_sub)                                                                    \
  SUB_RMW(N, T, and, 2, &, __atomic_fetch_and)                                                                    \
  SUB_RMW(N, T, or, 3, |, __atomic_fetch_or)                                                                      \
  SUB_RMW(N, T, xor, 4, ^, __atomic_fetch_xor)                                                                    \
  T fetch_nand_##N(volatile void* p, T v, int m) __asm__("__atomic_fetch_nand_" #N);                      \
  T fetch_nand_##N(volatile void* p, T v, int m) {                                                        \
    if (scopedsm_omp_is_shared((const void*)p)) return sub_update_##N(p, m, 5, v, 0, 0);                          \
    return __atomic_fetch_nand((volatile T*)p, v, __ATOMIC_SEQ_CST);                                              \
  }                                                                                                               \
  T nand_fetch_##N(volatile void* p, T v, int m) __asm__("__atomic_nand_fetch_" #N);                      \
  T nand_fetch_##N(volatile void* p, T v, int m) { return (T)~(fetch_nand_##N(p, v, m) & v); }

#define SUB_RMW(N, T, NAME, KIND, SYM, BUILTIN)                                                                   \
  T fetch_##NAME##_##N(volatile void* p, T v, int m) __asm__("__atomic_fetch_" #NAME "_" #N);             \
  T fetch_##NAME##_##N(volatile void* p, T v, int m) {                                                    \
    if (scopedsm_omp_is_shared((const void*)p)) return sub_update_##N(p, m, KIND, v, 0, 0);                       \
    return BUILTIN((volatile T*)p, v, __ATOMIC_SEQ_CST);                                                          \
  }                                                                                                               \
  T NAME##_fetch_##N(volatile void* p, T v, int m) __asm__("__atomic_" #NAME "_fetch_" #N);               \
  T NAME##_fetch_##N(volatile void* p, T v, int m) { return (T)(fetch_##NAME##_##N(p, v, m) SYM v); }

SUB_OPS(1, uint8_t)
SUB_OPS(2, uint16_t)

/* ---- 16 bytes and odd sizes: private memory only, under one lock ------------------- */

static pthread_mutex_t g_wide = PTHREAD_MUTEX_INITIALIZER;

unsigned __int128 load_16(volatile void* p, int m) __asm__("__atomic_load_16");
unsigned __int128 load_16(volatile void* p, int m) {
  (void)m;
  if (scopedsm_omp_is_shared((const void*)p)) scopedsm_omp_atomic16_shared((const void*)p);
  unsigned __int128 v;
  pthread_mutex_lock(&g_wide);
  memcpy(&v, (const void*)p, sizeof v);
  pthread_mutex_unlock(&g_wide);
  return v;
}
bool cas_16(volatile void* p, void* e, unsigned __int128 d, bool w, int s, int f) __asm__("__atomic_compare_exchange_16");
bool cas_16(volatile void* p, void* e, unsigned __int128 d, bool w, int s, int f) {
  (void)w;
  (void)s;
  (void)f;
  if (scopedsm_omp_is_shared((const void*)p)) scopedsm_omp_atomic16_shared((const void*)p);
  bool swapped;
  pthread_mutex_lock(&g_wide);
  swapped = memcmp((const void*)p, e, 16) == 0;
  if (swapped) memcpy((void*)p, &d, 16);
  else memcpy(e, (const void*)p, 16);
  pthread_mutex_unlock(&g_wide);
  return swapped;
}

/* ---- the generic (any size) forms ---------------------------------------------------- */

void generic_load(size_t n, void* p, void* ret, int m) __asm__("__atomic_load");
void generic_load(size_t n, void* p, void* ret, int m) {
  switch (n) {
    case 1: { uint8_t v = load_1(p, m); memcpy(ret, &v, 1); return; }
    case 2: { uint16_t v = load_2(p, m); memcpy(ret, &v, 2); return; }
    case 4: { uint32_t v = load_4(p, m); memcpy(ret, &v, 4); return; }
    case 8: { uint64_t v = load_8(p, m); memcpy(ret, &v, 8); return; }
    default: break;
  }
  if (scopedsm_omp_is_shared(p)) scopedsm_omp_atomic16_shared(p);
  pthread_mutex_lock(&g_wide);
  memcpy(ret, p, n);
  pthread_mutex_unlock(&g_wide);
}
void generic_store(size_t n, void* p, void* val, int m) __asm__("__atomic_store");
void generic_store(size_t n, void* p, void* val, int m) {
  switch (n) {
    case 1: { uint8_t v; memcpy(&v, val, 1); store_1(p, v, m); return; }
    case 2: { uint16_t v; memcpy(&v, val, 2); store_2(p, v, m); return; }
    case 4: { uint32_t v; memcpy(&v, val, 4); store_4(p, v, m); return; }
    case 8: { uint64_t v; memcpy(&v, val, 8); store_8(p, v, m); return; }
    default: break;
  }
  if (scopedsm_omp_is_shared(p)) scopedsm_omp_atomic16_shared(p);
  pthread_mutex_lock(&g_wide);
  memcpy(p, val, n);
  pthread_mutex_unlock(&g_wide);
}
bool generic_cas(size_t n, void* p, void* e, void* d, int s, int f) __asm__("__atomic_compare_exchange");
bool generic_cas(size_t n, void* p, void* e, void* d, int s, int f) {
  switch (n) {
    case 1: { uint8_t v; memcpy(&v, d, 1); return cas_1(p, e, v, false, s, f); }
    case 2: { uint16_t v; memcpy(&v, d, 2); return cas_2(p, e, v, false, s, f); }
    case 4: { uint32_t v; memcpy(&v, d, 4); return cas_4(p, e, v, false, s, f); }
    case 8: { uint64_t v; memcpy(&v, d, 8); return cas_8(p, e, v, false, s, f); }
    default: break;
  }
  if (scopedsm_omp_is_shared(p)) scopedsm_omp_atomic16_shared(p);
  pthread_mutex_lock(&g_wide);
  const bool swapped = memcmp(p, e, n) == 0;
  if (swapped) memcpy(p, d, n);
  else memcpy(e, p, n);
  pthread_mutex_unlock(&g_wide);
  return swapped;
}
void generic_exchange(size_t n, void* p, void* val, void* ret, int m) __asm__("__atomic_exchange");
void generic_exchange(size_t n, void* p, void* val, void* ret, int m) {
  switch (n) {
    case 1: { uint8_t v; memcpy(&v, val, 1); v = exchange_1(p, v, m); memcpy(ret, &v, 1); return; }
    case 2: { uint16_t v; memcpy(&v, val, 2); v = exchange_2(p, v, m); memcpy(ret, &v, 2); return; }
    case 4: { uint32_t v; memcpy(&v, val, 4); v = exchange_4(p, v, m); memcpy(ret, &v, 4); return; }
    case 8: { uint64_t v; memcpy(&v, val, 8); v = exchange_8(p, v, m); memcpy(ret, &v, 8); return; }
    default: break;
  }
  if (scopedsm_omp_is_shared(p)) scopedsm_omp_atomic16_shared(p);
  pthread_mutex_lock(&g_wide);
  memcpy(ret, p, n);
  memcpy(p, val, n);
  pthread_mutex_unlock(&g_wide);
}

