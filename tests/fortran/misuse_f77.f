! Misuse through jiaf.h, for the death tests: `misuse_f77 <case>` makes
! one mistake, which must end the job with one line naming the Fortran
! call. If the mistake goes unnoticed the program says so and ends
! normally, and the test fails.
      program misusef77
      include 'jiaf.h'
      character*32 c
      integer*8 p

      call getarg(1, c)
      if (c .eq. 'before_init') call jia_lock(%val(0))
      call jiaf_init()
      if (c .eq. 'double_init') call jiaf_init()
      if (c .eq. 'lock_out_of_range') call jia_lock(%val(Maxlocks))
      if (c .eq. 'unlock_out_of_range') call jia_unlock(%val(-1))
      if (c .eq. 'cv_out_of_range') call jia_setcv(%val(Maxcondvs))
      if (c .eq. 'barrier_in_cs') then
        call jia_lock(%val(2))
        call jia_barrier()
      end if
      if (c .eq. 'alloc_negative') p = jia_alloc(%val(-8))
      if (c .eq. 'error') call jia_error('stopped on purpose   ')
      if (c .eq. 'after_exit') then
        call jia_exit()
        call jia_barrier()
      end if
      print '(3a)', 'misuse case ''', trim(c), ''' was not detected'
      call jia_exit()
      end
