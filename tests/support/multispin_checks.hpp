// Checks both multi-spin kernels share: a packed model starts from the unpacked model's states,
// and annealing gives the same works for any thread count and any chunk size that is a
// multiple of 64.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/paths/schedule.hpp"
#include "logz/random/philox.hpp"

namespace logz::test_support {

// value(batch, p, i) reads site i of particle p of either batch type.
template <class Model, class Packed, class Value>
void expect_same_initial_states(const Model& model, const Packed& packed, Value&& value) {
  const BatchRandom random{3, Purpose::base_sample, 0, 64};
  for (bool ground : {false, true}) {
    auto plain = model.make_batch(100);
    auto bits = packed.make_batch(100);
    if (ground) {
      model.ground_state(plain, random), packed.ground_state(bits, random);
    } else {
      model.sample_base(plain, random), packed.sample_base(bits, random);
    }
    for (std::size_t p = 0; p < 100; ++p) {
      EXPECT_EQ(bits.bond_sum(p), plain.bond_sum(p));
      for (int j = 0; j < model.num_sites(); ++j) ASSERT_EQ(value(bits, p, j), plain.sites(p)[j]);
    }
  }
}

template <class Model, class Kernel>
void expect_works_independent_of_threads_and_chunks(const Model& model, const Kernel& kernel) {
  const auto schedule = linear_schedule(20);
  std::vector<std::vector<double>> works;
  // 600 paths: ten groups, in vectors of one, two, three (padded to four) and all ten.
  for (const auto& [threads, chunk] : {std::pair{1, 64}, std::pair{2, 64}, std::pair{2, 128},
                                       std::pair{3, 192}, std::pair{1, 640}}) {
    AnnealOptions o;
    o.num_paths = 600;
    o.seed = 4;
    o.threads = threads;
    o.chunk_size = static_cast<std::size_t>(chunk);
    works.push_back(anneal_forward(model, kernel, schedule, o).works);
  }
  for (std::size_t r = 1; r < works.size(); ++r) EXPECT_EQ(works[r], works[0]) << "run " << r;
}

}  // namespace logz::test_support
