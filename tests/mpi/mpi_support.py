"""Starting the logz tool under mpirun for the MPI tests (tests/mpi/)."""
import os
import subprocess


def mpirun_command(mpiexec, ranks, argv, quiet=False):
    """mpiexec -np RANKS argv..., oversubscribed (the tests start more ranks than cores); quiet:
    without mpirun's own messages (-q)."""
    cmd = [mpiexec, "--oversubscribe", "-np", str(ranks)] + (["-q"] if quiet else [])
    if os.geteuid() == 0:  # Open MPI refuses root unless told (containers, CI)
        cmd.append("--allow-run-as-root")
    return cmd + list(argv)


def mpi_env():
    """Shared memory between local ranks, with no single-copy (ptrace) mechanism, which
    containers often forbid; no network transports to probe."""
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_btl", "self,vader")
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    return env


def run(cmd, timeout=120, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env or mpi_env())
