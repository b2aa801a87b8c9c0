// Checkpoints of `logz run` (docs/checkpoint.md): the run's config; for each annealing phase
// begun, the works and per-temperature sums of the chunks merged so far
// (anneal/anneal_journal.hpp); for each tempering run begun, where it stands: its chains, the
// initialization's state and the final run's statistics (tempering/tempering_journal.hpp); for
// each parallel tempering run begun, its round, ladder and replicas (tempering/pt_journal.hpp);
// for each SMC run begun, its particles after the last temperature recorded (smc/smc_journal.hpp).
// A resumed run takes those back and runs only the rest, giving the bits of an uninterrupted run on
// any number of threads.
//
// The file: one line "logz-checkpoint 1 CRC32 BYTES", then BYTES bytes of JSON whose CRC-32
// (zlib's) is CRC32; doubles are written as the hex of their bits. Writes go through the one
// writer (io/output_file.hpp), so a kill at any moment leaves the old checkpoint or the new one,
// never a mix, and a checkpoint never replaces a link or a device. A run holds PATH.lock
// (flock) while it saves to PATH: a second run on the same checkpoint is refused. The files the
// run reads (weights, data, schedules) are kept as fingerprints; a resume refuses one that
// changed.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "logz/anneal/anneal_journal.hpp"
#include "logz/config/config.hpp"
#include "logz/config/files_read.hpp"
#include "logz/smc/smc_journal.hpp"
#include "logz/tempering/pt_journal.hpp"
#include "logz/tempering/tempering_journal.hpp"
#include "logz/training/rbm_trainer.hpp"
#include "logz/training_app/rbm_tracking.hpp"

namespace logz {

// How to build the run's config again: the TOML file as read, its path (absolute, so that file
// names in it resolve as they did), the --set overrides, --seed and --threads.
struct CheckpointedConfig {
  std::string text;
  std::string source;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;  // [run] seed
  std::optional<int> threads;         // [run] threads; free to change on resume
  std::string command = "run";        // the logz command: "run" or "train rbm"

  // Reads the TOML file at `path`.
  static CheckpointedConfig from_file(const std::string& path, std::vector<std::string> sets,
                                      std::optional<std::uint64_t> seed,
                                      std::optional<int> threads);
  Config load() const;
  // What identifies the run (all but threads), as 16 hex digits.
  std::string hash() const;
};

// What a checkpoint of `logz train rbm` holds after an epoch: the trainer's state, the tracking
// monitor's (when tracking) and the per-epoch history CSV so far.
struct TrainingRecord {
  RbmTrainerState trainer;
  std::optional<RbmMonitorState> monitor;
  std::string history_csv;
};

class RunCheckpoint final : public AnnealJournal,
                            public TemperingJournal,
                            public PtJournal,
                            public SmcJournal {
 public:
  // A new checkpoint at `path`, saved every `every_seconds` (0: after every chunk) while a run
  // anneals; save() writes it at once.
  RunCheckpoint(std::string path, CheckpointedConfig config, double every_seconds);
  // A checkpoint read back. InputError, naming the file, for one that is truncated, corrupted,
  // written by another version of logz or whose config does not match its hash, or written by
  // another command than `command` ("run" or "train rbm").
  static RunCheckpoint read(const std::string& path, double every_seconds,
                            const std::string& command = "run");

  const std::string& path() const { return path_; }
  const CheckpointedConfig& config() const { return config_; }
  void set_threads(std::optional<int> threads) {
    config_.threads = threads;
    changed_ = true;
  }
  // Phases begun, and how many are complete.
  std::size_t num_phases() const { return phases_.size(); }
  std::size_t num_complete_phases() const;
  // How far the run got, in words ("2 of 3 annealing phases begun are complete").
  std::string progress() const;

  // Writes the checkpoint now (atomically); InputError naming the file when it cannot. A run
  // split over ranks journals on every rank and writes from rank 0 only: set_writes(false) on
  // the others makes save() keep the records without writing.
  void save();
  void set_writes(bool writes) { writes_ = writes; }
  // The same for the saves a run makes on its way (after a chunk, a tempering piece, an epoch,
  // at the end, at a stop): a failure leaves the run and the last checkpoint saved as they were,
  // is said once on the warnings' stream, and returns false; the next save due tries again.
  // Nothing recorded since the last save: true at once, without writing (a stop after the
  // sampling, while the estimators run, says how to resume at once; mpirun gives the ranks
  // 1 s between its SIGTERM and its SIGKILL, and a parallel tempering record can take longer).
  bool save_or_warn();
  // Takes PATH.lock for this process's lifetime (the writing rank); InputError naming the
  // other process when another run holds it.
  void lock();
  // Where the files the run reads are fingerprinted (Config::record_files_in); on resume, those
  // the checkpoint recorded.
  const std::shared_ptr<FilesRead>& files_read() const { return files_; }
  // Where save_or_warn() says what failed: std::cerr by default.
  void set_warnings(std::function<void(const std::string&)> warn) { warn_ = std::move(warn); }

  // `logz train rbm`: the training after its last complete epoch (none before the first), and
  // a new one, saved when a checkpoint is due.
  const std::optional<TrainingRecord>& training() const { return training_; }
  void record_training(TrainingRecord record);

  const AnnealPhaseRecord* begin_phase(const AnnealPhaseShape& shape, bool resumable) override;
  void merged(const AnnealPhaseView& view) override;
  void end_phase(const AnnealPhaseView& view) override;

  const TemperingRecord* begin_tempering(const TemperingShape& shape) override;
  bool wants_record() const override;
  void record(TemperingRecord record) override;

  const PtRecord* begin_pt(const PtShape& shape) override;
  void record(PtRecord record) override;

  const SmcRecord* begin_smc(const SmcShape& shape) override;
  void record(SmcRecord record) override;

 private:
  using Clock = std::chrono::steady_clock;
  bool due() const;
  void took_record();  // after a record: its time and cost

  std::string path_;
  CheckpointedConfig config_;
  double every_seconds_;
  bool writes_ = true;
  std::vector<AnnealPhaseRecord> phases_;  // in the order the run begins them
  std::size_t next_phase_ = 0;
  std::vector<TemperingRecord> temperings_;  // in the order the run begins them
  std::optional<TrainingRecord> training_;
  std::size_t next_tempering_ = 0;
  std::vector<PtRecord> pt_runs_;  // in the order the run begins them
  std::size_t next_pt_ = 0;
  std::vector<SmcRecord> smc_runs_;  // in the order the run begins them
  std::size_t next_smc_ = 0;
  Clock::time_point last_save_, last_record_;
  // What the last save and the last record took (a record: from wants_record's yes to record):
  // a run whose records hold every sample so far (parallel tempering's last round) saves and
  // records no more often than ten times their cost, so that they cost it at most about a tenth.
  double save_seconds_ = 0.0, record_seconds_ = 0.0;
  mutable std::optional<Clock::time_point> asked_;
  std::shared_ptr<FilesRead> files_ = std::make_shared<FilesRead>();
  std::shared_ptr<const int> lock_;  // PATH.lock's descriptor, closed (unlocked) with the last copy
  std::size_t failed_saves_ = 0;     // in a row
  bool warned_ = false;              // a failure and a recovery said: no more lines
  bool changed_ = true;              // recorded since the last save (or never saved)
  std::function<void(const std::string&)> warn_;
};

// The checkpoint's text, and a checkpoint parsed from text (`name` in errors), for tests and the
// fuzz harness.
struct CheckpointContents {
  CheckpointedConfig config;
  std::vector<AnnealPhaseRecord> phases;
  std::vector<TemperingRecord> temperings;
  std::vector<PtRecord> pt_runs;
  std::vector<SmcRecord> smc_runs;
  std::optional<TrainingRecord> training;
  std::vector<FileFingerprint> files;  // the files the run read, fingerprinted
};
std::string checkpoint_text(const CheckpointContents& contents);
CheckpointContents parse_checkpoint(const std::string& text, const std::string& name);

}  // namespace logz
