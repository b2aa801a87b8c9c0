#!/bin/bash
# A Slurm batch script for logz on MPI (docs/scaling.md): the 32 x 32 Potts run of
# examples/potts-32.toml on 16 nodes, one rank per node and one thread per core inside it.
# The result has the bits of a run on one process with the same config and seed.
#   sbatch examples/slurm-potts-32.sh            (from the source folder, after make with LOGZ_MPI)
#SBATCH --job-name=logz-potts-32
#SBATCH --nodes=16
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=32
#SBATCH --time=02:00:00
#SBATCH --output=logz-potts-32-%j.out
set -euo pipefail

LOGZ=${LOGZ:-build-mpi/logz}
CONFIG=${CONFIG:-examples/potts-32.toml}
# The paper's budget: paths enough that every rank gets several chunks (chunk_size paths each).
srun --cpu-bind=none "$LOGZ" run "$CONFIG" --threads "$SLURM_CPUS_PER_TASK" \
  --set run.num_paths=4096 --output "logz-potts-32-$SLURM_JOB_ID.json" --quiet
