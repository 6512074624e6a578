"""Unit tests of compile.py: what the compiler wrappers add."""
import unittest

from scopedsm_tools import compile as wrapper

CONFIG = {"include_dirs": ["/src/include"], "lib_dir": "/b/src", "seq_lib_dir": "/b/src",
          "mpi_include_dirs": ["/mpi/include"], "mpi_compile_definitions": [], "mpi_compile_options": [],
          "mpi_libraries": ["/mpi/lib/libmpi.so"], "mpi_link_flags": [], "c_compiler": "/usr/bin/cc",
          "c_legacy_flags": ["-Wno-implicit-int", "-std=gnu17"]}


class CompileTest(unittest.TestCase):
    def test_link_adds_library_rpath_and_mpi(self):
        cmd = wrapper.build_command(CONFIG, "c", ["x.c", "-o", "x"], "cc", False, ["-Wno-implicit-int"])
        self.assertEqual(cmd[:3], ["cc", "-Wno-implicit-int", "-I/src/include"])
        self.assertLess(cmd.index("x.c"), cmd.index("-lscopedsm"))
        for flag in ("-Wl,-rpath,/b/src", "/mpi/lib/libmpi.so", "-Wl,-rpath,/mpi/lib", "-I/mpi/include"):
            self.assertIn(flag, cmd)

    def test_compile_only_does_not_link(self):
        cmd = wrapper.build_command(CONFIG, "c", ["-c", "x.c"], "cc", False, [])
        self.assertNotIn("-lscopedsm", cmd)

    def test_seq_links_the_sequential_library_without_mpi(self):
        cmd = wrapper.build_command(CONFIG, "c", ["x.c"], "cc", True, [])
        self.assertIn("-lscopedsm_seq", cmd)
        self.assertNotIn("-lscopedsm", cmd)
        self.assertNotIn("/mpi/lib/libmpi.so", cmd)
        self.assertNotIn("-I/mpi/include", cmd)

    def test_cxx_skips_mpi_cxx_bindings(self):
        cmd = wrapper.build_command(CONFIG, "c++", ["x.cc"], "c++", False, [])
        self.assertIn("-DOMPI_SKIP_MPICXX=1", cmd)

    def test_openmp_links_scopedsms_runtime_not_libgomp(self):
        import contextlib
        import io
        with contextlib.redirect_stderr(io.StringIO()):  # (the plugin warning: no plugin in this fake build)
            cmd = wrapper.build_command(CONFIG, "c", ["-fopenmp", "x.c", "-lgomp", "-o", "x"], "cc", False, [])
        self.assertIn("-fno-inline-atomics", cmd)
        self.assertIn("-no-pie", cmd)
        self.assertIn("-lscopedsm_omp", cmd)
        self.assertIn("-Wl,-T,/b/src/scopedsm_omp.ld", cmd)
        self.assertNotIn("-lgomp", cmd, "a -lgomp of the user's would take the runtime's place")
        wraps = next(a for a in cmd if a.startswith("-Wl,--wrap="))
        for f in ("main", "malloc", "free", "_Znwm", "sigaction"):
            self.assertIn(f"--wrap={f}", wraps)
        self.assertNotIn("_gfortran_set_options", wraps, "only Fortran links wrap the Fortran runtime's options")
        self.assertLess(cmd.index("-lscopedsm_omp"), cmd.index("-lscopedsm"), "the OpenMP runtime first")
        self.assertEqual(cmd[-1], "-Wl,--as-needed", "libgomp, which -fopenmp adds after, is dropped")

    def test_openmp_compile_only_adds_no_link_flags(self):
        import contextlib
        import io
        with contextlib.redirect_stderr(io.StringIO()):
            cmd = wrapper.build_command(CONFIG, "c", ["-fopenmp", "-c", "x.c"], "cc", False, [])
        self.assertIn("-fno-inline-atomics", cmd)
        self.assertNotIn("-no-pie", cmd)
        self.assertNotIn("-lscopedsm_omp", cmd)

    def test_a_link_naming_an_openmp_runtime_is_an_openmp_link(self):
        # CMake's OpenMP::OpenMP_C links the libraries FindOpenMP found, without -fopenmp.
        cmd = wrapper.build_command(CONFIG, "c", ["x.o", "/b/src/libscopedsm_omp_start.a", "/b/src/libscopedsm_omp.so",
                                                  "/usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so", "-o", "x"],
                                    "cc", False, [])
        self.assertIn("-no-pie", cmd)
        self.assertEqual(sum(1 for a in cmd if "libscopedsm_omp" in a or a == "-lscopedsm_omp"), 2,
                         "the runtime's libraries once each, where the wrapper puts them")
        self.assertFalse(any("libgomp" in a for a in cmd))

    def test_openmp_simd_is_not_openmp(self):
        cmd = wrapper.build_command(CONFIG, "c", ["-fopenmp-simd", "x.c"], "cc", False, [])
        self.assertNotIn("-lscopedsm_omp", cmd)

    def test_user_std_replaces_ours(self):
        self.assertEqual(wrapper.legacy_flags(CONFIG, "/usr/bin/cc", ["x.c"]), ["-Wno-implicit-int", "-std=gnu17"])
        self.assertEqual(wrapper.legacy_flags(CONFIG, "/usr/bin/cc", ["-std=c99", "x.c"]), ["-Wno-implicit-int"])

    def test_c_links_common_symbols_cxx_does_not_need_to(self):
        self.assertIn("-fcommon", wrapper.compile_flags(CONFIG, "c", False))
        self.assertNotIn("-fcommon", wrapper.compile_flags(CONFIG, "c++", False))

    def test_every_compiler_variable_is_documented(self):
        # docs/CONFIG.md's rows are the variables the runtime knows
        # (Config.EveryVariableDocsConfigListsIsKnown), so none of these is
        # reported as unknown.
        import os
        docs = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "CONFIG.md"), encoding="utf-8").read()
        for name, env_var, key, fallback in wrapper.LANGUAGES.values():
            self.assertIn(f"| `{env_var}` |", docs, f"{env_var} ({name}) is not a row of docs/CONFIG.md")

    def test_werror_is_never_retried_with_the_allowances(self):
        calls = []

        def fake_run(cmd, name, compiler, env_var, capture=False):
            calls.append(cmd)
            err = b"x.c:3:7: error: implicit declaration of function 'atoi' [-Werror=implicit-function-declaration]"
            return 1, b"", err

        saved = wrapper._run
        wrapper._run = fake_run
        try:
            rc = wrapper.compile_auto(CONFIG, "c", ["-Werror", "x.c"], "cc", False, "scopedsm-cc", "SCOPEDSM_CC")
        finally:
            wrapper._run = saved
        self.assertEqual(rc, 1)
        self.assertEqual(len(calls), 1)

    def test_legacy_is_needed_only_for_errors_legacy_c_draws(self):
        gcc14 = "x.c:3:7: error: implicit declaration of function 'atoi' [-Wimplicit-function-declaration]"
        clang = "x.c:5:5: error: incompatible integer to pointer conversion assigning to 'double *' from " \
                "'unsigned long' [-Wint-conversion]"
        c23 = "x.c:1:1: error: old-style parameter declarations in prototyped function definition"
        werror = "x.c:1:1: error: return type defaults to 'int' [-Werror=implicit-int]"
        for text in (gcc14, clang, c23, werror):
            self.assertTrue(wrapper.needs_legacy(text), text)
        warning = "x.c:3:7: warning: implicit declaration of function 'perror' [-Wimplicit-function-declaration]"
        other = "x.c:3:7: error: 'y' undeclared (first use in this function)"
        link = "x.c:(.text+0x5): undefined reference to `implicitly'"
        for text in (warning, other, link):
            self.assertFalse(wrapper.needs_legacy(text), text)

    def test_fortran_links_the_module_library_before_the_runtime(self):
        config = dict(CONFIG, fortran_module_dirs=["/b/fortran"], fortran_lib_dir="/b/src")
        cmd = wrapper.build_command(config, "fortran", ["x.f90", "-o", "x"], "gfortran", False, [])
        self.assertEqual(cmd[:4], ["gfortran", "-fcray-pointer", "-I/src/include", "-I/b/fortran"])
        self.assertLess(cmd.index("x.f90"), cmd.index("-lscopedsm_fortran"))
        self.assertLess(cmd.index("-lscopedsm_fortran"), cmd.index("-lscopedsm"))
        self.assertIn("/mpi/lib/libmpi.so", cmd)
        self.assertNotIn("-I/mpi/include", cmd)  # Fortran reads no mpi.h

    def test_fortran_without_the_module(self):
        cmd = wrapper.build_command(CONFIG, "fortran", ["x.f"], "gfortran", False, [])
        self.assertNotIn("-lscopedsm_fortran", cmd)
        self.assertIn("-lscopedsm", cmd)

    def test_fortran_77_allowance_only_for_fixed_form(self):
        self.assertEqual(wrapper.fortran_legacy_flags(["-O2", "old.f", "-o", "old"]), ["-fallow-argument-mismatch"])
        self.assertEqual(wrapper.fortran_legacy_flags(["pre.F", "-c"]), ["-fallow-argument-mismatch"])
        self.assertEqual(wrapper.fortran_legacy_flags(["new.f90", "-o", "new.f"]), [])
        self.assertEqual(wrapper.fortran_legacy_flags(["new.f90", "-o", "new"]), [])


if __name__ == "__main__":
    unittest.main()
