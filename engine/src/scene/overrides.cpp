#include "scene/overrides.h"

#include <algorithm>
#include <cctype>

#include "scene/schema.h"
#include "scene/suggest.h"

namespace ductile {

namespace {

// The non-negative integer `text` spells, or -1.
int ParseIndex(const std::string& text) {
  if (text.empty() || text.size() > 6) return -1;
  int index = 0;
  for (const char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
    index = 10 * index + (c - '0');
  }
  return index;
}

}  // namespace

Override ParseOverride(const std::string& text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos)
    throw SceneError("--set", 0, 0, "'" + text + "' is not of the form dotted.key=value");
  Override o{scene::TrimSpace(text.substr(0, equals)), scene::TrimSpace(text.substr(equals + 1))};
  if (o.path.empty()) throw SceneError("--set", 0, 0, "'" + text + "' has an empty key before '='");
  for (const std::string& part : scene::SplitPath(o.path))
    if (part.empty()) throw SceneError("--set", 0, 0, "'" + text + "' has an empty component in its key");
  return o;
}

namespace scene {

std::string TrimSpace(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t dot = path.find('.', begin);
    parts.push_back(path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin));
    if (dot == std::string::npos) return parts;
    begin = dot + 1;
  }
}

namespace {

[[noreturn]] void Fail(const AppliedOverride& o, const std::string& message) {
  throw SceneError("--set", 0, 0, "--set " + o.text + ": " + message);
}

YAML::Node ValueNode(const AppliedOverride& o, const std::string& value) {
  if (value.empty() || value.front() != '[') return YAML::Node(value);
  try {
    return YAML::Load(value);
  } catch (const YAML::Exception& e) {
    Fail(o, "value '" + value + "' is not a valid YAML list: " + e.msg);
  }
}

// A new node for a key the file omits: a map for a section, an empty list for a list of sections (whose
// elements cannot be created), the default list for a vector.
YAML::Node DefaultNode(const SchemaNode& schema) {
  if (schema.kind == SchemaKind::kList) return YAML::Node(YAML::NodeType::Sequence);
  if (schema.kind != SchemaKind::kVector) return YAML::Node(YAML::NodeType::Map);
  YAML::Node list(YAML::NodeType::Sequence);
  for (const double x : schema.defaults) list.push_back(x);
  list.SetStyle(YAML::EmitterStyle::Flow);
  return list;
}

std::vector<std::string> MapKeys(const YAML::Node& map) {
  std::vector<std::string> keys;
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.IsScalar()) keys.push_back(it->first.Scalar());
  return keys;
}

// Checks that `node`, at the dotted path `at` of the scene file with schema `schema`, has the key or index `part`;
// returns the schema of that child (none for an element of a vector).
const SchemaNode* ChildSchema(const SchemaNode& schema, const YAML::Node& node, const std::string& part,
                              const std::string& at, const AppliedOverride& o) {
  const std::string where = at.empty() ? "the scene" : "'" + at + "'";
  const SchemaNode* child = nullptr;
  if ((schema.kind == SchemaKind::kSection || schema.kind == SchemaKind::kNamedMap) && !node.IsMap())
    Fail(o, where + " in the scene file is not a map");
  switch (schema.kind) {
    case SchemaKind::kSection:
      child = schema.Find(part);
      if (child == nullptr) Fail(o, "unknown key '" + part + "' in " + where + DidYouMean(part, schema.ChildNames()));
      if (child->kind == SchemaKind::kReserved) Fail(o, "'" + part + "' is not supported yet");
      break;
    case SchemaKind::kNamedMap: {
      const std::vector<std::string> names = MapKeys(node);
      if (std::find(names.begin(), names.end(), part) == names.end())
        Fail(o, "no " + schema.entry_noun + " '" + part + "' in the scene" + DidYouMean(part, names) +
                    " (defined: " + (names.empty() ? "none" : JoinNames(names)) + ")");
      child = &schema.children.front();
      break;
    }
    case SchemaKind::kList: {
      if (!node.IsSequence()) Fail(o, where + " in the scene file is not a list");
      const int count = static_cast<int>(node.size());
      const int index = ParseIndex(part);
      if (index < 0 || index >= count)
        Fail(o,
             "no " + schema.entry_noun + " '" + part + "' in " + where + ": the file lists " +
                 (count == 0 ? "none" : std::to_string(count) + " (indices 0 to " + std::to_string(count - 1) + ")"));
      child = &schema.children.front();
      break;
    }
    case SchemaKind::kVector: {
      const int index = ParseIndex(part);
      if (index < 0 || index >= schema.size)
        Fail(o,
             "'" + part + "' is not an element of '" + at + "' (indices 0 to " + std::to_string(schema.size - 1) + ")");
      if (!node.IsSequence() || static_cast<int>(node.size()) != schema.size)
        Fail(o, "'" + at + "' in the scene file is not a list of " + std::to_string(schema.size) +
                    " numbers to set an element of");
      break;
    }
    case SchemaKind::kValue:
    case SchemaKind::kReserved:
      Fail(o, "'" + at + "' is a value, not a map with key '" + part + "'");
  }
  return child;
}

// Sets the value of key `part` of `node`, whose schema is `child` (the key's dotted path is `at`).
void SetValue(const SchemaNode& child, YAML::Node& node, const std::string& part, const std::string& at,
              const std::string& value, const AppliedOverride& o) {
  if (child.kind == SchemaKind::kList)
    Fail(o, "'" + at + "' is a list of " + child.entry_noun + "s; set a value of one of them instead (" + at + ".0." +
                child.children.front().children.front().name + ")");
  if (child.kind != SchemaKind::kValue && child.kind != SchemaKind::kVector)
    Fail(o, "'" + at + "' is a section; set one of its values instead");
  node[part] = ValueNode(o, value);
}

// Moves `node` (of schema `schema`) on to its child `part`, of schema `child`, made from the schema where the file
// omits it.
void StepInto(const SchemaNode& schema, const SchemaNode& child, const std::string& part, YAML::Node& node) {
  if (schema.kind == SchemaKind::kList) {
    // A sequence is indexed by number: a text key would turn it into a map.
    const std::size_t index = static_cast<std::size_t>(ParseIndex(part));
    const YAML::Node& existing = node;
    if (existing[index].IsNull()) node[index] = DefaultNode(child);
    YAML::Node next = node[index];
    node.reset(next);
    return;
  }
  const YAML::Node& existing = node;
  if (!existing[part].IsDefined() || existing[part].IsNull()) node[part] = DefaultNode(child);
  YAML::Node next = node[part];
  node.reset(next);
}

void Apply(YAML::Node& root, const Override& override_in, const AppliedOverride& o) {
  const std::vector<std::string> parts = SplitPath(override_in.path);
  const SchemaNode* schema = &SceneSchema();
  YAML::Node node = root;
  std::string at;  // The dotted path walked so far.
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const bool last = i + 1 == parts.size();
    const SchemaNode* child = ChildSchema(*schema, node, part, at, o);
    at += (at.empty() ? "" : ".") + part;
    if (schema->kind == SchemaKind::kVector) {
      if (!last) Fail(o, "'" + at + "' is a number, not a map with key '" + parts[i + 1] + "'");
      node[ParseIndex(part)] = ValueNode(o, override_in.value);
      return;
    }
    if (last) {
      SetValue(*child, node, part, at, override_in.value, o);
      return;
    }
    StepInto(*schema, *child, part, node);
    schema = child;
  }
}

}  // namespace

std::vector<AppliedOverride> ApplyOverrides(YAML::Node& root, const std::vector<Override>& overrides) {
  std::vector<AppliedOverride> applied;
  for (const Override& override_in : overrides) {
    applied.push_back({override_in.path, override_in.path + "=" + override_in.value});
    Apply(root, override_in, applied.back());
  }
  return applied;
}

}  // namespace scene

}  // namespace ductile
