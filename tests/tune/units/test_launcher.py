#!/usr/bin/python3
"""launcher.py: the user's own launch (--launch) as written: which
launcher, the ranks and ranks per node its words give, what the tuner adds
(the runs' own variables, the launcher's way; nothing else), collx_info on
one rank, and this repository's test settings (bench/mpi_env.sh) left out
of the runs' environment where ./run exported them (a Real target built
from --launch, and limits.run's unset).

    test_launcher.py [REPO_ROOT]"""
import os
import stat
import tempfile

import helpers
from collx.tune import launcher, limits, target

OMPI = "mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n"
HYDRA = "HYDRA build details:\n    Version:                                 4.0.2\n"


def test_kind():
    got = [launcher.kind_of(["mpirun", "-np", "4"], OMPI),
           launcher.kind_of(["/usr/bin/mpiexec", "-n", "4"], HYDRA),
           launcher.kind_of(["srun", "-n", "4"], ""),
           launcher.kind_of(["./run", "cluster", "run", "-n", "4", "--"], ""),
           launcher.kind_of(["mpiexec.mpich", "-n", "2"], "")]
    assert got == ["openmpi", "hydra", "slurm", "other", "hydra"], \
        f"the launcher is told by its name and its --version: {got}"


def test_ranks_as_written():
    cases = [(["mpirun", "-np", "6", "--oversubscribe"], "openmpi", 6),
             (["mpirun", "--np", "3"], "openmpi", 3),
             (["mpirun", "-c", "5"], "openmpi", 5),
             (["mpiexec", "-n", "4", "-ppn", "2"], "hydra", 4),
             (["srun", "-n8"], "slurm", 8),
             (["srun", "--ntasks=12", "-N", "3"], "slurm", 12),
             (["srun", "-c", "4", "-n", "2"], "slurm", 2),   # srun -c: cpus per task
             (["./run", "cluster", "run", "-n", "6", "--"], "other", 6),
             (["mpirun", "--hostfile", "h"], "openmpi", None)]
    got = [(w, launcher.ranks(w, k)) for w, k, _ in cases]
    want = [(w, n) for w, _, n in cases]
    assert got == want, f"the ranks each launcher's words start: {got}"
    assert target.launched_ranks(["mpirun", "-np", "6"]) == 6, "target.launched_ranks"


def test_ranks_per_node():
    cases = [(["mpirun", "-np", "8", "--npernode", "4"], "openmpi", 4),
             (["mpirun", "-np", "8", "-N", "2"], "openmpi", 2),
             (["mpirun", "-np", "8", "--map-by", "ppr:4:node"], "openmpi", 4),
             (["mpiexec", "-n", "16", "-ppn", "8"], "hydra", 8),
             (["srun", "--ntasks-per-node=4", "-n", "8"], "slurm", 4),
             (["srun", "-N", "2", "-n", "8"], "slurm", 4),
             (["srun", "-N", "3", "-n", "8"], "slurm", None),
             (["mpirun", "-np", "4"], "openmpi", None)]
    got = [(w, launcher.ranks_per_node(w, k)) for w, k, _ in cases]
    assert got == [(w, n) for w, _, n in cases], f"ranks per node from the words: {got}"


def test_command_adds_only_the_runs_variables():
    words = ["mpirun", "-np", "4", "--hostfile", "hosts", "--bind-to", "core"]
    got = launcher.command(words, "openmpi", "/p/collbench", ["--coll", "bcast"],
                           ["COLLX_RULES", "COLLX_BCAST_SEGMENTS"])
    assert got == words + ["-x", "COLLX_BCAST_SEGMENTS", "-x", "COLLX_RULES",
                           "/p/collbench", "--coll", "bcast"], \
        f"Open MPI: the user's words as written, -x per variable, the program: {got}"
    got = launcher.command(["mpiexec", "-n", "4"], "hydra", "cb", [], ["COLLX_RULES", "B"])
    assert got == ["mpiexec", "-n", "4", "-genvlist", "B,COLLX_RULES", "cb"], \
        f"Hydra: -genvlist: {got}"
    for kind, w in (("slurm", ["srun", "-n", "4"]), ("other", ["./run", "cluster", "run",
                                                             "-n", "4", "--"])):
        got = launcher.command(w, kind, "cb", ["-m", "8"], ["COLLX_RULES"])
        assert got == w + ["cb", "-m", "8"], \
            f"{kind}: nothing added (srun and ./run cluster run pass the environment): {got}"
    added = set(launcher.command(words, "openmpi", "cb", [], [])) - set(words) - {"cb"}
    assert not added, f"no variable to pass: nothing but the program added ({added})"
    for w in (words, ["mpiexec", "-n", "4"]):
        text = " ".join(launcher.command(w, "openmpi", "cb", [], ["COLLX_RULES"]))
        assert not any(x in text for x in ("oversubscribe", "allow-run-as-root",
                                           "single_copy", "yield")), \
            f"none of this repository's test settings in the command: {text}"


def test_collx_info_on_one_rank():
    assert launcher.info_command(["mpirun", "-np", "64", "--hostfile", "h"], "openmpi",
                                 "ci", ["--version"]) == \
        ["mpirun", "-np", "1", "--hostfile", "h", "ci", "--version"], "-np 64 -> -np 1"
    assert launcher.info_command(["srun", "-n64", "-N", "4"], "slurm", "ci", []) == \
        ["srun", "-n1", "-N", "4", "ci"], "srun -n64 -> -n1"
    assert launcher.info_command(["srun", "--ntasks=64"], "slurm", "ci", []) == \
        ["srun", "--ntasks=1", "ci"], "--ntasks=64 -> --ntasks=1"
    assert launcher.info_command(["mylaunch"], "other", "ci", ["--vars"]) == \
        ["ci", "--vars"], "no rank count in the words: collx_info directly"


def test_settings_of_mpi_env_left_out():
    settings = launcher.mpi_env_settings(helpers.ROOT)
    want = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
            "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_mpi_yield_when_idle": "1"}
    assert all(settings.get(k) == v for k, v in want.items()), \
        f"bench/mpi_env.sh's settings read from a clean shell: {settings}"
    env = {"OMPI_MCA_mpi_yield_when_idle": "1", "OMPI_MCA_rmaps_base_oversubscribe": "0",
           "HOME": "/root"}
    assert launcher.test_settings(env, settings) == ["OMPI_MCA_mpi_yield_when_idle"], \
        "left out: the names holding mpi_env.sh's own values (the user's other value stays)"
    assert launcher.mpi_env_settings(None) == {}, "installed (no checkout): none known"


def fake_program(d, name):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def test_real_target_from_launch():
    old = dict(os.environ)
    try:
        os.environ.update({"OMPI_MCA_btl_vader_single_copy_mechanism": "none",
                           "OMPI_ALLOW_RUN_AS_ROOT": "1"})
        with tempfile.TemporaryDirectory() as d:
            cb, ci = fake_program(d, "collbench"), fake_program(d, "collx_info")
            t = target.Real(None, launch_cmd="srun -N 2 --ntasks-per-node=4 -n 8",
                            collbench=cb, info=ci)
            argv, env = t.command(2, ["--coll", "bcast"], env={"COLLX_RULES": "r.json"})
            assert (t.p, t.node) == (8, 4) and argv == [
                "srun", "-N", "2", "--ntasks-per-node=4", "-n", "8", cb, "--coll", "bcast",
                "--comm-size", "2"] and env == {}, \
                f"--launch srun ...: P and ranks per node from the words, collbench appended " \
                f"({t.p}, {t.node}, {argv}, {env})"
            assert {"OMPI_MCA_btl_vader_single_copy_mechanism",
                    "OMPI_ALLOW_RUN_AS_ROOT"} <= set(t.unset), \
                f"the test settings ./run exported are left out of its runs: {t.unset}"
            assert t.info_command(["--version"])[0] == ["srun", "-N", "2",
                                                        "--ntasks-per-node=4", "-n", "1", ci,
                                                        "--version"], "collx_info: one rank"
            out = os.path.join(d, "env.txt")
            o = limits.run(["env"], {"COLLX_RULES": "r.json"}, stdout_path=out,
                           unset=t.unset)
            text = open(out).read()
            assert o.ok and "COLLX_RULES=r.json" in text and \
                "single_copy_mechanism" not in text and "ALLOW_RUN_AS_ROOT" not in text, \
                "limits.run: the run's variables added, the unset ones left out"
    finally:
        os.environ.clear()
        os.environ.update(old)


if __name__ == "__main__":
    helpers.run_module(globals())
