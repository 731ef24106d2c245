"""The applications `./run apps` runs: unmodified programs from Debian
packages, their standard inputs (written into a run's own folder), what
each prints as its result and how far a result may move when collx's
algorithms change the order of floating-point additions.

An App knows two sizes: "check" (a few seconds: the correctness matrix,
one launch per algorithm) and "time" (10-60 s on the emulated cluster: the
end-to-end timings). Tolerances are per quantity, absolute plus relative:
a reduction summed in another order changes the last digits, a wrong
collective changes everything (the reasons are in each App's `why`)."""
import os
import re


class App:
    """One application. Subclasses set name, packages, about, why and
    tolerance ({quantity pattern: (absolute, relative)}; the first pattern
    that matches a quantity's name applies) and implement prepare (write
    the inputs into workdir, return the program's words, run in workdir)
    and result (the quantities of a finished run)."""
    name = packages = about = why = None
    tolerance = {}

    def prepare(self, workdir, size):
        raise NotImplementedError

    def result(self, workdir, output):
        raise NotImplementedError

    def limits(self, quantity):
        for pattern, lim in self.tolerance.items():
            if re.fullmatch(pattern, quantity):
                return lim
        return (0.0, 0.0)

    def compare(self, native, other):
        """(ok, worst): every native quantity present in other and within
        its tolerance; worst names the largest excess (or the closest)."""
        if not native:
            return False, "native run gave no result"
        worst, worst_q = -1.0, ""
        for q, ref in native.items():
            if q not in other:
                return False, f"{q} missing"
            ab, rel = self.limits(q)
            allowed = ab + rel * abs(ref)
            err = abs(other[q] - ref)
            if err > allowed:
                return False, f"{q}: {other[q]!r} vs native {ref!r} (allowed {allowed:.3g})"
            frac = err / allowed if allowed > 0 else 0.0
            if frac > worst:
                worst, worst_q = frac, f"{q}: |diff| {err:.3g} ({frac:.0%} of allowed)"
        return True, worst_q


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


LAMMPS_EXAMPLE = "/usr/share/lammps/examples/peptide"


class Lammps(App):
    name = "lammps"
    packages = ("lammps", "lammps-examples")
    about = ("LAMMPS (Debian 20220106), its peptide example: 2004 atoms, CHARMM, "
             "PPPM with `kspace_modify collective yes` (FFT transposes as "
             "MPI_Alltoallv), NVT + SHAKE")
    steps = {"check": 60, "time": 300}
    # thermo_style multi prints each quantity with 4 decimals (%14.4f)
    why = ("every thermo quantity at every output step (thermo_style multi, "
           "4 decimals): at step 0 and up to step 60 within 2e-4 + 1e-6 "
           "relative; later, molecular dynamics amplifies the last bits a "
           "reduction in another order changes (measured: 300 steps, cyclic "
           "placement, node-aware allreduce: energies 6e-7 relative, pressure "
           "0.03 atm), so beyond step 60 energies within 1e-5 relative and "
           "the pressure within 0.1 atm. A wrong collective shows at step 0: "
           "a wrong alltoallv in PPPM moves E_long in its third digit")

    def limits(self, quantity):
        name, _, step = quantity.partition("@")
        if int(step or 0) <= 60:
            return (2e-4, 1e-6)
        return (0.1, 0.0) if name == "Press" else (2e-4, 1e-5)

    def prepare(self, workdir, size):
        steps = self.steps[size]
        text = read(os.path.join(LAMMPS_EXAMPLE, "in.peptide"))
        if not text:
            raise FileNotFoundError(f"{LAMMPS_EXAMPLE}/in.peptide (apt-get install "
                                    "lammps-examples)")
        text = re.sub(r"^(kspace_style.*)$", r"\1\nkspace_modify\tcollective yes", text,
                      flags=re.M)
        text = re.sub(r"^read_data\s+data\.peptide",
                      f"read_data\t{LAMMPS_EXAMPLE}/data.peptide", text, flags=re.M)
        text = re.sub(r"^thermo\s+\d+", f"thermo\t\t{max(steps // 2, 1) if size == 'check' else 50}",
                      text, flags=re.M)
        text = re.sub(r"^run\s+\d+", f"run\t\t{steps}", text, flags=re.M)
        with open(os.path.join(workdir, "in.peptide"), "w") as f:
            f.write(text)
        return ["lmp", "-in", "in.peptide", "-log", "log.lammps", "-screen", "none"]

    def result(self, workdir, output):
        out, step = {}, None
        for line in read(os.path.join(workdir, "log.lammps")).splitlines():
            m = re.match(r"-+ Step\s+(\d+)", line)
            if m:
                step = int(m.group(1))
                continue
            if step is None:
                continue
            pairs = re.findall(r"(\w+)\s+=\s+(-?[\d.]+(?:[eE][-+]?\d+)?)", line)
            if not pairs:
                step = None if line.startswith("Loop") else step
                continue
            for k, v in pairs:
                out[f"{k}@{step}"] = float(v)
        return out


QE_PSEUDO = "/usr/share/espresso/pseudo"


class QuantumEspresso(App):
    name = "qe"
    packages = ("quantum-espresso", "quantum-espresso-data")
    about = ("Quantum ESPRESSO pw.x (Debian 6.7): self-consistent field of an "
             "8-atom silicon cell, LDA (Si.pz-vbc), plane waves distributed over "
             "the ranks (FFT transposes as MPI_Alltoall)")
    # (ecutwfc Ry, k-point mesh)
    sizes = {"check": (16.0, 1), "time": (24.0, 2)}
    tolerance = {r"energy_ry": (1e-6, 0.0), r"homo_ev": (2e-4, 0.0),
                 r"fermi_ev": (2e-4, 0.0)}
    why = ("SCF converged to conv_thr 1e-8 Ry: summation order moves the "
           "converged total energy by ~1e-9 Ry, so 1e-6 Ry (100 x conv_thr) "
           "is rounding; the highest occupied level is printed with 4 decimals "
           "(2 units allowed). A wrong alltoall breaks the FFT: the SCF does "
           "not converge or the energy moves by > 1e-2 Ry")

    def prepare(self, workdir, size):
        ecut, k = self.sizes[size]
        atoms = ["0.00 0.00 0.00", "0.50 0.50 0.00", "0.50 0.00 0.50", "0.00 0.50 0.50",
                 "0.25 0.25 0.25", "0.75 0.75 0.25", "0.75 0.25 0.75", "0.25 0.75 0.75"]
        text = "\n".join([
            "&control", "  calculation = 'scf', prefix = 'si8',",
            f"  outdir = '{workdir}/out', pseudo_dir = '{QE_PSEUDO}'", "/",
            "&system", f"  ibrav = 1, celldm(1) = 10.26, nat = 8, ntyp = 1, ecutwfc = {ecut}",
            "/", "&electrons", "  conv_thr = 1.0d-8", "/",
            "ATOMIC_SPECIES", " Si 28.086 Si.pz-vbc.UPF", "ATOMIC_POSITIONS crystal"]
            + [f" Si {a}" for a in atoms] + ["K_POINTS automatic", f" {k} {k} {k} 0 0 0", ""])
        with open(os.path.join(workdir, "si8.in"), "w") as f:
            f.write(text)
        return ["pw.x", "-nk", "1", "-in", "si8.in"]

    def result(self, workdir, output):
        out = {}
        m = re.search(r"^!\s+total energy\s+=\s+(-?[\d.]+) Ry", output, re.M)
        if m and "convergence has been achieved" in output:
            out["energy_ry"] = float(m.group(1))
        m = re.search(r"highest occupied level \(ev\):\s+(-?[\d.]+)", output)
        if m:
            out["homo_ev"] = float(m.group(1))
        m = re.search(r"the Fermi energy is\s+(-?[\d.]+) ev", output)
        if m:
            out["fermi_ev"] = float(m.group(1))
        return out


CP2K_DATA = "/usr/share/cp2k"


class Cp2k(App):
    name = "cp2k"
    packages = ("cp2k",)
    about = ("CP2K (Debian 2023.1, cp2k.psmp, one thread per rank): Quickstep "
             "single-point energy of liquid-water-like boxes (n^3 molecules, "
             "PBE, DZVP-MOLOPT-SR-GTH, GTH pseudopotentials, OT): real-space "
             "grid <-> plane-wave transfers as MPI_Alltoallv, many small "
             "MPI_Allreduce")
    # (molecules per side, cutoff Ry, EPS_SCF)
    sizes = {"check": (1, 120, 1e-5), "time": (2, 100, 1e-5)}
    tolerance = {r"energy_ha": (1e-7, 0.0)}
    why = ("OT converged to EPS_SCF 1e-5: the energy's error is second order "
           "in it; other summation orders move the energy by ~1e-10 Ha, so "
           "1e-7 Ha is rounding; a wrong alltoallv scrambles the density grid "
           "(energy off by > 1e-2 Ha or no convergence)")

    def prepare(self, workdir, size):
        n, cutoff, eps = self.sizes[size]
        side = 3.9 * n
        coords = []
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    x, y, z = ((c + 0.25) * 3.9 for c in (i, j, k))
                    # O-H 0.9572 A, H-O-H 104.52 degrees (sin, cos of half)
                    coords += [f"O {x:.4f} {y:.4f} {z:.4f}",
                               f"H {x + 0.7570:.4f} {y + 0.5859:.4f} {z:.4f}",
                               f"H {x - 0.7570:.4f} {y + 0.5859:.4f} {z:.4f}"]
        kinds = "".join(f"""    &KIND {e}
      BASIS_SET DZVP-MOLOPT-SR-GTH
      POTENTIAL GTH-PBE-q{q}
    &END KIND
""" for e, q in (("H", 1), ("O", 6)))
        text = f"""&GLOBAL
  PROJECT water
  RUN_TYPE ENERGY
  PRINT_LEVEL LOW
&END GLOBAL
&FORCE_EVAL
  METHOD QS
  &DFT
    BASIS_SET_FILE_NAME {CP2K_DATA}/BASIS_MOLOPT
    POTENTIAL_FILE_NAME {CP2K_DATA}/GTH_POTENTIALS
    &MGRID
      CUTOFF {cutoff}
      REL_CUTOFF 30
    &END MGRID
    &SCF
      EPS_SCF {eps:.1E}
      MAX_SCF 40
      SCF_GUESS ATOMIC
      &OT
        MINIMIZER DIIS
        PRECONDITIONER FULL_SINGLE_INVERSE
      &END OT
    &END SCF
    &XC
      &XC_FUNCTIONAL PBE
      &END XC_FUNCTIONAL
    &END XC
  &END DFT
  &SUBSYS
    &CELL
      ABC {side} {side} {side}
    &END CELL
    &COORD
""" + "".join(f"      {c}\n" for c in coords) + f"""    &END COORD
{kinds}  &END SUBSYS
&END FORCE_EVAL
"""
        with open(os.path.join(workdir, "water.inp"), "w") as f:
            f.write(text)
        # cp2k appends to its output file: a rerun in the folder starts afresh
        if os.path.exists(os.path.join(workdir, "water.out")):
            os.remove(os.path.join(workdir, "water.out"))
        return ["cp2k.psmp", "-i", "water.inp", "-o", "water.out"]

    def result(self, workdir, output):
        text = read(os.path.join(workdir, "water.out"))
        m = re.search(r"ENERGY\| Total FORCE_EVAL \( QS \) energy \S*:\s+(-?[\d.]+)", text)
        if not m or "SCF run NOT converged" in text:
            return {}
        return {"energy_ha": float(m.group(1))}


APPS = {a.name: a for a in (Lammps(), QuantumEspresso(), Cp2k())}


def get(name):
    if name not in APPS:
        raise KeyError(f"unknown application '{name}' (known: {', '.join(APPS)})")
    return APPS[name]
