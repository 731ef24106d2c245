! A plain Fortran MPI program that knows nothing of collx: built with
! collx-smpif90 it runs collx's algorithms for its collectives under SMPI
! (tests/smpi/CMakeLists.txt). SMPI's Fortran bindings live in libsimgrid
! and call SimGrid's own C functions, so these calls reach collx only
! through the interposer's Fortran entry points (src/pmpi/fortran*.c).
! Checks its own results; the last line says how many checks failed.
program plain_app_f
  use mpi
  implicit none
  integer, parameter :: n = 1000
  integer :: ierr, rank, p, i, d, it, fails, all, ns, nr
  integer :: v(n), w(n), req(3), token, got, x, total
  integer, allocatable :: sc(:), sd(:), rc(:), rd(:), sb(:), rb(:)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  fails = 0

  ! MPI_ALLREDUCE, with MPI_IN_PLACE the second time
  do i = 1, n
    v(i) = rank + i
  end do
  call MPI_ALLREDUCE(v, w, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  do i = 1, n
    if (w(i) /= p * (p - 1) / 2 + p * i) fails = fails + 1
  end do
  w = v
  call MPI_ALLREDUCE(MPI_IN_PLACE, w, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  do i = 1, n
    if (w(i) /= p - 1 + i) fails = fails + 1
  end do

  ! MPI_IALLTOALLV, (r + d) mod 3 integers from r to d, waited for with a
  ! point-to-point pair in one MPI_WAITALL
  allocate(sc(0:p-1), sd(0:p-1), rc(0:p-1), rd(0:p-1))
  ns = 0
  nr = 0
  do d = 0, p - 1
    sc(d) = mod(rank + d, 3)
    sd(d) = ns
    ns = ns + sc(d)
    rc(d) = mod(d + rank, 3)
    rd(d) = nr
    nr = nr + rc(d)
  end do
  allocate(sb(0:ns), rb(0:nr))
  do it = 1, 2
    do d = 0, p - 1
      do i = 0, sc(d) - 1
        sb(sd(d) + i) = 1000 * rank + 10 * d + i + it
      end do
    end do
    token = rank
    got = -1
    call MPI_IRECV(got, 1, MPI_INTEGER, mod(rank + p - 1, p), 7, MPI_COMM_WORLD, req(1), ierr)
    call MPI_IALLTOALLV(sb, sc, sd, MPI_INTEGER, rb, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, &
                        req(2), ierr)
    call MPI_ISEND(token, 1, MPI_INTEGER, mod(rank + 1, p), 7, MPI_COMM_WORLD, req(3), ierr)
    call MPI_WAITALL(3, req, MPI_STATUSES_IGNORE, ierr)
    if (got /= mod(rank + p - 1, p)) fails = fails + 1
    do d = 0, p - 1
      do i = 0, rc(d) - 1
        if (rb(rd(d) + i) /= 1000 * d + 10 * rank + i + it) fails = fails + 1
      end do
    end do
  end do

  ! MPI_IALLREDUCE completed by MPI_WAIT
  x = rank + 1
  call MPI_IALLREDUCE(x, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(1), ierr)
  call MPI_WAIT(req(1), MPI_STATUS_IGNORE, ierr)
  if (total /= p * (p + 1) / 2) fails = fails + 1

  ! MPI_BCAST from rank 1
  do i = 1, n
    v(i) = -1
    if (rank == mod(1, p)) v(i) = 3 * i
  end do
  call MPI_BCAST(v, n, MPI_INTEGER, mod(1, p), MPI_COMM_WORLD, ierr)
  do i = 1, n
    if (v(i) /= 3 * i) fails = fails + 1
  end do

  call MPI_REDUCE(fails, all, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a, i0, a)', 'plain_app_f: ', p, ' ranks, ', all, ' failed checks'
  deallocate(sc, sd, rc, rd, sb, rb)
  call MPI_FINALIZE(ierr)
end program plain_app_f
