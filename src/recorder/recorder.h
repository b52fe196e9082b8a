// SPDX-License-Identifier: MIT
// The daemon's history recorder (docs/daemon.md, "History"): turns what the sampler keeps into
// the store's records and the daily CSV files.
//  - Every sampler round (observe): each GPU's description and sample, queued in the Writer.
//  - Every record interval (record): one process interval per process per GPU for each window
//    of the time the samples have completed since the last record (recorder/windows.h), from
//    the series (recorder/process_figures.h) and the identities seen; `final` once a process
//    has left its GPU and exited. Then one flush, the CSV rows of the CSV intervals that ended,
//    a passive checkpoint every few minutes, and the store's downsampling and pruning hourly in
//    bounded batches.
//  - Every settled task (settled): its result, queued.
//  - Accounting records of processes that exited (recorder/accounted_exits.h): queued once
//    the record intervals have passed their end, after the process intervals.
// A write that fails (a full disk) keeps the records queued for the next record interval and
// sampling goes on; each change between failing and writing is logged once. So does a database
// that could not be opened at start (damaged, read-only, a newer schema's): the recorder tries
// to open it again every record interval (RecorderConfig::open_database), the records queue
// meanwhile, and the first write after it opens catches up.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/sampler.h"
#include "recorder/accounted_exits.h"
#include "recorder/csv_rows.h"
#include "recorder/identities.h"
#include "recorder/process_figures.h"
#include "store/maintenance.h"
#include "store/store.h"
#include "store/usage_totals.h"
#include "store/writer.h"
#include "task/protocol.h"
#include "task/result_sink.h"

namespace gpumeter::recorder {

struct RecorderConfig {
  TimeUs record_interval_us = 60'000'000;
  TimeUs sampler_interval_us = 1'000'000;  // to wait for the round that completes a window
  store::Retention retention;
  std::optional<std::filesystem::path> csv_directory;  // absent: no CSV files
  // A multiple of the record interval.
  TimeUs csv_interval_us = 60'000'000;
  mode_t csv_file_mode = 0640;
  TimeUs checkpoint_interval_us = 300'000'000;     // Store::checkpoint()
  TimeUs maintenance_interval_us = 3'600'000'000;  // store::maintain()
  std::size_t maintenance_batches = 16;        // transactions per record interval while it is due
  std::size_t max_pending_csv_rows = 100'000;  // rows kept for retry while appends fail
  // The history database's path, for the status and the logs; absent with history off.
  std::optional<std::filesystem::path> database;
  // Opens the database where the recorder was given none because it could not be opened at
  // start; tried every record interval until it succeeds. Empty: no database is wanted.
  std::function<std::expected<store::Store, Error>()> open_database;
  // Which of the ledger's running totals usage_totals() keeps (the /metrics counters' bounds).
  store::UsageTotalsBounds totals_bounds;
};

// Where the recorder says what happened: one line, without a newline. Called from any thread.
using Log = std::function<void(const std::string& line)>;

class Recorder final : public task::ResultSink {
 public:
  // `store`: the opened database, which must outlive the recorder and is used only by it (in
  // record() and finish()); null with history off (CSV files only), or when it could not be
  // opened yet (config.open_database).
  Recorder(store::Store* store, RecorderConfig config, Log log);
  ~Recorder() override;  // stops the thread (without a last record: call finish())
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // For SamplerConfig::on_snapshot, in the sampler's thread.
  void observe(const Snapshot& snapshot);
  // For task::Service, in the task server's thread.
  void settled(const task::Task& task) override;

  // Records the windows from the end of the last record (at first, the first snapshot's time)
  // to `until_us`, then writes (above). `now_us` is the wall clock, for the checkpoint and
  // maintenance schedule. What the thread does every record interval; not concurrently with
  // itself.
  void record(const Sampler& sampler, TimeUs until_us, TimeUs now_us);

  // Starts the thread: shortly after each multiple of the record interval (once the sampler
  // has a round that completes it), record() up to it.
  void start(const Sampler& sampler);
  // Stops the thread, records up to where the samples are complete, writes the rows of the CSV
  // interval in progress and flushes once more. The sampler should be stopped first.
  void finish(const Sampler& sampler);

  // Why the database given in config.database could not be opened: logged (once while it
  // lasts) and in the status, until open_database succeeds. The daemon's first try is its own.
  void could_not_open(const Error& error);

  // The ledger's running totals as read after the last write that succeeded (and at open);
  // null with history off or before the database could be opened. Any thread.
  std::shared_ptr<const UsageTotals> usage_totals() const;

  // For the task server's status reply.
  task::HistoryStatus status() const;

  // Where the samples are complete: the last round less the longest driver sample period.
  static std::optional<TimeUs> complete_until(const Sampler& sampler);

 private:
  struct Pending {  // a process that left its GPU and had not exited when last recorded
    store::ProcessIdentity identity;
    TimeUs left_us = 0;
  };
  using PendingKey = std::pair<std::uint32_t, ProcessKey>;

  std::optional<TimeUs> recorded_until() const;
  void record_until(const Sampler& sampler, TimeUs until_us);
  void record_windows(const Sampler& sampler, TimeUs from, TimeUs until);
  void queue_interval(const Sampler& sampler, const ProcessFigures& figures, Window window);
  void finish_pending(const Sampler& sampler, TimeUs until);
  void write(TimeUs now_us, bool final);
  bool open_database();
  std::string database_name() const;
  void flush_store(TimeUs now_us);
  void refresh_totals(TimeUs now_us);
  void append_csv(std::vector<CsvRow> rows);
  void keep_up(TimeUs now_us);
  void queue_accounted(std::vector<store::AccountedProcess> records);
  void run(const Sampler& sampler, const std::stop_token& stop);
  void note_state(const std::string& topic, const std::optional<std::string>& error,
                  const std::string& recovered);

  store::Store* store_;
  std::optional<store::Store> opened_late_;  // opened by open_database(); store_ points to it
  std::unique_ptr<store::Writer> writer_;
  RecorderConfig config_;
  Log log_;
  Identities identities_;

  // Touched by observe() only (the sampler's thread): the previous round, which begins the
  // interval each VM's vGPU use is recorded for.
  std::optional<TimeUs> previous_round_us_;

  // Touched by record() only (one thread at a time).
  std::map<PendingKey, Pending> pending_;
  CsvIntervals csv_;
  std::vector<CsvRow> csv_unwritten_;
  std::optional<TimeUs> last_checkpoint_us_;
  std::optional<TimeUs> last_maintenance_us_;
  bool maintenance_due_ = true;
  std::map<std::string, std::optional<std::string>> reported_;  // topic -> error logged
  AccountedExits accounted_;

  mutable std::mutex mutex_;  // what observe(), status() and record() share
  std::optional<TimeUs> first_round_us_;
  std::optional<TimeUs> recorded_until_us_;
  std::optional<TimeUs> last_write_us_;
  std::optional<std::string> csv_error_;
  std::optional<std::string> open_error_;  // why the database could not be opened, until it is
  std::shared_ptr<const UsageTotals> totals_;

  std::mutex wake_mutex_;
  std::condition_variable_any wake_;
  std::jthread thread_;  // declared last: joined before the members it uses go away
};

}  // namespace gpumeter::recorder
