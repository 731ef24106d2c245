"""One driver for every sweep: sweeps.json describes them as data
(spec.py expands a sweep into runs), launch.py turns a run into a command
line (SMPI through sim/run, real MPI through the MPI's launcher),
runner.py runs them (in parallel up to JOBS, with progress), collect.py
gathers their CSVs where the reports expect them, check.py validates the
catalogue without running anything."""
