/* What a message costs per route in SMPI (SMPI builds only; issue 74).
 *
 * SimGrid's smpi/os, smpi/or and its latency and bandwidth factors are
 * one piecewise function of the message size for every message, while a
 * real machine's messages cost very different amounts inside a node
 * (shared memory: tens of nanoseconds of CPU, a protocol switch at the
 * eager limit) and between nodes (TCP: microseconds of CPU per message).
 * A platform that `collx calibrate` fitted therefore carries, besides
 * the global options every SMPI program gets, each route's own tables
 * (collx:route_node and collx:route_net in its .cfg; sim/run exports
 * them as COLLX_SMPI_ROUTE_NODE/_NET): the send and receive overheads
 * and the latency and bandwidth factors, by size. A program linked with
 * collx registers them here with SimGrid 3.32's callbacks, which it asks
 * per message with the source and destination host: the same host is
 * the node's route, two hosts the network's.
 *
 * SimGrid refuses factor callbacks beside factor options, so such a
 * platform sets no global factors (network/model:CM02, whose factors are
 * 1; the weight-S of SMPI's model kept). A route the variables do not
 * name keeps the global options.
 *
 * C++ because SimGrid offers these callbacks only in C++; the rest of
 * collx calls cx_smpi_routes_install() through smpi_routes.h. Every rank
 * of a simulation runs in one process with its own copy of this file's
 * data (SMPI privatizes them): each rank registers the same tables
 * again, and the last registration serves. */
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <smpi/smpi.h>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <xbt/config.hpp>

extern "C" {
#include "smpi_routes.h"
}

namespace {

struct Section {
    double start, base, per_byte;
};

/* One piecewise table. Overheads ("start:seconds:seconds_per_byte"):
 * a section serves the sizes above its start, as SimGrid's smpi/os.
 * Factors ("start:factor"): a section serves its start and above. */
struct Table {
    std::vector<Section> sections;
    bool from_start = false;

    bool parse(const std::string &text, std::string &why)
    {
        sections.clear();
        size_t pos = 0;
        while (pos <= text.size()) {
            size_t end = text.find(';', pos);
            std::string item = text.substr(pos, end == std::string::npos ? end : end - pos);
            Section sec{0, 0, 0};
            int n = std::sscanf(item.c_str(), "%lf:%lf:%lf", &sec.start, &sec.base,
                                &sec.per_byte);
            if (n < 2 || (!sections.empty() && sec.start <= sections.back().start)) {
                why = "'" + item + "' is not start:value[:per_byte] after a smaller start";
                return false;
            }
            sections.push_back(sec);
            if (end == std::string::npos)
                break;
            pos = end + 1;
        }
        return !sections.empty();
    }

    /* The first section also serves size 0 (SimGrid's own smpi/os gives an
     * empty message no overhead at all, where real ones cost what 1 B does:
     * a barrier is made of them). */
    double operator()(double size, double none) const
    {
        double v = none;
        for (size_t i = 0; i < sections.size(); i++) {
            const Section &sec = sections[i];
            if (i > 0 && (from_start ? size < sec.start : size <= sec.start))
                break;
            v = sec.base + sec.per_byte * size;
        }
        return v;
    }
};

struct Route {
    Table os, orecv, lat, bw;
    bool given = false;
};

struct Routes {
    Route node, net;
    Table global_os, global_or;
};

Routes routes;

const Route &route_of(const simgrid::s4u::Host *src, const simgrid::s4u::Host *dst)
{
    return src == dst ? routes.node : routes.net;
}

/* "os=T|or=T|lat=F|bw=F" (any of them; a route given only some keeps the
 * global option, or factor 1, for the others) */
bool parse_route(const char *text, Route &r, const char *name, std::string &why)
{
    if (!text || !*text)
        return true;
    r.lat.from_start = r.bw.from_start = true;
    std::string s(text);
    size_t pos = 0;
    while (pos < s.size()) {
        size_t end = s.find('|', pos);
        std::string item = s.substr(pos, end == std::string::npos ? end : end - pos);
        size_t eq = item.find('=');
        std::string key = item.substr(0, eq), val = eq == std::string::npos ? "" : item.substr(eq + 1);
        Table *t = key == "os" ? &r.os : key == "or" ? &r.orecv : key == "lat" ? &r.lat
                 : key == "bw" ? &r.bw : nullptr;
        std::string bad;
        if (!t || !t->parse(val, bad)) {
            why = std::string(name) + ": '" + item + "': " +
                  (t ? bad : "not os=, or=, lat= or bw=");
            return false;
        }
        r.given = true;
        if (end == std::string::npos)
            break;
        pos = end + 1;
    }
    return true;
}

double overhead(bool send, size_t size, simgrid::s4u::Host *src, simgrid::s4u::Host *dst)
{
    const Route &r = route_of(src, dst);
    const Table &t = send ? r.os : r.orecv;
    const Table &global = send ? routes.global_os : routes.global_or;
    double m = static_cast<double>(size);
    return t.sections.empty() ? global(m, 0.0) : t(m, 0.0);
}

double factor(bool latency, double size, const simgrid::s4u::Host *src,
              const simgrid::s4u::Host *dst)
{
    const Route &r = route_of(src, dst);
    const Table &t = latency ? r.lat : r.bw;
    double f = t(size, 1.0);
    return f > 0 || latency ? f : 1.0;   /* SimGrid refuses a bandwidth factor of 0 */
}

} // namespace

extern "C" int cx_smpi_routes_install(const char *node, const char *net, char *err,
                                      size_t len)
{
    Routes r;
    std::string why;
    if (!parse_route(node, r.node, "COLLX_SMPI_ROUTE_NODE", why) ||
        !parse_route(net, r.net, "COLLX_SMPI_ROUTE_NET", why)) {
        std::snprintf(err, len, "%s", why.c_str());
        return -1;
    }
    if (!r.node.given && !r.net.given)
        return 0;
    if (!r.global_os.parse(simgrid::config::get_value<std::string>("smpi/os"), why) ||
        !r.global_or.parse(simgrid::config::get_value<std::string>("smpi/or"), why)) {
        std::snprintf(err, len, "SimGrid's smpi/os or smpi/or: %s", why.c_str());
        return -1;
    }
    bool factors = !r.node.lat.sections.empty() || !r.node.bw.sections.empty() ||
                   !r.net.lat.sections.empty() || !r.net.bw.sections.empty();
    if (factors && (!simgrid::config::is_default("network/latency-factor") ||
                    !simgrid::config::is_default("network/bandwidth-factor"))) {
        std::snprintf(err, len, "per-route factors need SimGrid's factor options unset "
                      "(the platform's .cfg sets smpi/lat-factor or smpi/bw-factor)");
        return -1;
    }
    routes = r;
    smpi_register_op_cost_callback(SmpiOperation::SEND, [](size_t s, simgrid::s4u::Host *a,
                                                           simgrid::s4u::Host *b) {
        return overhead(true, s, a, b);
    });
    smpi_register_op_cost_callback(SmpiOperation::ISEND, [](size_t s, simgrid::s4u::Host *a,
                                                            simgrid::s4u::Host *b) {
        return overhead(true, s, a, b);
    });
    smpi_register_op_cost_callback(SmpiOperation::RECV, [](size_t s, simgrid::s4u::Host *a,
                                                           simgrid::s4u::Host *b) {
        return overhead(false, s, a, b);
    });
    if (factors) {
        auto *model = simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model();
        using Links = std::vector<simgrid::s4u::Link *>;
        using Zones = std::unordered_set<simgrid::s4u::NetZone *>;
        model->set_lat_factor_cb([](double s, const simgrid::s4u::Host *a,
                                    const simgrid::s4u::Host *b, const Links &, const Zones &) {
            return factor(true, s, a, b);
        });
        model->set_bw_factor_cb([](double s, const simgrid::s4u::Host *a,
                                   const simgrid::s4u::Host *b, const Links &, const Zones &) {
            return factor(false, s, a, b);
        });
    }
    return 1;
}
