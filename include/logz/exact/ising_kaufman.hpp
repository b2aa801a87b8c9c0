#pragma once
namespace logz::exact {
double ising_log_z_kaufman(int rows, int cols, double beta, double coupling = 1.0);
double ising_mean_energy_kaufman(int rows, int cols, double beta, double coupling = 1.0);
}
