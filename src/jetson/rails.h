// SPDX-License-Identifier: MIT
// The board's power monitors (TI INA3221, three channels each): per rail its voltage, current
// and power. Two drivers, found by the I2C device's name:
//  - L4T 32 ("ina3221x", iio): iio:deviceN/rail_name_K, in_voltageK_input (mV),
//    in_currentK_input (mA), in_powerK_input (mW), K from 0;
//  - L4T 34 and later ("ina3221", hwmon): hwmon/hwmonN/inK_label, inK_input (mV),
//    currK_input (mA), K from 1 to 3, power = voltage x current; channels labelled "NC" are
//    not connected, and the sum channel is not a rail.
#pragma once

#include <optional>
#include <vector>

#include "core/board_sensors.h"
#include "jetson/sysfs.h"

namespace gpumeter::jetson {

std::vector<PowerRail> read_rails(const Sysfs& sysfs);

// The rail that feeds the whole module ("VDD_IN", Nano's "POM_5V_IN"); none on AGX Xavier and
// AGX Orin, whose rails overlap (a sum would count some power twice).
std::optional<PowerRail> input_rail(const std::vector<PowerRail>& rails);

}  // namespace gpumeter::jetson
