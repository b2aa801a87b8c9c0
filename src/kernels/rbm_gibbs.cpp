#include "logz/kernels/rbm_gibbs.hpp"

#include <string>
#include <vector>

#include "logz/core/error.hpp"

namespace logz {

template <class Scalar>
void rbm_sample_hidden(const RbmTarget<Scalar>& target, RbmBatch<Scalar>& batch,
                       std::span<RandomStream> streams) {
  target.sample_hidden(batch.hidden_input(), batch.hidden_for_update(), streams);
}

template <class Scalar>
void rbm_sample_visible(const RbmTarget<Scalar>& target, RbmBatch<Scalar>& batch,
                        std::span<RandomStream> streams) {
  target.sample_visible(batch.visible_input(), batch.visible_for_update(), streams);
}

template <class Scalar>
KernelInfo RbmGibbs<Scalar>::step(const RbmTarget<Scalar>& target, RbmBatch<Scalar>& batch,
                                  const BatchRandom& random) const {
  const std::size_t n = batch.num_particles();
  const std::span<RandomStream> streams = batch.streams(random);
  // Marginal targets: the summed-out layer is drawn first and then discarded
  // in effect, which makes the sweep reversible on the kept layer; only the
  // joint target has a distinct time reversal.
  const bool hidden_first =
      target.mode == RbmMode::visible || (target.mode == RbmMode::joint && !reversed_);
  for (std::size_t s = 0; s < sweeps_; ++s) {
    if (hidden_first) {
      rbm_sample_hidden(target, batch, streams);
      rbm_sample_visible(target, batch, streams);
    } else {
      rbm_sample_visible(target, batch, streams);
      rbm_sample_hidden(target, batch, streams);
    }
  }
  KernelInfo info;
  info.attempted = info.accepted = sweeps_ * n;
  return info;
}

template <class Scalar>
void rbm_start_from_data(const RbmPathBase<Scalar>& path, RbmBatch<Scalar>& batch,
                         const Eigen::MatrixXd& data, std::size_t sweeps,
                         const BatchRandom& random) {
  if (data.rows() < 1 || data.cols() != path.num_visible())
    fail_argument("logz::rbm_start_from_data", "data",
                  "at least one row of " + std::to_string(path.num_visible()) + " units");
  const std::size_t n = batch.num_particles();
  std::vector<RandomStream> streams;
  streams.reserve(n);
  for (std::size_t p = 0; p < n; ++p) streams.push_back(random.stream(p));
  RbmMatrix<Scalar>& V = batch.visible_for_update();
  for (std::size_t p = 0; p < n; ++p) {
    const auto row =
        static_cast<Eigen::Index>(streams[p].below(static_cast<std::uint32_t>(data.rows())));
    V.col(static_cast<Eigen::Index>(p)) = data.row(row).transpose().template cast<Scalar>();
  }
  const RbmTarget<Scalar> target = path.joint_at(1.0);
  rbm_sample_hidden(target, batch, std::span<RandomStream>(streams));
  for (std::size_t s = 0; s < sweeps; ++s) {
    rbm_sample_visible(target, batch, std::span<RandomStream>(streams));
    rbm_sample_hidden(target, batch, std::span<RandomStream>(streams));
  }
}

template void rbm_start_from_data<float>(const RbmPathBase<float>&, RbmBatch<float>&,
                                         const Eigen::MatrixXd&, std::size_t, const BatchRandom&);
template void rbm_start_from_data<double>(const RbmPathBase<double>&, RbmBatch<double>&,
                                          const Eigen::MatrixXd&, std::size_t, const BatchRandom&);
template void rbm_sample_hidden<float>(const RbmTarget<float>&, RbmBatch<float>&,
                                       std::span<RandomStream>);
template void rbm_sample_hidden<double>(const RbmTarget<double>&, RbmBatch<double>&,
                                        std::span<RandomStream>);
template void rbm_sample_visible<float>(const RbmTarget<float>&, RbmBatch<float>&,
                                        std::span<RandomStream>);
template void rbm_sample_visible<double>(const RbmTarget<double>&, RbmBatch<double>&,
                                         std::span<RandomStream>);
template class RbmGibbs<float>;
template class RbmGibbs<double>;

}  // namespace logz
