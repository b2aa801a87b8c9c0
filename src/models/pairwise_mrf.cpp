#include "logz/models/pairwise_mrf.hpp"

#include <algorithm>
#include <cmath>

namespace logz {

PairwiseMrfParameters random_pairwise_mrf_parameters(int n, double scale, std::uint64_t seed) {
  PairwiseMrfParameters m{Eigen::MatrixXd::Zero(n, n), Eigen::VectorXd(n)};
  RandomStream rng(seed, 0, Purpose::data, 0);
  for (int i = 0; i < n; ++i) {
    m.b(i) = scale * rng.normal();
    for (int j = 0; j < i; ++j) m.W(i, j) = m.W(j, i) = scale * rng.normal();
  }
  return m;
}

PairwiseMrfBatch::PairwiseMrfBatch(std::size_t particles, int n)
    : n_(n),
      x_(particles * static_cast<std::size_t>(n), 0),
      field_(particles * static_cast<std::size_t>(n), 0.0),
      energy_(particles, 0.0) {}

void PairwiseMrfBatch::copy_particle(const PairwiseMrfBatch& from, std::size_t from_p,
                                     std::size_t to_p) {
  const auto n = static_cast<std::size_t>(n_);
  std::copy_n(from.x_.begin() + static_cast<std::ptrdiff_t>(from_p * n), n,
              x_.begin() + static_cast<std::ptrdiff_t>(to_p * n));
  std::copy_n(from.field_.begin() + static_cast<std::ptrdiff_t>(from_p * n), n,
              field_.begin() + static_cast<std::ptrdiff_t>(to_p * n));
  energy_[to_p] = from.energy_[from_p];
}

double PairwiseMrfPath::base_log_z() const { return p_.size() * std::log(2.0); }

void PairwiseMrfPath::refresh(Batch& batch, std::size_t p) const {
  const int n = p_.size();
  const std::uint8_t* x = batch.x(p);
  double* f = batch.field(p);
  double e = 0.0;
  for (int i = 0; i < n; ++i) {
    double s = p_.b(i);
    for (int j = 0; j < n; ++j) s += p_.W(i, j) * x[j];
    f[i] = s;
  }
  // -(1/2) x^T W x - b^T x = -(1/2) sum_i x_i (field_i + b_i)
  for (int i = 0; i < n; ++i) e -= 0.5 * x[i] * (f[i] + p_.b(i));
  batch.energy(p) = e;
}

void PairwiseMrfPath::sample_base(Batch& batch, const BatchRandom& random) const {
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    std::uint8_t* x = batch.x(p);
    for (int i = 0; i < p_.size(); i += 32) {
      const std::uint32_t bits = rng.next_u32();
      for (int k = 0; k < 32 && i + k < p_.size(); ++k) x[i + k] = (bits >> k) & 1u;
    }
    refresh(batch, p);
  }
}

void PairwiseMrfPath::work_increment(double t_from, double t_to, const Batch& batch,
                                     std::span<double> out) const {
  for (std::size_t p = 0; p < batch.num_particles(); ++p)
    out[p] = (t_to - t_from) * beta_ * batch.energy(p);
}

void PairwiseMrfPath::trace_energy(const Batch& batch, std::span<double> out) const {
  for (std::size_t p = 0; p < batch.num_particles(); ++p) out[p] = batch.energy(p);
}

}  // namespace logz
