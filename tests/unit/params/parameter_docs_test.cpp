// docs/scene-format.md documents every row of the parameter table with the table's unit, default and valid range
// (and, for materials, its models): the docs' tables are checked against the table, row by row.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ductile/parameters.h"
#include "scene/schema.h"

namespace ductile {
namespace {

std::string Trim(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(' ');
  if (begin == std::string::npos) return {};
  return text.substr(begin, text.find_last_not_of(' ') - begin + 1);
}

// The cells of a Markdown table row, split at the pipes that are not escaped ("\|").
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

// One row of a table of the docs, with the header of its table.
struct DocRow {
  std::vector<std::string> header;
  std::vector<std::string> cells;

  // The cell of the column whose header is one of `names`; fails the test when there is none.
  std::string Column(std::initializer_list<const char*> names) const {
    for (std::size_t c = 0; c < header.size() && c < cells.size(); ++c)
      for (const char* name : names)
        if (header[c] == name) return cells[c];
    ADD_FAILURE() << "no column " << *names.begin() << " in the docs' table";
    return {};
  }
};

// The heading of the docs' section that documents `key`, and the key's name in that section's table.
std::pair<std::string, std::string> PlaceOf(const std::string& key) {
  std::string name = key.substr(key.rfind('.') + 1);
  if (name == "*") {
    const std::string head = key.substr(0, key.rfind('.'));
    name = head.substr(head.rfind('.') + 1);
  }
  if (key.find(".boundary.") != std::string::npos) return {"### Boundaries", name};
  if (key.rfind("rigid_bodies.*.joint.", 0) == 0) return {"#### Joints: bodies on a parent", name};
  const std::vector<std::pair<std::string, std::string>> sections{{"simulation.", "## `simulation`"},
                                                                  {"grid.", "## `grid`"},
                                                                  {"contact.", "### `contact`"},
                                                                  {"materials.", "## `materials`"},
                                                                  {"objects.", "## `objects`"},
                                                                  {"rigid_bodies.", "### `rigid_bodies`"},
                                                                  {"robots.", "### `robots`"},
                                                                  {"welds.", "### `welds`"},
                                                                  {"cameras.", "## `cameras`"},
                                                                  {"soft_bodies.", "### `soft_bodies`"},
                                                                  {"affine_bodies.", "### `affine_bodies`"},
                                                                  {"ipc.", "### `ipc`"}};
  for (const auto& [prefix, heading] : sections)
    if (key.rfind(prefix, 0) == 0) return {heading, name};
  return {"", name};
}

// The first table row of the section `heading` whose key cell is `name`, or none.
std::optional<DocRow> FindDocRow(const std::vector<std::string>& lines, const std::string& heading,
                                 const std::string& name) {
  bool in_section = false, in_code = false;
  std::vector<std::string> header;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    if (in_code) continue;
    if (line.rfind("#", 0) == 0) {
      if (in_section) return std::nullopt;
      in_section = line == heading;
      continue;
    }
    if (!in_section || line.rfind("|", 0) != 0) continue;
    if (i + 1 < lines.size() && lines[i + 1].rfind("|---", 0) == 0) header = Cells(line);
    const std::vector<std::string> cells = Cells(line);
    if (!cells.empty() && cells[0] == "`" + name + "`") return DocRow{header, cells};
  }
  return std::nullopt;
}

// The numbers of the first `...` in `cell`: one, or the three of a list.
std::vector<double> BacktickedNumbers(const std::string& cell) {
  const std::size_t open = cell.find('`');
  const std::size_t close = cell.find('`', open + 1);
  std::string text = cell.substr(open + 1, close - open - 1);
  for (char& c : text)
    if (c == '[' || c == ']' || c == ',') c = ' ';
  std::istringstream in(text);
  std::vector<double> numbers;
  double x = 0;
  while (in >> x) numbers.push_back(x);
  return numbers;
}

std::string ModelsCell(const std::vector<MaterialModelDesc>& models) {
  if (models.size() == scene::MaterialModelNames().size()) return "all";
  std::string cell;
  for (const auto& [name, model] : scene::MaterialModelNames())
    if (std::find(models.begin(), models.end(), model) != models.end())
      cell += (cell.empty() ? "`" : ", `") + name + "`";
  return cell;
}

TEST(ParameterDocs, EveryRowIsInTheSceneFormatWithItsUnitDefaultAndRange) {
  std::ifstream file(std::filesystem::path(DUCTILE_SOURCE_DIR) / "docs" / "scene-format.md");
  ASSERT_TRUE(file) << "docs/scene-format.md";
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);

  for (const ParameterInfo& row : ParameterTable()) {
    SCOPED_TRACE(row.key);
    const auto [heading, name] = PlaceOf(row.key);
    const std::optional<DocRow> doc = FindDocRow(lines, heading, name);
    ASSERT_TRUE(doc) << "no row `" << name << "` under '" << heading << "'";
    EXPECT_EQ(doc->Column({"Unit"}), row.unit.empty() ? "–" : row.unit);
    const std::string range = doc->Column({"Valid range", "Valid"});
    EXPECT_EQ(range, row.range_note.empty() ? row.range.Notation() : row.range_note);
    const std::string default_cell = doc->Column({"Default"});
    if (!row.default_note.empty()) {
      EXPECT_EQ(default_cell, row.default_note);
    } else if (row.type == ParameterType::kChoice) {
      EXPECT_EQ(default_cell, "`" + row.choices.at(static_cast<std::size_t>(row.default_value)) + "`");
    } else if (row.type == ParameterType::kVector) {
      EXPECT_EQ(BacktickedNumbers(default_cell),
                (std::vector<double>{row.default_vector[0], row.default_vector[1], row.default_vector[2]}));
    } else {
      EXPECT_EQ(BacktickedNumbers(default_cell), std::vector<double>{row.default_value}) << default_cell;
    }
    if (!row.models.empty()) {
      EXPECT_EQ(doc->Column({"Models"}), ModelsCell(row.models));
    }
  }
}

}  // namespace
}  // namespace ductile
