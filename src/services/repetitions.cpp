#include "logz/services/repetitions.hpp"

#include <fmt/format.h>

#include <cmath>

#include "logz/math/running_moments.hpp"

namespace logz {

namespace {

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

double json_number(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : kNaN;
}

std::string fixed(double x, int precision) {
  return std::isfinite(x) ? fmt::format("{:.{}f}", x, precision) : std::string("nan");
}

}  // namespace

std::vector<RepetitionSummary> summarise_repetitions(const std::vector<ExperimentResult>& results) {
  std::vector<RepetitionSummary> out;
  if (results.empty()) return out;
  const ExperimentResult& first = results.front();
  const double exact = first.reference ? first.reference->log_z - first.base_log_z : kNaN;
  for (const auto& e0 : first.estimates) {
    RepetitionSummary s;
    s.method = e0.method;
    for (const auto& r : results) {
      double value = kNaN, se = kNaN;
      for (const auto& e : r.estimates)
        if (e.method == s.method) value = e.log_z, se = e.std_error;
      s.evidence.push_back(value);
      s.std_error.push_back(se);
    }
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
    out.push_back(std::move(s));
  }
  return out;
}

nlohmann::json repetitions_to_json(const std::vector<RepetitionSummary>& summary,
                                   const std::vector<std::uint64_t>& seeds) {
  nlohmann::json methods = nlohmann::json::array();
  for (const auto& s : summary) {
    nlohmann::json ev = nlohmann::json::array(), se = nlohmann::json::array();
    for (double x : s.evidence) ev.push_back(number(x));
    for (double x : s.std_error) se.push_back(number(x));
    methods.push_back({{"method", s.method},
                         {"mean", number(s.mean)},
                         {"sd", number(s.sd)},
                         {"mean_std_error", number(s.mean_std_error)},
                         {"mean_error", number(s.mean_error)},
                         {"rmse", number(s.rmse)},
                         {"coverage_2se", number(s.coverage_2se)},
                         {"failed", s.failed},
                         {"evidence", ev},
                         {"std_error", se}});
  }
  return {{"count", seeds.size()},
          {"seeds", seeds},
          {"note", "evidence = log(Z / Z_0) of each repetition; mean, sd over repetitions; mean_error and "
                   "rmse against the exact evidence; coverage_2se: fraction with |error| <= 2 std_error"},
          {"methods", methods}};
}

ExperimentResult run_repetitions(Config& config, std::size_t repetitions, const ExperimentRunner& runner,
                                 const ProgressFn& progress) {
  const auto seed = static_cast<std::uint64_t>(config.section("run").get_int("seed", 1, 0));
  std::vector<ExperimentResult> results;
  std::vector<std::uint64_t> seeds;
  results.reserve(repetitions);
  for (std::size_t r = 0; r < repetitions; ++r) {
    Config copy = config;
    seeds.push_back(seed + r);
    copy.set("run.seed=" + std::to_string(seeds.back()));
    ProgressFn p;
    if (progress)
      p = [&](const std::string& stage, std::size_t d, std::size_t n) {
        progress(fmt::format("repetition {}/{}: {}", r + 1, repetitions, stage), d, n);
      };
    results.push_back(runner(copy, p));
    if (r == 0) {
      config = copy;  // the resolved config of the first repetition
    } else {
      results.back().forward.reset();
      results.back().reverse.reset();
      results.back().details = nlohmann::json::object();
    }
  }
  nlohmann::json summary = repetitions_to_json(summarise_repetitions(results), seeds);
  ExperimentResult first = std::move(results.front());
  first.details["repetitions"] = std::move(summary);
  return first;
}

std::string repetitions_table(const nlohmann::json& rep, double exact_evidence) {
  const bool exact = std::isfinite(exact_evidence);
  std::string s = fmt::format("over {} repetitions (seeds {} to {}), evidence log Z - log Z0:\n",
                              rep.value("count", 0), rep["seeds"].front().get<std::uint64_t>(),
                              rep["seeds"].back().get<std::uint64_t>());
  s += fmt::format("{:<19} {:>12} {:>10} {:>12}", "method", "mean", "sd", "mean std err");
  if (exact) s += fmt::format(" {:>11} {:>10} {:>10}", "mean error", "rmse", "in 2 SE");
  s += "\n";
  for (const auto& m : rep["methods"]) {
    s += fmt::format("{:<19} {:>12} {:>10} {:>12}", m.value("method", ""), fixed(json_number(m, "mean"), 4),
                     fixed(json_number(m, "sd"), 4), fixed(json_number(m, "mean_std_error"), 4));
    if (exact)
      s += fmt::format(" {:>11} {:>10} {:>10}", fixed(json_number(m, "mean_error"), 4),
                       fixed(json_number(m, "rmse"), 4), fixed(json_number(m, "coverage_2se"), 3));
    if (m.value("failed", 0) > 0) s += fmt::format("  ({} failed)", m.value("failed", 0));
    s += "\n";
  }
  if (exact) s += fmt::format("{:<19} {:>12}\n", "exact", fixed(exact_evidence, 4));
  return s;
}

}  // namespace logz
