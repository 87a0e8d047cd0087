// Helpers of the scene loader tests: element-wise comparisons of parsed values, loading with `--set` overrides,
// and the error a scene or an override produces.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "ductile/scene.h"

namespace ductile::testing {

inline void ExpectVector(const Vector3& actual, const Vector3& expected) {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(actual[i], expected[i], 1e-12) << "component " << i;
}

inline void ExpectQuaternion(const std::array<double, 4>& actual, const std::array<double, 4>& expected) {
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(actual[i], expected[i], 1e-12) << "component " << i;
}

inline void ExpectIdentity(const PoseDesc& pose) {
  ExpectVector(pose.position, {0, 0, 0});
  ExpectQuaternion(pose.quaternion, {1, 0, 0, 0});
}

inline std::vector<Override> Overrides(const std::vector<std::string>& sets) {
  std::vector<Override> overrides;
  for (const std::string& text : sets) overrides.push_back(ParseOverride(text));
  return overrides;
}

/// The scene file with `sets` applied.
inline SceneDesc LoadWith(const std::filesystem::path& file, const std::vector<std::string>& sets) {
  return LoadScene(file, Overrides(sets));
}

/// The SceneError that loading `text` as `file` (with `sets`) throws; fails the test when it loads.
inline SceneError ErrorOf(const std::string& text, const std::filesystem::path& file,
                          const std::vector<std::string>& sets = {}) {
  try {
    LoadSceneFromString(text, file, Overrides(sets));
  } catch (const SceneError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded without error:\n" << text;
  return SceneError("", 0, 0, "");
}

/// The message of the SceneError that loading `file` with `sets` throws, checking that it names "--set" and no
/// line; fails the test when it loads.
inline std::string OverrideMessage(const std::filesystem::path& file, const std::vector<std::string>& sets) {
  try {
    LoadWith(file, sets);
  } catch (const SceneError& e) {
    EXPECT_EQ(e.file(), "--set");
    EXPECT_EQ(e.line(), 0);
    return e.message();
  }
  ADD_FAILURE() << "loaded without error";
  return {};
}

}  // namespace ductile::testing
