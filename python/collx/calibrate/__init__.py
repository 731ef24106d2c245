"""`collx calibrate`: an SMPI platform fitted to the machine a user has,
and the check of its predictions against the same cases run for real
(issue 74; docs/guide/calibrate.md).

measured.py  calibench's and node_sync's CSVs read, and judged for noise
fit.py       the fit: overheads, latency and bandwidth factors, rates (pure)
platform.py  the platform's files written and read back (XML, .cfg,
             .hostfile, NAME.calibration.json)
runs.py      the programs run on the launch and in SMPI
check.py     predicted against measured, per point, and the summary
main.py      the command line"""
