// `gpumeter list --json`: the snapshot in a stable, versioned shape. Numbers are numbers,
// units are in the key names, absent values are null with their reason under "unavailable".
// The shape is specified in schemas/list.schema.json and documented in docs/json.md; a
// change that breaks a reader bumps kListSchemaVersion.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/model.h"

namespace gpumeter::cli {

// Keys keep the order they are written in, so documents read top-down like the docs.
using Json = nlohmann::ordered_json;

inline constexpr int kListSchemaVersion = 1;

Json list_json(const Snapshot& snapshot);

// A document as text: indented for a person, or on one line (one document per line, as
// `--watch --json` streams them). Invalid UTF-8 in command lines is replaced, never thrown.
std::string dump_json(const Json& document, bool one_line);

}  // namespace gpumeter::cli
