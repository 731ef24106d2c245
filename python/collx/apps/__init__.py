"""Real MPI applications from Debian, end to end (`./run apps`, `collx apps`).

catalogue: the applications (packages, inputs, results, tolerances);
launch: one launch on fake nodes (this machine) or the emulated cluster;
share: COLLX_STATS's JSON read for the collective share and its bound;
correct: every algorithm of every collective an application calls, forced;
timing: native, tuned, online and oracle, interleaved ABBA;
report: the tables and plots of docs/results/apps/; main: the command."""
