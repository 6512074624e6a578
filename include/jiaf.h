! jiaf.h - JIAJIA's Fortran 77 interface to ScopeDSM.
!
! A Fortran program written for JIAJIA includes this file in every
! program unit that calls JIAJIA (include 'jiaf.h') and compiles with
! scopedsm-fc, which passes -fcray-pointer. It then runs unchanged:
!
!       call jiaf_init()
!       pa = jia_alloc3(%val(8*n*n), %val(8*n*n/jiahosts), %val(0))
!       call jia_lock(%val(1))
!       ...
!       call jia_unlock(%val(1))
!       call jia_barrier()
!       call jia_exit()
!
! Conventions, as in JIAJIA: integer arguments (sizes, ids, ranks, tags)
! are passed by value with %val(...); buffers (jia_send, jia_recv,
! jia_bcast, jia_reduce) and the out-arguments of jia_divtask by
! reference, as Fortran passes them; jia_error takes a string. Shared
! memory is reached through Cray pointers: pointer (pa, a).
!
! Every function's result type is declared here, so that no address is
! cut to a default INTEGER or read as an implicit REAL: the allocation
! calls return INTEGER*8 (an address, the size of a Cray pointer on
! 64-bit Linux), jia_clock REAL (seconds), jia_recv INTEGER (bytes).
!
! common /jia/ holds jiapid (this process's rank, from 0) and jiahosts
! (the number of processes); jiaf_init fills it in.
!
! The names below are reserved in a program that includes this file, as
! jia.h reserves them in C. docs/FORTRAN.md maps every call to the C API.
! Written to compile as fixed form and as free form alike.

      external jiaf_init, jia_exit
      external jia_alloc, jia_alloc1, jia_alloc2, jia_alloc2p
      external jia_alloc3
      integer*8 jia_alloc, jia_alloc1, jia_alloc2, jia_alloc2p
      integer*8 jia_alloc3
      external jia_lock, jia_unlock, jia_barrier, jia_wait
      external jia_setcv, jia_resetcv, jia_waitcv
      external jia_error, jia_clock, jia_startstat, jia_stopstat
      real jia_clock
      external jia_send, jia_recv, jia_bcast, jia_reduce
      integer jia_recv
      external jia_config, jia_divtask, jia_loadcheck

      integer jiapid, jiahosts
      common /jia/ jiapid, jiahosts

! Limits: lock ids are 0 .. Maxlocks-1, condition variables
! 0 .. Maxcondvs-1. Pagesize is JIAJIA's; ScopeDSM's unit is
! SCOPEDSM_UNIT_PAGES OS pages.
      integer Maxlocks, Maxcondvs, Maxhosts, Pagesize
      parameter (Maxlocks = 1024, Maxcondvs = 64, Maxhosts = 1024)
      parameter (Pagesize = 4096)

! jia_recv's wildcards, and jia_reduce's operations (type and operation).
      integer MSG_PROC_ALL, MSG_TAG_ALL
      parameter (MSG_PROC_ALL = -1, MSG_TAG_ALL = -1)
      integer SUM_INT, MAX_INT, MIN_INT
      integer SUM_FLOAT, MAX_FLOAT, MIN_FLOAT
      integer SUM_DOUBLE, MAX_DOUBLE, MIN_DOUBLE
      parameter (SUM_INT = 0, MAX_INT = 1, MIN_INT = 2)
      parameter (SUM_FLOAT = 3, MAX_FLOAT = 4, MIN_FLOAT = 5)
      parameter (SUM_DOUBLE = 6, MAX_DOUBLE = 7, MIN_DOUBLE = 8)

! jia_config's keys and values.
      integer HMIG, ADWD, BROADCAST, LOADBAL, WVEC, ON, OFF
      parameter (HMIG = 0, ADWD = 1, BROADCAST = 2, LOADBAL = 3)
      parameter (WVEC = 4, ON = 1, OFF = 0)
