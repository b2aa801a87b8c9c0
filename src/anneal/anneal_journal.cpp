#include "logz/anneal/anneal_journal.hpp"

namespace logz {

namespace {
thread_local AnnealJournal* current_journal = nullptr;
}  // namespace

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

AnnealJournal* current_anneal_journal() { return current_journal; }

ScopedAnnealJournal::ScopedAnnealJournal(AnnealJournal* journal) : previous_(current_journal) {
  current_journal = journal;
}

ScopedAnnealJournal::~ScopedAnnealJournal() { current_journal = previous_; }

}  // namespace logz
