// SPDX-License-Identifier: MIT
#include "recorder/recorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <utility>

#include "core/wall_clock.h"
#include "recorder/csv_file.h"
#include "recorder/task_records.h"
#include "recorder/windows.h"
#include "store/records.h"
#include "store/usage_totals.h"

namespace gpumeter::recorder {
namespace {

// How long a process that left its GPU is watched for its exit, to mark its ledger row final.
constexpr TimeUs kPendingFinalUs = 24LL * 3600 * 1'000'000;
// Identities are kept this long past a process's last snapshot, beyond a record interval.
constexpr TimeUs kIdentityMarginUs = 600'000'000;
// Slack after a window's end before recording it: a sampler round must have passed the end
// plus the driver's sample period.
constexpr TimeUs kSettleMarginUs = 200'000;

bool exited(const Sampler& sampler, const ProcessKey& key) {
  const std::optional<ProcessKey> now = sampler.key_for(key.pid);
  return !now || *now != key;
}

}  // namespace

Recorder::Recorder(store::Store* store, RecorderConfig config, Log log)
    : store_(store),
      config_(std::move(config)),
      log_(std::move(log)),
      csv_(config_.csv_interval_us) {
  if (store_ != nullptr) {
    if (!config_.database) config_.database = store_->path();
    writer_ = std::make_unique<store::Writer>(*store_);
    refresh_totals(wall_clock_us());
  } else if (config_.open_database) {
    writer_ = std::make_unique<store::Writer>(store::WriterConfig{});
  }
}

Recorder::~Recorder() {
  thread_ = {};
}

void Recorder::observe(const Snapshot& snapshot) {
  identities_.note(snapshot);
  if (writer_) accounted_.note(snapshot);
  {
    const std::lock_guard lock(mutex_);
    if (!first_round_us_) first_round_us_ = snapshot.time_us;
  }
  if (!writer_) return;
  for (const Device& device : snapshot.gpus.devices) {
    // A GPU without a uuid cannot be told from another across restarts: it is not recorded.
    if (auto record = store::device_record(device, snapshot.time_us)) {
      [[maybe_unused]] const auto added = writer_->add(std::move(*record));
    }
    if (auto sample = store::device_sample_record(device, snapshot.time_us)) {
      [[maybe_unused]] const auto added = writer_->add(std::move(*sample));
    }
    for (auto& mig : store::mig_memory_records(device, snapshot.time_us)) {
      [[maybe_unused]] const auto added = writer_->add(std::move(mig));
    }
    // Each VM's instance counts from the previous round to this one (none before the first).
    if (previous_round_us_) {
      for (auto& use : store::vgpu_use_records(device, *previous_round_us_, snapshot.time_us)) {
        [[maybe_unused]] const auto added = writer_->add(std::move(use));
      }
    }
  }
  previous_round_us_ = snapshot.time_us;
}

void Recorder::settled(const task::Task& task) {
  if (!writer_) return;
  // A refused record is counted in the writer's state (rejected_records).
  [[maybe_unused]] const auto added = writer_->add(task_record(task));
}

std::optional<TimeUs> Recorder::complete_until(const Sampler& sampler) {
  const auto last = sampler.stats().last_round_us;
  if (!last) return std::nullopt;
  return *last - (sampler.complete_after(*last) - *last);
}

void Recorder::record(const Sampler& sampler, TimeUs until_us, TimeUs now_us) {
  record_until(sampler, until_us);
  if (const auto until = recorded_until()) {
    queue_accounted(accounted_.take_until(*until));
    identities_.forget_before(*until - config_.record_interval_us - kIdentityMarginUs);
    append_csv(csv_.take_until(*until));
  }
  write(now_us, false);
}

std::optional<TimeUs> Recorder::recorded_until() const {
  const std::lock_guard lock(mutex_);
  return recorded_until_us_;
}

void Recorder::record_until(const Sampler& sampler, TimeUs until_us) {
  std::optional<TimeUs> from;
  {
    const std::lock_guard lock(mutex_);
    from = recorded_until_us_ ? recorded_until_us_ : first_round_us_;
  }
  if (!from || until_us <= *from) return;
  record_windows(sampler, *from, until_us);
  finish_pending(sampler, until_us);
  if (writer_) writer_->set_recorded_until(until_us);
  const std::lock_guard lock(mutex_);
  recorded_until_us_ = until_us;
}

void Recorder::record_windows(const Sampler& sampler, TimeUs from, TimeUs until) {
  const std::vector<Window> windows =
      recorder::record_windows(from, until, config_.record_interval_us);
  std::vector<std::vector<ProcessFigures>> figures;
  figures.reserve(windows.size());
  // One look at the series for all windows; identities, exits and the queue come after, so
  // that rounds wait only for the arithmetic.
  sampler.inspect([&](const Series& series) {
    for (const Window& window : windows) figures.push_back(process_figures(series, window));
  });
  for (std::size_t i = 0; i < windows.size(); ++i) {
    for (const ProcessFigures& process : figures[i]) queue_interval(sampler, process, windows[i]);
  }
}

void Recorder::queue_interval(const Sampler& sampler, const ProcessFigures& figures,
                              Window window) {
  auto identity = identities_.identity(figures.key, figures.device);
  if (!identity) return;  // its GPU has no uuid
  store::ProcessInterval interval{.process = *identity,
                                  .begin_us = figures.span.begin_us,
                                  .end_us = figures.span.end_us,
                                  .held_seconds = figures.held_seconds,
                                  .sm_busy_seconds = figures.sm_busy_seconds,
                                  .peak_memory_bytes = figures.peak_memory_bytes,
                                  .energy_joules = figures.energy_joules,
                                  .sm_unknown = figures.sm_unknown};
  const PendingKey key{figures.device, figures.key};
  if (figures.left && exited(sampler, figures.key)) {
    interval.final = true;
    pending_.erase(key);
  } else if (figures.left) {
    pending_.insert_or_assign(key, Pending{*identity, figures.span.end_us});
  } else {
    pending_.erase(key);
  }
  csv_.add({.begin_us = window.begin_us,
            .user = csv_user(identity->user, identity->uid),
            .pid = identity->pid,
            .start_time_us = identity->start_time_us,
            .gpu = identity->gpu_index,
            .held_seconds = interval.held_seconds,
            .sm_busy_seconds = interval.sm_busy_seconds,
            .sm_unknown_seconds = interval.sm_unknown ? interval.held_seconds : 0.0});
  if (writer_) [[maybe_unused]]
    const auto added = writer_->add(std::move(interval));
}

// Processes that left their GPU earlier and have exited since: an empty final interval at the
// time they left completes their ledger rows.
void Recorder::finish_pending(const Sampler& sampler, TimeUs until) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    const auto& [key, pending] = *it;
    const bool gone = exited(sampler, key.second);
    if (gone && writer_) {
      [[maybe_unused]] const auto added =
          writer_->add(store::ProcessInterval{.process = pending.identity,
                                              .begin_us = pending.left_us,
                                              .end_us = pending.left_us,
                                              .final = true});
    }
    it = gone || pending.left_us < until - kPendingFinalUs ? pending_.erase(it) : std::next(it);
  }
}

void Recorder::queue_accounted(std::vector<store::AccountedProcess> records) {
  if (!writer_) return;
  for (store::AccountedProcess& record : records) {
    [[maybe_unused]] const auto added = writer_->add(std::move(record));
  }
}

void Recorder::write(TimeUs now_us, bool final) {
  if (!writer_) return;
  if (store_ == nullptr && !open_database()) return;
  flush_store(now_us);
  if (final) return;
  keep_up(now_us);
}

std::string Recorder::database_name() const {
  return config_.database ? config_.database->string() : std::string("the database");
}

void Recorder::could_not_open(const Error& error) {
  {
    const std::lock_guard lock(mutex_);
    open_error_ = error.message;
  }
  note_state("database",
             fmt::format("{}; sampling, the live figures and tasks go on, {} records wait in "
                         "memory and each record interval tries again",
                         error.message, writer_ ? writer_->state().queued_rows : 0),
             "");
}

bool Recorder::open_database() {
  auto opened = config_.open_database();
  if (!opened) {
    could_not_open(opened.error());
    return false;
  }
  opened_late_.emplace(std::move(*opened));
  store_ = &*opened_late_;
  writer_->attach(*store_);
  {
    const std::lock_guard lock(mutex_);
    open_error_.reset();
  }
  refresh_totals(wall_clock_us());
  return true;
}

// Read after each write that succeeded, in the same thread, so that the counters move once a
// record interval and a scrape never waits on the database.
void Recorder::refresh_totals(TimeUs now_us) {
  auto totals = store::read_usage_totals(*store_, now_us, config_.totals_bounds);
  note_state("usage totals",
             totals ? std::nullopt
                    : std::optional<std::string>(fmt::format(
                          "cannot read the usage totals: {}; /metrics keeps the last ones read",
                          totals.error().message)),
             "reading the usage totals again");
  if (!totals) return;
  auto shared = std::make_shared<const UsageTotals>(std::move(*totals));
  const std::lock_guard lock(mutex_);
  totals_ = std::move(shared);
}

std::shared_ptr<const UsageTotals> Recorder::usage_totals() const {
  const std::lock_guard lock(mutex_);
  return totals_;
}

void Recorder::flush_store(TimeUs now_us) {
  const auto flushed = writer_->flush();
  if (flushed) {
    {
      const std::lock_guard lock(mutex_);
      last_write_us_ = now_us;
    }
    refresh_totals(now_us);
  }
  const store::WriterState state = writer_->state();
  const std::uint64_t dropped =
      state.dropped_device_samples + state.dropped_process_intervals + state.dropped_tasks;
  note_state(
      "database",
      flushed ? std::nullopt
              : std::optional<std::string>(
                    fmt::format("cannot write: {}; sampling goes on, {} records wait in memory and "
                                "each record interval tries again",
                                flushed.error().message, state.queued_rows)),
      fmt::format("writing {} again ({} records lost while it failed)", database_name(), dropped));
}

// A passive checkpoint every few minutes bounds what a power loss can take back; downsampling
// and pruning run hourly, a few transactions per record interval until done.
void Recorder::keep_up(TimeUs now_us) {
  if (!last_checkpoint_us_ || now_us - *last_checkpoint_us_ >= config_.checkpoint_interval_us) {
    last_checkpoint_us_ = now_us;
    const auto done = store_->checkpoint();
    note_state("checkpoint", done ? std::nullopt : std::optional(done.error().message),
               "checkpoints work again");
  }
  if (last_maintenance_us_ && now_us - *last_maintenance_us_ >= config_.maintenance_interval_us)
    maintenance_due_ = true;
  if (!maintenance_due_) return;
  const auto done = store::maintain(*store_, now_us, config_.retention,
                                    {.max_batches = config_.maintenance_batches});
  note_state("maintenance",
             done ? std::nullopt
                  : std::optional(
                        fmt::format("downsampling and pruning failed: {}", done.error().message)),
             "downsampling and pruning work again");
  if (done && done->complete) {
    maintenance_due_ = false;
    last_maintenance_us_ = now_us;
  }
}

void Recorder::append_csv(std::vector<CsvRow> rows) {
  if (!config_.csv_directory) return;
  if (!csv_unwritten_.empty()) {
    rows.insert(rows.begin(), csv_unwritten_.begin(), csv_unwritten_.end());
    csv_unwritten_.clear();
  }
  if (rows.empty()) return;
  CsvAppend appended = append_daily_csv(*config_.csv_directory, rows, config_.csv_file_mode);
  if (appended.partial_lines_removed > 0) {
    log_(fmt::format("CSV: removed a partial last line from {} file(s) under {} before appending",
                     appended.partial_lines_removed, config_.csv_directory->string()));
  }
  csv_unwritten_ = std::move(appended.unwritten);
  if (csv_unwritten_.size() > config_.max_pending_csv_rows) {
    csv_unwritten_.erase(
        csv_unwritten_.begin(),
        csv_unwritten_.end() - static_cast<std::ptrdiff_t>(config_.max_pending_csv_rows));
  }
  std::optional<std::string> error;
  if (appended.error)
    error =
        fmt::format("CSV: {}; the rows wait for the next record interval", appended.error->message);
  {
    const std::lock_guard lock(mutex_);
    csv_error_ = appended.error ? std::optional(appended.error->message) : std::nullopt;
  }
  note_state("csv", error,
             fmt::format("CSV: writing to {} again", config_.csv_directory->string()));
}

// Logs a topic's error when it starts (or changes), and its recovery once: not every failed
// write.
void Recorder::note_state(const std::string& topic, const std::optional<std::string>& error,
                          const std::string& recovered) {
  std::optional<std::string>& reported = reported_[topic];
  if (error == reported) return;
  if (error) {
    if (!reported) log_(*error);
  } else {
    log_(recovered);
  }
  reported = error;
}

void Recorder::start(const Sampler& sampler) {
  if (thread_.joinable()) return;
  thread_ = std::jthread([this, &sampler](const std::stop_token& stop) { run(sampler, stop); });
}

void Recorder::run(const Sampler& sampler, const std::stop_token& stop) {
  const TimeUs settle = config_.sampler_interval_us + kSettleMarginUs;
  TimeUs boundary = next_multiple(wall_clock_us(), config_.record_interval_us);
  while (!stop.stop_requested()) {
    const TimeUs lag = sampler.complete_after(boundary) - boundary;
    const TimeUs wait_us = boundary + lag + settle - wall_clock_us();
    if (wait_us > 0) {
      std::unique_lock lock(wake_mutex_);
      wake_.wait_for(lock, stop, std::chrono::microseconds(wait_us), [] { return false; });
    }
    if (stop.stop_requested()) return;
    if (const std::optional<TimeUs> complete = complete_until(sampler))
      record(sampler, std::min(boundary, *complete), wall_clock_us());
    boundary = next_multiple(std::max(boundary, wall_clock_us() - settle - lag),
                             config_.record_interval_us);
  }
}

void Recorder::finish(const Sampler& sampler) {
  thread_ = {};
  if (const std::optional<TimeUs> complete = complete_until(sampler))
    record_until(sampler, *complete);
  queue_accounted(accounted_.take_all());
  append_csv(csv_.take_all());
  write(wall_clock_us(), true);
  if (writer_ && writer_->state().queued_rows > 0) {
    log_(fmt::format("{} records could not be written to {} and are lost",
                     writer_->state().queued_rows, database_name()));
  }
}

task::HistoryStatus Recorder::status() const {
  task::HistoryStatus status;
  const std::lock_guard lock(mutex_);
  if (writer_) {
    const store::WriterState state = writer_->state();
    status.database = database_name();
    status.failing = state.consecutive_failures > 0 || open_error_.has_value();
    status.last_error = open_error_ ? open_error_ : state.last_error;
    status.queued_rows = state.queued_rows;
    status.written_rows = state.written_rows;
    status.dropped_rows =
        state.dropped_device_samples + state.dropped_process_intervals + state.dropped_tasks;
  }
  if (config_.csv_directory) status.csv_directory = config_.csv_directory->string();
  status.recorded_until_us = recorded_until_us_;
  status.last_write_time_us = last_write_us_;
  status.csv_error = csv_error_;
  return status;
}

}  // namespace gpumeter::recorder
