#!/bin/sh
# A C compiler that rejects legacy C as GCC 14 does (implicit declarations,
# implicit int, integers assigned to pointers and incompatible pointers are
# errors), made of the build's compiler: the tests of scopedsm-cc's retry
# with the legacy allowances run on any compiler. Flags after these (the
# wrapper's -Wno-...) still switch them off, as with GCC 14.
exec "${STRICT_CC_REAL:-cc}" -Werror=implicit-function-declaration -Werror=implicit-int -Werror=int-conversion \
  -Werror=incompatible-pointer-types "$@"
