#include "logz/anneal/anneal_journal.hpp"

namespace logz {

AnnealPhaseRecord AnnealPhaseRecord::of(const AnnealPhaseView& view) {
  AnnealPhaseRecord r;
  r.shape = view.shape;
  r.chunks_done = view.chunks_done;
  r.works.assign(view.works.begin(), view.works.end());
  r.energy_sum.assign(view.energy_sum.begin(), view.energy_sum.end());
  r.attempted.assign(view.attempted.begin(), view.attempted.end());
  r.accepted.assign(view.accepted.begin(), view.accepted.end());
  return r;
}

}  // namespace logz
