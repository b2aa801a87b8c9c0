// [model] type = "gaussian" for `logz sample`: a Gaussian written into the config (mean, and
// covariance or the identity), the HMC tutorial's test target.
#include <fmt/format.h>

#include "logz/models/gaussian_base.hpp"
#include "services/families/continuous_family.hpp"

namespace logz {

using namespace continuous;

namespace {

const Key kMean = Key::array("mean", required, "d numbers");
const Key kCovariance = Key::array("covariance", Computed{"the identity"},
                                   "d arrays of d numbers, symmetric positive definite");
const KeyGroup kModelKeys{"model", "gaussian", {&kMean, &kCovariance}};

GaussianBase read_inline_gaussian(Config& config, Record& desc) {
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  const Value& mean = m.get_value(kMean);
  if (!mean.is_array() || mean.size() == 0)
    m.fail(kMean, "an array of numbers (this key is required)");
  const Eigen::Index d = static_cast<Eigen::Index>(mean.size());
  Eigen::VectorXd mu(d);
  for (Eigen::Index i = 0; i < d; ++i) {
    if (!mean[static_cast<std::size_t>(i)].is_number()) m.fail(kMean, "an array of numbers");
    mu(i) = mean[static_cast<std::size_t>(i)].as_double();
  }
  Eigen::MatrixXd cov = Eigen::MatrixXd::Identity(d, d);
  const Value& c = m.get_value(kCovariance);
  if (!c.is_null()) {
    const std::string shape = fmt::format("a {} x {} array of arrays of numbers", d, d);
    if (!c.is_array() || static_cast<Eigen::Index>(c.size()) != d) m.fail(kCovariance, shape);
    for (Eigen::Index i = 0; i < d; ++i) {
      const Value& row = c[static_cast<std::size_t>(i)];
      if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != d) m.fail(kCovariance, shape);
      for (Eigen::Index j = 0; j < d; ++j) {
        if (!row[static_cast<std::size_t>(j)].is_number()) m.fail(kCovariance, shape);
        cov(i, j) = row[static_cast<std::size_t>(j)].as_double();
      }
    }
  }
  try {
    GaussianBase g(mu, cov);
    desc = {
        {"type", "gaussian"}, {"mean", mean}, {"covariance", c.is_null() ? Value("identity") : c}};
    return g;
  } catch (const InvalidArgument&) {
    m.fail(kCovariance, "a symmetric positive definite matrix");
  }
}

// The draws' summary with the target's own mean and covariance beside it.
SampleResult sample_gaussian(Config& config, const RunContext& context) {
  const SamplerSettings s = read_sampler(config, context.stop);
  Record desc;
  const GaussianBase target = read_inline_gaussian(config, desc);
  SampleResult r = sample_target(s, ContinuousModelRef(target), std::move(desc));
  r.exact_mean.assign(target.mean().begin(), target.mean().end());
  const Eigen::MatrixXd cov = target.covariance();
  for (Eigen::Index i = 0; i < cov.rows(); ++i)
    r.exact_covariance.emplace_back(cov.row(i).begin(), cov.row(i).end());
  return r;
}

}  // namespace

ModelEntry gaussian_model_entry() {
  return {.name = "gaussian",
          .summary =
              "a Gaussian given in the config (mean, covariance): the HMC tutorial's target for "
              "`logz sample`",
          .docs = "docs/hmc.md",
          .sample_keys = {&kModelKeys, &sampler_keys()},
          .sample = sample_gaussian};
}

}  // namespace logz
