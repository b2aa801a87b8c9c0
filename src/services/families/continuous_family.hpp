// Internal to the continuous models' services (not installed): the [data], [base], [kernel] and
// [sampler] readers with their keys, the kernel dispatch, the step-size pilot, and the
// per-data-point loops of `logz loglik` and the summary of `logz sample` that the products of
// experts, the linear and bilinear generative models, the mcRBM and the Gaussian mixture share
// (src/services/models/).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/config/config.hpp"
#include "logz/core/enum_names.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/kernels/continuous_kernels.hpp"
#include "logz/kernels/step_size_profile.hpp"
#include "logz/math/running_moments.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/parallel/bytes.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/paths/schedule.hpp"
#include "logz/random/philox.hpp"
#include "logz/samplers/hmc_sampler.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/method_list.hpp"
#include "logz/services/registry.hpp"
#include "services/families/continuous_model_ref.hpp"

namespace logz {
// How an annealing run's step size is set ([kernel] step_size_adaptation): fixed as configured;
// by a pilot that adapts one step size along the schedule and keeps its end value (Sohl-Dickstein
// & Culpepper's tutorial rule); or per temperature, by a pilot that records a step size at each
// of its temperatures, which the run follows (kernels/step_size_profile.hpp).
LOGZ_NAMED_ENUM(StepSizeTuning, fixed, pilot, per_temperature);

}  // namespace logz

namespace logz::continuous {

// ---------------------------------------------------------------- [data], [base]

// Exact draws of data points into the columns of X.
using DataSampler = std::function<void(Eigen::MatrixXd&, const BatchRandom&)>;

// The data points (d x N, one column per point) from a file or drawn from the model.
struct DataSet {
  Eigen::MatrixXd X;
  Record description;
  std::size_t index = 0;  // [data] index (the point `logz run` uses)
};

// [model] keys the continuous models share: parameters ("random" or an .npz file of the model's
// arrays), parameter_seed (random parameters), sigma_noise (generative models).
const Key& parameters_key();
const Key& parameter_seed_key();
const Key& sigma_noise_key();
// The key `name` naming the .npz member that holds `member` (default: the member's own name).
Key member_key(const std::string& name, const std::string& member);
// random parameters: data_dim, the dimension of x (generative models).
const Key& data_dim_key();

const KeyGroup& data_keys();
const KeyGroup& base_keys();     // type "gaussian" or "fitted", sigma, ridge
const KeyGroup& kernel_keys();   // every continuous kernel's (continuous_kernels.hpp)
const KeyGroup& sampler_keys();  // `logz sample`
std::vector<KernelEntry> kernel_entries();

// [data]: source = "file" (.npy or .npz with key) or "model" (needs `sampler`; point i from the
// stream (seed, i, Purpose::base_sample, step 1)); index. Without a sampler, source = "model" is
// an error that ends with `no_sampler_note`.
DataSet read_data(Config& config, int dim, const DataSampler& sampler,
                  const std::string& no_sampler_note = "draws need a complete Phi");

// [base]: type = "gaussian" (isotropic, sigma) or, where `data` is given, "fitted".
GaussianBase read_base(Config& config, int dim, const std::function<DataSet()>& data, Record& desc);

// ---------------------------------------------------------------- [kernel]

// What a continuous kernel is, as the services show it: from its header's kName, kSummary,
// kEvaluation (what its cost is counted in) and kOptions.
struct ContinuousKernelTraits {
  std::string name, summary, evaluation;
  std::vector<std::string> options;
};

// The kernels of continuous_kernels.hpp, in order; their names; one by name (an
// InvalidArgument naming "type" when there is none).
const std::vector<ContinuousKernelTraits>& continuous_kernel_traits();
std::vector<std::string> continuous_kernel_names();
const ContinuousKernelTraits& continuous_kernel(const std::string& name);

// f(std::type_identity<K>{}) for the kernel named `name`.
template <class F>
void visit_kernel(const std::string& name, F&& f) {
  if (!ContinuousKernels::visit(name, f)) continuous_kernel(name);  // throws: no such kernel
}

// [kernel]: which kernel, its options, and the step-size pilot.
struct KernelSettings : ContinuousKernelOptions {
  std::string type;
  StepSizeTuning tuning = StepSizeTuning::fixed;
  bool tuning_stated = false;  // step_size_adaptation given (not the default)
  std::size_t pilot_paths = 32;
  StepSizeAdaptation rule;
  Record pilot_report;
  std::uint64_t pilot_moves = 0;  // particle moves the step-size pilot made (its budget)
  std::shared_ptr<const StepSizeProfile> profile;  // per_temperature, once its pilot has run
};

// Defaults where [kernel] is silent; models differ (HAIS with one leapfrog step for the image
// models, HMC with ten for the Gaussian mixture).
struct KernelDefaults {
  std::string type = "hais";
  std::int64_t leapfrog_steps = ContinuousKernelOptions{}.leapfrog_steps;
  double proposal_sd = ContinuousKernelOptions{}.proposal_sd;
};

KernelSettings read_kernel(Config& config, const KernelDefaults& defaults = {});
// The exact log p(x) of the [data] point of a generative model, where it has one: the run's
// reference and the Python model's exact_log_z().
template <class Model>
std::optional<Reference> data_point_reference(const Model& model, const DataSet& data,
                                              const char* source) {
  const auto z = model.exact_log_likelihood(data.X.col(static_cast<Eigen::Index>(data.index)));
  if (!z) return std::nullopt;
  return Reference{*z, source};
}

Record kernel_description(const KernelSettings& s);

// Calls f with the configured kernel, of step size `eps` where it has one.
template <class F>
void with_kernel_at(const KernelSettings& s, double eps, F&& f) {
  visit_kernel(s.type, [&](auto k) { f(decltype(k)::type::from_options(s, eps)); });
}
template <class F>
void with_kernel(const KernelSettings& s, F&& f) {
  with_kernel_at(s, s.step_size, f);
}

// Calls f with the configured kernel as annealing along Path applies it: a kernel with a step
// size follows s.profile (the per-temperature pilot's) or, without one, keeps s.step_size, in
// one type (ProfiledStepSize), so that each driver is compiled once per kernel.
template <class Path, class F>
void with_annealing_kernel(const KernelSettings& s, F&& f) {
  using Target = std::remove_cvref_t<decltype(std::declval<const Path&>().at(0.0))>;
  visit_kernel(s.type, [&](auto k) {
    using K = typename decltype(k)::type;
    constexpr bool has_step_size = std::ranges::find(K::kOptions, "step_size") != K::kOptions.end();
    if constexpr (has_step_size && TargetOnPath<Target>) {
      f(ProfiledStepSize<K>(
          s, s.profile ? s.profile : std::make_shared<const StepSizeProfile>(s.step_size)));
    } else {
      f(K::from_options(s, s.step_size));
    }
  });
}

// A NumericalError from the model or the kernel in a step-size pilot, thrown again with where.
[[noreturn]] void fail_in_pilot(const NumericalError& e, std::size_t num_particles, double t);

// The pilot: `pilot_paths` particles (particle words first_particle, ... of the run's seed,
// which the run itself does not use) annealed along the schedule with the tutorial's rule
// applied after every temperature. Its end step size is used, fixed, for the whole run;
// the pilot's works are discarded (adapting inside a run would bias its weights).
template <class Path>
void run_end_step_pilot(const Path& path, KernelSettings& s, const Schedule& schedule,
                        std::uint64_t seed, std::uint64_t first_particle) {
  auto batch = path.make_batch(s.pilot_paths);
  path.sample_base(batch, BatchRandom{seed, Purpose::base_sample, 0, first_particle});
  double eps = s.step_size, avg = s.rule.target_acceptance;
  std::uint64_t attempted = 0, accepted = 0;
  const auto betas = schedule.fractions();
  for (std::size_t k = 1; k + 1 < betas.size(); ++k) {
    const BatchRandom r{seed, Purpose::forward_kernel, static_cast<std::uint32_t>(k),
                        first_particle};
    ContinuousKernelInfo info;
    try {
      with_kernel_at(s, eps,
                     [&](const auto& kernel) { info = kernel.step(path.at(betas[k]), batch, r); });
    } catch (const NumericalError& e) {
      fail_in_pilot(e, s.pilot_paths, betas[k]);
    }
    attempted += info.attempted;
    accepted += info.accepted;
    s.rule.update(eps, avg,
                  static_cast<double>(info.accepted) / static_cast<double>(info.attempted));
  }
  s.pilot_report = {
      {"initial_step_size", s.step_size},
      {"pilot_paths", s.pilot_paths},
      {"mean_acceptance", attempted ? static_cast<double>(accepted) / attempted : kNaN},
      {"final_average_acceptance", avg},
      {"target_acceptance", s.rule.target_acceptance}};
  s.pilot_moves = s.pilot_paths * (betas.size() - 2);  // every intermediate temperature
  s.step_size = eps;
  if (s.half_life) s.gamma = Hais::half_life_refresh(eps, s.leapfrog_steps, *s.half_life);
}

// The per-temperature pilot: `pilot_paths` particles (words first_particle, ... of the run's
// seed, which the run does not use) annealed along at most kProfileTemperatures of the
// schedule's temperatures (every m-th), with at least kProfileMoves moves in all. After each move
// the step size is multiplied by exp(acceptance - target) (as SMC's moves, smc/adaptive_smc.hpp),
// within [min_step, max_step]; the step size after a temperature's moves is its knot. The run
// then follows the profile, fixed: adapting inside the run would bias its weights.
inline constexpr std::size_t kProfileTemperatures = 500;
inline constexpr std::size_t kProfileMoves = 200;

template <class Path>
void run_profile_pilot(const Path& path, KernelSettings& s, const Schedule& schedule,
                       std::uint64_t seed, std::uint64_t first_particle) {
  const auto all = schedule.fractions();
  std::vector<double> t;  // the pilot's temperatures: every m-th intermediate one, and the last
  const std::size_t intermediate = all.size() - 2;
  const std::size_t m =
      std::max<std::size_t>(1, (intermediate + kProfileTemperatures - 1) / kProfileTemperatures);
  for (std::size_t k = m; k + 1 < all.size(); k += m) t.push_back(all[k]);
  if (t.empty() || t.back() != all[all.size() - 2]) {
    if (intermediate > 0) t.push_back(all[all.size() - 2]);
  }
  if (t.empty()) t.push_back(all.back());  // one step: no intermediate temperature
  const std::size_t moves = std::max<std::size_t>(1, (kProfileMoves + t.size() - 1) / t.size());
  auto batch = path.make_batch(s.pilot_paths);
  path.sample_base(batch, BatchRandom{seed, Purpose::base_sample, 0, first_particle});
  double eps = s.step_size;
  std::vector<double> knots(t.size());
  std::uint64_t attempted = 0, accepted = 0;
  std::size_t stream = 0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    for (std::size_t j = 0; j < moves; ++j, ++stream) {
      const BatchRandom r{seed, Purpose::forward_kernel, static_cast<std::uint32_t>(stream + 1),
                          first_particle};
      ContinuousKernelInfo info;
      try {
        with_kernel_at(s, eps,
                       [&](const auto& kernel) { info = kernel.step(path.at(t[k]), batch, r); });
      } catch (const NumericalError& e) {
        fail_in_pilot(e, s.pilot_paths, t[k]);
      }
      attempted += info.attempted;
      accepted += info.accepted;
      if (info.attempted == 0) continue;
      const double acceptance =
          static_cast<double>(info.accepted) / static_cast<double>(info.attempted);
      eps = std::clamp(eps * std::exp(acceptance - s.rule.target_acceptance), s.rule.min_step,
                       s.rule.max_step);
    }
    knots[k] = eps;
  }
  s.pilot_report = {
      {"initial_step_size", s.step_size},
      {"pilot_paths", s.pilot_paths},
      {"temperatures", t.size()},
      {"moves_per_temperature", moves},
      {"mean_acceptance", attempted ? static_cast<double>(accepted) / attempted : kNaN},
      {"target_acceptance", s.rule.target_acceptance},
      {"smallest_step_size", *std::min_element(knots.begin(), knots.end())},
      {"largest_step_size", *std::max_element(knots.begin(), knots.end())},
      {"step_size_at_end", knots.back()}};
  s.pilot_moves = s.pilot_paths * stream;
  s.profile = std::make_shared<const StepSizeProfile>(std::move(t), std::move(knots));
}

// The step-size pilot [kernel] step_size_adaptation asks for, on `schedule` (an adaptive
// schedule's: its pilot's linear one).
template <class Path>
void run_pilot(const Path& path, KernelSettings& s, const Schedule& schedule, std::uint64_t seed,
               std::uint64_t first_particle) {
  switch (s.tuning) {
    case StepSizeTuning::fixed:
      return;
    case StepSizeTuning::pilot:
      run_end_step_pilot(path, s, schedule, seed, first_particle);
      return;
    case StepSizeTuning::per_temperature:
      run_profile_pilot(path, s, schedule, seed, first_particle);
      return;
  }
}

// Annealing with the configured kernel: the pilot (if asked for) sets its step size, the
// kernel's description goes into the result, then forward and reverse runs and the estimators.
template <class Path, class Start>
void anneal_with_kernel(const Path& path, KernelSettings& ks, const Schedule& schedule,
                        const RunSettings& run, const Start& start, const RunContext& context,
                        RunResult& result) {
  run_pilot(path, ks, schedule, run.seed, run.num_paths);
  result.kernel = kernel_description(ks);
  with_annealing_kernel<Path>(ks, [&](const auto& kernel) {
    anneal_and_estimate(path, kernel, schedule, run, start, context, result);
  });
  // Counted as each kernel states: gradient evaluations per leapfrog step of every trajectory,
  // energy evaluations per proposal, ...
  std::uint64_t per_update = 1;
  visit_kernel(ks.type, [&](auto k) {
    per_update = static_cast<std::uint64_t>(decltype(k)::type::evaluations_per_move(ks));
  });
  result.budget = annealing_budget(result, continuous_kernel(ks.type).evaluation, per_update);
  if (ks.pilot_moves > 0)  // the step-size pilot
    result.budget->parts.emplace_back("step_size_pilot", ks.pilot_moves * per_update);
}

// A reverse start from exact draws of the target: sample(X, random) fills the positions, the
// momenta are fresh.
template <class Path, class Sample>
auto exact_reverse_start(const Path& path, Sample sample) {
  return [&path, sample](ContinuousBatch& b, const ChunkStreams& streams) {
    sample(b.X, streams.random(0));
    path.sample_momentum(b, streams.random(1));
    b.parts.invalidate();
  };
}

// For models without one: only "resampled" reverse starts reach the annealer.
inline void no_exact_start(ContinuousBatch&, const ChunkStreams&) {
  fail_argument("logz::anneal_with_kernel", "reverse_start",
                "\"resampled\" (the model has no exact start)");
}

// The continuous models' key groups for `logz run` / `logz loglik`: the model's own, [kernel],
// [run], [schedule], [estimators], and [base] / [data] as the model reads them.
std::vector<const KeyGroup*> continuous_key_groups(const KeyGroup& model_keys, const KeyGroup* base,
                                                   bool data,
                                                   std::vector<const KeyGroup*> more = {});

// ---------------------------------------------------------------- `logz loglik`

// An independent key per data point: one Philox block keyed by the run seed with counter
// (i low, i high, 0, "dpnt"). No seed arithmetic; the same seed gives the same key.
std::uint64_t data_point_seed(std::uint64_t seed, std::size_t i);

// Analysis models: L = -mean E(x) - log Z, log Z from the first estimator of the annealing
// result `e` (evidence plus base log Z), `energies` E(x) of the data points.
LoglikResult analysis_loglik(Config& config, const RunResult& e, const Eigen::VectorXd& energies,
                             const Record& data_description);

// Generative models: one forward AIS run per data point (column of X), [run] num_paths
// particles each, data points in parallel (threads, and ranks), each run on one thread with the key
// data_point_seed(run.seed, i), so that results do not depend on the thread count.
// make_path(x) returns the (base -> posterior of x) path; exact(x) the exact log p(x) or
// nullopt. Fills r.points, r.num_points and the averages and their errors.
template <class MakePath>
void generative_logliks(const Eigen::MatrixXd& X, const KernelSettings& ks,
                        const Schedule& schedule, const RunSettings& run, const MakePath& make_path,
                        const std::function<std::optional<double>(const Eigen::VectorXd&)>& exact,
                        const RunContext& context, LoglikResult& r) {
  const std::size_t n = static_cast<std::size_t>(X.cols());
  r.analysis = false;
  r.num_points = n;
  r.points.assign(n, PointLoglik{});
  ChunkProgress chunk_progress;
  if (context.progress)
    chunk_progress = [&](std::size_t d, std::size_t total) {
      context.progress("log-likelihoods [data points]", d, total);
    };
  // Split over ranks (parallel/ranks.hpp), each rank runs a contiguous block of points and every
  // point's result then goes to every rank: the same points, whatever the number of ranks.
  // The runs inside a chunk are given no ranks (nor journal): they never talk across ranks.
  Ranks& ranks = ranks_or_single(context.ranks);
  const ChunkBlock mine = chunks_of_rank(n, ranks.rank(), ranks.size());
  run_chunks(
      mine.size(), 1, run.threads,
      [&](const ChunkRange& c) {
        const std::size_t i = mine.first + c.begin;
        const Eigen::VectorXd x = X.col(static_cast<Eigen::Index>(i));
        const auto path = make_path(x);
        AnnealOptions o = run.anneal_options();
        o.seed = data_point_seed(run.seed, i);
        o.threads = 1;
        o.stop = context.stop;
        with_annealing_kernel<std::remove_cvref_t<decltype(path)>>(ks, [&](const auto& kernel) {
          const Works w = anneal_forward(path, kernel, schedule, o);
          const Estimate e = ais(w.works);
          PointLoglik& p = r.points[i];
          p.log_likelihood = e.log_z + path.base_log_z();
          p.std_error = e.std_error;
          p.ess = e.diagnostics.ess;
          p.low_ess = e.diagnostics.has_flag("low_ess");
          if (auto z = exact(x)) p.exact = *z;
        });
      },
      chunk_progress, context.stop);
  if (ranks.size() > 1) {
    std::string bytes;
    for (std::size_t i = mine.first; i < mine.last; ++i) {
      const PointLoglik& p = r.points[i];
      const double fields[] = {p.log_likelihood, p.std_error, p.exact, p.ess,
                               p.low_ess ? 1.0 : 0.0};
      append_bytes<double>(bytes, fields);
    }
    const std::vector<std::string> all = ranks.all_gather(bytes);
    for (int rank = 0; rank < ranks.size(); ++rank) {
      const ChunkBlock block = chunks_of_rank(n, rank, ranks.size());
      ByteReader in(all[static_cast<std::size_t>(rank)]);
      for (std::size_t i = block.first; i < block.last; ++i) {
        double fields[5];
        in.read<double>(fields);
        r.points[i] = PointLoglik{fields[0], fields[1], fields[2], fields[3], fields[4] != 0.0};
      }
    }
  }
  RunningMoments m;
  double var_mc = 0.0, exact_sum = 0.0;
  for (const auto& p : r.points) {
    m.add(p.log_likelihood);
    var_mc += p.std_error * p.std_error;
    exact_sum += p.exact;
    r.num_low_ess_points += p.low_ess;
  }
  if (r.num_low_ess_points > 0) r.flags.push_back("low_ess_points");
  r.log_likelihood = m.mean();
  r.std_error_data = m.std_error_of_mean();
  r.std_error_monte_carlo = std::sqrt(var_mc) / static_cast<double>(n);
  r.exact = exact_sum / static_cast<double>(n);  // NaN unless every point has an exact value
}

// ---------------------------------------------------------------- methods on the path

// What a continuous model hands the [run] methods (services/method_setup.hpp): its geometric path
// from a base with an exact sampler, its [kernel] for drivers that keep the step size fixed, and
// its annealing (the schedule, and reverse starts from its exact sampler where it has one).
template <class Path>
class ContinuousMethods {
 public:
  using Anneal = std::function<void(Config&, const RunContext&, RunResult&)>;
  ContinuousMethods(const Path& path, KernelSettings& ks, Anneal anneal)
      : path_(path), ks_(ks), anneal_(std::move(anneal)) {}

  const Path& path() const { return path_; }

  // A step size per level needs a pilot of its own (not yet): a stated adaptation is an error,
  // the default one the configured step size.
  template <class F>
  void with_kernel(RunMethod method, Config& config, RunResult& result, F&& f) const {
    if (ks_.tuning != StepSizeTuning::fixed && ks_.tuning_stated)
      config.section("kernel").fail("step_size_adaptation",
                                    "\"fixed\" for [run] method = \"" + to_string(method) + "\"");
    ks_.tuning = StepSizeTuning::fixed;
    result.kernel = kernel_description(ks_);
    continuous::with_kernel(ks_, f);
  }

  // Parallel tempering's kernel (services/parallel_tempering_experiment.hpp): one with a step
  // size follows the per-temperature pilot's profile over t in [0, 1] (the default; a stated
  // "fixed" keeps the configured step size), so that every replica's step suits its temperature
  // on whatever ladder the rounds choose. The pilot anneals along kLadderPilotSteps linear steps
  // with the run's seed (streams the run does not draw from); its moves join the budget.
  static constexpr std::size_t kLadderPilotSteps = 200;
  template <class F>
  void with_ladder_kernel(RunMethod method, Config& config, RunResult& result, F&& f) const {
    if (ks_.tuning == StepSizeTuning::pilot && ks_.tuning_stated)
      config.section("kernel").fail(
          "step_size_adaptation",
          "\"per_temperature\" or \"fixed\" for [run] method = \"" + to_string(method) + "\"");
    if (ks_.tuning == StepSizeTuning::pilot) ks_.tuning = StepSizeTuning::per_temperature;
    if (ks_.tuning == StepSizeTuning::per_temperature)
      run_profile_pilot(path_, ks_, linear_schedule(kLadderPilotSteps),
                        read_seed_and_threads(config).seed, 0);
    result.kernel = kernel_description(ks_);
    with_annealing_kernel<Path>(ks_, f);
    if (ks_.pilot_moves > 0 && result.budget)
      result.budget->parts.emplace_back("step_size_pilot", ks_.pilot_moves);
  }

  void anneal(Config& config, const RunContext& context, RunResult& result) const {
    anneal_(config, context, result);
  }

 private:
  const Path& path_;
  KernelSettings& ks_;
  Anneal anneal_;
};

// What every continuous model runs on the path from its Gaussian base, compiled once for all of
// them (services/families/continuous_methods.cpp, through ContinuousModelRef): the [run] methods;
// their key groups beside the model's (continuous_key_groups); and `method` on the path from
// `base` to `model`, annealing with reverse starts from `exact_start`'s draws of the model where
// it is given ([run] reverse_start = "exact"), with the [kernel] `ks`.
std::vector<RunMethod> continuous_methods();
std::vector<const KeyGroup*> continuous_method_key_groups(const KeyGroup& model_keys,
                                                          const KeyGroup* base, bool data);
void run_on_geometric_path(RunMethod method, const GaussianBase& base, ContinuousModelRef model,
                           KernelSettings& ks, const DataSampler& exact_start, Config& config,
                           const RunContext& context, RunResult& result);

// `logz run` of a model with one log Z (a product of experts, an mcRBM, a Python target): a
// [run] method on the path from the Gaussian [base] (fitted to [data], drawn with `sampler`
// where the model has one) to the model; annealing with reverse runs from exact draws where
// `sampler` is given.
template <class Model>
RunResult analysis_experiment(Config& config, const Model& model, Record desc,
                              const DataSampler& sampler, const std::string& no_sampler_note,
                              const std::string& path_text, const std::string& reference_source,
                              const RunContext& context) {
  Record base_desc;
  const GaussianBase base = read_base(
      config, model.dim(), [&] { return read_data(config, model.dim(), sampler, no_sampler_note); },
      base_desc);
  KernelSettings ks = read_kernel(config);
  RunResult result;
  desc.set("base", base_desc);
  desc.set("path", path_text);
  result.model = std::move(desc);
  result.base_log_z = base.log_z();
  if (auto z = model.exact_log_z()) result.reference = Reference{*z, reference_source};
  run_on_geometric_path(read_run_method(config, continuous_methods()), base,
                        ContinuousModelRef(model), ks, sampler, config, context, result);
  return result;
}

// `logz loglik` of a model with one log Z: L = -mean E(x) - log Z over [data], log Z from the
// run that experiment() makes.
template <class Model, class Experiment>
LoglikResult analysis_model_loglik(Config& config, const Model& model, const DataSet& data,
                                   Experiment&& experiment) {
  const RunResult e = experiment();
  Eigen::VectorXd energies;
  model.energy(data.X, energies);
  return analysis_loglik(config, e, energies, data.description);
}

// The result's header of a generative model's `logz run` on the data point x = [data] index:
// the model with its base and data, log Z_0, and the exact log p(x) where known.
RunResult generative_result(Record desc, const Record& base_desc, const DataSet& data,
                            const std::string& path_text, double base_log_z,
                            std::optional<double> exact_log_likelihood,
                            const std::string& reference_source);

// `logz loglik` of a generative model: one forward AIS run per data point from the model's
// base to the posterior of the point (make_path(x)); one pilot on the first point sets the step
// size of every run. `desc` describes the model, `base_desc` its base.
template <class MakePath>
LoglikResult generative_loglik(
    Config& config, const RunContext& context, Record desc, const DataSet& data,
    const Record& base_desc, const std::vector<std::string>& reverse_starts,
    const MakePath& make_path,
    const std::function<std::optional<double>(const Eigen::VectorXd&)>& exact) {
  LoglikResult r;
  KernelSettings ks = read_kernel(config);
  const Schedule schedule = read_schedule(config);
  if (schedule.adaptive())
    config.section("schedule")
        .fail(*schedule_keys().keys.front(),
              "a fixed schedule for loglik (every data point would need a pilot of its own)");
  // [run] as for `logz run` (directions and reverse_start are accepted; loglik runs forward only).
  const RunSettings run = read_run_settings(config, reverse_starts);
  run_pilot(make_path(data.X.col(0)), ks, schedule, data_point_seed(run.seed, 0), run.num_paths);
  desc.set("base", base_desc);
  desc.set("data", data.description);
  r.model = std::move(desc);
  r.kernel = kernel_description(ks);
  r.kernel.set(
      "runs",
      "one forward AIS run per data point ([run] num_paths particles each), seeded per point");
  generative_logliks(data.X, ks, schedule, run, make_path, exact, context, r);
  return r;
}

// ---------------------------------------------------------------- `logz sample`

struct SamplerSettings {
  HmcSamplerOptions options;
  Eigen::Index chains = 3;
  double initial_sd = 1.0;  // NaN where the model sets its own starts
};

// [sampler]; `initial_sd`: whether chains start at N(0, initial_sd^2 I) (else the model's own).
SamplerSettings read_sampler(Config& config, StopToken stop, bool initial_sd = true);

// Chain m starts at N(0, sd^2 I) from the stream (seed, m, Purpose::base_sample, 0).
Eigen::MatrixXd normal_chain_starts(int dim, Eigen::Index chains, std::uint64_t seed, double sd);

// Means and sds per dimension and the sampler's description.
void summarise_sample(const SamplerSettings& s, SampleResult& out);

// The sampler's run on `target` from `starts` (N(0, initial_sd^2 I) draws when not given);
// compiled once for every model (continuous_methods.cpp).
SampleResult sample_target(const SamplerSettings& s, ContinuousModelRef target, Record model,
                           std::optional<Eigen::MatrixXd> starts = std::nullopt);

// The registry's exact log Z (ModelEntry::exact) of a model that read(config, desc) builds and
// whose exact_log_z() knows it for some parameters.
template <class Read>
std::optional<Reference> exact_reference(Config& config, Read&& read, const std::string& source) {
  Record desc;
  const auto model = read(config, desc);
  if (const auto z = model.exact_log_z()) return Reference{*z, source};
  return std::nullopt;
}

// `logz sample` of a model that read(config, desc) builds, chains from N(0, initial_sd^2 I).
template <class Read>
SampleResult sample_model(Config& config, const RunContext& context, Read&& read) {
  const SamplerSettings s = read_sampler(config, context.stop);
  Record desc;
  const auto model = read(config, desc);
  return sample_target(s, ContinuousModelRef(model), std::move(desc));
}

}  // namespace logz::continuous
