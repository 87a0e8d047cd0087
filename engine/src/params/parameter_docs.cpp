// The parameter table as Markdown (ductile/parameters.h, ParameterDocs and UpdateParameterDocs): the lines of
// docs/scene-format.md's tables that document a row are generated from the row, so that a row's unit, default, range
// and meaning are written once, in params/parameter_table.cpp or params/parameter_rows_bodies.cpp.
#include <algorithm>
#include <array>
#include <charconv>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ductile/parameters.h"
#include "scene/schema.h"

namespace ductile {

namespace {

// The heading of the docs' section that documents a row, by the row's key: the first prefix that matches.
struct DocsSection {
  const char* prefix;
  const char* heading;
};
constexpr std::array kSections{DocsSection{"grid.boundary.", "### Boundaries"},
                               DocsSection{"colliders.*.boundary.", "### Boundaries"},
                               DocsSection{"rigid_bodies.*.joint.", "#### Joints: bodies on a parent"},
                               DocsSection{"simulation.", "## `simulation`"},
                               DocsSection{"grid.", "## `grid`"},
                               DocsSection{"contact.", "### `contact`"},
                               DocsSection{"materials.", "## `materials`"},
                               DocsSection{"objects.", "## `objects`"},
                               DocsSection{"rigid_bodies.", "### `rigid_bodies`"},
                               DocsSection{"robots.", "### `robots`"},
                               DocsSection{"welds.", "### `welds`"},
                               DocsSection{"cameras.", "## `cameras`"},
                               DocsSection{"soft_bodies.", "### `soft_bodies`"},
                               DocsSection{"affine_bodies.", "### `affine_bodies`"},
                               DocsSection{"ipc.", "### `ipc`"},
                               DocsSection{"pd_bodies.", "### `pd_bodies`"},
                               DocsSection{"pd.", "### `pd`"}};

std::string HeadingOf(const std::string& key) {
  for (const DocsSection& section : kSections)
    if (key.rfind(section.prefix, 0) == 0) return section.heading;
  return {};
}

// The key's name in its section's table: its last part, or the part before a last `*` ("initial_positions").
std::string NameOf(const std::string& key) {
  std::string name = key.substr(key.rfind('.') + 1);
  if (name == "*") {
    const std::string head = key.substr(0, key.rfind('.'));
    name = head.substr(head.rfind('.') + 1);
  }
  return name;
}

// The shortest text that reads back as `x`, with a two-digit exponent's zero left out ("1e-6", "0.05", "1500").
std::string Number(double x) {
  std::array<char, 32> buffer{};
  const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), x);
  std::string text(buffer.data(), error == std::errc() ? end : buffer.data());
  const std::size_t e = text.find('e');
  if (e != std::string::npos && e + 2 < text.size() && text[e + 2] == '0') text.erase(e + 2, 1);
  if (e != std::string::npos && text[e + 1] == '+') text.erase(e + 1, 1);
  return text;
}

// A cell's text with its pipes escaped, so that it stays one cell.
std::string Escaped(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '|' && (i == 0 || text[i - 1] != '\\')) out += '\\';
    out += text[i];
  }
  return out;
}

std::string TypeCell(const ParameterInfo& row) {
  if (!row.type_note.empty()) return row.type_note;
  switch (row.type) {
    case ParameterType::kNumber:
      return "number";
    case ParameterType::kInteger:
      return "integer";
    case ParameterType::kVector:
      return "vector";
    case ParameterType::kChoice:
      return "name";
  }
  return {};
}

std::string DefaultCell(const ParameterInfo& row) {
  if (!row.default_note.empty()) return row.default_note;
  if (row.type == ParameterType::kChoice)
    return "`" + row.choices.at(static_cast<std::size_t>(row.default_value)) + "`";
  if (row.type == ParameterType::kVector)
    return "`[" + Number(row.default_vector[0]) + ", " + Number(row.default_vector[1]) + ", " +
           Number(row.default_vector[2]) + "]`";
  return "`" + Number(row.default_value) + "`";
}

std::string ModelsCell(const ParameterInfo& row) {
  if (row.models.size() == scene::MaterialModelNames().size()) return "all";
  std::string cell;
  for (const auto& [name, model] : scene::MaterialModelNames())
    if (std::find(row.models.begin(), row.models.end(), model) != row.models.end())
      cell += (cell.empty() ? "`" : ", `") + name + "`";
  return cell;
}

// The cell of the column `column` for `row`, or false when the row does not say (the docs' own column).
bool Cell(const ParameterInfo& row, const std::string& column, std::string& cell) {
  if (column == "Key") {
    cell = "`" + NameOf(row.key) + "`";
  } else if (column == "Type") {
    cell = TypeCell(row);
  } else if (column == "Unit") {
    cell = row.unit.empty() ? "–" : row.unit;
  } else if (column == "Default") {
    cell = DefaultCell(row);
  } else if (column == "Valid range" || column == "Valid") {
    cell = row.range_note.empty() ? row.range.Notation() : row.range_note;
  } else if (column == "Models") {
    cell = ModelsCell(row);
  } else if (column == "Meaning") {
    cell = Escaped(row.doc);
  } else {
    return false;
  }
  return true;
}

std::string Trim(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(' ');
  if (begin == std::string::npos) return {};
  return text.substr(begin, text.find_last_not_of(' ') - begin + 1);
}

// The cells of a Markdown table line, split at the pipes that are not escaped ("\|").
std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '|' && line[i - 1] != '\\') {
      cells.push_back(Trim(cell));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

std::string Line(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const std::string& cell : cells) line += " " + cell + " |";
  return line;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Where the line of a row is in the docs: its index and the header of its table; index −1 when there is none.
struct Place {
  int index = -1;
  std::vector<std::string> header;
};

// The table lines ("| ...") of the section `heading`, up to the next heading, outside code blocks, by index.
std::vector<std::size_t> SectionTableLines(const std::vector<std::string>& lines, const std::string& heading) {
  std::vector<std::size_t> out;
  bool in_section = false, in_code = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("```", 0) == 0) in_code = !in_code;
    if (in_code) continue;
    if (lines[i].rfind('#', 0) == 0) {
      if (in_section) break;
      in_section = lines[i] == heading;
    } else if (in_section && lines[i].rfind('|', 0) == 0) {
      out.push_back(i);
    }
  }
  return out;
}

// Whether line i heads a table (the next line is its "|---" separator).
bool IsHeader(const std::vector<std::string>& lines, std::size_t i) {
  return i + 1 < lines.size() && lines[i + 1].rfind("|---", 0) == 0;
}

// The first table line of the section `heading` whose first cell is "`name`".
Place FindLine(const std::vector<std::string>& lines, const std::string& heading, const std::string& name) {
  std::vector<std::string> header;
  for (const std::size_t i : SectionTableLines(lines, heading)) {
    const std::vector<std::string> cells = Cells(lines[i]);
    if (IsHeader(lines, i)) header = cells;
    if (!cells.empty() && cells[0] == "`" + name + "`") return {static_cast<int>(i), header};
  }
  return {};
}

// Where a line appended to the first table under `heading` goes (after its last line), or −1 when it has none.
int TableEnd(const std::vector<std::string>& lines, const std::string& heading) {
  for (const std::size_t i : SectionTableLines(lines, heading)) {
    if (!IsHeader(lines, i)) continue;
    std::size_t end = i + 2;
    while (end < lines.size() && lines[end].rfind('|', 0) == 0) ++end;
    return static_cast<int>(end);
  }
  return -1;
}

}  // namespace

std::string ParameterDocs() {
  std::ostringstream out;
  std::string heading;
  for (const ParameterInfo& row : ParameterTable()) {
    const bool materials = row.key.rfind("materials.", 0) == 0;
    const std::vector<std::string> columns =
        materials ? std::vector<std::string>{"Key", "Type", "Unit", "Default", "Valid range", "Models", "Meaning"}
                  : std::vector<std::string>{"Key", "Type", "Unit", "Default", "Valid range", "Meaning"};
    if (HeadingOf(row.key) != heading) {
      heading = HeadingOf(row.key);
      out << (out.tellp() > 0 ? "\n" : "") << heading << "\n\n" << Line(columns) << "\n|";
      for (std::size_t c = 0; c < columns.size(); ++c) out << "---|";
      out << '\n';
    }
    std::vector<std::string> cells(columns.size());
    for (std::size_t c = 0; c < columns.size(); ++c) Cell(row, columns[c], cells[c]);
    out << Line(cells) << '\n';
  }
  return out.str();
}

ParameterDocsUpdate UpdateParameterDocs(const std::string& markdown) {
  std::vector<std::string> lines = Lines(markdown);
  const std::vector<std::string> original = lines;
  std::vector<int> origin(lines.size());  // each line's index in `original`, or −1 for a line added here
  for (std::size_t i = 0; i < origin.size(); ++i) origin[i] = static_cast<int>(i);
  ParameterDocsUpdate update;
  // A row without a line (a new parameter) gets one at the end of the first table under its section's heading.
  for (const ParameterInfo& row : ParameterTable()) {
    const std::string heading = HeadingOf(row.key);
    if (FindLine(lines, heading, NameOf(row.key)).index >= 0) continue;
    const int at = TableEnd(lines, heading);
    if (at < 0) {
      update.problems.push_back(row.key + ": no table under '" + heading + "' for its line");
      continue;
    }
    lines.insert(lines.begin() + at, "| `" + NameOf(row.key) + "` |");
    origin.insert(origin.begin() + at, -1);
    update.added.push_back(row.key);
  }
  std::vector<const ParameterInfo*> writer(lines.size(), nullptr);  // the row that wrote each line
  for (const ParameterInfo& row : ParameterTable()) {
    const std::string heading = HeadingOf(row.key);
    const Place place = FindLine(lines, heading, NameOf(row.key));
    if (place.index < 0) continue;  // reported above
    const auto index = static_cast<std::size_t>(place.index);
    std::vector<std::string> cells = Cells(lines[index]);
    cells.resize(std::max(cells.size(), place.header.size()));
    for (std::size_t c = 0; c < place.header.size(); ++c)
      // An empty cell in a column the row does not fill (a new line's, say) reads "–".
      if (!Cell(row, place.header[c], cells[c]) && cells[c].empty()) cells[c] = "–";
    const std::string line = Line(cells);
    if (writer[index] != nullptr && line != lines[index]) {
      update.problems.push_back(row.key + ": its line under '" + heading + "' also documents " + writer[index]->key +
                                ", which says otherwise");
      continue;
    }
    writer[index] = &row;
    lines[index] = line;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    update.text += lines[i] + '\n';
    if (origin[i] < 0 || lines[i] != original[static_cast<std::size_t>(origin[i])])
      update.changed.push_back(static_cast<int>(i) + 1);
  }
  if (!markdown.empty() && markdown.back() != '\n') update.text.pop_back();
  return update;
}

}  // namespace ductile
