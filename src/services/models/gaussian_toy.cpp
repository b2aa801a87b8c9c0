// [model] type = "gaussian_toy": the Gaussian toy of Habeck (2017), section 4, annealed from
// N(mu_start, sigma_start^2) to N(mu_end, sigma_end^2) along the geometric bridge, with the
// paper's autoregressive Gaussian kernels; reverse runs start from exact draws of the target. The
// exact log Z, the exact expected bounds -E[W_f] and E[W_r] and the exact mean trace energy per
// temperature are reported.
#include "logz/models/gaussian_toy.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "logz/exact/gaussian_toy_marginals.hpp"
#include "logz/kernels/gaussian_autoregressive.hpp"
#include "logz/services/annealing_experiment.hpp"

namespace logz {

namespace {

constexpr double kMaxDouble = 1.7976931348623157e308;

const Key kMuStart = Key::number("mu_start", 20.0, -kMaxDouble, kLargestScale, "the base's mean");
const Key kSigmaStart = Key::number("sigma_start", 10.0, 0.0, kLargestScale, "the base's sd, > 0");
const Key kMuEnd = Key::number("mu_end", 0.0, -kMaxDouble, kLargestScale, "the target's mean");
const Key kSigmaEnd = Key::number("sigma_end", 1.0, 0.0, kLargestScale, "the target's sd, > 0");
// The author's script (michaelhabeck/paths, scripts/gaussian.py) interpolates tau linearly from
// 0.9 at the base to 0.995 at the target; `tau` sets one value for the whole path.
const Key kTau =
    Key::number("tau", Computed{"none: tau_start and tau_end"}, 0.0, 1.0,
                "one kernel tau for the whole path (instead of tau_start and tau_end)");
const Key kTauStart = Key::number("tau_start", 0.9, 0.0, 1.0,
                                  "the kernel's tau at t = 0 (0: exact draws, 1: no move)");
const Key kTauEnd =
    Key::number("tau_end", 0.995, 0.0, 1.0, "the kernel's tau at t = 1, linear in t between");
const KeyGroup kModelKeys{
    "model",
    "gaussian_toy",
    {&kMuStart, &kSigmaStart, &kMuEnd, &kSigmaEnd, &kTau, &kTauStart, &kTauEnd}};

const Key kKernelType =
    Key::choice("type", std::string("autoregressive"), {"autoregressive"},
                "T(x | x') = N((1 - tau) mu_t + tau x', (1 - tau^2) sigma_t^2)");
// 10^7 applications (about a second) per temperature: the defaults' 2 x 100 x 999
// path-temperatures in about a day on one core.
const Key kSteps = Key::integer("steps_per_temperature", 1, 1, 10000000,
                                "applications of the kernel per temperature");
const KeyGroup kKernelKeys{"kernel", "gaussian_toy kernels", {&kKernelType, &kSteps}};

double get_sigma(ConfigSection& m, const Key& key) {
  const double s = m.get_double(key);
  if (!(s > 0.0) || !std::isfinite(1.0 / (s * s)))
    m.fail(key, "a finite number > 0 whose 1/sigma^2 is finite, got " + fmt::format("{}", s));
  return s;
}

// A relative variance for the report: the number, or "infinite" where E[exp(-2W)] diverges.
Value relative_variance(double v) { return std::isfinite(v) ? Value(v) : Value("infinite"); }

// [model]: the base and target Gaussians and the kernel's tau along the path.
struct ToyParameters {
  double mu_start, sigma_start, mu_end, sigma_end, tau_start, tau_end;
  GaussianToy model() const {
    return GaussianToy(mu_start, sigma_start, mu_end, sigma_end, tau_start, tau_end);
  }
};

ToyParameters read_gaussian_toy(Config& config) {
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  const double mu_start = m.get_double(kMuStart);
  const double sigma_start = get_sigma(m, kSigmaStart);
  const double mu_end = m.get_double(kMuEnd);
  const double sigma_end = get_sigma(m, kSigmaEnd);
  // Energies (x - mu)^2 / (2 sigma^2) at draws some sds from either mean must stay finite, or
  // the run would fail deep in the annealer instead of here.
  const double reach = (std::abs(mu_start - mu_end) + 40.0 * std::max(sigma_start, sigma_end)) /
                       std::min(sigma_start, sigma_end);
  if (!(reach * reach < 1e300))
    m.fail(std::abs(mu_start) >= std::abs(mu_end) ? kMuStart : kMuEnd,
           fmt::format("means and sds whose energies (x - mu)^2 / (2 sigma^2) stay finite: "
                       "(|mu_start - mu_end| + 40 "
                       "sigma_max) / sigma_min = {:g}, at most 1e150",
                       reach));
  double tau_start = 0.9, tau_end = 0.995;
  if (m.has(kTau)) {
    if (m.has(kTauStart) || m.has(kTauEnd))
      m.fail(kTau, "either tau or tau_start and tau_end, not both");
    tau_start = tau_end = m.get_double(kTau.with_default(required));
  } else {
    tau_start = m.get_double(kTauStart);
    tau_end = m.get_double(kTauEnd);
  }
  return {mu_start, sigma_start, mu_end, sigma_end, tau_start, tau_end};
}

// The exact log Z of the target N(mu_end, sigma_end^2): the run's reference and exact_log_z().
Reference gaussian_toy_reference(const GaussianToy& model) {
  return Reference{model.target_log_z(), "analytic"};
}

RunResult run_gaussian_toy(Config& config, const RunContext& context) {
  const auto [mu_start, sigma_start, mu_end, sigma_end, tau_start, tau_end] =
      read_gaussian_toy(config);
  const GaussianToy model(mu_start, sigma_start, mu_end, sigma_end, tau_start, tau_end);

  auto k = config.section("kernel");
  k.check_known({&kKernelKeys});
  k.get_string(kKernelType);
  const auto steps = static_cast<std::size_t>(k.get_int(kSteps));
  const GaussianAutoregressive kernel(steps);

  read_run_method(config, {RunMethod::annealing});
  const Schedule schedule = read_schedule(config);
  const RunSettings run = read_run_settings(config, {"exact"});

  const exact::GaussianToySpec spec{mu_start,  sigma_start, mu_end, sigma_end,
                                    tau_start, tau_end,     steps};

  RunResult result;
  result.model = {{"type", "gaussian_toy"},
                  {"mu_start", mu_start},
                  {"sigma_start", sigma_start},
                  {"mu_end", mu_end},
                  {"sigma_end", sigma_end},
                  {"tau_start", tau_start},
                  {"tau_end", tau_end},
                  {"path", "geometric bridge"},
                  {"base", "N(mu_start, sigma_start^2)"}};
  result.base_log_z = model.base_log_z();
  result.reference = gaussian_toy_reference(model);
  result.kernel = {{"type", "autoregressive"},
                   {"steps_per_temperature", steps},
                   {"step_unit", "AR(1) draw x <- mu + tau (x - mu) + sqrt(1 - tau^2) sigma z"}};

  auto exact_start = [&](GaussianBatch& batch, const ChunkStreams& streams) {
    model.sample_target(batch, streams.random(0));
  };
  anneal_and_estimate(model, kernel, schedule, run, exact_start, context, result);
  // The exactly propagated process on the schedule the run used (an adaptive one is placed by
  // the run): its evidences log(Z / Z_0) with the exact reverse start.
  const auto truth = exact::gaussian_toy_marginals(spec, annealed_fractions(result));
  result.model.set("exact_lower_bound", truth.lower_bound)
      .set("exact_upper_bound", truth.upper_bound)
      .set("exact_forward_work_sd", std::sqrt(truth.forward_work.variance))
      .set("exact_reverse_work_sd", std::sqrt(truth.reverse_work.variance))
      .set("exact_ais_weight_relative_variance",
           relative_variance(truth.forward_work.weight_relative_variance))
      .set("exact_raise_weight_relative_variance",
           relative_variance(truth.reverse_work.weight_relative_variance));
  result.equilibrium_energy = truth.equilibrium_energy;
  return result;
}

}  // namespace

ModelEntry gaussian_toy_model_entry() {
  return {.name = "gaussian_toy",
          .summary =
              "the Gaussian toy of Habeck (2017): N(mu_start, sigma_start^2) annealed to N(mu_end, "
              "sigma_end^2)",
          .docs = "docs/config.md",
          .methods = {RunMethod::annealing},
          .kernels = {{"gaussian_toy", "autoregressive",
                       "the paper's Gaussian kernel, exact at every temperature of the bridge",
                       &kKernelKeys}},
          .reverse_starts = {"exact"},
          .reference = "analytic",
          .keys = {&kModelKeys, &kKernelKeys, &run_keys(), &schedule_keys(), &estimator_keys()},
          .run = run_gaussian_toy,
          .exact = [](Config& c) -> std::optional<Reference> {
            return gaussian_toy_reference(read_gaussian_toy(c).model());
          }};
}

}  // namespace logz
