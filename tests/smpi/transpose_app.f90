! A distributed matrix transpose, as the 2-D FFTs and spectral codes do it:
! an N x N matrix of doubles in slabs of b = 16 rows per rank (N = 16 p),
! transposed again and again by one MPI_ALLTOALL of b x b blocks (2 KiB)
! between every pair of ranks, and an MPI_ALLREDUCE of a checksum after
! each. Knows nothing of collx (collx-smpif90 links it in); checks every
! element after every transpose. Usage: transpose_app [iterations]
! (default 8). Prints "transpose_app: P ranks, K failed checks".
program transpose_app
  use mpi
  implicit none
  integer, parameter :: b = 16
  integer :: ierr, rank, p, n, it, iters, d, i, j, k, fails, all, narg
  character(len=32) :: arg
  double precision, allocatable :: a(:, :), sbuf(:), rbuf(:)
  double precision :: sum_local, sum_all, want

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  iters = 8
  narg = command_argument_count()
  if (narg >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  n = b * p
  allocate (a(b, n), sbuf(b * n), rbuf(b * n))
  ! row rank*b + i of the whole matrix, column j: (row) * n + column
  do j = 1, n
    do i = 1, b
      a(i, j) = dble(rank * b + i - 1) * n + (j - 1)
    end do
  end do
  fails = 0
  do it = 1, iters
    ! block d: my rows, columns d*b+1 .. d*b+b, transposed on the way
    do d = 0, p - 1
      do j = 1, b
        do i = 1, b
          sbuf(d * b * b + (i - 1) * b + j) = a(i, d * b + j)
        end do
      end do
    end do
    call MPI_ALLTOALL(sbuf, b * b, MPI_DOUBLE_PRECISION, rbuf, b * b, &
                      MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    do d = 0, p - 1
      do j = 1, b
        do i = 1, b
          a(i, d * b + j) = rbuf(d * b * b + (j - 1) * b + i)
        end do
      end do
    end do
    ! after an odd number of transposes element (r, c) holds (c) * n + r
    sum_local = 0
    do j = 1, n
      do i = 1, b
        k = rank * b + i - 1
        if (mod(it, 2) == 1) then
          want = dble(j - 1) * n + k
        else
          want = dble(k) * n + (j - 1)
        end if
        if (a(i, j) /= want) fails = fails + 1
        sum_local = sum_local + a(i, j)
      end do
    end do
    call MPI_ALLREDUCE(sum_local, sum_all, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                       MPI_COMM_WORLD, ierr)
    want = dble(n) * n * (dble(n) * n - 1) / 2
    if (sum_all /= want) fails = fails + 1
  end do
  call MPI_REDUCE(fails, all, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a, i0, a)', 'transpose_app: ', p, ' ranks, ', all, &
                              ' failed checks'
  deallocate (a, sbuf, rbuf)
  call MPI_FINALIZE(ierr)
end program transpose_app
