// LoadScene: YAML text -> tree (+ `--set` overrides) -> validated SceneDesc. The checks follow the tree top
// down, section by section in a fixed order (one parser per section, scene/scene_sections.h); the first problem
// found is thrown as a SceneError that names the place in the file (or the override) and the key. The format is
// documented in docs/scene-format.md.
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "ductile/scene.h"
#include "scene/overrides.h"
#include "scene/parse_context.h"
#include "scene/reader.h"
#include "scene/scene_sections.h"
#include "scene/schema.h"

namespace ductile {

namespace scene {

namespace {

// The entries of the section `name` of `top`, each parsed by `parse` into `out`.
template <typename Desc, typename Parse>
void ParseEntries(const ParseContext& context, const MapFields& top, const std::string& name, std::vector<Desc>& out,
                  Parse parse) {
  const auto field = top.Find(name);
  if (!field) return;
  for (const Field& entry : context.reader().Entries(*field, "section '" + name + "'")) out.push_back(parse(entry));
}

// Checks a scene tree section by section and builds the SceneDesc.
SceneDesc ParseSceneTree(const Reader& reader, const std::filesystem::path& file, const YAML::Node& root) {
  ParseContext context(reader, file);
  SceneDesc scene;
  scene.file = file;
  std::vector<std::string> sections, reserved;
  for (const SchemaNode& section : SceneSchema().children)
    (section.kind == SchemaKind::kReserved ? reserved : sections).push_back(section.name);
  const MapFields top(reader, Field{root, "", "", {}}, "the scene");
  top.CheckKeys(sections, reserved, "is not supported yet");

  if (const auto field = top.Find("simulation")) ParseSimulation(context, *field, scene);
  if (const auto field = top.Find("grid")) ParseGrid(context, *field, scene);
  if (const auto field = top.Find("contact")) ParseContact(context, *field, scene);
  ParseEntries(context, top, "materials", scene.materials, [&](const Field& e) { return ParseMaterial(context, e); });
  ParseEntries(context, top, "objects", scene.objects, [&](const Field& e) { return ParseObject(context, e, scene); });
  ParseEntries(context, top, "colliders", scene.colliders, [&](const Field& e) { return ParseCollider(context, e); });
  if (const auto field = top.Find("rigid_bodies")) {
    const std::vector<Field> entries = reader.Entries(*field, "section 'rigid_bodies'");
    for (const Field& entry : entries) scene.rigid_bodies.push_back(ParseRigidBody(context, entry, entries, scene));
  }
  ParseEntries(context, top, "robots", scene.robots, [&](const Field& e) { return ParseRobot(context, e); });
  ParseEntries(context, top, "soft_bodies", scene.soft_bodies,
               [&](const Field& e) { return ParseSoftBody(context, e); });
  ParseEntries(context, top, "affine_bodies", scene.affine_bodies,
               [&](const Field& e) { return ParseAffineBody(context, e); });
  if (const auto field = top.Find("ipc")) ParseIpc(context, *field, scene);
  ParseEntries(context, top, "pd_bodies", scene.pd_bodies, [&](const Field& e) { return ParsePdBody(context, e); });
  if (const auto field = top.Find("pd")) ParsePd(context, *field, scene);
  if (top.Find("welds")) {
    const std::vector<WeldBody> bodies = WeldBodies(scene);
    ParseEntries(context, top, "welds", scene.welds, [&](const Field& e) { return ParseWeld(context, e, bodies); });
  }
  if (top.Find("collision_filters")) {
    const std::vector<WeldBody> bodies = WeldBodies(scene);
    ParseEntries(context, top, "collision_filters", scene.collision_filters,
                 [&](const Field& e) { return ParseCollisionFilter(context, e, bodies); });
  }
  if (const auto field = top.Find("output")) ParseOutput(context, *field, scene);
  ParseEntries(context, top, "cameras", scene.cameras, [&](const Field& e) { return ParseCamera(context, e); });
  return scene;
}

}  // namespace

}  // namespace scene

SceneDesc LoadSceneFromString(const std::string& text, const std::filesystem::path& file_name,
                              const std::vector<Override>& overrides) {
  const std::string file = file_name.string();
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::ParserException& e) {
    throw SceneError(file, e.mark.line + 1, e.mark.column + 1, "YAML syntax error: " + e.msg);
  }
  if (documents.empty() || documents.front().IsNull()) throw SceneError(file, 1, 1, "the scene file is empty");
  if (documents.size() > 1) {
    const YAML::Mark mark = documents[1].Mark();
    throw SceneError(file, mark.line + 1, mark.column + 1, "a scene file holds one YAML document; this is a second");
  }
  YAML::Node root = documents.front();
  if (!root.IsMap()) {
    const YAML::Mark mark = root.Mark();
    throw SceneError(file, mark.line + 1, mark.column + 1,
                     "a scene must be a map of sections (simulation, grid, materials, objects, ...), got " +
                         scene::Reader::Got(root));
  }
  const scene::Reader reader(file, scene::ApplyOverrides(root, overrides));
  return scene::ParseSceneTree(reader, file_name, root);
}

SceneDesc LoadScene(const std::filesystem::path& file, const std::vector<Override>& overrides) {
  std::ifstream in(file, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(file, ec))
    throw SceneError(file.string(), 0, 0, "cannot open the scene file");
  std::ostringstream text;
  text << in.rdbuf();
  return LoadSceneFromString(text.str(), file, overrides);
}

}  // namespace ductile
