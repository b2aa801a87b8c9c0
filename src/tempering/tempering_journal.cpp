#include "logz/tempering/tempering_journal.hpp"

namespace logz {

namespace {
thread_local TemperingJournal* current_journal = nullptr;
}  // namespace

TemperingJournal* current_tempering_journal() { return current_journal; }

ScopedTemperingJournal::ScopedTemperingJournal(TemperingJournal* journal) : previous_(current_journal) {
  current_journal = journal;
}

ScopedTemperingJournal::~ScopedTemperingJournal() { current_journal = previous_; }

}  // namespace logz
