#include "logz/training_app/rbm_evaluation.hpp"

#include <fmt/format.h>

#include "logz/models/rbm_base.hpp"
#include "services/families/rbm_family.hpp"

namespace logz {

namespace {

struct AisKeys {
  Key num_paths, num_steps, schedule, path, seed;
  std::vector<const Key*> all;

  explicit AisKeys(const std::string& p)
      : num_paths(
            Key::integer(p + "num_paths", RbmAisSettings{}.num_paths, 1, 1 << 24, "AIS paths")),
        num_steps(Key::integer(p + "num_steps", RbmAisSettings{}.num_steps, 1, 100000000,
                               "AIS temperatures (linear schedule)")),
        schedule(Key::enumeration(p + "schedule", RbmAisSchedule::linear,
                                  "linear, or Salakhutdinov & Murray's 14,501 temperatures")),
        path(Key::choice(p + "path", std::string("marginal_v"),
                         {"marginal_v", "marginal_h", "full"}, "the AIS path")),
        seed(Key::integer(p + "seed", RbmAisSettings{}.seed, 0, INT64_MAX,
                          "the seed of the AIS runs")),
        all{&num_paths, &num_steps, &schedule, &path, &seed} {}
};

const AisKeys& ais_keys(const std::string& prefix) {
  static const AisKeys plain(""), tracking("ais_");
  return prefix.empty() ? plain : tracking;
}

}  // namespace

const std::vector<const Key*>& rbm_ais_keys(const std::string& prefix) {
  return ais_keys(prefix).all;
}

RbmAisSettings read_rbm_ais_settings(ConfigSection& e, const std::string& prefix) {
  const AisKeys& k = ais_keys(prefix);
  RbmAisSettings s;
  s.num_paths = e.get_int(k.num_paths);
  s.num_steps = e.get_int(k.num_steps);
  s.schedule = e.get_enum<RbmAisSchedule>(k.schedule);
  s.path = e.get_string(k.path);
  s.seed = e.get_int(k.seed);
  return s;
}

RunResult rbm_ais_evaluation(const RbmParameters& rbm, const Eigen::MatrixXd& train,
                             const Eigen::MatrixXd& held_out, const RbmAisSettings& s, Ranks* ranks,
                             StopToken stop) {
  rbm.validate("(in memory)");
  RbmSetup setup;
  setup.parameters = rbm;
  setup.train = train.transpose();
  if (held_out.cols() > 0) setup.test = held_out.transpose();
  setup.base = base_rate_rbm_base(*setup.train);
  setup.path_kind = s.path;
  setup.exact_max_units = s.exact_max_units;
  RunSettings run;
  run.num_paths = static_cast<std::size_t>(s.num_paths);
  run.reverse = false;
  run.seed = static_cast<std::uint64_t>(s.seed);
  run.reverse_start = "data";
  run.methods = {"ais"};
  run.estimators.seed = run.seed;
  const Schedule schedule = s.schedule == RbmAisSchedule::linear
                                ? linear_schedule(static_cast<std::size_t>(s.num_steps))
                                : salakhutdinov_schedule();
  RunResult r = rbm_result(setup, stop);
  anneal_rbm(setup, schedule, run, RunContext{.ranks = ranks, .stop = stop}, r);
  add_test_log_likelihood(setup, r);
  r.config = {{"evaluate", Record{{"method", "ais"},
                                  {"num_paths", s.num_paths},
                                  {"num_steps", s.num_steps},
                                  {"schedule", to_string(s.schedule)},
                                  {"path", s.path},
                                  {"seed", s.seed},
                                  {"exact_max_units", s.exact_max_units},
                                  {"base", "base_rate"},
                                  {"kernel", "gibbs"}}}};
  return r;
}

std::string rbm_ais_summary(const RunResult& r, const RbmAisSettings& s) {
  const Estimate& ais = r.estimates.front();
  std::string text =
      fmt::format("AIS log Z = {:.4f} +- {:.4f} ({} paths, {} schedule, {} steps, ESS {:.1f})\n",
                  ais.log_z + r.base_log_z, ais.std_error, s.num_paths, to_string(s.schedule),
                  s.schedule == RbmAisSchedule::linear ? s.num_steps : 14501, ais.diagnostics.ess);
  if (r.reference)
    text += fmt::format("exact log Z = {:.4f} (enumeration); AIS - exact = {:+.4f} ({:+.1f} SE)\n",
                        r.reference->log_z, ais.log_z + r.base_log_z - r.reference->log_z,
                        (ais.log_z + r.base_log_z - r.reference->log_z) / ais.std_error);
  if (r.test_log_likelihood && std::isfinite(r.test_log_likelihood->value.mean)) {
    const TestLogLikelihood& t = r.test_log_likelihood->value;
    text += fmt::format(
        "validation log-likelihood = {:.4f} +- {:.4f} nats per example ({} examples, {} log Z)\n",
        t.mean, t.std_error, t.num_examples, r.test_log_likelihood->log_z_source);
  }
  return text;
}

}  // namespace logz
