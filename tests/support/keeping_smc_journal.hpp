// A journal for SMC and population annealing runs (smc/smc_journal.hpp) that keeps every record a
// run hands it, or hands one back as the run to resume; given a stop source, it requests a stop
// once it holds `stop_at` records (a run stopped right after a record).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "logz/core/stop_request.hpp"
#include "logz/smc/smc_journal.hpp"

namespace logz::test_support {

class KeepingSmcJournal final : public SmcJournal {
 public:
  KeepingSmcJournal() = default;
  explicit KeepingSmcJournal(SmcRecord resume) : resume_(std::move(resume)), resuming_(true) {}
  const SmcRecord* begin_smc(const SmcShape&) override { return resuming_ ? &resume_ : nullptr; }
  bool wants_record() const override { return true; }
  void record(SmcRecord record) override {
    kept.push_back(std::move(record));
    if (stop && kept.size() == stop_at) stop->request();
  }
  std::vector<SmcRecord> kept;
  StopSource* stop = nullptr;
  std::size_t stop_at = 0;

 private:
  SmcRecord resume_;
  bool resuming_ = false;
};

}  // namespace logz::test_support
