// SPDX-License-Identifier: MIT
#include "core/packed_gpu_records.h"

namespace gpumeter {

ProcessGpuRecord PackedGpuRecords::figures(std::size_t i) const {
  const PackedGpuRecord& packed = records_[i];
  ProcessGpuRecord record{.reported = packed.reported, .peak_sm = packed.peak_sm};
  record.percent[static_cast<std::size_t>(Engine::sm)] = packed.sm;
  record.percent[static_cast<std::size_t>(Engine::memory)] = packed.memory;
  if (media_.empty()) return record;  // the common case: no search
  const std::size_t m = media_.lower_bound(packed.key);
  if (m < media_.size() && media_[m].key == packed.key) {
    for (std::size_t e = 0; e < kMediaEngineCount; ++e) {
      record.percent[kFirstMediaEngine + e] = media_[m].percent[e];
    }
  }
  return record;
}

void PackedGpuRecords::push(std::uint32_t key, const ProcessGpuRecord& record) {
  records_.push({.key = key,
                 .sm = record[Engine::sm],
                 .memory = record[Engine::memory],
                 .reported = record.reported,
                 .peak_sm = record.peak_sm});
  if (uses_media(record)) {
    PackedMediaRecord media{.key = key};
    for (std::size_t e = 0; e < kMediaEngineCount; ++e) {
      media.percent[e] = record.percent[kFirstMediaEngine + e];
    }
    media_.push(media);
  }
  // A full buffer dropped its oldest record: its media record goes with it.
  media_.drop_before(records_.front().key);
}

void PackedGpuRecords::drop_before(std::uint32_t key) {
  records_.drop_before(key);
  media_.drop_before(key);
}

void PackedGpuRecords::clear() {
  records_ = Records(records_.capacity());
  media_ = MediaRecords(media_.capacity());
}

void PackedGpuRecords::lower_keys(std::uint32_t delta) {
  records_.update_keys([delta](PackedGpuRecord& r) { r.key -= delta; });
  media_.update_keys([delta](PackedMediaRecord& r) { r.key -= delta; });
}

}  // namespace gpumeter
