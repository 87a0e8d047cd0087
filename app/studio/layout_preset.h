// The studio window's named arrangements of its docks (Layout menu, `ductile --layout`; docs/studio.md, "Window").
// A preset says which docks are open and in front; every dock has one place in all of them: the scene tree and the
// inspector as tabs on the left, the plots and the teleop dock as tabs on the right, the history and the log as tabs
// under the viewport. The viewport, the window's central widget, takes what the open docks leave.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace ductile::studio {

/// A named arrangement of the studio's docks (MainWindow::ApplyLayout).
enum class LayoutPreset {
  kSimulate,  ///< The default: the scene tree in front of the inspector in a narrow left panel.
  kTune,      ///< The inspector in front of the scene tree in a wider left panel; the plots on the right.
  kTeleop,    ///< The teleop dock in front of the plots on the right.
  kRecord,    ///< No dock: the viewport takes the window between the toolbar and the status bar.
};

/// Every preset, in the Layout menu's order.
inline constexpr std::array<LayoutPreset, 4> kLayoutPresets = {LayoutPreset::kSimulate, LayoutPreset::kTune,
                                                               LayoutPreset::kTeleop, LayoutPreset::kRecord};

/// The preset's name as `ductile --layout` and the saved settings spell it: "simulate", "tune", "teleop", "record".
constexpr std::string_view LayoutPresetName(LayoutPreset preset) {
  switch (preset) {
    case LayoutPreset::kTune:
      return "tune";
    case LayoutPreset::kTeleop:
      return "teleop";
    case LayoutPreset::kRecord:
      return "record";
    case LayoutPreset::kSimulate:
      break;
  }
  return "simulate";
}

/// The preset whose LayoutPresetName is `name`, or nullopt.
constexpr std::optional<LayoutPreset> ParseLayoutPreset(std::string_view name) {
  for (LayoutPreset preset : kLayoutPresets)
    if (LayoutPresetName(preset) == name) return preset;
  return std::nullopt;
}

}  // namespace ductile::studio
