// docs/scene-format.md documents every row of the parameter table by a table line generated from the row
// (UpdateParameterDocs, `ductile-cli docs parameters`): the committed file must be what the generator makes of it,
// and the generator must find, rewrite and report lines as ductile/parameters.h says.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ductile/parameters.h"

namespace ductile {
namespace {

std::string SceneFormat() {
  std::ifstream file(std::filesystem::path(DUCTILE_SOURCE_DIR) / "docs" / "scene-format.md");
  EXPECT_TRUE(file) << "docs/scene-format.md";
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// `text` with the first occurrence of `from` replaced by `to`; fails the test when `from` is not there.
std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

int LineOf(const std::string& text, const std::string& part) {
  const std::size_t at = text.find(part);
  return at == std::string::npos ? -1 : static_cast<int>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
}

const char* const kDtLine = "| `dt` | number | s | `0.001` | > 0 | Rigid (outer) time step Δt. |";

TEST(ParameterDocs, TheSceneFormatIsWhatTheTableGenerates) {
  const std::string text = SceneFormat();
  const ParameterDocsUpdate update = UpdateParameterDocs(text);
  EXPECT_TRUE(update.problems.empty()) << update.problems.front();
  for (const int line : update.changed)
    ADD_FAILURE() << "docs/scene-format.md:" << line << " differs from the parameter table; run ductile-cli docs "
                  << "parameters --update docs/scene-format.md";
  EXPECT_EQ(update.text, text);
  EXPECT_NE(text.find(kDtLine), std::string::npos);
}

TEST(ParameterDocs, AnEditedLineIsGeneratedAgainFromItsRow) {
  const std::string text = SceneFormat();
  // A default, a unit, a range and a meaning written otherwise than the rows say.
  std::string edited = Replaced(text, kDtLine, "| `dt` | number | ms | `1e-3` | ≥ 0 | The step. |");
  edited = Replaced(edited, "| `youngs_modulus` | Pa | *required* | > 0 |", "| `youngs_modulus` | kPa | `1` | > 0 |");
  const ParameterDocsUpdate update = UpdateParameterDocs(edited);
  EXPECT_TRUE(update.problems.empty());
  EXPECT_EQ(update.text, text);
  ASSERT_EQ(update.changed.size(), 2U);
  EXPECT_EQ(update.changed[0], LineOf(text, kDtLine));
}

TEST(ParameterDocs, AColumnTheRowDoesNotKnowKeepsItsCell) {
  // rigid_bodies' `Types` column is the docs' own: an edit there stays, and the rest of the line is still checked.
  const std::string text = SceneFormat();
  const std::string mass = "| `mass` | number | kg | – | > 0 | `dynamic` | The body's mass. |";
  const std::string edited =
      Replaced(text, mass, "| `mass` | number | kg | – | > 0 | `dynamic` only | The body's mass. |");
  const ParameterDocsUpdate update = UpdateParameterDocs(edited);
  EXPECT_TRUE(update.changed.empty());
  EXPECT_EQ(update.text, edited);
}

// A new parameter: its row has no line yet, so one is added at the end of its section's first table.
TEST(ParameterDocs, ARowWithoutALineGetsOneAtTheEndOfItsSectionsTable) {
  const std::string original = SceneFormat();
  const std::string text = Replaced(original, std::string(kDtLine) + "\n", "");
  const ParameterDocsUpdate update = UpdateParameterDocs(text);
  EXPECT_TRUE(update.problems.empty());
  ASSERT_EQ(update.added, std::vector<std::string>{"simulation.dt"});
  ASSERT_EQ(update.changed.size(), 1U);
  // The simulation table's last line was the one before `## \`grid\``'s blank line; the new one follows it.
  const std::string last = "| `implicit_tolerance` |";
  const std::size_t at = update.text.find(std::string(kDtLine) + "\n");
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(update.text.find(last), at);
  EXPECT_EQ(update.text.find("## `grid`") - (at + std::string(kDtLine).size() + 1), 1U);  // then a blank line
  EXPECT_EQ(update.changed[0], LineOf(update.text, kDtLine));
  EXPECT_EQ(UpdateParameterDocs(update.text).changed.size(), 0U);  // and it stays
  // A row whose section has no table at all is a problem.
  const ParameterDocsUpdate none = UpdateParameterDocs("# Nothing\n");
  EXPECT_EQ(none.problems.size(), ParameterTable().size());
}

TEST(ParameterDocs, TwoRowsOfOneLineMustAgree) {
  // grid.boundary.friction and colliders.*.boundary.friction share the Boundaries table's `friction` line, so a
  // change of one row's meaning would be a conflict; here the line says something neither row says, so the first
  // row rewrites it and the second agrees.
  const std::string text = SceneFormat();
  const std::string friction = "Coulomb friction coefficient μ. Accepted with every type, used only by `friction`.";
  const std::string edited = Replaced(text, friction, "Wall friction.");
  const ParameterDocsUpdate update = UpdateParameterDocs(edited);
  EXPECT_TRUE(update.problems.empty());
  EXPECT_EQ(update.text, text);
}

TEST(ParameterDocs, ThePrintedTablesHaveALineForEveryRow) {
  const std::string docs = ParameterDocs();
  std::istringstream in(docs);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);) lines += line.rfind("| `", 0) == 0 ? 1 : 0;
  EXPECT_EQ(lines, ParameterTable().size());
  EXPECT_EQ(docs.rfind("## `simulation`\n\n| Key | Type | Unit | Default | Valid range | Meaning |\n", 0), 0U);
  EXPECT_NE(docs.find(std::string(kDtLine) + "\n"), std::string::npos);
  // Numbers as their shortest text, a two-digit exponent without its zero; a vector; a choice by its name.
  EXPECT_NE(docs.find("| `contact_tolerance_absolute` | number | – | `1e-6` |"), std::string::npos);
  EXPECT_NE(docs.find("| `stiffness` | number | Pa | `1e8` |"), std::string::npos);
  EXPECT_NE(docs.find("| `gravity` | vector | m/s² | `[0, 0, -9.81]` | finite |"), std::string::npos);
  EXPECT_NE(docs.find("| `coupling` | name | – | `weak` | `weak` or `strong` |"), std::string::npos);
  EXPECT_NE(docs.find("| `initial_positions` | map JOINT -> number | rad or m | every joint at 0 |"),
            std::string::npos);
  // The materials' table has the models' column.
  EXPECT_NE(docs.find("| `yield_stress` | number | Pa | `0` | ≥ 0 | `linear_corotated`, `stvk_hencky` |"),
            std::string::npos);
}

}  // namespace
}  // namespace ductile
