// logz estimate: the estimators on the user's own work values.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <variant>

#include "commands.hpp"
#include "logz/config/memory_guard.hpp"
#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/estimators/mbar.hpp"
#include "logz/io/npy_columns.hpp"
#include "logz/io/number_list.hpp"
#include "logz/report/json.hpp"
#include "logz/report/tables.hpp"
#include "logz/services/estimators.hpp"
#include "logz/services/registry.hpp"

namespace logz::cli {

namespace {

struct EstimateArgs {
  std::string forward, reverse, methods, output;
  std::string u_kn, n_k;  // MBAR
  std::uint64_t seed = EstimatorOptions{}.seed;
  std::map<std::string, std::int64_t> options;  // by key name: one flag each (option_flag)
};

// The flag of an estimator option: its key's name with dashes (--posterior-draws).
std::string option_flag(const Key& key) {
  std::string flag = "--" + key.name();
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

// What MBAR keeps per pair of states (K x K matrices: Gram, Hessian, covariance, overlap and
// the eigendecomposition's), to refuse a K whose matrices cannot fit before reading anything.
constexpr double kMbarBytesPerStatePair = 8.0 * 8.0;

// `logz estimate --u-kn U.npy --n-k N`: MBAR on the user's reduced energies, streamed from the
// file a block of samples at a time (io::NpyColumnReader), so u_kn may be larger than memory.
int run_mbar(const EstimateArgs& a) {
  if (a.u_kn.empty() || a.n_k.empty())
    throw InputError(
        std::string("logz estimate: ") + (a.u_kn.empty() ? "--u-kn" : "--n-k") +
        ": expected both --u-kn (the reduced energies) and --n-k (the samples per state) for MBAR");
  if (!a.forward.empty() || !a.reverse.empty() || !a.methods.empty())
    throw InputError(
        "logz estimate: --u-kn: expected no --forward, --reverse or --methods with MBAR's input");
  io::NpyColumnReader u(a.u_kn);  // the header only, so far
  const double k = static_cast<double>(u.rows());
  check_fits_in_memory("--u-kn", kMbarBytesPerStatePair * k * k,
                       "K x K matrices (K = " + std::to_string(u.rows()) + ")");
  const std::vector<double> counts = io::read_numbers(a.n_k);
  if (counts.size() != u.rows())
    throw InputError(fmt::format("{}: expected one count per state of {} ({} states), got {}",
                                 a.n_k, a.u_kn, u.rows(), counts.size()));
  double total = 0.0;
  for (const double c : counts) {
    if (!(c >= 0.0) || c != std::floor(c))
      throw InputError(fmt::format("{}: expected whole numbers of samples >= 0, got {}", a.n_k, c));
    total += c;
  }
  if (total != static_cast<double>(u.cols()))
    throw InputError(
        fmt::format("{}: expected counts that add up to the samples of {} ({}), got {}", a.n_k,
                    a.u_kn, u.cols(), total));
  const MbarBlockReader read = [&](std::size_t first, std::size_t count, double* block) {
    u.read(first, count, block);
  };
  const MbarResult r = mbar_streamed(u.rows(), u.cols(), read, counts);
  std::cout << report::mbar_table(r, u.rows(), u.cols());
  if (!a.output.empty())
    write_text_file(a.output, report::mbar_to_json(r, u.cols()).dump(2) + "\n");
  return 0;
}

}  // namespace

std::function<int()> add_estimate_command(CLI::App& app) {
  auto a = std::make_shared<EstimateArgs>();
  CLI::App* sub = app.add_subcommand(
      "estimate",
      "Estimate log(Z1/Z0) from your own work values: forward works W_f with "
      "E[exp(-W_f)] = Z1/Z0, reverse works W_r with E[exp(-W_r)] = Z0/Z1 (text, one "
      "number a line, or .npy)");
  sub->add_option("--forward,-f", a->forward, "Forward work file");
  sub->add_option("--reverse,-r", a->reverse, "Reverse work file");
  sub->add_option(
      "--methods,-m", a->methods,
      "Comma-separated: " + fmt::format("{}", fmt::join(estimator_names("works"), ",")) +
          " (default: " + fmt::format("{}", fmt::join(default_estimator_names("works"), ",")) +
          ", those that the files allow)");
  sub->add_option(
      "--u-kn", a->u_kn,
      "MBAR instead: reduced energies u_k(x_n) of the N pooled samples in each of K states, a 2-D "
      "float64 .npy of shape (K, N) as pymbar's u_kn, read a block of samples at a time");
  sub->add_option("--n-k", a->n_k,
                  "MBAR: the samples drawn from each state, K numbers (text or .npy)");
  sub->add_option("--output,-o", a->output, "Write the estimates as JSON to this file");
  sub->add_option("--seed", a->seed, "Seed of histogram_posterior's Gibbs sampler")
      ->capture_default_str();
  // One flag per option of the estimator registry, with its key's default, range and doc.
  for (const Key* key : estimator_option_keys()) {
    std::int64_t& value = a->options[key->name()];
    value = std::get<std::int64_t>(key->fallback());
    sub->add_option(option_flag(*key), value, key->doc())
        ->capture_default_str()
        ->check(CLI::Range(key->min_integer(), key->max_integer()));
  }
  return [a] {
    if (!a->u_kn.empty() || !a->n_k.empty()) return run_mbar(*a);
    if (a->forward.empty() && a->reverse.empty())
      throw InputError(
          "logz estimate: --forward/--reverse: expected at least one work file (or --u-kn and "
          "--n-k "
          "for MBAR)");
    EstimatorOptions options =
        read_estimator_options({[&](const Key& key) { return a->options.at(key.name()); },
                                [](const Key& key, double bytes, const std::string& what) {
                                  check_fits_in_memory(option_flag(key), bytes, what);
                                }},
                               a->seed);
    options.stop = process_stop_source().token();  // Ctrl-C stops histogram_posterior's draws
    std::vector<double> fw, rw;
    if (!a->forward.empty()) fw = io::read_numbers(a->forward);
    if (!a->reverse.empty()) rw = io::read_numbers(a->reverse);
    const bool has_f = !a->forward.empty(), has_r = !a->reverse.empty();
    std::vector<std::string> methods;
    if (a->methods.empty()) {
      methods = default_works_estimators(has_f, has_r);
    } else {
      const auto names = estimator_names("works");
      std::istringstream in(a->methods);
      std::string m;
      while (std::getline(in, m, ',')) {
        if (m.empty()) continue;
        if (std::find(names.begin(), names.end(), m) == names.end())
          throw InputError("logz estimate: --methods: expected names from " + quoted_names(names) +
                           "; got \"" + m + "\"");
        methods.push_back(m);
      }
      if (methods.empty())
        throw InputError("logz estimate: --methods: expected at least one estimator name");
    }
    const std::string missing = estimator_requirements(methods, has_f, has_r);
    if (!missing.empty()) throw InputError("logz estimate: --methods: " + missing);
    std::vector<Estimate> estimates;
    try {
      estimates = run_estimators(methods, has_f ? &fw : nullptr, has_r ? &rw : nullptr, options);
    } catch (const NumericalError& e) {  // the works of these files: name them
      throw InputError(fmt::format("{}{}{}: {}", has_f ? "--forward " + a->forward : "",
                                   has_f && has_r ? ", " : "",
                                   has_r ? "--reverse " + a->reverse : "", e.what()));
    }
    std::cout << "log(Z1/Z0) from "
              << (has_f ? std::to_string(fw.size()) + " forward" : std::string())
              << (has_f && has_r ? " and " : "")
              << (has_r ? std::to_string(rw.size()) + " reverse" : std::string()) << " works\n"
              << report::estimates_table(estimates, 0.0, nullptr);
    if (!a->output.empty()) {
      nlohmann::json j = {{"estimates", nlohmann::json::object()},
                          {"num_forward", fw.size()},
                          {"num_reverse", rw.size()}};
      for (const auto& e : estimates) j["estimates"][e.method] = report::estimate_to_json(e, 0.0);
      write_text_file(a->output, j.dump(2) + "\n");
    }
    return 0;
  };
}

}  // namespace logz::cli
