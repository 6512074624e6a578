// A GCC plugin for OpenMP programs built with scopedsm-cc -fopenmp (and the
// C++ and Fortran wrappers): it turns the memory fences that OpenMP's
// `flush` compiles to into calls of ScopeDSM's flush, which the runtime
// maps onto scope consistency's release and acquire (docs/OPENMP.md, "The
// memory model").
//
// GCC compiles `#pragma omp flush` (and Fortran's `!$omp flush`) to the
// builtin __sync_synchronize, and OpenMP 5's `flush acq_rel`, `flush
// release` and `flush acquire` to __atomic_thread_fence: CPU fences, which
// order one process's memory but say nothing to the other processes. The
// plugin's one GIMPLE pass, right after the OpenMP constructs are
// expanded into functions of their own (it runs after "ssa", which every
// function, outlined regions included, goes through at every -O level),
// retargets each such builtin call to scopedsm_omp_flush_full() or
// scopedsm_omp_flush(memorder) (omp/gomp_abi.cc). A program's own
// __sync_synchronize is a full fence too and is treated the same way.
//
// A second pass, before the constructs are lowered, refuses what ScopeDSM
// cannot run correctly and the compiler can see: `copyin` of a
// threadprivate array or structure, which GCC copies from the master's
// thread-local storage by address (no other process has that memory).
// GCC's plugin headers depend on each other's order.
#include <gcc-plugin.h>
#include <plugin-version.h>
#include <tree.h>
#include <tree-pass.h>
#include <context.h>
#include <function.h>
#include <basic-block.h>
#include <tree-ssa-alias.h>
#include <internal-fn.h>
#include <gimple-expr.h>
#include <is-a.h>
#include <gimple.h>
#include <gimple-iterator.h>
#include <stringpool.h>
#include <diagnostic-core.h>
#include <gimple-walk.h>
#include <tree-ssa-operands.h>
#include <gimple-ssa.h>

int plugin_is_GPL_compatible;

namespace {

const pass_data kPassData = {
    GIMPLE_PASS,
    "scopedsm_flush",
    OPTGROUP_NONE,
    TV_NONE,
    PROP_cfg,
    0,
    0,
    0,
    0,
};

// scopedsm_omp_flush_full(void) for __sync_synchronize, and
// scopedsm_omp_flush(int memorder) for __atomic_thread_fence(memorder): the
// same arguments as the builtins they replace, so the call keeps its
// operands (and, in SSA form, its virtual operands) and only changes target.
tree runtime_decl(const char* name, bool with_order) {
  tree type = with_order ? build_function_type_list(void_type_node, integer_type_node, NULL_TREE)
                         : build_function_type_list(void_type_node, NULL_TREE);
  tree decl = build_fn_decl(name, type);
  TREE_PUBLIC(decl) = 1;
  DECL_EXTERNAL(decl) = 1;
  DECL_ARTIFICIAL(decl) = 1;
  return decl;
}

void retarget(gimple* stmt, tree decl) {
  gcall* call = as_a<gcall*>(stmt);
  gimple_call_set_fndecl(call, decl);
  gimple_call_set_fntype(call, TREE_TYPE(decl));
  update_stmt(call);
}

class FlushPass : public gimple_opt_pass {
 public:
  explicit FlushPass(gcc::context* ctx) : gimple_opt_pass(kPassData, ctx) {}
  unsigned int execute(function* fun) override {
    basic_block bb;
    FOR_EACH_BB_FN(bb, fun) {
      for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple* stmt = gsi_stmt(gsi);
        if (gimple_call_builtin_p(stmt, BUILT_IN_SYNC_SYNCHRONIZE)) {
          static tree full = runtime_decl("scopedsm_omp_flush_full", false);
          retarget(stmt, full);
        } else if (gimple_call_builtin_p(stmt, BUILT_IN_ATOMIC_THREAD_FENCE)) {
          static tree ordered = runtime_decl("scopedsm_omp_flush", true);
          retarget(stmt, ordered);
        }
      }
    }
    return 0;
  }
};

const pass_data kCheckData = {
    GIMPLE_PASS,
    "scopedsm_omp_check",
    OPTGROUP_NONE,
    TV_NONE,
    PROP_gimple_any,
    0,
    0,
    0,
    0,
};

tree check_stmt(gimple_stmt_iterator* gsi, bool* handled, struct walk_stmt_info*) {
  gimple* stmt = gsi_stmt(*gsi);
  *handled = false;
  if (gimple_code(stmt) != GIMPLE_OMP_PARALLEL) return NULL_TREE;
  for (tree c = gimple_omp_parallel_clauses(stmt); c != NULL_TREE; c = OMP_CLAUSE_CHAIN(c)) {
    if (OMP_CLAUSE_CODE(c) != OMP_CLAUSE_COPYIN) continue;
    tree decl = OMP_CLAUSE_DECL(c);
    if (AGGREGATE_TYPE_P(TREE_TYPE(decl)))
      error_at(OMP_CLAUSE_LOCATION(c),
               "ScopeDSM: %<copyin%> of the threadprivate array or structure %qD is not supported (the copy of the "
               "master thread is in its thread-local storage, which no other process can read); copy it through a "
               "shared variable instead (docs/OPENMP.md)",
               decl);
  }
  return NULL_TREE;
}

class CheckPass : public gimple_opt_pass {
 public:
  explicit CheckPass(gcc::context* ctx) : gimple_opt_pass(kCheckData, ctx) {}
  unsigned int execute(function* fun) override {
    gimple_seq body = gimple_body(fun->decl);
    struct walk_stmt_info wi;
    memset(&wi, 0, sizeof wi);
    walk_gimple_seq(body, check_stmt, nullptr, &wi);
    return 0;
  }
};

}  // namespace

int plugin_init(struct plugin_name_args* info, struct plugin_gcc_version* version) {
  if (!plugin_default_version_check(version, &gcc_version)) {
    fprintf(stderr, "scopedsm: the OpenMP flush plugin was built for GCC %s; rebuild ScopeDSM with this compiler\n",
            gcc_version.basever);
    return 1;
  }
  struct register_pass_info pass;
  pass.pass = new FlushPass(g);
  pass.reference_pass_name = "ssa";
  pass.ref_pass_instance_number = 1;
  pass.pos_op = PASS_POS_INSERT_AFTER;
  register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, nullptr, &pass);
  struct register_pass_info check;
  check.pass = new CheckPass(g);
  check.reference_pass_name = "omplower";
  check.ref_pass_instance_number = 1;
  check.pos_op = PASS_POS_INSERT_BEFORE;
  register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, nullptr, &check);
  return 0;
}
