// SPDX-License-Identifier: MIT
#include "view/accounting_json.h"

#include <cstdlib>

#include "view/gpu_status.h"
#include "view/iso_time.h"

namespace gpumeter::view {
namespace {

template <class T>
void put_maybe(Json& obj, Json& unavailable, const std::string& key, const Maybe<T>& value) {
  if (value) {
    obj[key] = *value;
  } else {
    obj[key] = nullptr;
    unavailable[key] = to_string(value.error());
  }
}

Json optional_text(const std::optional<std::string>& text) {
  return text ? Json(*text) : Json();
}

void put_known(Json& out, Json& unavailable, const std::optional<KnownProcess>& known) {
  out["user"] = known ? optional_text(known->user) : Json();
  out["command"] = known ? optional_text(known->command) : Json();
  if (out["user"].is_null()) unavailable["user"] = "no_data";
  if (out["command"].is_null()) unavailable["command"] = "no_data";
}

Json record_json(const Device& device, const AccountingRecord& record,
                 const KnownProcessLookup& lookup) {
  Json out = Json::object();
  Json unavailable = Json::object();
  out["pid"] = record.pid;
  put_known(out, unavailable, lookup ? lookup(device, record) : std::nullopt);
  put_maybe(out, unavailable, "gpu_utilization_percent", record.gpu_util_percent);
  put_maybe(out, unavailable, "memory_utilization_percent", record.memory_util_percent);
  put_maybe(out, unavailable, "max_memory_bytes", record.max_memory_bytes);
  out["time_ms"] = record.time_ms ? Json(*record.time_ms) : Json();
  out["start_time"] = iso8601_utc(record.start_time_us);
  out["start_time_us"] = record.start_time_us;
  out["running"] = record.running;
  out["unavailable"] = std::move(unavailable);
  return out;
}

Json records_json(const Device& device, const std::vector<AccountingRecord>& records,
                  const KnownProcessLookup& lookup) {
  Json out = Json::array();
  for (const AccountingRecord& record : records) out.push_back(record_json(device, record, lookup));
  return out;
}

Json gpu_json(const Device& device, const KnownProcessLookup& lookup) {
  Json gpu = Json::object();
  Json unavailable = Json::object();
  gpu["index"] = device.identity.index;
  put_maybe(gpu, unavailable, "uuid", device.identity.uuid);
  put_maybe(gpu, unavailable, "persistence_mode", device.state.persistence_mode);
  const Maybe<Accounting>& accounting = device.accounting;
  if (!accounting) {
    gpu["enabled"] = nullptr;
    gpu["buffer_size"] = nullptr;
    gpu["records"] = nullptr;
    unavailable["enabled"] = to_string(accounting.error());
  } else {
    gpu["enabled"] = accounting->enabled;
    put_maybe(gpu, unavailable, "buffer_size", accounting->buffer_size);
    if (accounting->records) {
      gpu["records"] = records_json(device, *accounting->records, lookup);
    } else {
      gpu["records"] = nullptr;
      unavailable["records"] = to_string(accounting->records.error());
    }
  }
  gpu["unavailable"] = std::move(unavailable);
  return gpu;
}

}  // namespace

std::optional<KnownProcess> known_from_snapshot(const Snapshot& snapshot,
                                                const AccountingRecord& record) {
  if (!record.running) return std::nullopt;
  const Maybe<HostProcess>& host = host_view(snapshot.processes, record.pid);
  if (!host || !host->start_time_us) return std::nullopt;
  if (std::llabs(*host->start_time_us - record.start_time_us) > kStartTimeToleranceUs)
    return std::nullopt;
  const Maybe<std::string> command = full_command(host);
  return KnownProcess{owner_name(host),
                      command ? std::optional<std::string>(*command) : std::nullopt};
}

Json accounting_json(const Snapshot& snapshot, const KnownProcessLookup& lookup) {
  Json out = Json::object();
  out["schema_version"] = kAccountingSchemaVersion;
  out["host"] = snapshot.hostname;
  out["time"] = iso8601_utc(snapshot.time_us);
  out["time_us"] = snapshot.time_us;
  out["source"] = snapshot.source;
  Json& gpus = out["gpus"] = Json::array();
  for (const Device& device : snapshot.gpus.devices) gpus.push_back(gpu_json(device, lookup));
  return out;
}

void put_accounting_summary(Json& gpu, Json& unavailable, const Maybe<Accounting>& accounting) {
  if (!accounting) {
    gpu["accounting"] = nullptr;
    unavailable["accounting"] = to_string(accounting.error());
    return;
  }
  Json summary = Json::object();
  summary["enabled"] = accounting->enabled;
  summary["buffer_size"] = accounting->buffer_size ? Json(*accounting->buffer_size) : Json(nullptr);
  summary["records"] = accounting->records ? Json(accounting->records->size()) : Json(nullptr);
  gpu["accounting"] = std::move(summary);
}

}  // namespace gpumeter::view
