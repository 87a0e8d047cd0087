// `--set dotted.key=value` overrides: applied to the parsed YAML tree before validation, so the values they set
// go through the same checks as values in the file.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "ductile/scene.h"
#include "scene/reader.h"

namespace ductile::scene {

/// `text` without the white space around it.
std::string TrimSpace(const std::string& text);

/// The components of a dotted path ("a.b.c" -> a, b, c); empty components stay (".a" -> "", a).
std::vector<std::string> SplitPath(const std::string& path);

/// Sets each override's value in `root` (a map) in order, creating keys the file omits. The path must follow
/// the scene format (SceneSchema): section keys may be created, named entries (materials, objects, ...) must
/// exist, a list element is addressed by its index (an entry of a list of sections, such as a keyframe, must
/// exist in the file), and the path must end at a value or a vector. A value that starts with '[' is parsed as a
/// YAML flow list, any other is a scalar. Throws SceneError (file "--set") naming the override, with a suggestion
/// for a misspelt key or name. Returns the overrides as applied, for messages.
std::vector<AppliedOverride> ApplyOverrides(YAML::Node& root, const std::vector<Override>& overrides);

}  // namespace ductile::scene
