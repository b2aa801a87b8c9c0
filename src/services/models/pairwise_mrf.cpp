// [model] type = "pairwise_mrf": a general pairwise binary Markov random field (a fully visible
// Boltzmann machine), E(x) = -(1/2) x^T W x - b^T x over x in {0, 1}^n, with symmetric couplings
// W (zero diagonal) and fields b from an .npz file or drawn at random. The target is
// exp(-beta E); annealing from the uniform base (log Z_0 = n log 2) along t beta E with
// random-scan heat-bath updates, or simulated tempering on the same path. Exact log Z by
// enumeration (Gray code) for small n, and exact draws for reverse starts when n <= 20.
//
// This file is the whole model: its particles, its path, its kernel, its exact answer and its
// registry entry. It was added through the registry with one more line, in models.def.
#include <fmt/format.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/io/npz.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/random/philox.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/tempering_experiment.hpp"

namespace logz {

namespace {

constexpr int kExactSamplerMaxUnits = 20;  // 2^20 state probabilities: 8 MB

struct MrfParameters {
  Eigen::MatrixXd W;  // n x n, symmetric, zero diagonal
  Eigen::VectorXd b;  // n
  int size() const { return static_cast<int>(b.size()); }
};

// The states of a chunk of particles, with each particle's local fields b + W x and energy
// kept up to date by the kernel (an update costs O(n), an energy O(1)).
class MrfBatch {
 public:
  MrfBatch(std::size_t particles, int n)
      : n_(n), x_(particles * static_cast<std::size_t>(n), 0), field_(particles * static_cast<std::size_t>(n), 0.0),
        energy_(particles, 0.0) {}
  std::size_t num_particles() const { return energy_.size(); }
  std::uint8_t* x(std::size_t p) { return x_.data() + p * static_cast<std::size_t>(n_); }
  const std::uint8_t* x(std::size_t p) const { return x_.data() + p * static_cast<std::size_t>(n_); }
  double* field(std::size_t p) { return field_.data() + p * static_cast<std::size_t>(n_); }
  double& energy(std::size_t p) { return energy_[p]; }
  double energy(std::size_t p) const { return energy_[p]; }
  void copy_particle(const MrfBatch& from, std::size_t from_p, std::size_t to_p) {
    const auto n = static_cast<std::size_t>(n_);
    std::copy_n(from.x_.begin() + static_cast<std::ptrdiff_t>(from_p * n), n, x_.begin() + static_cast<std::ptrdiff_t>(to_p * n));
    std::copy_n(from.field_.begin() + static_cast<std::ptrdiff_t>(from_p * n), n,
                field_.begin() + static_cast<std::ptrdiff_t>(to_p * n));
    energy_[to_p] = from.energy_[from_p];
  }
  // For checkpoints (core/batch_state.hpp): the fields and energies are kept up to date by
  // sums, so they are saved with the states rather than recomputed.
  template <class F>
  void for_each_state_array(F&& f) {
    f(std::span<std::uint8_t>(x_)), f(std::span<double>(field_)), f(std::span<double>(energy_));
  }

 private:
  int n_;
  std::vector<std::uint8_t> x_;
  std::vector<double> field_;
  std::vector<double> energy_;
};

// The model at inverse temperature beta_t, as the kernel sees it.
struct MrfTarget {
  const MrfParameters* parameters = nullptr;
  double beta = 0.0;
};

// The annealing path: uniform base, tempered energy t beta E(x).
class MrfPath {
 public:
  MrfPath(MrfParameters parameters, double beta) : p_(std::move(parameters)), beta_(beta) {}

  using Batch = MrfBatch;
  static constexpr bool geometric_path = true;  // U_t = t beta E: linear in t
  const MrfParameters& parameters() const { return p_; }
  double beta() const { return beta_; }
  double base_log_z() const { return p_.size() * std::log(2.0); }
  Batch make_batch(std::size_t particles) const { return Batch(particles, p_.size()); }
  MrfTarget at(double t) const { return {&p_, t * beta_}; }

  // Fields and energy of particle p from its state.
  void refresh(Batch& batch, std::size_t p) const {
    const int n = p_.size();
    const std::uint8_t* x = batch.x(p);
    double* f = batch.field(p);
    double e = 0.0;
    for (int i = 0; i < n; ++i) {
      double s = p_.b(i);
      for (int j = 0; j < n; ++j) s += p_.W(i, j) * x[j];
      f[i] = s;
    }
    for (int i = 0; i < n; ++i) e -= 0.5 * x[i] * (f[i] + p_.b(i));
    batch.energy(p) = e;
  }
  void sample_base(Batch& batch, const BatchRandom& random) const {
    for (std::size_t p = 0; p < batch.num_particles(); ++p) {
      RandomStream rng = random.stream(p);
      std::uint8_t* x = batch.x(p);
      for (int i = 0; i < p_.size(); i += 32) {
        const std::uint32_t bits = rng.next_u32();
        for (int k = 0; k < 32 && i + k < p_.size(); ++k) x[i + k] = (bits >> k) & 1u;
      }
      refresh(batch, p);
    }
  }
  void work_increment(double t_from, double t_to, const Batch& batch, std::span<double> out) const {
    for (std::size_t p = 0; p < batch.num_particles(); ++p) out[p] = (t_to - t_from) * beta_ * batch.energy(p);
  }
  void trace_energy(const Batch& batch, std::span<double> out) const {
    for (std::size_t p = 0; p < batch.num_particles(); ++p) out[p] = batch.energy(p);
  }

 private:
  MrfParameters p_;
  double beta_;
};

// Random-scan heat bath: `steps` times, a uniformly drawn unit takes x_i = 1 with probability
// sigmoid(beta field_i). Each update satisfies detailed balance, so the kernel is reversible.
class MrfHeatBath {
 public:
  explicit MrfHeatBath(std::size_t steps) : steps_(steps) {}
  MrfHeatBath with_steps(std::size_t steps) const { return MrfHeatBath(steps); }
  std::size_t steps() const { return steps_; }

  KernelInfo step(const MrfTarget& target, MrfBatch& batch, const BatchRandom& random) const {
    const MrfParameters& m = *target.parameters;
    const int n = m.size();
    KernelInfo info;
    for (std::size_t p = 0; p < batch.num_particles(); ++p) {
      RandomStream rng = random.stream(p);
      std::uint8_t* x = batch.x(p);
      double* f = batch.field(p);
      for (std::size_t s = 0; s < steps_; ++s) {
        const int i = static_cast<int>(rng.below(static_cast<std::uint32_t>(n)));
        const double up = 1.0 / (1.0 + std::exp(-target.beta * f[i]));
        const std::uint8_t v = rng.uniform() < up ? 1 : 0;
        ++info.attempted;
        if (v == x[i]) continue;
        ++info.accepted;
        const double d = v ? 1.0 : -1.0;
        batch.energy(p) -= d * f[i];  // E changes by -d field_i (W_ii = 0)
        x[i] = v;
        for (int j = 0; j < n; ++j) f[j] += m.W(j, i) * d;
      }
    }
    return info;
  }

 private:
  std::size_t steps_;
};

// ---------------------------------------------------------------- exact answers
// Written from W and b alone (no fields of the batch): log Z by a Gray-code walk over all 2^n
// states, each step flipping one unit and updating the energy from the couplings.
std::vector<double> enumerate_log_weights(const MrfParameters& m, double beta, bool keep_all, double& log_z) {
  const int n = m.size();
  const std::uint64_t states = std::uint64_t{1} << n;
  std::vector<double> all;
  if (keep_all) all.resize(states);
  std::vector<std::uint8_t> x(static_cast<std::size_t>(n), 0);
  double e = 0.0;  // E(0) = 0
  double top = 0.0, sum = 0.0;  // log Z = top + log(sum), rescaled whenever a larger term comes
  for (std::uint64_t k = 0; k < states; ++k) {
    const std::uint64_t gray = k ^ (k >> 1);
    if (k > 0) {
      const int i = __builtin_ctzll(k);  // the unit that flips between gray(k - 1) and gray(k)
      double coupling = m.b(i);
      for (int j = 0; j < n; ++j) coupling += m.W(i, j) * x[static_cast<std::size_t>(j)];
      const double d = x[static_cast<std::size_t>(i)] ? -1.0 : 1.0;
      e -= d * coupling;
      x[static_cast<std::size_t>(i)] = x[static_cast<std::size_t>(i)] ? 0 : 1;
    }
    const double lw = -beta * e;
    if (k == 0 || lw > top) {
      sum = (k == 0 ? 0.0 : sum * std::exp(top - lw)) + 1.0;
      top = lw;
    } else {
      sum += std::exp(lw - top);
    }
    if (keep_all) all[gray] = lw;
  }
  log_z = top + std::log(sum);
  return all;
}

// Exact draws: the state whose cumulative probability passes a uniform, states in binary order.
class MrfExactSampler {
 public:
  MrfExactSampler(const MrfPath& path) : path_(path) {
    double log_z = 0.0;
    const std::vector<double> lw = enumerate_log_weights(path.parameters(), path.beta(), true, log_z);
    cdf_.resize(lw.size());
    double c = 0.0;
    for (std::size_t s = 0; s < lw.size(); ++s) cdf_[s] = c += std::exp(lw[s] - log_z);
  }
  void sample(MrfBatch& batch, const BatchRandom& random) const {
    for (std::size_t p = 0; p < batch.num_particles(); ++p) {
      RandomStream rng = random.stream(p);
      const double u = rng.uniform() * cdf_.back();
      const auto s = static_cast<std::uint64_t>(std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
      for (int i = 0; i < path_.parameters().size(); ++i) batch.x(p)[i] = (s >> i) & 1u;
      path_.refresh(batch, p);
    }
  }

 private:
  const MrfPath& path_;
  std::vector<double> cdf_;
};

// ---------------------------------------------------------------- the service

const Key kParameters = Key::string("parameters", std::string("random"),
                                    "\"random\" (seeded Gaussian couplings) or an .npz file with W and b");
const Key kCouplingsKey = Key::string("couplings_key", std::string("W"), "the .npz member of W (n x n, symmetric)");
const Key kFieldsKey = Key::string("fields_key", std::string("b"), "the .npz member of b (n)");
const Key kUnits = Key::integer("units", 12, 1, 4096, "random: n, the number of binary units");
const Key kScale = Key::number("scale", 0.5, 0.0, 1e3, "random: the sd of the couplings and fields");
const Key kParameterSeed = Key::integer("parameter_seed", 1, 0, INT64_MAX, "random: the seed of W and b");
const Key kBeta = Key::number("beta", 1.0, 0.0, 1e6, "the target's inverse temperature");
const Key kExactMaxUnits = Key::integer("exact_max_units", 20, 0, 30, "enumerate the exact log Z up to this many units");
const KeyGroup kModelKeys{"model", "pairwise_mrf",
                          {&kParameters, &kCouplingsKey, &kFieldsKey, &kUnits, &kScale, &kParameterSeed, &kBeta,
                           &kExactMaxUnits}};

const Key kKernelType = Key::choice("type", std::string("heat_bath"), {"heat_bath"}, "random-scan heat bath");
// 10^8 single-unit updates (about a second) per temperature, as for the lattices.
const Key kSteps = Key::integer("steps_per_temperature", Computed{"the number of units"}, 1, 100000000,
                                "single-unit updates per temperature");
const KeyGroup kKernelKeys{"kernel", "pairwise_mrf kernels", {&kKernelType, &kSteps}};

MrfParameters random_parameters(int n, double scale, std::uint64_t seed) {
  MrfParameters m{Eigen::MatrixXd::Zero(n, n), Eigen::VectorXd(n)};
  RandomStream rng(seed, 0, Purpose::data, 0);
  for (int i = 0; i < n; ++i) {
    m.b(i) = scale * rng.normal();
    for (int j = 0; j < i; ++j) m.W(i, j) = m.W(j, i) = scale * rng.normal();
  }
  return m;
}

MrfParameters load_parameters(const std::string& path, const std::string& w_key, const std::string& b_key) {
  const io::Array w = io::read_npz_array(path, w_key).to_float64(), b = io::read_npz_array(path, b_key).to_float64();
  if (b.ndim() != 1 || b.size() < 1 || b.size() > 4096)
    fail_input(path, b_key, "a vector of 1 to 4096 fields, got shape " + io::shape_to_string(b.shape));
  const auto n = static_cast<Eigen::Index>(b.size());
  if (w.ndim() != 2 || w.shape[0] != b.size() || w.shape[1] != b.size())
    fail_input(path, w_key, fmt::format("a {} x {} matrix (one row per field), got shape {}", n, n, io::shape_to_string(w.shape)));
  MrfParameters m{Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(w.doubles().data(), n, n),
                  Eigen::Map<const Eigen::VectorXd>(b.doubles().data(), n)};
  if (!m.W.allFinite() || !m.b.allFinite()) fail_input(path, w_key + ", " + b_key, "finite values");
  for (Eigen::Index i = 0; i < n; ++i) {
    if (m.W(i, i) != 0.0) fail_input(path, w_key, fmt::format("a zero diagonal, got {} at [{}, {}]", m.W(i, i), i, i));
    for (Eigen::Index j = 0; j < i; ++j)
      if (m.W(i, j) != m.W(j, i)) fail_input(path, w_key, fmt::format("a symmetric matrix, [{}, {}] != [{}, {}]", i, j, j, i));
  }
  return m;
}

// [model]: the couplings and fields, the target's beta and how many units are enumerated.
struct MrfSpec {
  MrfParameters parameters;
  double beta;
  std::int64_t exact_max_units;
  Record desc;
};

MrfSpec read_pairwise_mrf(Config& config) {
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  const std::string params = m.get_string(kParameters);
  MrfSpec spec{{}, 0.0, 0, {{"type", "pairwise_mrf"}, {"parameters", params}}};
  if (params == "random") {
    const auto n = static_cast<int>(m.get_int(kUnits));
    const double scale = m.get_double(kScale);
    const auto seed = static_cast<std::uint64_t>(m.get_int(kParameterSeed));
    spec.desc.set("scale", scale);
    spec.desc.set("parameter_seed", seed);
    spec.parameters = random_parameters(n, scale, seed);
  } else {
    for (const Key* k : {&kUnits, &kScale, &kParameterSeed})
      if (m.has(*k)) m.fail(*k, "no such key with a parameters file (the file sets the model)");
    spec.parameters = load_parameters(resolve_config_path(config, params), m.get_string(kCouplingsKey), m.get_string(kFieldsKey));
  }
  spec.beta = m.get_double(kBeta);
  spec.exact_max_units = m.get_int(kExactMaxUnits);
  return spec;
}

// The exact log Z by enumeration where n <= exact_max_units: the run's reference and exact_log_z().
std::optional<Reference> mrf_reference(const MrfParameters& parameters, double beta, std::int64_t exact_max_units) {
  if (parameters.size() > exact_max_units) return std::nullopt;
  double log_z = 0.0;
  enumerate_log_weights(parameters, beta, false, log_z);
  return Reference{log_z, "enumeration"};
}

RunResult run_pairwise_mrf(Config& config, const RunContext& context) {
  MrfSpec spec = read_pairwise_mrf(config);
  Record desc = std::move(spec.desc);
  const int n = spec.parameters.size();
  const double beta = spec.beta;
  const MrfPath path(std::move(spec.parameters), beta);

  auto k = config.section("kernel");
  k.check_known({&kKernelKeys});
  k.get_string(kKernelType);
  const MrfHeatBath kernel(static_cast<std::size_t>(k.get_int(kSteps, n)));

  RunResult result;
  desc.set("units", n);
  desc.set("beta", beta);
  desc.set("base", "uniform bits");
  desc.set("energy", "E(x) = -x^T W x / 2 - b^T x, x in {0, 1}^n");
  result.model = desc;
  result.base_log_z = path.base_log_z();
  result.reference = mrf_reference(path.parameters(), beta, spec.exact_max_units);
  result.kernel = {{"type", "heat_bath"}, {"steps_per_temperature", kernel.steps()}, {"step_unit", "single-unit update"}};

  if (read_run_method(config, {RunMethod::annealing, RunMethod::tempering}) == RunMethod::tempering) {
    temper_and_estimate(path, kernel, config, context.progress, result);
    return result;
  }
  const Schedule schedule = read_schedule(config);
  const std::vector<std::string> starts =
      n <= kExactSamplerMaxUnits ? std::vector<std::string>{"exact", "equilibrated"} : std::vector<std::string>{"equilibrated"};
  const RunSettings run = read_run_settings(config, starts);
  std::optional<MrfExactSampler> exact;
  if (run.reverse && run.reverse_start == "exact") exact.emplace(path);
  const MrfHeatBath equilibrate = kernel.with_steps(run.equilibration_sweeps * static_cast<std::size_t>(n));
  auto start = [&](MrfBatch& batch, const ChunkStreams& streams) {
    if (exact) {
      exact->sample(batch, streams.random(0));
      return;
    }
    // Uniform bits equilibrated at the target for equilibration_sweeps sweeps of n updates.
    path.sample_base(batch, streams.random(0));
    equilibrate.step(path.at(1.0), batch, streams.random(1));
  };
  anneal_and_estimate(path, kernel, schedule, run, start, context.progress, result);
  return result;
}

}  // namespace

ModelEntry pairwise_mrf_model_entry() {
  return {.name = "pairwise_mrf",
          .summary = "a pairwise binary MRF (fully visible Boltzmann machine), E = -x^T W x / 2 - b^T x, x in {0, 1}^n",
          .docs = "docs/config.md", .methods = {RunMethod::annealing, RunMethod::tempering},
          .kernels = {{"pairwise_mrf", "heat_bath", "random-scan single-unit heat bath", &kKernelKeys}},
          .reverse_starts = {"exact", "equilibrated"}, .reference = "enumeration for small n",
          .keys = {&kModelKeys, &kKernelKeys, &run_keys(), &schedule_keys(), &estimator_keys(), &tempering_keys()},
          .run = run_pairwise_mrf, .exact = [](Config& c) {
            const MrfSpec spec = read_pairwise_mrf(c);
            return mrf_reference(spec.parameters, spec.beta, spec.exact_max_units);
          }};
}

}  // namespace logz
