! The same in JIAJIA's Fortran 77 style: jiaf.h from the installation's
! include directory, a Cray pointer to shared memory, %val arguments.
      program hellof77
      include 'jiaf.h'
      integer slots(Maxhosts), r
      pointer (ps, slots)
      logical ok

      call jiaf_init()
      ps = jia_alloc(%val(4 * jiahosts))
      slots(jiapid + 1) = 100 + jiapid
      call jia_barrier()
      ok = .true.
      do r = 0, jiahosts - 1
        ok = ok .and. slots(r + 1) .eq. 100 + r
      end do
      call jia_barrier()
      if (.not. ok) call jia_error('hello_f77: wrong contents')
      if (jiapid .eq. 0)
     &  print '(a, i0, a)', 'hello_f77: ok on ', jiahosts, ' processes'
      call jia_exit()
      end
