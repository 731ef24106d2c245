"""`collx calibrate`: an SMPI platform fitted to the machine a user has,
and the check of its predictions against the same cases run for real
(issue 74; docs/guide/calibrate.md).

measured.py  calibench's and node_sync's CSVs read, and judged for noise
fit.py       the fit: each route's overheads and factors, the global
             compromise, rates (pure)
platform.py  the platform's files written and read back (XML, .cfg,
             .hostfile, NAME.calibration.json), the model's error line
check.py     predicted against measured, per point, and the summary (pure)
runs.py      the programs run on the launch and in SMPI; progress lines
measure.py   the measurements, each launch between probes of the machine
model.py     the fit run to its end: base network, corrections by
             simulation, a call's own cost, the platform written
check_run.py the check run and recorded
main.py      the command line"""
