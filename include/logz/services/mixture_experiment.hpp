// `logz run` for [model] type = "gaussian_mixture" (src/services/mixture_experiment.cpp):
// a mixture of Gaussians (models/gaussian_mixture.hpp; default: the stand-in for the
// mixture of Carlson et al. 2016, Fig. 2) on the geometric path from an isotropic
// Gaussian [base], by annealing ([run] method = "annealing": AIS/RAISE with HMC, HAIS or
// random-walk Metropolis; reverse runs from exact mixture draws) or by simulated
// tempering with the same kernels ([run] method = "tempering": RTS, TS, TI variants,
// MBAR). The exact log Z is reported beside the estimates. Config keys: docs/tempering.md.
#pragma once

#include "logz/services/experiment.hpp"

namespace logz {

ExperimentResult run_gaussian_mixture_experiment(Config& config, const ProgressFn& progress);

}  // namespace logz
