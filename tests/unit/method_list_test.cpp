// The [run] methods' list (services/method_list.hpp): method_registry() is the list, a model
// runs exactly the methods whose needs its setup meets, their key groups follow the shared ones,
// and run_method runs the method asked for (and only one the setup can run).
#include "logz/services/method_list.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <vector>

#include "logz/kernels/heat_bath.hpp"
#include "logz/models/ising.hpp"
#include "services/families/continuous_family.hpp"
#include "services/families/lattice_family.hpp"

namespace logz {
namespace {

// A setup that offers annealing alone, counting the runs.
struct AnnealingOnly {
  int* runs;
  void anneal(Config&, const RunContext&, RunResult&) const { ++*runs; }
};

// A setup with a discrete path and a kernel, but neither annealing nor ground states.
struct KernelsOnly {
  const IsingModel& model;
  const IsingModel& path() const { return model; }
  template <class F>
  void with_kernel(RunMethod, Config&, RunResult&, F&& f) const {
    f(HeatBath(SiteOrder::random, 1));
  }
};

using Methods = std::vector<RunMethod>;

TEST(MethodList, TheRegistryIsTheListInTheEnumeratorsOrder) {
  const auto& entries = method_registry();
  ASSERT_EQ(entries.size(), RunMethods::size);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(entries[i].method, static_cast<RunMethod>(i));
    EXPECT_FALSE(entries[i].summary.empty());
    EXPECT_TRUE(std::filesystem::exists(std::string(LOGZ_SOURCE_DIR) + "/" + entries[i].docs))
        << entries[i].docs;
  }
  EXPECT_TRUE(method_entry(RunMethod::tempering).checkpoints);
  EXPECT_TRUE(method_entry(RunMethod::smc).checkpoints);
  EXPECT_FALSE(method_entry(RunMethod::ground_state_integration).checkpoints);
}

TEST(MethodList, AModelRunsTheMethodsItsSetupMeets) {
  EXPECT_EQ(methods_on<AnnealingOnly>(), Methods{RunMethod::annealing});
  // Tempering needs a path and kernels; population annealing a discrete path too; parallel
  // tempering a geometric one; integration also ground states; SMC a continuous geometric path.
  EXPECT_EQ(methods_on<KernelsOnly>(),
            (Methods{RunMethod::tempering, RunMethod::population_annealing,
                     RunMethod::parallel_tempering}));
  EXPECT_EQ(
      lattice_methods(),
      (Methods{RunMethod::annealing, RunMethod::tempering, RunMethod::ground_state_integration,
               RunMethod::population_annealing, RunMethod::parallel_tempering}));
  EXPECT_EQ(continuous::continuous_methods(),
            (Methods{RunMethod::annealing, RunMethod::tempering, RunMethod::smc,
                     RunMethod::parallel_tempering}));
}

TEST(MethodList, TheMethodsKeyGroupsFollowTheSharedOnes) {
  EXPECT_EQ(
      method_key_groups<KernelsOnly>({&run_keys()}),
      (std::vector<const KeyGroup*>{&run_keys(), &tempering_keys(), &population_annealing_keys(),
                                    &parallel_tempering_keys()}));
  EXPECT_EQ(method_key_groups<AnnealingOnly>({&run_keys()}),
            std::vector<const KeyGroup*>{&run_keys()});
}

TEST(MethodList, RunMethodRunsTheMethodAskedForAndNoOther) {
  int runs = 0;
  const AnnealingOnly setup{&runs};
  Config config = Config::from_toml("", "x.toml");
  RunResult result;
  run_method(RunMethod::annealing, setup, config, RunContext{}, result);
  EXPECT_EQ(runs, 1);
  EXPECT_THROW(run_method(RunMethod::tempering, setup, config, RunContext{}, result),
               std::logic_error);
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace logz
