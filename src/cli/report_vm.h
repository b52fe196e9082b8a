// SPDX-License-Identifier: MIT
// `gpumeter report --by vm`: each VM's vGPU use from the history (docs/vgpu.md), as a table,
// CSV or JSON.
#pragma once

#include <string>
#include <vector>

#include "core/model.h"
#include "store/vgpu_use.h"
#include "view/json.h"

namespace gpumeter::cli {

struct VmReport {
  std::string database;
  TimeUs since_us = 0;
  TimeUs until_us = 0;
  std::vector<store::VmUsageRow> rows;
};

std::string render_vm_table(const VmReport& report, bool color);
std::string render_vm_csv(const VmReport& report);
view::Json vm_report_json(const VmReport& report);

}  // namespace gpumeter::cli
