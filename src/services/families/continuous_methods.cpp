// Every [run] method of the continuous models on the path from a Gaussian base, compiled once
// for all of them: on GeometricPath<GaussianBase, ContinuousModelRef> (continuous_model_ref.hpp).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "logz/paths/geometric_path.hpp"
#include "services/families/continuous_family.hpp"

namespace logz::continuous {

namespace {
// The setup of every continuous model: the path from its Gaussian base to the model.
using Setup = ContinuousMethods<GeometricPath<GaussianBase, ContinuousModelRef>>;
}  // namespace

std::vector<RunMethod> continuous_methods() { return methods_on<Setup>(); }

std::vector<const KeyGroup*> continuous_method_key_groups(const KeyGroup& model_keys,
                                                          const KeyGroup* base, bool data) {
  return method_key_groups<Setup>(continuous_key_groups(model_keys, base, data));
}

void run_on_geometric_path(RunMethod method, const GaussianBase& base, ContinuousModelRef model,
                           KernelSettings& ks, const DataSampler& exact_start, Config& config,
                           const RunContext& context, RunResult& result) {
  const GeometricPath<GaussianBase, ContinuousModelRef> path(base, model);
  auto anneal = [&](Config& config, const RunContext& context, RunResult& result) {
    const Schedule schedule = read_continuous_schedule(config);
    const RunSettings run = read_run_settings(
        config, exact_start ? std::vector<std::string>{"exact"} : std::vector<std::string>{});
    if (exact_start)
      anneal_with_kernel(path, ks, schedule, run, exact_reverse_start(path, exact_start), context,
                         result);
    else
      anneal_with_kernel(path, ks, schedule, run, no_exact_start, context, result);
  };
  run_method(method, Setup(path, ks, anneal), config, context, result);
}

SampleResult sample_target(const SamplerSettings& s, ContinuousModelRef target, Record model,
                           std::optional<Eigen::MatrixXd> starts) {
  SampleResult out;
  out.model = std::move(model);
  out.result = sample_hmc(
      target,
      starts ? *starts : normal_chain_starts(target.dim(), s.chains, s.options.seed, s.initial_sd),
      s.options);
  summarise_sample(s, out);
  return out;
}

}  // namespace logz::continuous
