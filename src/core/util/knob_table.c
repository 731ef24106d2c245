/* Every COLLX_* variable collx reads, once (knobs.h). per_call = 1 only
 * where a rule's "params" may give one call another value than the next
 * without the ranks disagreeing: the value changes what this call's
 * schedule looks like, the same way on every rank, and nothing that lives
 * longer than the call (segments, windows, cached orders, threads) depends
 * on it. A family's README explains its knobs in context. */
#include <limits.h>
#include "knobs.h"

static const char *const fallback_values[] = {"silent", "print", "error", NULL};
static const char *const progress_values[] = {"off", "thread", NULL};
static const char *const hier_native_values[] = {"blocking", "nonblocking", NULL};
static const char *const pap_engine_values[] = {"auto", "thread", "eager", NULL};
static const char *const rma_engine_values[] = {"thread", "inline", NULL};
static const char *const rma_poll_values[] = {"load", "rma", NULL};
static const char *const topo_map_values[] = {"paper", "hier", NULL};

#define INT_KNOB(lo, hi) .type = CX_KNOB_INT, .min = (lo), .max = (hi)
#define SIZE_KNOB(lo, hi) .type = CX_KNOB_SIZE, .min = (lo), .max = (hi)
#define REAL_KNOB(lo, hi) .type = CX_KNOB_REAL, .rmin = (lo), .rmax = (hi)
#define ENUM_KNOB(v) .type = CX_KNOB_ENUM, .values = (v)

const cx_knob_decl cx_knob_decls[CX_KNOB_COUNT] = {
    /* ---- core ---- */
    [CX_KNOB_VERBOSE] = {
        "COLLX_VERBOSE", "core", INT_KNOB(0, 2), .def = "0", .on_bad = CX_KNOB_BAD_CLAMP,
        .rank_local = 1,
        .meaning = "1: rank 0 says which algorithm served each collective (once) and why "
                   "calls fell back; 2: every call"},
    [CX_KNOB_FALLBACK] = {
        "COLLX_FALLBACK", "core", ENUM_KNOB(fallback_values), .def = "silent",
        .meaning = "what a call whose algorithm cannot serve it does besides running the "
                   "fallback: nothing, print the reason once, or return "
                   "MPI_ERR_UNSUPPORTED_OPERATION"},
    [CX_KNOB_RULES] = {
        "COLLX_RULES", "core", .type = CX_KNOB_PATH, .unset = "no rules",
        .meaning = "JSON rules file: picks the algorithm (and per-call knobs) by "
                   "collective, comm_size, msg_size, ranks_per_node"},
    [CX_KNOB_PROGRESS] = {
        "COLLX_PROGRESS", "core", ENUM_KNOB(progress_values), .def = "off",
        .rank_local = 1,
        .meaning = "thread: a progress thread drives nonblocking calls while the program "
                   "is away from MPI (needs MPI_THREAD_MULTIPLE)"},
    [CX_KNOB_SHM_MAX] = {
        "COLLX_SHM_MAX", "core", SIZE_KNOB(1, LLONG_MAX), .def = "256M",
        .meaning = "cap of a node's shared segment; a call needing more runs its fallback"},
    [CX_KNOB_RANKS_PER_NODE] = {
        "COLLX_RANKS_PER_NODE", "core", INT_KNOB(1, INT_MAX), .unset = "the real nodes",
        .meaning = "pretend nodes are k consecutive ranks (node-aware code on one machine)"},
    [CX_KNOB_FAKE_NODES] = {
        "COLLX_FAKE_NODES", "core", .type = CX_KNOB_STRING, .unset = "the real nodes",
        .meaning = "node of every rank, '0,1,0,2,...' (repeated cyclically) or 'cyclic:k'; "
                   "wins over COLLX_RANKS_PER_NODE"},
    [CX_KNOB_SMPI_COPY_BW] = {
        "COLLX_SMPI_COPY_BW", "core", REAL_KNOB(1, 1e15), .def = "5e9",
        .rank_local = 1,
        .meaning = "SMPI builds: bytes/s charged for local copies (sim/run sets it from "
                   "the platform)"},
    [CX_KNOB_SMPI_REDUCE_BW] = {
        "COLLX_SMPI_REDUCE_BW", "core", REAL_KNOB(1, 1e15), .def = "5e9",
        .rank_local = 1,
        .meaning = "SMPI builds: bytes/s charged for local reductions"},
    [CX_KNOB_STATS] = {
        "COLLX_STATS", "core", .type = CX_KNOB_STRING, .unset = "no report",
        .rank_local = 1,
        .meaning = "1: rank 0 prints at MPI_Finalize what collx served (calls, bytes, "
                   "slowest rank's time, fallbacks); a path: written there (.json, .csv "
                   "or a table); 0: off"},
    [CX_KNOB_CHECK_TIMEOUT] = {
        "COLLX_CHECK_TIMEOUT", "core", REAL_KNOB(0, 1e6), .def = "10", .rank_local = 1,
        .meaning = "seconds rank 0 waits at MPI_Init for every rank's settings (the "
                   "interposer); ranks that do not answer (no collx there): MPI serves every "
                   "call; 0: no check"},
    [CX_KNOB_WAIT_WARN] = {
        "COLLX_WAIT_WARN", "core", REAL_KNOB(0, 1e9), .def = "60", .rank_local = 1,
        .meaning = "seconds a rank waits in a blocking collective before it says so, once "
                   "(it keeps waiting: some rank may not make the call, or not load collx); "
                   "0: never"},

    /* ---- online tuning ---- */
    [CX_KNOB_TUNE_ONLINE] = {
        "COLLX_TUNE_ONLINE", "tune", INT_KNOB(0, 1), .def = "0", .on_bad = CX_KNOB_BAD_CLAMP,
        .meaning = "1: blocking call sites repeated often try native, the rules' choice and "
                   "close candidates, then keep the fastest (native unless faster by "
                   "COLLX_TUNE_MARGIN)"},
    [CX_KNOB_TUNE_CANDIDATES] = {
        "COLLX_TUNE_CANDIDATES", "tune", .type = CX_KNOB_STRING, .def = "base,irregular,hier",
        .meaning = "what online tuning tries besides native and the rules' choice: "
                   "algorithm or family names, each optionally 'coll:name'"},
    [CX_KNOB_TUNE_WARMUP] = {
        "COLLX_TUNE_WARMUP", "tune", INT_KNOB(0, 1000000), .def = "10",
        .on_bad = CX_KNOB_BAD_CLAMP,
        .meaning = "calls of a call site that run the usual choice before its trials start"},
    [CX_KNOB_TUNE_CALLS] = {
        "COLLX_TUNE_CALLS", "tune", INT_KNOB(2, 64), .def = "8", .on_bad = CX_KNOB_BAD_CLAMP,
        .meaning = "calls each candidate runs in a trial (the first one untimed: set-up)"},
    [CX_KNOB_TUNE_MAX_TRIALS] = {
        "COLLX_TUNE_MAX_TRIALS", "tune", INT_KNOB(0, 1000000), .def = "64",
        .on_bad = CX_KNOB_BAD_CLAMP,
        .meaning = "cap on a call site's trial calls: candidates beyond it are not tried"},
    [CX_KNOB_TUNE_MARGIN] = {
        "COLLX_TUNE_MARGIN", "tune", REAL_KNOB(0, 0.9), .def = "0.05",
        .on_bad = CX_KNOB_BAD_CLAMP,
        .meaning = "an algorithm replaces native only when faster by this fraction"},
    [CX_KNOB_TUNE_CACHE] = {
        "COLLX_TUNE_CACHE", "tune", .type = CX_KNOB_PATH,
        .unset = "$XDG_CACHE_HOME/collx/online (else ~/.cache/collx/online)",
        .rank_local = 1,
        .meaning = "where settled choices are kept per machine fingerprint: a directory "
                   "(<hash>.json in it), a .json file, or off"},

    /* ---- hier ---- */
    [CX_KNOB_HIER_INTER] = {
        "COLLX_HIER_INTER", "hier", .type = CX_KNOB_ALGORITHM, .coll = -1, .per_call = 1,
        /* per collective of the hier call: its leaders' collective's names */
        .tune = "allreduce:native,recursive_doubling,rabenseifner;"
                "bcast:native,binomial,scatter_allgather;"
                "allgather,allgatherv:native,bruck,ring;reduce:native,binomial",
        .tune_algs = "hier",
        .unset = "the MPI's own, but bruck for allgatherv from 64 nodes on and "
                 "recursive_doubling for allreduce under 64 B among fewer than 64 nodes",
        .meaning = "algorithm the node leaders run in hier/hier_ms where their collective "
                   "has one by that name (native: the MPI's own)"},
    [CX_KNOB_HIER_NATIVE] = {
        "COLLX_HIER_NATIVE", "hier", ENUM_KNOB(hier_native_values), .def = "blocking",
        .per_call = 1,
        .meaning = "the leaders' native collective in a blocking hier call: the MPI's "
                   "blocking call or its nonblocking twin"},
    [CX_KNOB_HIER_SENDERS] = {
        "COLLX_HIER_SENDERS", "hier", INT_KNOB(1, 4096), .per_call = 1,
        .tune = "2,8", .tune_algs = "hier_ms",
        .unset = "one per 64 KiB of data (allreduce: per 2 KiB), up to 8",
        .meaning = "senders per node in hier_ms (never more than the smallest node has)"},
    [CX_KNOB_HIER_A2A_PIPE] = {
        "COLLX_HIER_A2A_PIPE", "hier", INT_KNOB(0, 1), .per_call = 1,
        .on_bad = CX_KNOB_BAD_CLAMP,
        .unset = "1 when a sender's share of a node pair's part is 64 KiB or more",
        .meaning = "hier alltoallv/w: 1 = exchange pairwise with the copies overlapped, "
                   "0 = one alltoallv among the leaders"},
    [CX_KNOB_HIER_FOLD_COPY] = {
        "COLLX_HIER_FOLD_COPY", "hier", INT_KNOB(0, 1), .def = "0", .per_call = 1,
        .on_bad = CX_KNOB_BAD_CLAMP,
        .meaning = "1: commutative node reductions copy every vector into the segment "
                   "first (to compare with folding in place)"},

    /* ---- irregular ---- */
    [CX_KNOB_BCAST_SEGMENTS] = {
        "COLLX_BCAST_SEGMENTS", "base", INT_KNOB(1, 4096), .def = "8", .per_call = 1,
        .tune = "2,32", .tune_algs = "pipeline_chain,pipeline_binary",
        .on_bad = CX_KNOB_BAD_CLAMP,
        .meaning = "pipeline_chain / pipeline_binary bcast: segments the message is cut "
                   "into (whatever its size)"},
    [CX_KNOB_TUW_DIRECT_THRESHOLD] = {
        "COLLX_TUW_DIRECT_THRESHOLD", "irregular", INT_KNOB(-1, LLONG_MAX), .def = "65536",
        .per_call = 1, .on_bad = CX_KNOB_BAD_CLAMP,
        .meaning = "tuw: a subtree of more bytes goes straight to the root (graceful "
                   "degradation); -1 = never"},

    /* ---- pap ---- */
    [CX_KNOB_PAP_ENGINE] = {
        "COLLX_PAP_ENGINE", "pap", ENUM_KNOB(pap_engine_values), .def = "auto",
        .meaning = "background progress of PAP calls: auto = a thread with "
                   "MPI_THREAD_MULTIPLE, else messages posted at the edge (eager)"},

    /* ---- rma ---- */
    [CX_KNOB_RMA_LL_MAX] = {
        "COLLX_RMA_LL_MAX", "rma", SIZE_KNOB(0, 1LL << 28), .def = "32K", .per_call = 1,
        /* only lower: a rule's value above the environment's is capped */
        .tune = "0", .tune_algs = "rma_linear,rma_binomial",
        .on_bad = CX_KNOB_BAD_CLAMP,
        .meaning = "rma bcast: messages up to this many bytes go by the LL protocol (0 = "
                   "off); per call only below the environment's value, which sizes the "
                   "window"},
    [CX_KNOB_RMA_PULL] = {
        "COLLX_RMA_PULL", "rma", INT_KNOB(0, 1), .def = "1", .per_call = 1,
        .rank_local = 1,
        .meaning = "rma_binomial: leaves read their data from the parent's staging (0: "
                   "put to them, the paper's way)"},
    [CX_KNOB_RMA_MAX] = {
        "COLLX_RMA_MAX", "rma", SIZE_KNOB(1, LLONG_MAX), .def = "256M",
        .meaning = "rma bcast: largest staging window; larger messages go in pieces"},
    [CX_KNOB_RMA_ENGINE] = {
        "COLLX_RMA_ENGINE", "rma", ENUM_KNOB(rma_engine_values), .def = "thread",
        .rank_local = 1,
        .meaning = "forwarding: the progress thread where every rank has "
                   "MPI_THREAD_MULTIPLE, else (or inline) inside collx calls"},
    [CX_KNOB_RMA_POLL] = {
        "COLLX_RMA_POLL", "rma", ENUM_KNOB(rma_poll_values), .def = "load",
        .rank_local = 1,
        .meaning = "how counters are polled: loads where the window is unified, or rma "
                   "(fetch-and-op, to measure the difference)"},
    [CX_KNOB_RMA_PROBE] = {
        "COLLX_RMA_PROBE", "rma", INT_KNOB(0, 1), .def = "0", .on_bad = CX_KNOB_BAD_CLAMP,
        .rank_local = 1,
        .meaning = "1: probe passive-target progress at set-up (30 ms, informative; "
                   "COLLX_VERBOSE does too)"},

    /* ---- topo ---- */
    [CX_KNOB_TOPO_FILE] = {
        "COLLX_TOPO_FILE", "topo", .type = CX_KNOB_PATH, .unset = "measure every time",
        .meaning = "where the measured rank distances are saved and loaded"},
    [CX_KNOB_TOPO_MAP] = {
        "COLLX_TOPO_MAP", "topo", ENUM_KNOB(topo_map_values), .def = "paper",
        .meaning = "mapping heuristics: the paper's on rank distances, or node-level (hier)"},
    [CX_KNOB_TOPO_TOLERANCE] = {
        "COLLX_TOPO_TOLERANCE", "topo", REAL_KNOB(0, 0.5), .def = "0.05",
        .on_bad = CX_KNOB_BAD_CLAMP,
        .meaning = "distances within this fraction count as equal"},
    [CX_KNOB_TOPO_REPS] = {
        "COLLX_TOPO_REPS", "topo", INT_KNOB(1, 100), .def = "5", .on_bad = CX_KNOB_BAD_CLAMP,
        .meaning = "timed round trips per node pair and size when measuring"},
    [CX_KNOB_TOPO_FULL_MAX] = {
        "COLLX_TOPO_FULL_MAX", "topo", INT_KNOB(0, INT_MAX), .def = "1024",
        .meaning = "largest p that keeps the p x p rank matrix (above: node distances only)"},

    /* ---- selection: COLLX_<COLL>_ALGORITHM ---- */
#define CX_KNOB_ALG_DECL(E, N, n)                                                    \
    [CX_KNOB_##E##_ALGORITHM] = {                                                  \
        "COLLX_" #E "_ALGORITHM", "core", .type = CX_KNOB_ALGORITHM,               \
        .coll = CX_KNOB_##E##_ALGORITHM - CX_KNOB_BARRIER_ALGORITHM,               \
        .on_bad = CX_KNOB_BAD_ERROR, .unset = "the rules file's, else native",     \
        .meaning = "the algorithm of every MPI_" #N " (after CX_Algorithm_set, "   \
                   "before COLLX_RULES)"},
    CX_COLLECTIVES(CX_KNOB_ALG_DECL)
#undef CX_KNOB_ALG_DECL
};
