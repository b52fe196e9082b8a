// SPDX-License-Identifier: MIT
#include "top/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <variant>

#include "view/humanize.h"

namespace gpumeter::top {
namespace {

constexpr std::string_view kNa = view::kNotAvailable;

std::string percent_text(const Maybe<double>& value) {
  return value ? fmt::format("{}%", std::lround(*value)) : std::string(kNa);
}

std::string bytes_text(const Maybe<double>& value) {
  return value ? view::format_bytes(*value) : std::string(kNa);
}

// `text` right- or left-aligned in `width` columns (cut when longer).
std::string cell(std::string_view text, std::size_t width, bool right, bool unicode) {
  std::string out = fit(text, width, unicode);
  const std::size_t pad = width - columns(out);
  return right ? std::string(pad, ' ') + out : out + std::string(pad, ' ');
}

// A bar of `width` cells filled to `percent`: eighths of a cell with Unicode, '#' without.
Line bar(const Maybe<double>& percent, std::size_t width, bool unicode) {
  if (width == 0) return {};
  if (!percent) return {{std::string(width, ' '), Style::dim}};
  static constexpr std::array<std::string_view, 8> kEighths{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  const double share = std::clamp(*percent, 0.0, 100.0) / 100.0;
  const auto eighths =
      static_cast<std::size_t>(std::lround(share * static_cast<double>(width * 8)));
  std::string filled;
  std::size_t used = eighths / 8;
  if (unicode) {
    for (std::size_t i = 0; i < used; ++i) filled += "█";
    if (eighths % 8 != 0 && used < width) {
      filled += kEighths[eighths % 8];
      ++used;
    }
  } else {
    filled = std::string(used, '#');
  }
  std::string empty;
  for (std::size_t i = used; i < width; ++i) empty += unicode ? "░" : ".";
  return {{filled, Style::bar}, {empty, Style::dim}};
}

// The last `width` points of `history` as a sparkline scaled to [0, top].
std::string sparkline(const History& history, std::size_t width, double top, bool unicode) {
  static constexpr std::array<std::string_view, 8> kLevels{"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  static constexpr std::string_view kAscii = "_.-:=+*#";
  std::string out;
  const std::size_t shown = std::min(width, history.size());
  for (std::size_t i = 0; i < width - shown; ++i) out += ' ';
  for (std::size_t i = history.size() - shown; i < history.size(); ++i) {
    if (std::isnan(history[i])) {  // no reading then
      out += ' ';
      continue;
    }
    const double share = top > 0 ? std::clamp(history[i] / top, 0.0, 1.0) : 0.0;
    const auto level = static_cast<std::size_t>(std::lround(share * 7.0));
    if (unicode) {
      out += kLevels[level];
    } else {
      out += kAscii[level];
    }
  }
  return out;
}

Style tone_style(Tone tone) {
  switch (tone) {
    case Tone::free: return Style::free;
    case Tone::busy: return Style::busy;
    case Tone::alert: return Style::alert;
    case Tone::plain: return Style::plain;
  }
  return Style::plain;
}

// ---- the GPU rows ----------------------------------------------------------------------------

// Widths that grow with the terminal: the name, the bars, the SM and temperature sparklines.
struct GpuLayout {
  std::size_t name = 13;
  std::size_t bar = 4;
  std::size_t sm_spark = 0;
  std::size_t temperature_spark = 0;
};

// Columns of a GPU row besides those: label, status, the SM percent, the memory and power
// texts, the temperature, and the spaces between.
constexpr std::size_t kGpuFixed = 6 + 1 + 7 + 1 + 1 + 5 + 1 + 1 + 1 + 15 + 2 + 10 + 1 + 4;

GpuLayout gpu_layout(int width) {
  GpuLayout layout;
  const auto w = static_cast<std::size_t>(std::max(width, 60));
  layout.name = std::clamp<std::size_t>(w / 6, 13, 22);
  const std::size_t spare = w > kGpuFixed + layout.name ? w - kGpuFixed - layout.name : 0;
  layout.bar = std::clamp<std::size_t>(spare / 5, 4, 16);
  const std::size_t rest = spare > 2 * layout.bar ? spare - 2 * layout.bar : 0;
  layout.sm_spark = std::min<std::size_t>(rest * 3 / 5, 40);
  const std::size_t left = rest - layout.sm_spark;
  layout.temperature_spark = left > 4 ? std::min<std::size_t>(left - 1, 30) : 0;
  return layout;
}

Line gpu_header(const GpuLayout& l, bool unicode) {
  std::string text =
      cell("GPU", 6, true, unicode) + " " + cell("STATUS", 7, false, unicode) + " " +
      cell("NAME", l.name, false, unicode) + " " +
      cell("SM", l.bar + 5 + 1 + (l.sm_spark > 0 ? l.sm_spark + 1 : 0), false, unicode) +
      cell("MEMORY", l.bar + 1 + 15, false, unicode) + "  " + cell("POWER", 10, true, unicode) +
      " " + cell("TEMP", 4, true, unicode);
  return {{text, Style::header}};
}

std::string memory_text(const GpuRow& row) {
  if (!row.memory_used_bytes && !row.memory_total_bytes) return std::string(kNa);
  if (!row.memory_total_bytes) return view::format_bytes(*row.memory_used_bytes);
  return view::format_memory(row.memory_used_bytes, row.memory_total_bytes, "/");
}

Maybe<double> memory_percent(const GpuRow& row) {
  if (!row.memory_used_bytes || !row.memory_total_bytes || *row.memory_total_bytes <= 0)
    return std::unexpected(Unavailable::no_data);
  return 100.0 * *row.memory_used_bytes / *row.memory_total_bytes;
}

std::string power_text(const GpuRow& row) {
  if (!row.power_watts) return std::string(kNa);
  if (!row.power_limit_watts) return fmt::format("{}W", std::lround(*row.power_watts));
  return fmt::format("{}/{}W", std::lround(*row.power_watts), std::lround(*row.power_limit_watts));
}

Line gpu_line(const GpuRow& row, const GpuLayout& l, bool unicode) {
  const bool sub = row.kind != RowKind::gpu;
  Line line;
  line.push_back({cell(row.label, 6, !sub, unicode) + " ", Style::plain});
  line.push_back({cell(row.status, 7, false, unicode), tone_style(row.tone)});
  line.push_back({" " + cell(row.name, l.name, false, unicode) + " ", Style::plain});
  if (row.tone == Tone::alert && !row.note.empty() && row.status == "lost") {
    line.push_back({row.note, Style::alert});
    return line;
  }
  for (Span& s : bar(row.sm_percent, l.bar, unicode)) line.push_back(std::move(s));
  line.push_back({cell(percent_text(row.sm_percent), 5, true, unicode) + " ", Style::plain});
  if (l.sm_spark > 0)
    line.push_back({sparkline(row.sm_history, l.sm_spark, 100.0, unicode) + " ", Style::busy});
  for (Span& s : bar(memory_percent(row), l.bar, unicode)) line.push_back(std::move(s));
  line.push_back({" " + cell(memory_text(row), 15, false, unicode) + "  ", Style::plain});
  line.push_back({cell(power_text(row), 10, true, unicode) + " ", Style::plain});
  const std::string temperature =
      row.temperature_celsius ? fmt::format("{}C", std::lround(*row.temperature_celsius)) : "";
  line.push_back({cell(temperature, 4, true, unicode), Style::plain});
  if (l.temperature_spark > 0)
    line.push_back({" " + sparkline(row.temperature_history, l.temperature_spark, 100.0, unicode),
                    Style::dim});
  return line;
}

// ---- the process table -----------------------------------------------------------------------

enum class Col : std::uint8_t {
  gpu,
  pid,
  user,
  sm,
  mem,
  enc,
  dec,
  gpu_mem,
  cpu,
  rss,
  age,
  container,
  command
};

struct Column {
  Col id;
  std::string_view title;
  std::size_t width;
  bool right;
  std::optional<SortKey> sort;
};

// Always shown, then added left to right while the command keeps at least 20 columns.
constexpr std::array<Column, 8> kCoreColumns{{
    {Col::gpu, "GPU", 6, true, SortKey::gpu},
    {Col::pid, "PID", 7, true, SortKey::pid},
    {Col::user, "USER", 9, false, SortKey::user},
    {Col::sm, "SM", 4, true, SortKey::sm},
    {Col::mem, "MEM", 4, true, SortKey::memory},
    {Col::gpu_mem, "GPU MEM", 8, true, SortKey::gpu_memory},
    {Col::cpu, "CPU", 5, true, SortKey::cpu},
    {Col::command, "COMMAND", 0, false, std::nullopt},
}};
constexpr std::array<Column, 5> kOptionalColumns{{
    {Col::enc, "ENC", 4, true, SortKey::encoder},
    {Col::dec, "DEC", 4, true, SortKey::decoder},
    {Col::age, "AGE", 8, true, SortKey::age},
    {Col::rss, "RSS", 8, true, SortKey::rss},
    {Col::container, "CONTAINER", 16, false, std::nullopt},
}};
constexpr std::size_t kMinCommand = 20;

// `containers`: whether any process runs in one (else the column would stay empty).
std::vector<Column> process_columns(int width, bool containers) {
  std::vector<Column> shown(kCoreColumns.begin(), kCoreColumns.end());
  const auto used = [&] {
    std::size_t sum = 0;
    for (const Column& c : shown) sum += c.width + 1;
    return sum;
  };
  for (const Column& extra : kOptionalColumns) {
    if (extra.id == Col::container && !containers) continue;
    if (used() + extra.width + 1 + kMinCommand > static_cast<std::size_t>(width)) break;
    // Before the command, in the order of the table: ENC and DEC after MEM.
    auto at = std::ranges::find_if(shown, [&](const Column& c) {
      if (extra.id == Col::enc || extra.id == Col::dec) return c.id == Col::gpu_mem;
      return c.id == Col::command;
    });
    shown.insert(at, extra);
  }
  const auto total = static_cast<std::size_t>(width);
  shown.back().width = total > used() ? total - used() : 0;
  return shown;
}

Maybe<double> engine(const ProcessRow& p, Maybe<double> RecentEngineUse::* field) {
  if (!p.use) return std::unexpected(p.use.error());
  return (*p.use).*field;
}

std::string process_cell(const ProcessRow& p, Col id) {
  switch (id) {
    case Col::gpu: return p.gpu_label;
    case Col::pid: return fmt::format("{}", p.pid);
    case Col::user: return p.user;
    case Col::sm: return percent_text(engine(p, &RecentEngineUse::sm_percent));
    case Col::mem: return percent_text(engine(p, &RecentEngineUse::memory_percent));
    case Col::enc: return percent_text(engine(p, &RecentEngineUse::encoder_percent));
    case Col::dec: return percent_text(engine(p, &RecentEngineUse::decoder_percent));
    case Col::gpu_mem: return bytes_text(p.gpu_memory_bytes);
    case Col::cpu: return percent_text(p.cpu_percent);
    case Col::rss: return bytes_text(p.rss_bytes);
    case Col::age: return p.age_us ? view::format_age(*p.age_us) : std::string(kNa);
    case Col::container: return p.container;
    case Col::command: return p.command;
  }
  return "";
}

// The value a process sorts by: a number, a text, or nothing (sorted last).
using SortValue = std::variant<std::monostate, double, std::string>;

SortValue sort_value(const ProcessRow& p, SortKey key) {
  const auto number = [](const Maybe<double>& v) -> SortValue {
    return v ? SortValue(*v) : SortValue();
  };
  switch (key) {
    case SortKey::gpu: return static_cast<double>(p.gpu);
    case SortKey::pid: return static_cast<double>(p.pid);
    case SortKey::user: return p.user;
    case SortKey::gpu_memory: return number(p.gpu_memory_bytes);
    case SortKey::sm: return number(engine(p, &RecentEngineUse::sm_percent));
    case SortKey::memory: return number(engine(p, &RecentEngineUse::memory_percent));
    case SortKey::encoder: return number(engine(p, &RecentEngineUse::encoder_percent));
    case SortKey::decoder: return number(engine(p, &RecentEngineUse::decoder_percent));
    case SortKey::cpu: return number(p.cpu_percent);
    case SortKey::rss: return number(p.rss_bytes);
    case SortKey::age: return p.age_us ? SortValue(static_cast<double>(*p.age_us)) : SortValue();
  }
  return {};
}

Line process_header(const std::vector<Column>& columns, const State& state, bool unicode) {
  Line line;
  for (const Column& c : columns) {
    const bool sorted = c.sort && *c.sort == state.sort;
    std::string title(c.title);
    if (sorted) title += state.descending ? (unicode ? "▼" : "v") : (unicode ? "▲" : "^");
    line.push_back(
        {cell(title, c.width, c.right, unicode), sorted ? Style::sorted : Style::header});
    line.push_back({" ", Style::header});
  }
  return line;
}

Style engine_style(const Maybe<double>& value) {
  if (!value) return Style::dim;
  return *value >= 1.0 ? Style::busy : Style::plain;
}

Line process_line(const ProcessRow& p, const std::vector<Column>& columns, bool unicode,
                  std::string_view indent) {
  Line line;
  for (const Column& c : columns) {
    std::string text = process_cell(p, c.id);
    Style style = Style::plain;
    if (c.id == Col::command) text.insert(0, indent);
    if (c.id == Col::sm) style = engine_style(engine(p, &RecentEngineUse::sm_percent));
    if (text == kNa) style = Style::dim;
    line.push_back({cell(text, c.width, c.right, unicode), style});
    line.push_back({" ", Style::plain});
  }
  return line;
}

// A tree's group line: "alice  3 processes  12.0GiB  SM 150%".
Line group_line(std::string_view name, const std::vector<const ProcessRow*>& members, bool unicode,
                std::size_t width) {
  double memory = 0;
  double sm = 0;
  for (const ProcessRow* p : members) {
    memory += p->gpu_memory_bytes.value_or(0.0);
    sm += engine(*p, &RecentEngineUse::sm_percent).value_or(0.0);
  }
  const std::string text = fmt::format(
      "{} {}  {} process{}  {}  SM {}%", unicode ? "▾" : "-", name.empty() ? "(none)" : name,
      members.size(), members.size() == 1 ? "" : "es", view::format_bytes(memory), std::lround(sm));
  return {{fit(text, width, unicode), Style::title}};
}

std::string_view group_of(const ProcessRow& p, Tree tree) {
  return tree == Tree::user ? std::string_view(p.user) : std::string_view(p.container);
}

// A line per process (in a tree, a line per group too). Only the `room` lines the scroll shows
// are drawn in full, the rest left empty: a machine with hundreds of processes costs a screen's
// worth of cells per frame, not hundreds of rows.
std::vector<Line> process_lines(const Frame& frame, const State& state, const RenderOptions& o,
                                const std::vector<Column>& columns, std::size_t room) {
  const std::vector<const ProcessRow*> shown = shown_processes(frame, state);
  std::vector<Line> lines;
  if (state.tree == Tree::none) {
    lines.resize(shown.size());
    const std::size_t first = shown.size() > room ? std::min(state.scroll, shown.size() - room) : 0;
    for (std::size_t i = first; i < shown.size() && i < first + room; ++i)
      lines[i] = process_line(*shown[i], columns, o.unicode, "");
    return lines;
  }
  std::map<std::string_view, std::vector<const ProcessRow*>> groups;  // order kept within each
  std::vector<std::string_view> order;
  for (const ProcessRow* p : shown) {
    auto& members = groups[group_of(*p, state.tree)];
    if (members.empty()) order.push_back(group_of(*p, state.tree));
    members.push_back(p);
  }
  for (const std::string_view name : order) {
    lines.push_back(group_line(name, groups[name], o.unicode, static_cast<std::size_t>(o.width)));
    for (const ProcessRow* p : groups[name])
      lines.push_back(process_line(*p, columns, o.unicode, o.unicode ? "└ " : "` "));
  }
  return lines;
}

// ---- the frame around ------------------------------------------------------------------------

Line title_line(const Frame& frame, const State& state, const RenderOptions& o) {
  std::string left =
      fmt::format("gpumeter top  {}  {}  {}", frame.host, frame.driver,
                  frame.time_us > 0 ? view::local_time(frame.time_us).substr(11) : "");
  std::string right =
      fmt::format("{}{}  user {}{}", sort_name(state.sort),
                  state.descending ? (o.unicode ? "▼" : "v") : (o.unicode ? "▲" : "^"),
                  state.user.value_or("all"), state.gpu ? fmt::format("  GPU {}", *state.gpu) : "");
  Line line{{left, Style::title}};
  if (state.paused) line.push_back({"  PAUSED", Style::alert});
  const std::size_t used = columns(left) + (state.paused ? 8 : 0);
  const auto width = static_cast<std::size_t>(o.width);
  if (used + 2 + columns(right) <= width) {
    line.push_back({std::string(width - used - columns(right), ' ') + right, Style::dim});
  }
  return line;
}

constexpr std::string_view kHints =
    "q quit  h help  Tab pane  < > sort  u user  t tree  g GPU  space pause";

std::vector<Line> help_lines() {
  static constexpr std::array<std::string_view, 15> kHelp{
      "Keys",
      "  q            quit",
      "  < > or ← →   sort by the previous / next column (the sorted one is marked)",
      "  r            reverse the order",
      "  u            show the next user's processes only (after the last: everyone's)",
      "  m            show mine only (again: everyone's)",
      "  t            tree: group the processes by user, by container, or not",
      "  g or 0-9     pick a GPU (again: all)",
      "  Tab          processes, the daemon's tasks (10 min), users' GPU-hours today",
      "  space or p   pause the screen (sampling goes on)",
      "  ↑ ↓ PgUp PgDn Home End   scroll the processes",
      "  h or ?       this help; any key closes it",
      "",
      "SM, MEM, ENC, DEC: each process's use over the last 5 s of the driver's samples.",
      "N/A: the driver gives none (MIG, older boards); CPU and RSS come from /proc."};
  std::vector<Line> lines;
  lines.reserve(kHelp.size());
  for (const std::string_view text : kHelp)
    lines.push_back({{std::string(text), text == "Keys" ? Style::header : Style::plain}});
  return lines;
}

// The Tasks or Users pane: its title, then its lines or the note saying why there are none.
std::vector<Line> pane_lines(const Panes& panes, Pane pane) {
  const bool tasks = pane == Pane::tasks;
  std::vector<Line> lines{{{tasks ? "Tasks of the last 10 minutes (gpumeter tasks)"
                                  : "GPU-hours per user since midnight (gpumeter report --by user)",
                            Style::header}}};
  const std::vector<std::string>& text = tasks ? panes.tasks : panes.users;
  const std::string& note = tasks ? panes.tasks_note : panes.users_note;
  if (text.empty()) lines.push_back({{note.empty() ? "reading..." : note, Style::dim}});
  for (const std::string& line : text) lines.push_back({{line, Style::plain}});
  return lines;
}

std::vector<const GpuRow*> shown_gpus(const Frame& frame, const State& state) {
  std::vector<const GpuRow*> rows;
  for (const GpuRow& row : frame.gpus) {
    if (!state.gpu || row.gpu == *state.gpu) rows.push_back(&row);
  }
  return rows;
}

// Lines cut to the screen's width.
void clip(Line& line, std::size_t width, bool unicode) {
  std::size_t used = 0;
  for (auto it = line.begin(); it != line.end(); ++it) {
    const std::size_t w = columns(it->text);
    if (used + w <= width) {
      used += w;
      continue;
    }
    it->text = fit(it->text, width - used, unicode);
    line.erase(std::next(it), line.end());
    return;
  }
}

}  // namespace

std::vector<const ProcessRow*> shown_processes(const Frame& frame, const State& state) {
  std::vector<const ProcessRow*> shown;
  for (const ProcessRow& p : frame.processes) {
    if (state.gpu && p.gpu != *state.gpu) continue;
    if (state.user && p.user != *state.user) continue;
    shown.push_back(&p);
  }
  std::ranges::stable_sort(shown, [&](const ProcessRow* a, const ProcessRow* b) {
    const SortValue va = sort_value(*a, state.sort);
    const SortValue vb = sort_value(*b, state.sort);
    const bool absent_a = std::holds_alternative<std::monostate>(va);
    const bool absent_b = std::holds_alternative<std::monostate>(vb);
    if (absent_a != absent_b) return absent_b;  // absent last
    if (va != vb) return state.descending ? vb < va : va < vb;
    return std::pair(a->gpu, a->pid) < std::pair(b->gpu, b->pid);
  });
  return shown;
}

Screen render(const Frame& frame, const State& state, const RenderOptions& o) {
  return render(frame, Panes{}, state, o);
}

Screen render(const Frame& frame, const Panes& panes, const State& state, const RenderOptions& o) {
  Screen screen{.width = o.width, .height = o.height, .lines = {}};
  std::vector<Line>& out = screen.lines;
  out.push_back(title_line(frame, state, o));
  if (!frame.error.empty()) out.push_back({{frame.error, Style::alert}});
  const GpuLayout layout = gpu_layout(o.width);
  out.push_back(gpu_header(layout, o.unicode));
  const std::vector<const GpuRow*> gpus = shown_gpus(frame, state);
  for (const GpuRow* row : gpus) out.push_back(gpu_line(*row, layout, o.unicode));
  if (frame.gpus.empty()) out.push_back({{"no GPUs found", Style::dim}});
  for (const GpuRow* row : gpus) {
    if (!row->note.empty() && row->status != "lost")
      out.push_back({{fmt::format("  {}: {}", row->label, row->note), Style::dim}});
  }
  out.push_back({});
  const auto rows_left = [&] { return std::max(0, o.height - 1 - static_cast<int>(out.size())); };
  std::vector<Line> body;
  if (state.help) {
    body = help_lines();
  } else if (state.pane != Pane::processes) {
    body = pane_lines(panes, state.pane);
  } else {
    const bool containers = std::ranges::any_of(
        frame.processes, [](const ProcessRow& p) { return !p.container.empty(); });
    const std::vector<Column> cols = process_columns(o.width, containers);
    out.push_back(process_header(cols, state, o.unicode));
    body = process_lines(frame, state, o, cols, static_cast<std::size_t>(rows_left()));
    if (body.empty())
      body.push_back({{state.user ? fmt::format("no processes of {}", *state.user)
                                  : std::string("no processes on the GPUs shown"),
                       Style::dim}});
  }
  const auto room = static_cast<std::size_t>(rows_left());
  const std::size_t first = body.size() > room ? std::min(state.scroll, body.size() - room) : 0;
  for (std::size_t i = first; i < body.size() && i < first + room; ++i) out.push_back(body[i]);
  while (static_cast<int>(out.size()) < o.height - 1) out.push_back({});
  const std::size_t below = body.size() > first + room ? body.size() - first - room : 0;
  const std::string footer =
      below > 0 ? fmt::format("{} more below  {}", below, kHints) : std::string(kHints);
  out.push_back({{footer, Style::dim}});
  if (static_cast<int>(out.size()) > o.height)
    out.resize(static_cast<std::size_t>(std::max(o.height, 0)));
  for (Line& line : out) clip(line, static_cast<std::size_t>(o.width), o.unicode);
  return screen;
}

}  // namespace gpumeter::top
