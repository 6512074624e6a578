/* The part of ScopeDSM's OpenMP runtime linked into the program itself
 * (libscopedsm_omp_start.a; scopedsm-cc -fopenmp links it with
 * --wrap=main): it knows where the program's shared globals are, from the
 * symbols ScopeDSM's linker script defines around them, and it takes main's
 * place.
 *
 * scopedsm_omp_start runs before the program's own static constructors
 * (priority 101; the C library passes argc, argv and envp): the runtime
 * starts there, so that the constructors already see shared memory on the
 * master. __wrap_main replaces main: the master runs the program's main on
 * its shared stack; the other processes serve parallel regions and never
 * return. */
#include <stddef.h>

extern char __scopedsm_shared_start[];
extern char __scopedsm_shared_data_end[];  /* the initialized part ends here; zeros follow */
extern char __scopedsm_shared_end[];
extern const char __executable_start[];
extern const char etext[];

int __real_main(int argc, char** argv, char** envp);
void scopedsm_omp_boot(int argc, char** argv, void* start, void* data_end, void* end, const void* text_start,
                       const void* text_end);
int scopedsm_omp_run_main(int argc, char** argv, char** envp, int (*main)(int, char**, char**));

__attribute__((constructor(101))) static void scopedsm_omp_start(int argc, char** argv, char** envp) {
  (void)envp;
  scopedsm_omp_boot(argc, argv, __scopedsm_shared_start, __scopedsm_shared_data_end, __scopedsm_shared_end,
                    __executable_start, etext);
}

int __wrap_main(int argc, char** argv, char** envp) {
  return scopedsm_omp_run_main(argc, argv, envp, __real_main);
}
