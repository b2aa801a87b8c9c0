// logz._evidence: the evidence of a prior x likelihood (logz/evidence/run_evidence.hpp) with the
// likelihood, its gradient and any Custom prior block as Python functions; logz._run_posterior:
// parallel tempering from the prior to the posterior (the continuous models' service).
// python/logz/evidence.py checks the arguments and builds the prior's blocks; this file turns them
// into the library's types and the run's result into a dict. The functions are called as
// logz.Target's are (python_target.hpp): from the drivers' threads, the GIL held for the call only
// (WorkerGil), the particles lent as a read-only (P, d) array (particle_arrays.hpp), Ctrl-C checked
// after every call; a Python exception comes back as itself.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "callback_answer.hpp"
#include "config_dict.hpp"
#include "interrupt.hpp"
#include "logz/core/enum_names.hpp"
#include "logz/core/error.hpp"
#include "logz/evidence/posterior_target.hpp"
#include "logz/evidence/run_evidence.hpp"
#include "logz/services/parallel_tempering_experiment.hpp"
#include "logz/services/results.hpp"
#include "particle_arrays.hpp"
#include "progress.hpp"
#include "services/families/continuous_family.hpp"
#include "worker_gil.hpp"

namespace py = pybind11;

namespace logz::python {

namespace {

// The Python functions of one run and their particle arrays, shared by the copies the drivers
// make without the GIL; the last owner is the binding's frame, which ends with the GIL held.
struct EvidenceCallbacks {
  py::object function;    // the user's function
  std::string name;       // how errors name it: "log_likelihood", "prior[1].log_density", ...
  std::string qualified;  // "logz.evidence: " + name, made once (errors start with it)
  ParticleArrays particles;
  std::atomic<std::uint64_t> rows{0};  // particles it was called on (the run's evaluations)
};

// f(X) for the d x P positions X, its answer checked as values.
void evidence_call_values(EvidenceCallbacks& f, const Eigen::MatrixXd& X, Eigen::VectorXd& out) {
  const WorkerGil gil;
  const LentParticles particles(f.particles, X);
  const py::object answer = f.function(particles.array());
  f.rows += static_cast<std::uint64_t>(X.cols());
  out.resize(X.cols());
  copy_answer(answer, X.cols(), 0, f.qualified, AnswerValues::log_densities, out.data());
  throw_if_interrupted();
}

void evidence_call_gradient(EvidenceCallbacks& f, const Eigen::MatrixXd& X,
                            const Eigen::VectorXd& values, Eigen::MatrixXd& G) {
  const WorkerGil gil;
  const LentParticles particles(f.particles, X);
  const py::object answer = f.function(particles.array());
  f.rows += static_cast<std::uint64_t>(X.cols());
  G.resize(X.rows(), X.cols());  // (P, d) row-major = d x P column-major
  copy_answer(answer, X.cols(), X.rows(), f.qualified, AnswerValues::gradients, G.data(),
              {values.data(), -std::numeric_limits<double>::infinity()});
  throw_if_interrupted();
}

// grad(X) alone (the leapfrog's inner steps). A row with a non-finite value is checked as beside
// log L: log L of those rows alone, then zeroed where it is -inf, an error otherwise.
void evidence_call_gradient_alone(EvidenceCallbacks& g, EvidenceCallbacks& f,
                                  const Eigen::MatrixXd& X, Eigen::MatrixXd& G) {
  const WorkerGil gil;
  const LentParticles particles(g.particles, X);
  const py::object answer = g.function(particles.array());
  g.rows += static_cast<std::uint64_t>(X.cols());
  copy_gradient_alone(
      answer, X, g.qualified, -std::numeric_limits<double>::infinity(),
      [&f](const Eigen::MatrixXd& rows, Eigen::VectorXd& values) {
        evidence_call_values(f, rows, values);
      },
      G);
  throw_if_interrupted();
}

std::shared_ptr<EvidenceCallbacks> evidence_callbacks(const py::object& function,
                                                      std::string name) {
  if (function.is_none()) return nullptr;
  auto c = std::make_shared<EvidenceCallbacks>();
  c->function = function;
  c->name = std::move(name);
  c->qualified = "logz.evidence: " + c->name;
  return c;
}

// log_likelihood(X) -> (P,), grad(X) -> (P, d) or None.
Likelihood python_likelihood(int dim, const py::object& log_likelihood, const py::object& grad,
                             std::vector<std::shared_ptr<EvidenceCallbacks>>& held) {
  Likelihood l;
  l.dim = dim;
  auto f = evidence_callbacks(log_likelihood, "log_likelihood");
  held.push_back(f);
  l.log_likelihood = [f](const Eigen::MatrixXd& X, Eigen::VectorXd& out) {
    evidence_call_values(*f, X, out);
  };
  if (auto g = evidence_callbacks(grad, "grad")) {
    held.push_back(g);
    l.log_likelihood_and_grad = [f, g](const Eigen::MatrixXd& X, Eigen::VectorXd& out,
                                       Eigen::MatrixXd& G) {
      evidence_call_values(*f, X, out);
      evidence_call_gradient(*g, X, out, G);
    };
    l.grad = [f, g](const Eigen::MatrixXd& X, Eigen::MatrixXd& G) {
      evidence_call_gradient_alone(*g, *f, X, G);
    };
  }
  return l;
}

// Particles the user's log-likelihood and gradient were called on, as the run's evaluations (a
// log L and a gradient at one point are two).
struct EvidenceEvaluations {
  std::uint64_t likelihood = 0, gradient = 0;
};
EvidenceEvaluations evidence_evaluations(
    const std::vector<std::shared_ptr<EvidenceCallbacks>>& held) {
  EvidenceEvaluations e;
  for (const auto& c : held)
    if (c->name == "log_likelihood")
      e.likelihood = c->rows;
    else if (c->name == "grad")
      e.gradient = c->rows;
  return e;
}

Eigen::VectorXd evidence_vector(const py::handle& value, const char* argument) {
  const DoubleArray a = as_array(value, 1, "logz.evidence", argument, "(k,)");
  return Eigen::Map<const Eigen::VectorXd>(a.data(), a.shape(0));
}

// A Custom block: sample(rng) -> (k,) with rng a numpy Generator seeded from the particle's
// stream (so a draw depends on the seed and the particle only), log_density(X) -> (P,),
// grad_log_density(X) -> (P, k) or None.
std::shared_ptr<const PriorBlock> python_custom_block(
    const py::tuple& spec, std::size_t index,
    std::vector<std::shared_ptr<EvidenceCallbacks>>& held) {
  const std::string prefix = "prior block " + std::to_string(index) + ": ";
  CustomPriorFunctions c;
  c.dim = spec[1].cast<int>();
  auto sample = evidence_callbacks(spec[2], prefix + "sample");
  auto density = evidence_callbacks(spec[3], prefix + "log_density");
  auto grad = evidence_callbacks(spec[4], prefix + "grad_log_density");
  held.push_back(sample), held.push_back(density);
  const int k = c.dim;
  c.sample = [sample, k](RandomStream& s, Eigen::Ref<Eigen::VectorXd> x) {
    const std::uint64_t seed = (static_cast<std::uint64_t>(s.next_u32()) << 32) | s.next_u32();
    const WorkerGil gil;
    const py::object rng = py::module_::import("numpy.random").attr("default_rng")(seed);
    const py::object answer = sample->function(rng);
    const std::string shape = "(" + std::to_string(k) + ",)";
    const std::string where = "evidence: " + sample->name;
    const DoubleArray a = as_array(answer, 1, where.c_str(), "return value", shape.c_str());
    if (a.shape(0) != k) fail_argument("logz.evidence", sample->name, "a draw of shape " + shape);
    for (int i = 0; i < k; ++i) {
      if (!std::isfinite(a.data()[i]))
        fail_argument("logz.evidence", sample->name, "a draw of finite numbers");
      x(i) = a.data()[i];
    }
    throw_if_interrupted();
  };
  c.log_density = [density](const Eigen::MatrixXd& X, Eigen::VectorXd& out) {
    evidence_call_values(*density, X, out);
  };
  if (grad) {
    held.push_back(grad);
    c.grad_log_density = [density, grad](const Eigen::MatrixXd& X, Eigen::VectorXd& out,
                                         Eigen::MatrixXd& G) {
      evidence_call_values(*density, X, out);
      evidence_call_gradient(*grad, X, out, G);
    };
  }
  return custom_prior(std::move(c));
}

// The blocks as evidence.py describes them: ("normal", mean, cov), ("uniform", low, high),
// ("student_t", df, loc, scale), ("custom", k, sample, log_density, grad_log_density).
std::shared_ptr<const Prior> python_prior(const py::list& blocks,
                                          std::vector<std::shared_ptr<EvidenceCallbacks>>& held) {
  std::vector<std::shared_ptr<const PriorBlock>> out;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const py::tuple spec = blocks[i].cast<py::tuple>();
    const std::string kind = spec[0].cast<std::string>();
    if (kind == "normal") {
      const DoubleArray cov = as_array(spec[2], 2, "logz.evidence", "prior covariance", "(k, k)");
      Eigen::MatrixXd c(cov.shape(0), cov.shape(1));
      for (py::ssize_t r = 0; r < cov.shape(0); ++r)
        for (py::ssize_t q = 0; q < cov.shape(1); ++q) c(r, q) = cov.at(r, q);
      out.push_back(normal_prior(evidence_vector(spec[1], "prior mean"), c));
    } else if (kind == "uniform") {
      out.push_back(uniform_prior(evidence_vector(spec[1], "prior low"),
                                  evidence_vector(spec[2], "prior high")));
    } else if (kind == "student_t") {
      out.push_back(student_t_prior(evidence_vector(spec[1], "prior df"),
                                    evidence_vector(spec[2], "prior loc"),
                                    evidence_vector(spec[3], "prior scale")));
    } else if (kind == "custom") {
      out.push_back(python_custom_block(spec, i, held));
    } else {
      fail_argument("logz.evidence", "prior", "blocks of logz.priors");
    }
  }
  return std::make_shared<const Prior>(std::move(out));
}

// The SmcOptions from evidence.py's dict (keys as the fields; absent: the default).
SmcOptions evidence_options(const py::dict& d) {
  SmcOptions o;
  auto has = [&](const char* key) { return d.contains(key) && !d[key].is_none(); };
  if (has("num_particles")) o.num_particles = d["num_particles"].cast<std::size_t>();
  if (has("cess_target")) o.cess_target = d["cess_target"].cast<double>();
  if (has("resample_threshold")) o.resample_threshold = d["resample_threshold"].cast<double>();
  if (has("resampling"))
    o.resampling = parse_enum<SmcResampling>(d["resampling"].cast<std::string>(), "logz.evidence",
                                             "resampling");
  if (has("move"))
    o.move = parse_enum<SmcMove>(d["move"].cast<std::string>(), "logz.evidence", "move");
  if (has("leapfrog_steps")) o.leapfrog_steps = d["leapfrog_steps"].cast<int>();
  if (has("max_leapfrog_steps")) o.max_leapfrog_steps = d["max_leapfrog_steps"].cast<int>();
  if (has("trajectory_length")) o.trajectory_length = d["trajectory_length"].cast<double>();
  if (has("initial_step_size")) o.initial_step_size = d["initial_step_size"].cast<double>();
  if (has("adapt_step_size")) o.adapt_step_size = d["adapt_step_size"].cast<bool>();
  if (has("target_acceptance")) o.target_acceptance = d["target_acceptance"].cast<double>();
  if (has("min_step_size")) o.min_step_size = d["min_step_size"].cast<double>();
  if (has("max_step_size")) o.max_step_size = d["max_step_size"].cast<double>();
  if (has("preconditioner"))
    o.preconditioner = parse_enum<SmcPreconditioner>(d["preconditioner"].cast<std::string>(),
                                                     "logz.evidence", "preconditioner");
  if (has("decorrelation")) o.decorrelation = d["decorrelation"].cast<double>();
  if (has("min_moves")) o.min_moves = d["min_moves"].cast<int>();
  if (has("max_moves")) o.max_moves = d["max_moves"].cast<int>();
  if (has("max_temperatures")) o.max_temperatures = d["max_temperatures"].cast<std::size_t>();
  if (has("frozen_acceptance")) o.frozen_acceptance = d["frozen_acceptance"].cast<double>();
  if (has("waste_free_chain_length"))
    o.waste_free_chain_length = d["waste_free_chain_length"].cast<std::size_t>();
  if (has("seed")) o.seed = d["seed"].cast<std::uint64_t>();
  if (has("threads")) o.threads = d["threads"].cast<int>();
  if (has("choose_threads")) o.choose_threads = d["choose_threads"].cast<bool>();
  if (has("chunk_size")) o.chunk_size = d["chunk_size"].cast<std::size_t>();
  return o;
}

py::dict evidence_result_dict(const EvidenceResult& r, const EvidenceEvaluations& evaluations,
                              double runtime_s) {
  const SmcResult& s = r.smc;
  py::dict out;
  out["log_z"] = r.log_evidence;
  out["std_error"] = r.std_error;
  out["flags"] = s.log_z.diagnostics.flags;
  // Both runs' evaluations, as the user's functions were called; the per-temperature records
  // and the samples are the first run's (from the prior: the refining run's may carry particles
  // of weight 0 outside the posterior's support).
  out["num_evaluations"] = evaluations.likelihood + evaluations.gradient;
  out["likelihood_evaluations"] = evaluations.likelihood;
  out["gradient_evaluations"] = evaluations.gradient;
  if (r.refined) {
    py::dict refined;
    refined["used"] = r.answer != RefineAnswer::first;
    refined["answer"] = to_string(r.answer);
    refined["log_z"] = r.refined->absolute_log_z();
    refined["std_error"] = r.refined->log_z.std_error;
    refined["flags"] = r.refined->log_z.diagnostics.flags;
    refined["num_temperatures"] = r.refined->stages.size();
    refined["base_components"] = r.base_components;
    // As the user's functions were called: log L and its gradient at one point are two.
    refined["num_evaluations"] = r.refined->energy_evaluations +
                                 2 * r.refined->gradient_evaluations +
                                 r.refined->gradient_only_evaluations;
    refined["first_log_z"] = s.absolute_log_z();
    refined["first_std_error"] = s.log_z.std_error;
    out["refined"] = refined;
  }
  out["move"] = to_string(r.move);
  out["runtime_s"] = runtime_s;
  std::vector<double> increments, ess, acceptance, step_sizes, jump_ratios;
  std::vector<bool> resampled;
  std::vector<int> moves;
  for (const SmcStage& st : s.stages) {
    increments.push_back(st.log_z_increment), ess.push_back(st.ess);
    acceptance.push_back(st.acceptance), step_sizes.push_back(st.step_size);
    jump_ratios.push_back(st.jump_ratio), resampled.push_back(st.resampled);
    moves.push_back(st.moves);
  }
  out["temperatures"] = s.temperatures();
  out["log_z_increments"] = increments;
  out["ess"] = ess;
  out["acceptance"] = acceptance;
  out["step_sizes"] = step_sizes;
  out["jump_ratios"] = jump_ratios;
  out["resampled"] = resampled;
  out["moves"] = moves;
  out["num_resamplings"] = s.num_resamplings;
  out["num_eves"] = s.num_eves;
  out["relative_variance"] = s.relative_variance;
  out["values"] = s.log_z.diagnostics.values;
  // Particles as (N, d): the d x N column-major positions are (N, d) row-major.
  const auto n = static_cast<py::ssize_t>(s.particles.cols()),
             d = static_cast<py::ssize_t>(s.particles.rows());
  py::array_t<double> samples({n, d});
  std::copy(s.particles.data(), s.particles.data() + n * d, samples.mutable_data());
  out["samples"] = samples;
  out["log_weights"] = to_numpy(s.log_weights);
  return out;
}

// Parallel tempering on the geometric path from the prior to the posterior, prior^(1-t)
// (prior L)^t = prior L^t: [pt] and [kernel] from the config (the continuous models' readers:
// step sizes per replica from a pilot by default). log Z of the posterior is the log evidence
// (the prior is normalised).
RunResult run_posterior_pt(Config& config, const Prior& prior, const Likelihood& likelihood,
                           const RunContext& context) {
  using Path = GeometricPath<Prior, PosteriorTarget>;
  const Path path(prior, PosteriorTarget(prior, LikelihoodTilt(likelihood)));
  continuous::KernelSettings ks = continuous::read_kernel(config);
  RunResult result;
  result.model = Record{{"type", "python evidence"},
                        {"dim", prior.dim()},
                        {"path", "geometric: prior x likelihood^t"}};
  result.base_log_z = prior.log_z();
  auto no_annealing = [](Config&, const RunContext&, RunResult&) {
    throw std::logic_error("logz._run_posterior: parallel tempering only");
  };
  const continuous::ContinuousMethods<Path> setup(path, ks, no_annealing);
  ParallelTemperingMethod::run(setup, config, context, result);
  return result;
}

}  // namespace

void bind_evidence(py::module_& m) {
  m.def(
      "_evidence",
      [](const py::object& log_likelihood, const py::object& grad, const py::list& blocks,
         const py::dict& options, const py::object& progress) {
        std::vector<std::shared_ptr<EvidenceCallbacks>> held;  // freed here, with the GIL
        const std::shared_ptr<const Prior> prior = python_prior(blocks, held);
        const Likelihood likelihood = python_likelihood(prior->dim(), log_likelihood, grad, held);
        SmcOptions o = evidence_options(options);
        EvidenceRefine refine;
        if (options.contains("refine") && !options["refine"].is_none())
          refine.enabled = options["refine"].cast<bool>();
        std::shared_ptr<py::object> shown;
        if (!progress.is_none()) {
          shown = std::make_shared<py::object>(progress);
          o.progress = [shown](const SmcStage& st) {
            const WorkerGil gil;
            (*shown)(st.temperature, st.ess, st.resampled, st.moves, st.acceptance, st.step_size);
          };
        }
        EvidenceResult r;
        double runtime_s = 0.0;
        {
          const InterruptGuard ctrl_c;
          o.stop = ctrl_c.stop();
          py::gil_scoped_release release;
          const auto start = std::chrono::steady_clock::now();
          r = run_evidence(prior, likelihood, o, refine);
          runtime_s =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
        o.progress = nullptr;
        return evidence_result_dict(r, evidence_evaluations(held), runtime_s);
      },
      py::arg("log_likelihood"), py::arg("grad"), py::arg("blocks"), py::arg("options"),
      py::arg("progress") = py::none(),
      "The evidence of a prior x likelihood by adaptive tempered SMC (see logz.evidence).");
  m.def(
      "_run_posterior",
      [](const py::object& log_likelihood, const py::object& grad, const py::list& blocks,
         const py::dict& config, const py::object& progress) {
        std::vector<std::shared_ptr<EvidenceCallbacks>> held;  // freed here, with the GIL
        const std::shared_ptr<const Prior> prior = python_prior(blocks, held);
        const Likelihood likelihood = python_likelihood(prior->dim(), log_likelihood, grad, held);
        Config c = load_config(config, "logz.evidence");
        auto result = std::make_shared<RunResult>();
        {
          const InterruptGuard ctrl_c;
          const RunContext context{.progress = progress_function(progress), .stop = ctrl_c.stop()};
          py::gil_scoped_release release;
          const auto start = std::chrono::steady_clock::now();
          *result = run_posterior_pt(c, *prior, likelihood, context);
          result->runtime_s =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          result->config = c.resolved();
        }
        const EvidenceEvaluations e = evidence_evaluations(held);
        result->details.set("num_evaluations", e.likelihood + e.gradient);
        result->details.set("likelihood_evaluations", e.likelihood);
        result->details.set("gradient_evaluations", e.gradient);
        return result;
      },
      py::arg("log_likelihood"), py::arg("grad"), py::arg("blocks"), py::arg("config"),
      py::arg("progress") = py::none(),
      "The evidence of a prior x likelihood by parallel tempering from a config dict ([run] "
      "seed and threads, [pt], [kernel], [estimators]; see logz.evidence).");
}

}  // namespace logz::python
