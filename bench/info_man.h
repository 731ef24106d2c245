#ifndef INFO_MAN_H
#define INFO_MAN_H
/* Prints the collx(7) manual page (roff) to stdout; needs no MPI_Init. */
void info_man(void);
#endif
