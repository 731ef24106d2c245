/* Which algorithm SMPI's own collective follows (SMPI builds only): read
 * from SimGrid's configuration, which only C++ can read (xbt/config.hpp).
 * collx's stand-ins for the MPI's own collectives (select/registry.c) ask
 * it, since what SMPI would run depends on the selector. */
#include <cstdio>
#include <string>

#include <xbt/config.hpp>

extern "C" {
#include "smpi_selector.h"
}

static std::string value_of(const std::string &name)
{
    try {
        return simgrid::config::get_value<std::string>(name);
    } catch (...) {   // an option this SimGrid does not have
        return "";
    }
}

extern "C" void cx_smpi_selector(const char *coll, char *out, size_t len)
{
    std::string forced = value_of(std::string("smpi/") + coll);
    std::string selector = value_of("smpi/coll-selector");
    const std::string &v = !forced.empty() ? forced : !selector.empty() ? selector : "default";
    std::snprintf(out, len, "%s", v.c_str());
}
