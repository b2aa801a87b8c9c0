#include "logz/services/run.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "logz/math/running_moments.hpp"
#include "logz/services/annealing_experiment.hpp"

namespace logz {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The exact log(Z/Z_0) of a result's model, NaN if it has none.
double exact_evidence(const RunResult& r) {
  return r.reference ? r.reference->log_z - r.base_log_z : kNaN;
}

// A [run] key as annealing_experiment.cpp states it (its default and range).
const Key& run_key(const std::string& name) {
  for (const Key* key : run_keys().keys)
    if (key->name() == name) return *key;
  throw std::logic_error("no [run] key " + name);
}

// Reads [model] type (one of the models that have `command`) and checks the sections.
const ModelEntry& model_of(Config& config, const std::string& command) {
  const std::string type = config.section("model").get_string(model_type_key(command));
  const ModelEntry& model = find_model(type);
  config.check_sections(model.sections(command));
  return model;
}

// [run] repetitions = R: the experiment R times with seeds seed, ..., seed + R - 1 (any one can
// be rerun alone with --seed); the first repetition's full result, with every repetition's
// estimates summarised. Of later repetitions only the estimates and errors are kept.
RunResult run_repetitions(Config& config, std::size_t repetitions, const ModelEntry& model,
                          const RunContext& context) {
  const std::uint64_t seed = read_seed_and_threads(config).seed;
  std::optional<RunResult> first;
  Repetitions summary;
  // The first repetition's budget stands for all of them: said once, times the repetitions.
  bool said = false;
  RunContext each = context;
  if (context.budget)
    each.budget = [&](const PlannedBudget& b) {
      if (said) return;
      said = true;
      PlannedBudget all = b;
      all.factors.insert(all.factors.begin(), {repetitions, "repetitions"});
      context.budget(all);
    };
  for (std::size_t r = 0; r < repetitions; ++r) {
    Config copy = config;
    summary.seeds.push_back(seed + r);
    copy.set("run", "seed", summary.seeds.back());
    RunContext c = each;
    if (context.progress)
      c.progress = [&](const std::string& stage, std::size_t d, std::size_t n) {
        context.progress(fmt::format("repetition {}/{}: {}", r + 1, repetitions, stage), d, n);
      };
    RunResult result = model.run(copy, c);
    add_repetition(summary.methods, result);
    if (r == 0) {
      config = copy;  // the resolved config of the first repetition
      first = std::move(result);
    }
  }
  finish_summary(summary.methods, exact_evidence(*first));
  first->repetitions = std::move(summary);
  return std::move(*first);
}

}  // namespace

RunResult run_experiment(Config& config, const RunContext& context) {
  const ModelEntry& model = model_of(config, "run");
  const auto repetitions =
      static_cast<std::size_t>(config.section("run").get_int(run_key("repetitions")));
  const auto start = Clock::now();
  RunResult result = repetitions == 1 ? model.run(config, context)
                                      : run_repetitions(config, repetitions, model, context);
  result.runtime_s = seconds_since(start);
  result.config = config.resolved();
  return result;
}

LoglikResult run_loglik(Config& config, const RunContext& context) {
  const ModelEntry& model = model_of(config, "loglik");
  const auto start = Clock::now();
  LoglikResult result = model.loglik(config, context);
  result.runtime_s = seconds_since(start);
  result.config = config.resolved();
  return result;
}

SampleResult run_sample(Config& config, const RunContext& context) {
  const ModelEntry& model = model_of(config, "sample");
  const auto start = Clock::now();
  SampleResult result = model.sample(config, context);
  result.runtime_s = seconds_since(start);
  result.config = config.resolved();
  return result;
}

std::vector<RepetitionSummary> summarise_repetitions(const std::vector<RunResult>& results) {
  std::vector<RepetitionSummary> out;
  if (results.empty()) return out;
  for (const auto& r : results) add_repetition(out, r);
  finish_summary(out, exact_evidence(results.front()));
  return out;
}

void add_repetition(std::vector<RepetitionSummary>& summary, const RunResult& result) {
  if (summary.empty())
    for (const auto& e : result.estimates) {
      summary.emplace_back();
      summary.back().method = e.method;
    }
  for (auto& s : summary) {
    double value = kNaN, se = kNaN;
    for (const auto& e : result.estimates)
      if (e.method == s.method) value = e.log_z, se = e.std_error;
    s.evidence.push_back(value);
    s.std_error.push_back(se);
  }
}

void finish_summary(std::vector<RepetitionSummary>& summary, double exact) {
  for (auto& s : summary) {
    RunningMoments est, ses, err2;
    std::size_t covered = 0, with_se = 0;
    for (std::size_t i = 0; i < s.evidence.size(); ++i) {
      const double v = s.evidence[i];
      if (!std::isfinite(v)) {
        ++s.failed;
        continue;
      }
      est.add(v);
      if (std::isfinite(s.std_error[i])) ses.add(s.std_error[i]);
      if (std::isfinite(exact)) {
        err2.add((v - exact) * (v - exact));
        if (std::isfinite(s.std_error[i])) {
          ++with_se;
          if (std::abs(v - exact) <= 2.0 * s.std_error[i]) ++covered;
        }
      }
    }
    if (est.count() > 0) {
      s.mean = est.mean();
      s.sd = est.count() > 1 ? std::sqrt(est.variance()) : kNaN;
    }
    if (ses.count() > 0) s.mean_std_error = ses.mean();
    if (std::isfinite(exact) && est.count() > 0) {
      s.mean_error = s.mean - exact;
      s.rmse = std::sqrt(err2.mean());
      if (with_se > 0) s.coverage_2se = static_cast<double>(covered) / static_cast<double>(with_se);
    }
  }
}

}  // namespace logz
