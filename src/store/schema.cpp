// SPDX-License-Identifier: MIT
#include "store/schema.h"

#include <fmt/format.h>

#include <array>

namespace gpumeter::store {
namespace {

// Version 1: devices and their samples in three tiers, the process ledger and its per-minute
// and per-hour detail.
constexpr std::string_view kVersion1 = R"sql(
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE hosts (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);

CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  host_id INTEGER NOT NULL REFERENCES hosts (id),
  uuid TEXT NOT NULL,
  device_index INTEGER NOT NULL,
  name TEXT,
  serial TEXT,
  pci_bus_id TEXT,
  memory_total_bytes INTEGER,
  power_limit_watts REAL,
  first_seen_us INTEGER NOT NULL,
  last_seen_us INTEGER NOT NULL,
  UNIQUE (host_id, uuid)
);

CREATE TABLE device_samples (
  time_us INTEGER NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  utilization_gpu_percent REAL,
  utilization_memory_percent REAL,
  memory_used_bytes REAL,
  power_draw_watts REAL,
  temperature_celsius REAL,
  energy_joules REAL,
  PRIMARY KEY (time_us, device_id)
) WITHOUT ROWID;

CREATE TABLE device_minutes (
  bucket_us INTEGER NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  samples INTEGER NOT NULL,
  utilization_gpu_percent_min REAL, utilization_gpu_percent_avg REAL,
  utilization_gpu_percent_max REAL,
  utilization_memory_percent_min REAL, utilization_memory_percent_avg REAL,
  utilization_memory_percent_max REAL,
  memory_used_bytes_min REAL, memory_used_bytes_avg REAL, memory_used_bytes_max REAL,
  power_draw_watts_min REAL, power_draw_watts_avg REAL, power_draw_watts_max REAL,
  temperature_celsius_min REAL, temperature_celsius_avg REAL, temperature_celsius_max REAL,
  energy_joules REAL,
  PRIMARY KEY (bucket_us, device_id)
) WITHOUT ROWID;

CREATE TABLE device_hours (
  bucket_us INTEGER NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  samples INTEGER NOT NULL,
  utilization_gpu_percent_min REAL, utilization_gpu_percent_avg REAL,
  utilization_gpu_percent_max REAL,
  utilization_memory_percent_min REAL, utilization_memory_percent_avg REAL,
  utilization_memory_percent_max REAL,
  memory_used_bytes_min REAL, memory_used_bytes_avg REAL, memory_used_bytes_max REAL,
  power_draw_watts_min REAL, power_draw_watts_avg REAL, power_draw_watts_max REAL,
  temperature_celsius_min REAL, temperature_celsius_avg REAL, temperature_celsius_max REAL,
  energy_joules REAL,
  PRIMARY KEY (bucket_us, device_id)
) WITHOUT ROWID;

CREATE TABLE ledger (
  id INTEGER PRIMARY KEY,
  host_id INTEGER NOT NULL REFERENCES hosts (id),
  pid INTEGER NOT NULL,
  start_time_us INTEGER NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  gpu_index INTEGER NOT NULL,
  uid INTEGER,
  user TEXT,
  command TEXT,
  container_runtime TEXT,
  container_id TEXT,
  first_seen_us INTEGER NOT NULL,
  last_seen_us INTEGER NOT NULL,
  gpu_seconds REAL NOT NULL DEFAULT 0,
  sm_busy_seconds REAL NOT NULL DEFAULT 0,
  peak_memory_bytes INTEGER NOT NULL DEFAULT 0,
  energy_joules REAL NOT NULL DEFAULT 0,
  final INTEGER NOT NULL DEFAULT 0,
  UNIQUE (host_id, pid, start_time_us, device_id)
);
CREATE INDEX ledger_by_last_seen ON ledger (last_seen_us);
CREATE INDEX ledger_by_user ON ledger (user, last_seen_us);

CREATE TABLE process_minutes (
  bucket_us INTEGER NOT NULL,
  process_id INTEGER NOT NULL REFERENCES ledger (id),
  held_seconds REAL NOT NULL,
  sm_busy_seconds REAL NOT NULL,
  peak_memory_bytes INTEGER NOT NULL,
  energy_joules REAL NOT NULL,
  PRIMARY KEY (bucket_us, process_id)
) WITHOUT ROWID;

CREATE TABLE process_hours (
  bucket_us INTEGER NOT NULL,
  process_id INTEGER NOT NULL REFERENCES ledger (id),
  held_seconds REAL NOT NULL,
  sm_busy_seconds REAL NOT NULL,
  peak_memory_bytes INTEGER NOT NULL,
  energy_joules REAL NOT NULL,
  PRIMARY KEY (bucket_us, process_id)
) WITHOUT ROWID;

CREATE VIEW ledger_view AS
SELECT ledger.id, hosts.name AS host, ledger.pid, ledger.start_time_us, devices.uuid AS gpu_uuid,
       ledger.gpu_index, ledger.uid, ledger.user, ledger.command, ledger.container_runtime,
       ledger.container_id, ledger.first_seen_us, ledger.last_seen_us, ledger.gpu_seconds,
       ledger.sm_busy_seconds,
       CASE WHEN ledger.gpu_seconds > 0
            THEN 100.0 * ledger.sm_busy_seconds / ledger.gpu_seconds END AS sm_percent_while_held,
       ledger.peak_memory_bytes, ledger.energy_joules, ledger.final
FROM ledger JOIN hosts ON hosts.id = ledger.host_id JOIN devices ON devices.id = ledger.device_id;
)sql";

// Version 2: results of tasks that workers marked over the task socket.
constexpr std::string_view kVersion2 = R"sql(
CREATE TABLE tasks (
  id INTEGER PRIMARY KEY,
  host_id INTEGER NOT NULL REFERENCES hosts (id),
  task_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  labels TEXT NOT NULL DEFAULT '{}',
  pid INTEGER NOT NULL,
  process_start_time_us INTEGER NOT NULL,
  uid INTEGER,
  user TEXT,
  begin_us INTEGER NOT NULL,
  end_us INTEGER NOT NULL,
  abandoned INTEGER NOT NULL DEFAULT 0,
  usage_error TEXT,
  cpu_user_seconds REAL,
  cpu_system_seconds REAL,
  peak_rss_bytes INTEGER,
  host_complete INTEGER NOT NULL DEFAULT 0,
  gpus TEXT NOT NULL DEFAULT '[]',
  UNIQUE (host_id, pid, process_start_time_us, task_id, begin_us)
);
CREATE INDEX tasks_by_end ON tasks (end_us);
CREATE INDEX tasks_by_user ON tasks (user, end_us);
)sql";

// Version 3: figures from the driver's accounting mode in the ledger (store/accounted.h):
// where a row's figures come from, and the driver's lifetime figures of the process.
constexpr std::string_view kVersion3 = R"sql(
ALTER TABLE ledger ADD COLUMN figures_source TEXT NOT NULL DEFAULT 'sampler';
ALTER TABLE ledger ADD COLUMN accounting_gpu_percent REAL;
ALTER TABLE ledger ADD COLUMN accounting_memory_percent REAL;
ALTER TABLE ledger ADD COLUMN accounting_max_memory_bytes INTEGER;
ALTER TABLE ledger ADD COLUMN accounting_time_ms INTEGER;
)sql";

// Version 4: per-minute use of each VM's vGPU instance on a vGPU host (docs/vgpu.md).
constexpr std::string_view kVersion4 = R"sql(
CREATE TABLE vgpu_minutes (
  bucket_us INTEGER NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  vm_id TEXT NOT NULL,
  vgpu_uuid TEXT,
  vgpu_type TEXT,
  seconds REAL NOT NULL,
  sm_busy_seconds REAL NOT NULL,
  fb_used_bytes_max INTEGER,
  PRIMARY KEY (bucket_us, device_id, vm_id)
) WITHOUT ROWID;
)sql";

// Version 5: SM use the driver cannot report (a GPU in MIG mode keeps no per-process
// utilisation) is recorded as unknown, not as 0 (docs/mig.md, "History"). sm_unknown_seconds is
// the held time whose SM busy seconds, and the energy share derived from them, are unknown;
// sm_busy_seconds and energy_joules then cover the rest of the held time only. The ledger keeps
// the reason (Unavailable's name, "mig"). ledger_view shows the unknown parts, a NULL
// sm_busy_seconds and energy_joules where nothing is known, and the SM percent over the known
// part. Also the memory of each MIG device per minute and per hour (store/mig_memory.h).
constexpr std::string_view kVersion5 = R"sql(
ALTER TABLE ledger ADD COLUMN sm_unknown_seconds REAL NOT NULL DEFAULT 0;
ALTER TABLE ledger ADD COLUMN sm_unknown_reason TEXT;
ALTER TABLE process_minutes ADD COLUMN sm_unknown_seconds REAL NOT NULL DEFAULT 0;
ALTER TABLE process_hours ADD COLUMN sm_unknown_seconds REAL NOT NULL DEFAULT 0;

DROP VIEW ledger_view;
CREATE VIEW ledger_view AS
SELECT ledger.id, hosts.name AS host, ledger.pid, ledger.start_time_us, devices.uuid AS gpu_uuid,
       ledger.gpu_index, ledger.uid, ledger.user, ledger.command, ledger.container_runtime,
       ledger.container_id, ledger.first_seen_us, ledger.last_seen_us, ledger.gpu_seconds,
       CASE WHEN ledger.sm_unknown_seconds > 0
                 AND ledger.gpu_seconds - ledger.sm_unknown_seconds <= 0.000001
            THEN NULL ELSE ledger.sm_busy_seconds END AS sm_busy_seconds,
       CASE WHEN ledger.gpu_seconds - ledger.sm_unknown_seconds > 0.000001
            THEN 100.0 * ledger.sm_busy_seconds / (ledger.gpu_seconds - ledger.sm_unknown_seconds)
            END AS sm_percent_while_held,
       ledger.peak_memory_bytes,
       CASE WHEN ledger.sm_unknown_seconds > 0
                 AND ledger.gpu_seconds - ledger.sm_unknown_seconds <= 0.000001
            THEN NULL ELSE ledger.energy_joules END AS energy_joules,
       ledger.final, ledger.sm_unknown_seconds, ledger.sm_unknown_reason
FROM ledger JOIN hosts ON hosts.id = ledger.host_id JOIN devices ON devices.id = ledger.device_id;

CREATE TABLE mig_memory_minutes (
  bucket_us INTEGER NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  mig_uuid TEXT NOT NULL,
  gpu_instance_id INTEGER NOT NULL,
  compute_instance_id INTEGER NOT NULL,
  profile TEXT,
  samples INTEGER NOT NULL,
  memory_used_bytes_min REAL NOT NULL,
  memory_used_bytes_sum REAL NOT NULL,
  memory_used_bytes_max REAL NOT NULL,
  memory_total_bytes REAL,
  PRIMARY KEY (bucket_us, device_id, mig_uuid)
) WITHOUT ROWID;

CREATE TABLE mig_memory_hours (
  bucket_us INTEGER NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  mig_uuid TEXT NOT NULL,
  gpu_instance_id INTEGER NOT NULL,
  compute_instance_id INTEGER NOT NULL,
  profile TEXT,
  samples INTEGER NOT NULL,
  memory_used_bytes_min REAL NOT NULL,
  memory_used_bytes_sum REAL NOT NULL,
  memory_used_bytes_max REAL NOT NULL,
  memory_total_bytes REAL,
  PRIMARY KEY (bucket_us, device_id, mig_uuid)
) WITHOUT ROWID;
)sql";

// Version 6: per-hour vGPU use per VM, rolled up from vgpu_minutes by maintenance (docs/vgpu.md),
// so that the minutes can be pruned like the device tiers.
constexpr std::string_view kVersion6 = R"sql(
CREATE TABLE vgpu_hours (
  bucket_us INTEGER NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  vm_id TEXT NOT NULL,
  vgpu_uuid TEXT,
  vgpu_type TEXT,
  seconds REAL NOT NULL,
  sm_busy_seconds REAL NOT NULL,
  fb_used_bytes_max INTEGER,
  PRIMARY KEY (bucket_us, device_id, vm_id)
) WITHOUT ROWID;
)sql";

// Version 7: the GPM figures of each GPU (Hopper and newer; docs/mig.md) as nullable gauges of
// the device tiers, like the other gauges: the sample's value, and min / avg / max per minute
// and hour. NULL where a GPU has no GPM, never 0.
constexpr std::string_view kVersion7 = R"sql(
ALTER TABLE device_samples ADD COLUMN gpm_sm_activity_percent REAL;
ALTER TABLE device_samples ADD COLUMN gpm_sm_occupancy_percent REAL;
ALTER TABLE device_samples ADD COLUMN gpm_tensor_activity_percent REAL;
ALTER TABLE device_samples ADD COLUMN gpm_dram_bandwidth_percent REAL;
ALTER TABLE device_samples ADD COLUMN gpm_pcie_tx_bytes_per_second REAL;
ALTER TABLE device_samples ADD COLUMN gpm_pcie_rx_bytes_per_second REAL;
ALTER TABLE device_samples ADD COLUMN gpm_nvlink_tx_bytes_per_second REAL;
ALTER TABLE device_samples ADD COLUMN gpm_nvlink_rx_bytes_per_second REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_sm_activity_percent_min REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_sm_activity_percent_avg REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_sm_activity_percent_max REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_sm_occupancy_percent_min REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_sm_occupancy_percent_avg REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_sm_occupancy_percent_max REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_tensor_activity_percent_min REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_tensor_activity_percent_avg REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_tensor_activity_percent_max REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_dram_bandwidth_percent_min REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_dram_bandwidth_percent_avg REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_dram_bandwidth_percent_max REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_pcie_tx_bytes_per_second_min REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_pcie_tx_bytes_per_second_avg REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_pcie_tx_bytes_per_second_max REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_pcie_rx_bytes_per_second_min REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_pcie_rx_bytes_per_second_avg REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_pcie_rx_bytes_per_second_max REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_nvlink_tx_bytes_per_second_min REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_nvlink_tx_bytes_per_second_avg REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_nvlink_tx_bytes_per_second_max REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_nvlink_rx_bytes_per_second_min REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_nvlink_rx_bytes_per_second_avg REAL;
ALTER TABLE device_minutes ADD COLUMN gpm_nvlink_rx_bytes_per_second_max REAL;
ALTER TABLE device_hours ADD COLUMN gpm_sm_activity_percent_min REAL;
ALTER TABLE device_hours ADD COLUMN gpm_sm_activity_percent_avg REAL;
ALTER TABLE device_hours ADD COLUMN gpm_sm_activity_percent_max REAL;
ALTER TABLE device_hours ADD COLUMN gpm_sm_occupancy_percent_min REAL;
ALTER TABLE device_hours ADD COLUMN gpm_sm_occupancy_percent_avg REAL;
ALTER TABLE device_hours ADD COLUMN gpm_sm_occupancy_percent_max REAL;
ALTER TABLE device_hours ADD COLUMN gpm_tensor_activity_percent_min REAL;
ALTER TABLE device_hours ADD COLUMN gpm_tensor_activity_percent_avg REAL;
ALTER TABLE device_hours ADD COLUMN gpm_tensor_activity_percent_max REAL;
ALTER TABLE device_hours ADD COLUMN gpm_dram_bandwidth_percent_min REAL;
ALTER TABLE device_hours ADD COLUMN gpm_dram_bandwidth_percent_avg REAL;
ALTER TABLE device_hours ADD COLUMN gpm_dram_bandwidth_percent_max REAL;
ALTER TABLE device_hours ADD COLUMN gpm_pcie_tx_bytes_per_second_min REAL;
ALTER TABLE device_hours ADD COLUMN gpm_pcie_tx_bytes_per_second_avg REAL;
ALTER TABLE device_hours ADD COLUMN gpm_pcie_tx_bytes_per_second_max REAL;
ALTER TABLE device_hours ADD COLUMN gpm_pcie_rx_bytes_per_second_min REAL;
ALTER TABLE device_hours ADD COLUMN gpm_pcie_rx_bytes_per_second_avg REAL;
ALTER TABLE device_hours ADD COLUMN gpm_pcie_rx_bytes_per_second_max REAL;
ALTER TABLE device_hours ADD COLUMN gpm_nvlink_tx_bytes_per_second_min REAL;
ALTER TABLE device_hours ADD COLUMN gpm_nvlink_tx_bytes_per_second_avg REAL;
ALTER TABLE device_hours ADD COLUMN gpm_nvlink_tx_bytes_per_second_max REAL;
ALTER TABLE device_hours ADD COLUMN gpm_nvlink_rx_bytes_per_second_min REAL;
ALTER TABLE device_hours ADD COLUMN gpm_nvlink_rx_bytes_per_second_avg REAL;
ALTER TABLE device_hours ADD COLUMN gpm_nvlink_rx_bytes_per_second_max REAL;
)sql";

// Version 8: ledger_view with the accounting columns of version 3 as well as version 5's unknown
// SM use (a view holds no data, so it is dropped and made again).
constexpr std::string_view kVersion8 = R"sql(
DROP VIEW IF EXISTS ledger_view;
CREATE VIEW ledger_view AS
SELECT ledger.id, hosts.name AS host, ledger.pid, ledger.start_time_us, devices.uuid AS gpu_uuid,
       ledger.gpu_index, ledger.uid, ledger.user, ledger.command, ledger.container_runtime,
       ledger.container_id, ledger.first_seen_us, ledger.last_seen_us, ledger.gpu_seconds,
       CASE WHEN ledger.sm_unknown_seconds > 0
                 AND ledger.gpu_seconds - ledger.sm_unknown_seconds <= 0.000001
            THEN NULL ELSE ledger.sm_busy_seconds END AS sm_busy_seconds,
       CASE WHEN ledger.gpu_seconds - ledger.sm_unknown_seconds > 0.000001
            THEN 100.0 * ledger.sm_busy_seconds / (ledger.gpu_seconds - ledger.sm_unknown_seconds)
            END AS sm_percent_while_held,
       ledger.peak_memory_bytes,
       CASE WHEN ledger.sm_unknown_seconds > 0
                 AND ledger.gpu_seconds - ledger.sm_unknown_seconds <= 0.000001
            THEN NULL ELSE ledger.energy_joules END AS energy_joules,
       ledger.final, ledger.sm_unknown_seconds, ledger.sm_unknown_reason, ledger.figures_source,
       ledger.accounting_gpu_percent, ledger.accounting_memory_percent,
       ledger.accounting_max_memory_bytes, ledger.accounting_time_ms
FROM ledger JOIN hosts ON hosts.id = ledger.host_id JOIN devices ON devices.id = ledger.device_id;
)sql";

// Version 9: the GPM figures of each MIG device (its GPU instance's; docs/mig.md) beside its
// memory in mig_memory_minutes and mig_memory_hours: per figure, how many of the bucket's
// readings had it (<key>_samples), and their min, sum (for the mean) and max, NULL while none
// had it. A reading without the figure (before Hopper, or the first reading, with no GPM window
// yet) is not counted, so it neither drags the mean down nor shows as 0.
// Each table is made anew and its rows copied over, rather than given 32 ALTER TABLE ... ADD
// COLUMN: SQLite re-reads the whole schema after each ALTER, and on a new database the 64 of
// them took 24 ms against 8 ms for the copy (medians of 10, a loaded 2-core machine; the same
// columns either way). Every new database runs this step, including every short-lived one.
constexpr std::string_view kVersion9 = R"sql(
CREATE TABLE mig_memory_minutes_v9 (
  bucket_us INTEGER NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  mig_uuid TEXT NOT NULL,
  gpu_instance_id INTEGER NOT NULL,
  compute_instance_id INTEGER NOT NULL,
  profile TEXT,
  samples INTEGER NOT NULL,
  memory_used_bytes_min REAL NOT NULL,
  memory_used_bytes_sum REAL NOT NULL,
  memory_used_bytes_max REAL NOT NULL,
  memory_total_bytes REAL,
  gpm_sm_activity_percent_samples INTEGER NOT NULL DEFAULT 0,
  gpm_sm_activity_percent_min REAL,
  gpm_sm_activity_percent_sum REAL,
  gpm_sm_activity_percent_max REAL,
  gpm_sm_occupancy_percent_samples INTEGER NOT NULL DEFAULT 0,
  gpm_sm_occupancy_percent_min REAL,
  gpm_sm_occupancy_percent_sum REAL,
  gpm_sm_occupancy_percent_max REAL,
  gpm_tensor_activity_percent_samples INTEGER NOT NULL DEFAULT 0,
  gpm_tensor_activity_percent_min REAL,
  gpm_tensor_activity_percent_sum REAL,
  gpm_tensor_activity_percent_max REAL,
  gpm_dram_bandwidth_percent_samples INTEGER NOT NULL DEFAULT 0,
  gpm_dram_bandwidth_percent_min REAL,
  gpm_dram_bandwidth_percent_sum REAL,
  gpm_dram_bandwidth_percent_max REAL,
  gpm_pcie_tx_bytes_per_second_samples INTEGER NOT NULL DEFAULT 0,
  gpm_pcie_tx_bytes_per_second_min REAL,
  gpm_pcie_tx_bytes_per_second_sum REAL,
  gpm_pcie_tx_bytes_per_second_max REAL,
  gpm_pcie_rx_bytes_per_second_samples INTEGER NOT NULL DEFAULT 0,
  gpm_pcie_rx_bytes_per_second_min REAL,
  gpm_pcie_rx_bytes_per_second_sum REAL,
  gpm_pcie_rx_bytes_per_second_max REAL,
  gpm_nvlink_tx_bytes_per_second_samples INTEGER NOT NULL DEFAULT 0,
  gpm_nvlink_tx_bytes_per_second_min REAL,
  gpm_nvlink_tx_bytes_per_second_sum REAL,
  gpm_nvlink_tx_bytes_per_second_max REAL,
  gpm_nvlink_rx_bytes_per_second_samples INTEGER NOT NULL DEFAULT 0,
  gpm_nvlink_rx_bytes_per_second_min REAL,
  gpm_nvlink_rx_bytes_per_second_sum REAL,
  gpm_nvlink_rx_bytes_per_second_max REAL,
  PRIMARY KEY (bucket_us, device_id, mig_uuid)
) WITHOUT ROWID;
INSERT INTO mig_memory_minutes_v9 (bucket_us, device_id, mig_uuid, gpu_instance_id,
  compute_instance_id, profile, samples,
  memory_used_bytes_min, memory_used_bytes_sum, memory_used_bytes_max, memory_total_bytes)
SELECT bucket_us, device_id, mig_uuid, gpu_instance_id, compute_instance_id, profile, samples,
  memory_used_bytes_min, memory_used_bytes_sum, memory_used_bytes_max, memory_total_bytes
FROM mig_memory_minutes;
DROP TABLE mig_memory_minutes;
ALTER TABLE mig_memory_minutes_v9 RENAME TO mig_memory_minutes;

CREATE TABLE mig_memory_hours_v9 (
  bucket_us INTEGER NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  mig_uuid TEXT NOT NULL,
  gpu_instance_id INTEGER NOT NULL,
  compute_instance_id INTEGER NOT NULL,
  profile TEXT,
  samples INTEGER NOT NULL,
  memory_used_bytes_min REAL NOT NULL,
  memory_used_bytes_sum REAL NOT NULL,
  memory_used_bytes_max REAL NOT NULL,
  memory_total_bytes REAL,
  gpm_sm_activity_percent_samples INTEGER NOT NULL DEFAULT 0,
  gpm_sm_activity_percent_min REAL,
  gpm_sm_activity_percent_sum REAL,
  gpm_sm_activity_percent_max REAL,
  gpm_sm_occupancy_percent_samples INTEGER NOT NULL DEFAULT 0,
  gpm_sm_occupancy_percent_min REAL,
  gpm_sm_occupancy_percent_sum REAL,
  gpm_sm_occupancy_percent_max REAL,
  gpm_tensor_activity_percent_samples INTEGER NOT NULL DEFAULT 0,
  gpm_tensor_activity_percent_min REAL,
  gpm_tensor_activity_percent_sum REAL,
  gpm_tensor_activity_percent_max REAL,
  gpm_dram_bandwidth_percent_samples INTEGER NOT NULL DEFAULT 0,
  gpm_dram_bandwidth_percent_min REAL,
  gpm_dram_bandwidth_percent_sum REAL,
  gpm_dram_bandwidth_percent_max REAL,
  gpm_pcie_tx_bytes_per_second_samples INTEGER NOT NULL DEFAULT 0,
  gpm_pcie_tx_bytes_per_second_min REAL,
  gpm_pcie_tx_bytes_per_second_sum REAL,
  gpm_pcie_tx_bytes_per_second_max REAL,
  gpm_pcie_rx_bytes_per_second_samples INTEGER NOT NULL DEFAULT 0,
  gpm_pcie_rx_bytes_per_second_min REAL,
  gpm_pcie_rx_bytes_per_second_sum REAL,
  gpm_pcie_rx_bytes_per_second_max REAL,
  gpm_nvlink_tx_bytes_per_second_samples INTEGER NOT NULL DEFAULT 0,
  gpm_nvlink_tx_bytes_per_second_min REAL,
  gpm_nvlink_tx_bytes_per_second_sum REAL,
  gpm_nvlink_tx_bytes_per_second_max REAL,
  gpm_nvlink_rx_bytes_per_second_samples INTEGER NOT NULL DEFAULT 0,
  gpm_nvlink_rx_bytes_per_second_min REAL,
  gpm_nvlink_rx_bytes_per_second_sum REAL,
  gpm_nvlink_rx_bytes_per_second_max REAL,
  PRIMARY KEY (bucket_us, device_id, mig_uuid)
) WITHOUT ROWID;
INSERT INTO mig_memory_hours_v9 (bucket_us, device_id, mig_uuid, gpu_instance_id,
  compute_instance_id, profile, samples,
  memory_used_bytes_min, memory_used_bytes_sum, memory_used_bytes_max, memory_total_bytes)
SELECT bucket_us, device_id, mig_uuid, gpu_instance_id, compute_instance_id, profile, samples,
  memory_used_bytes_min, memory_used_bytes_sum, memory_used_bytes_max, memory_total_bytes
FROM mig_memory_hours;
DROP TABLE mig_memory_hours;
ALTER TABLE mig_memory_hours_v9 RENAME TO mig_memory_hours;
)sql";

// Version 10: running totals of the ledger per user and per container (or Slurm job), the
// counters /metrics exports (docs/metrics.md, "Ledger counters"). Two triggers keep them in the
// same transaction as every ledger write: an insert adds its figures, an update adds what it
// grew by. Nothing ever takes from them, so they stay monotonic when the ledger is pruned; a row
// whose user becomes known later counts its earlier part under the user it had then. An older
// database's ledger seeds them.
constexpr std::string_view kVersion10 = R"sql(
CREATE TABLE usage_totals (
  user TEXT NOT NULL,
  container TEXT NOT NULL,
  gpu_seconds REAL NOT NULL,
  sm_busy_seconds REAL NOT NULL,
  sm_unknown_seconds REAL NOT NULL,
  energy_joules REAL NOT NULL,
  last_seen_us INTEGER NOT NULL,
  PRIMARY KEY (user, container)
) WITHOUT ROWID;
INSERT INTO usage_totals
SELECT COALESCE(user, ''), COALESCE(container_runtime || ':' || container_id, ''),
       SUM(gpu_seconds), SUM(sm_busy_seconds), SUM(sm_unknown_seconds), SUM(energy_joules),
       MAX(last_seen_us)
FROM ledger GROUP BY 1, 2;
CREATE TRIGGER usage_totals_on_insert AFTER INSERT ON ledger BEGIN
  INSERT INTO usage_totals
  VALUES (COALESCE(NEW.user, ''), COALESCE(NEW.container_runtime || ':' || NEW.container_id, ''),
          NEW.gpu_seconds, NEW.sm_busy_seconds, NEW.sm_unknown_seconds, NEW.energy_joules,
          NEW.last_seen_us)
  ON CONFLICT (user, container) DO UPDATE SET
    gpu_seconds = gpu_seconds + excluded.gpu_seconds,
    sm_busy_seconds = sm_busy_seconds + excluded.sm_busy_seconds,
    sm_unknown_seconds = sm_unknown_seconds + excluded.sm_unknown_seconds,
    energy_joules = energy_joules + excluded.energy_joules,
    last_seen_us = MAX(last_seen_us, excluded.last_seen_us);
END;
CREATE TRIGGER usage_totals_on_update
AFTER UPDATE OF gpu_seconds, sm_busy_seconds, sm_unknown_seconds, energy_joules ON ledger BEGIN
  INSERT INTO usage_totals
  VALUES (COALESCE(NEW.user, ''), COALESCE(NEW.container_runtime || ':' || NEW.container_id, ''),
          MAX(NEW.gpu_seconds - OLD.gpu_seconds, 0),
          MAX(NEW.sm_busy_seconds - OLD.sm_busy_seconds, 0),
          MAX(NEW.sm_unknown_seconds - OLD.sm_unknown_seconds, 0),
          MAX(NEW.energy_joules - OLD.energy_joules, 0), NEW.last_seen_us)
  ON CONFLICT (user, container) DO UPDATE SET
    gpu_seconds = gpu_seconds + excluded.gpu_seconds,
    sm_busy_seconds = sm_busy_seconds + excluded.sm_busy_seconds,
    sm_unknown_seconds = sm_unknown_seconds + excluded.sm_unknown_seconds,
    energy_joules = energy_joules + excluded.energy_joules,
    last_seen_us = MAX(last_seen_us, excluded.last_seen_us);
END;
)sql";

constexpr std::array kMigrations{
    Migration{1, "devices, device samples in three tiers, the process ledger with its detail",
              kVersion1},
    Migration{2, "task results", kVersion2},
    Migration{3, "accounting-mode figures in the ledger", kVersion3},
    Migration{4, "vGPU use per VM and minute", kVersion4},
    Migration{5, "unknown SM use (MIG) in the ledger and its detail; MIG devices' memory",
              kVersion5},
    Migration{6, "vGPU use per VM and hour, rolled up from the minutes", kVersion6},
    Migration{7, "GPM figures per GPU in the device tiers", kVersion7},
    Migration{8, "ledger_view with the accounting columns", kVersion8},
    Migration{9, "GPM figures per MIG device in its minutes and hours", kVersion9},
    Migration{10, "running totals of the ledger per user and container", kVersion10},
};

std::expected<void, Error> apply(sqlite::Connection& connection, const Migration& migration) {
  auto transaction = sqlite::Transaction::begin(connection);
  if (!transaction) return std::unexpected(std::move(transaction.error()));
  auto version = connection.scalar("PRAGMA user_version");
  if (!version) return std::unexpected(std::move(version.error()));
  if (*version >= migration.version) return {};  // another process got there first
  if (auto done = connection.exec(migration.sql); !done) {
    return std::unexpected(
        Error{ErrorCode::io,
              fmt::format("schema step {} failed: {}", migration.version, done.error().message)});
  }
  if (auto set = connection.exec(fmt::format("PRAGMA user_version = {}", migration.version)); !set)
    return std::unexpected(std::move(set.error()));
  return transaction->commit();
}

}  // namespace

std::span<const Migration> migrations() noexcept {
  return kMigrations;
}

int latest_schema_version() noexcept {
  return kMigrations.back().version;
}

std::expected<void, Error> migrate(sqlite::Connection& connection) {
  auto version = connection.scalar("PRAGMA user_version");
  if (!version) return std::unexpected(std::move(version.error()));
  for (const Migration& migration : kMigrations) {
    if (migration.version <= *version) continue;
    if (auto applied = apply(connection, migration); !applied) return applied;
  }
  return {};
}

}  // namespace gpumeter::store
