#include "logz/models/rbm_paths.hpp"

#include <type_traits>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/math/constants.hpp"
#include "logz/math/dot_in_double.hpp"
#include "logz/math/softplus_sums.hpp"

namespace logz {

// ---------------------------------------------------------------- batch

template <class Scalar>
RbmBatch<Scalar>::RbmBatch(const Rbm<Scalar>& rbm, std::size_t n)
    : rbm_(&rbm),
      V_(RbmMatrix<Scalar>::Zero(rbm.num_visible(), static_cast<Eigen::Index>(n))),
      H_(RbmMatrix<Scalar>::Zero(rbm.num_hidden(), static_cast<Eigen::Index>(n))) {}

namespace {

// A layer's unit inputs, computed by `input` only when the cached ones are out of date.
template <class Scalar, class Input>
const RbmMatrix<Scalar>& cached_input(bool& valid, RbmMatrix<Scalar>& cache, Input&& input) {
  if (!valid) {
    input(cache);
    valid = true;
  }
  return cache;
}

}  // namespace

template <class Scalar>
const RbmMatrix<Scalar>& RbmBatch<Scalar>::hidden_input() const {
  return cached_input(hidden_input_valid_, hidden_input_,
                      [&](RbmMatrix<Scalar>& out) { rbm_->hidden_input(V_, out); });
}

template <class Scalar>
const RbmMatrix<Scalar>& RbmBatch<Scalar>::visible_input() const {
  return cached_input(visible_input_valid_, visible_input_,
                      [&](RbmMatrix<Scalar>& out) { rbm_->visible_input(H_, out); });
}

template <class Scalar>
std::span<RandomStream> RbmBatch<Scalar>::streams(const BatchRandom& random) {
  streams_.clear();
  for (std::size_t p = 0; p < num_particles(); ++p) streams_.push_back(random.stream(p));
  return streams_;
}

template <class Scalar>
void RbmBatch<Scalar>::copy_particle(const RbmBatch& from, std::size_t from_p, std::size_t to_p) {
  const auto f = static_cast<Eigen::Index>(from_p), t = static_cast<Eigen::Index>(to_p);
  visible_for_update().col(t) = from.V_.col(f);
  hidden_for_update().col(t) = from.H_.col(f);
}

// ---------------------------------------------------------------- target

template <class Scalar>
void RbmTarget<Scalar>::sample_visible(const RbmMatrix<Scalar>& input, RbmMatrix<Scalar>& out,
                                       std::span<RandomStream> streams) const {
  const std::span<const double> fractions =
      column_t.empty() ? std::span<const double>(&t, 1) : column_t;
  sample_bernoulli_tempered<Scalar>(input, fractions, base_logits, out, streams);
}

template <class Scalar>
void RbmTarget<Scalar>::sample_hidden(const RbmMatrix<Scalar>& input, RbmMatrix<Scalar>& out,
                                      std::span<RandomStream> streams) const {
  const std::span<const double> fractions =
      column_t.empty() ? std::span<const double>(&t, 1) : column_t;
  sample_bernoulli_tempered<Scalar>(input, fractions, nullptr, out, streams);
}

// ---------------------------------------------------------------- shared path parts

namespace {
template <class Scalar>
double offset_softplus_sum(const RbmVector<Scalar>& offset);
}  // namespace

template <class Scalar>
RbmPathBase<Scalar>::RbmPathBase(const RbmParameters& parameters, RbmBase base)
    : rbm_(parameters), base_(std::move(base)) {
  if (base_.logits.size() != parameters.W.rows())
    fail_argument("logz::RbmPathBase", "base",
                  "one logit per visible unit (" + std::to_string(parameters.W.rows()) + ")");
  for (Eigen::Index i = 0; i < base_.logits.size(); ++i)
    if (!std::isfinite(base_.logits[i]))
      fail_argument("logz::RbmPathBase", "base", "finite logits");
  a0_ = base_.logits.cast<Scalar>();
  a0_softplus_sum_ = offset_softplus_sum<Scalar>(a0_);
}

template <class Scalar>
void RbmPathBase<Scalar>::set_parameters(const RbmParameters& parameters) {
  if (parameters.W.rows() != rbm_.num_visible() || parameters.W.cols() != rbm_.num_hidden())
    fail_argument("logz::RbmPathBase::set_parameters", "parameters",
                  "the path's shape " + std::to_string(rbm_.num_visible()) + " x " +
                      std::to_string(rbm_.num_hidden()));
  rbm_ = Rbm<Scalar>(parameters);
}

template <class Scalar>
void RbmPathBase<Scalar>::sample_base(Batch& batch, const BatchRandom& random) const {
  const std::size_t n = batch.num_particles();
  std::vector<RandomStream> streams;
  streams.reserve(n);
  for (std::size_t p = 0; p < n; ++p) streams.push_back(random.stream(p));
  RbmMatrix<Scalar>& logits = batch.scratch();
  logits.resize(a0_.size(), static_cast<Eigen::Index>(n));
  logits.colwise() = a0_;
  sample_bernoulli_logits<Scalar>(logits, batch.visible_for_update(), streams);
  logits.setZero(rbm_.num_hidden(), static_cast<Eigen::Index>(n));
  sample_bernoulli_logits<Scalar>(logits, batch.hidden_for_update(), streams);
}

namespace {

// sum_i softplus((1 - t) offset_i + t y_i) evaluated in double (offset may be null: 0).
template <class Scalar>
double softplus_sum_in_double(const Scalar* y, const Scalar* offset, double t, Eigen::Index n,
                              Eigen::ArrayXd& z) {
  z = t * Eigen::Map<const Eigen::Array<Scalar, Eigen::Dynamic, 1>>(y, n).template cast<double>();
  if (offset != nullptr && t != 1.0)
    z += (1.0 - t) * Eigen::Map<const Eigen::Array<Scalar, Eigen::Dynamic, 1>>(offset, n)
                         .template cast<double>();
  return softplus_sum(z.data(), static_cast<std::size_t>(n));
}

// The same sum: in float lanes for float RBMs (math/softplus_sums.hpp; their inputs are float
// GEMM outputs already), in double for double ones.
template <class Scalar>
double tempered_softplus_sum(const Scalar* y, const Scalar* offset, double t, Eigen::Index n,
                             Eigen::ArrayXd& z) {
  // At t = 0 without offset every term is softplus(0) = log 2.
  if (offset == nullptr && t == 0.0) return static_cast<double>(n) * kLog2;
  if constexpr (std::is_same_v<Scalar, float>)
    return logz::tempered_softplus_sum(y, offset, t, static_cast<std::size_t>(n));
  else
    return softplus_sum_in_double(y, offset, t, n, z);
}

// sum_i softplus(offset_i): the sum at t = 0 of every state, as tempered_softplus_sum gives it
// (z = 0 y + offset = offset for finite y).
template <class Scalar>
double offset_softplus_sum(const RbmVector<Scalar>& offset) {
  Eigen::ArrayXd z;
  return tempered_softplus_sum<Scalar>(offset.data(), offset.data(), 0.0, offset.size(), z);
}

// sum_i softplus(z_i(t_to)) - softplus(z_i(t_from)). Float RBMs take it term by term without
// cancellation (softplus_increment_sum) where that is safe, and the whole path (0 -> 1, the
// trace) as a difference of float sums, which is large; otherwise the sums in double.
// offset_at_zero: the sum at t = 0 when offset is not null (offset_softplus_sum).
template <class Scalar>
double tempered_softplus_increment(const Scalar* y, const Scalar* offset, double offset_at_zero,
                                   double t_from, double t_to, Eigen::Index n, Eigen::ArrayXd& z) {
  if constexpr (std::is_same_v<Scalar, float>) {
    if (t_from == 0.0 && t_to == 1.0)
      return tempered_softplus_sum(y, offset, t_to, n, z) -
             (offset ? offset_at_zero : tempered_softplus_sum(y, offset, t_from, n, z));
    const double increment =
        softplus_increment_sum(y, offset, t_from, t_to, static_cast<std::size_t>(n));
    if (!std::isnan(increment)) return increment;
  }
  const double to = (offset == nullptr && t_to == 0.0)
                        ? static_cast<double>(n) * kLog2
                        : softplus_sum_in_double(y, offset, t_to, n, z);
  const double from = (offset == nullptr && t_from == 0.0)
                          ? static_cast<double>(n) * kLog2
                          : softplus_sum_in_double(y, offset, t_from, n, z);
  return to - from;
}

// x.y accumulated in double (a float product is exact in double), vectorised.
double dot(const double* x, const double* y, Eigen::Index n) {
  return Eigen::Map<const Eigen::VectorXd>(x, n).dot(Eigen::Map<const Eigen::VectorXd>(y, n));
}

double dot(const float* x, const float* y, Eigen::Index n) {
  return dot_in_double(x, y, static_cast<std::size_t>(n));
}

}  // namespace

template <class Scalar>
std::span<const double> RbmBatch<Scalar>::visible_bias_gap(const RbmVector<Scalar>& a,
                                                           const RbmVector<Scalar>& a0) const {
  if (!bias_gap_valid_ || bias_gap_of_[0] != &a || bias_gap_of_[1] != &a0) {
    bias_gap_.resize(num_particles());
    for (Eigen::Index p = 0; p < V_.cols(); ++p)
      bias_gap_[static_cast<std::size_t>(p)] =
          dot(a.data(), V_.col(p).data(), V_.rows()) - dot(a0.data(), V_.col(p).data(), V_.rows());
    bias_gap_of_[0] = &a, bias_gap_of_[1] = &a0;
    bias_gap_valid_ = true;
  }
  return bias_gap_;
}

namespace {

// E(v, h) + a0.v of every particle, from whichever unit input is up to date.
template <class Scalar>
void slope_full(const RbmBatch<Scalar>& batch, const RbmVector<Scalar>& a0, std::span<double> out) {
  const Rbm<Scalar>& rbm = batch.rbm();
  const auto& V = batch.visible();
  const auto& H = batch.hidden();
  const Eigen::Index m = V.rows(), j = H.rows();
  const bool use_visible = batch.has_visible_input();
  const auto& input = use_visible ? batch.visible_input() : batch.hidden_input();
  for (Eigen::Index p = 0; p < V.cols(); ++p) {
    // E = -(b.h + v.(a + W h)) = -(a.v + h.(b + W^T v)).
    const double e = use_visible ? -(dot(rbm.hidden_bias().data(), H.col(p).data(), j) +
                                     dot(input.col(p).data(), V.col(p).data(), m))
                                 : -(dot(rbm.visible_bias().data(), V.col(p).data(), m) +
                                     dot(input.col(p).data(), H.col(p).data(), j));
    out[static_cast<std::size_t>(p)] = e + dot(a0.data(), V.col(p).data(), m);
  }
}

// The marginal paths: U_t(s) = -linear_t(s) - sum_i softplus((1 - t) offset_i + t y_i(s)), with
// y the cached inputs of the summed-out layer (offset null: 0) and linear_t(s) linear in t.
// Energies take linear(p) = linear_t(s_p); work increments its slope, slope(p) = d linear_t/dt.
template <class Scalar, class Linear>
void marginal_energy(const RbmMatrix<Scalar>& y, const Scalar* offset, double t,
                     std::span<double> out, Linear&& linear) {
  Eigen::ArrayXd z;
  for (Eigen::Index p = 0; p < y.cols(); ++p)
    out[p] = -linear(p) - tempered_softplus_sum<Scalar>(y.col(p).data(), offset, t, y.rows(), z);
}

template <class Scalar, class Slope>
void marginal_work_increment(const RbmMatrix<Scalar>& y, const Scalar* offset,
                             double offset_at_zero, double t_from, double t_to,
                             std::span<double> out, Slope&& slope) {
  Eigen::ArrayXd z;
  for (Eigen::Index p = 0; p < y.cols(); ++p) {
    const double s = slope(p);
    out[p] = -(t_to - t_from) * s - tempered_softplus_increment<Scalar>(y.col(p).data(), offset,
                                                                        offset_at_zero, t_from,
                                                                        t_to, y.rows(), z);
  }
}

}  // namespace

// ---------------------------------------------------------------- full path

template <class Scalar>
void RbmFullPath<Scalar>::energy(double t, const Batch& batch, std::span<double> out) const {
  slope_full(batch, this->a0_, out);
  const auto& V = batch.visible();
  for (Eigen::Index p = 0; p < V.cols(); ++p)
    out[p] = -dot(this->a0_.data(), V.col(p).data(), V.rows()) + t * out[p];
}

template <class Scalar>
void RbmFullPath<Scalar>::work_increment(double t_from, double t_to, const Batch& batch,
                                         std::span<double> out) const {
  // U_t = -a0.v + t (E + a0.v) is linear in t.
  slope_full(batch, this->a0_, out);
  for (std::size_t p = 0; p < batch.num_particles(); ++p) out[p] *= (t_to - t_from);
}

// ---------------------------------------------------------------- marginal over v (h summed out)

template <class Scalar>
void RbmMarginalVisiblePath<Scalar>::energy(double t, const Batch& batch,
                                            std::span<double> out) const {
  const auto& V = batch.visible();
  const auto& a = this->rbm_.visible_bias();
  // U_t(v) = -[(1 - t) a0 + t a].v - sum_j softplus(t y_j).
  marginal_energy<Scalar>(batch.hidden_input(), nullptr, t, out, [&](Eigen::Index p) {
    const double av = dot(a.data(), V.col(p).data(), V.rows());
    const double a0v = dot(this->a0_.data(), V.col(p).data(), V.rows());
    return (1.0 - t) * a0v + t * av;
  });
}

template <class Scalar>
void RbmMarginalVisiblePath<Scalar>::work_increment(double t_from, double t_to, const Batch& batch,
                                                    std::span<double> out) const {
  const std::span<const double> gap = batch.visible_bias_gap(this->rbm_.visible_bias(), this->a0_);
  marginal_work_increment<Scalar>(batch.hidden_input(), nullptr, 0.0, t_from, t_to, out,
                                  [&](Eigen::Index p) { return gap[static_cast<std::size_t>(p)]; });
}

template <class Scalar>
void RbmMarginalVisiblePath<Scalar>::level_energies(std::span<const double> t, const Batch& batch,
                                                    std::vector<double>& energies,
                                                    std::vector<double>& slopes) const {
  level_energies(t, batch, energies, &slopes);
}

template <class Scalar>
void RbmMarginalVisiblePath<Scalar>::level_energies(std::span<const double> t, const Batch& batch,
                                                    std::vector<double>& energies) const {
  level_energies(t, batch, energies, nullptr);
}

template <class Scalar>
void RbmMarginalVisiblePath<Scalar>::level_energies(std::span<const double> t, const Batch& batch,
                                                    std::vector<double>& energies,
                                                    std::vector<double>* slopes) const {
  // U_k(v) - U_0(v) = -t_k (a - a0).v - sum_j softplus(t_k y_j) + J log 2, y = b + W^T v;
  // -dU/dt at t_k = (a - a0).v + sum_j y_j sigmoid(t_k y_j). With e = exp(-|z|), z = t y:
  // softplus(z) = max(z, 0) + log(1 + e), sigmoid(z) = 1/(1 + e) for z >= 0 and e/(1 + e) below,
  // i.e. 1/2 + sign(z) (1/(1 + e) - 1/2): one exp for both.
  const auto& V = batch.visible();
  const auto& y = batch.hidden_input();
  const auto& a = this->rbm_.visible_bias();
  const std::size_t k_levels = t.size();
  energies.resize(k_levels * static_cast<std::size_t>(V.cols()));
  if (slopes) slopes->resize(energies.size());
  const Eigen::Index j = y.rows();
  Eigen::ArrayXd yd(j), z(j), e(j);
  std::vector<double> level_softplus(k_levels);
  const double log2j = static_cast<double>(j) * kLog2;
  const std::span<const double> gap = batch.visible_bias_gap(a, this->a0_);
  for (Eigen::Index p = 0; p < V.cols(); ++p) {
    const double da = gap[static_cast<std::size_t>(p)];
    if constexpr (std::is_same_v<Scalar, float>) {
      // Float RBMs: every level in one vectorised pass (math/softplus_sums.hpp); the slopes'
      // reciprocals only when asked for, the softplus sums the same bits either way.
      const std::size_t at = static_cast<std::size_t>(p) * k_levels;
      softplus_level_sums(y.col(p).data(), static_cast<std::size_t>(j), t, level_softplus.data(),
                          slopes ? slopes->data() + at : nullptr);
      for (std::size_t k = 0; k < k_levels; ++k) {
        energies[at + k] = -t[k] * da - level_softplus[k] + log2j;
        if (slopes) (*slopes)[at + k] += da;
      }
      continue;
    }
    yd = y.col(p).array().template cast<double>();
    for (std::size_t k = 0; k < k_levels; ++k) {
      const std::size_t at = static_cast<std::size_t>(p) * k_levels + k;
      z = t[k] * yd;
      e = (-z.abs()).exp();
      const double softplus = (z.max(0.0) + (e + 1.0).log()).sum();
      energies[at] = -t[k] * da - softplus + log2j;
      if (!slopes) continue;
      e = 0.5 + z.sign() * (1.0 / (e + 1.0) - 0.5);  // sigmoid(z)
      (*slopes)[at] = da + (yd * e).sum();
    }
  }
}

// ---------------------------------------------------------------- marginal over h (v summed out)

template <class Scalar>
void RbmMarginalHiddenPath<Scalar>::energy(double t, const Batch& batch,
                                           std::span<double> out) const {
  const auto& H = batch.hidden();
  const auto& b = this->rbm_.hidden_bias();
  // U_t(h) = -t b.h - sum_i softplus((1 - t) a0_i + t x_i).
  marginal_energy<Scalar>(batch.visible_input(), this->a0_.data(), t, out, [&](Eigen::Index p) {
    return t * dot(b.data(), H.col(p).data(), H.rows());
  });
}

template <class Scalar>
void RbmMarginalHiddenPath<Scalar>::work_increment(double t_from, double t_to, const Batch& batch,
                                                   std::span<double> out) const {
  const auto& H = batch.hidden();
  const auto& b = this->rbm_.hidden_bias();
  marginal_work_increment<Scalar>(
      batch.visible_input(), this->a0_.data(), this->a0_softplus_sum_, t_from, t_to, out,
      [&](Eigen::Index p) { return dot(b.data(), H.col(p).data(), H.rows()); });
}

template class RbmBatch<float>;
template class RbmBatch<double>;
template struct RbmTarget<float>;
template struct RbmTarget<double>;
template class RbmPathBase<float>;
template class RbmPathBase<double>;
template class RbmFullPath<float>;
template class RbmFullPath<double>;
template class RbmMarginalVisiblePath<float>;
template class RbmMarginalVisiblePath<double>;
template class RbmMarginalHiddenPath<float>;
template class RbmMarginalHiddenPath<double>;

}  // namespace logz
