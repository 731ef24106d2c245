/* What a message costs per route in SMPI (smpi_routes.cpp, SMPI builds
 * only): SimGrid's callbacks told the node's and the network's tables,
 * "os=T|or=T|lat=F|bw=F" each (NULL or "": that route keeps SimGrid's
 * options). Returns 1 when registered, 0 when nothing was given, -1
 * with err filled when a table does not parse or SimGrid's own factor
 * options are set (it refuses both at once). */
#ifndef CX_SMPI_ROUTES_H
#define CX_SMPI_ROUTES_H
#include <stddef.h>
int cx_smpi_routes_install(const char *node, const char *net, char *err, size_t len);
#endif
