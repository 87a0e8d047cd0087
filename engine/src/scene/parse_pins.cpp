// A cloth object's `pins`: groups of vertices held at their initial positions, moved along keyframes and let go at
// a release time (Model::pin_groups).
#include "scene/scene_sections.h"
#include "scene/schema.h"

namespace ductile::scene {

namespace {

// Which vertices: exactly one of `vertices` (indices), `corners: true` (a sheet's four; not a mesh's) and `box`.
void ReadSelection(const ParseContext& context, const Field& entry, const MapFields& map, const std::string& what,
                   bool sheet, PinGroupDesc& group) {
  const Reader& reader = context.reader();
  const auto vertices = map.Find("vertices");
  const auto corners = map.Find("corners");
  const auto box = map.Find("box");
  const int given = (vertices ? 1 : 0) + (corners ? 1 : 0) + (box ? 1 : 0);
  if (given != 1)
    reader.FailAtKey(entry, what + " must name its vertices with exactly one of 'vertices', 'corners' or 'box'");
  if (vertices) {
    for (const Field& item : reader.Items(*vertices, "'vertices' of " + what))
      group.vertices.push_back(reader.Integer(item, 0));
    if (group.vertices.empty()) reader.Fail(*vertices, "'vertices' of " + what + " must list at least one vertex");
  } else if (corners) {
    if (!sheet)
      reader.FailAtKey(*corners, "'corners' of " + what +
                                     " applies to sheets only: a mesh has no corners (use 'vertices' or 'box')");
    group.corners = reader.Bool(*corners);
    if (!group.corners) reader.Fail(*corners, "'corners' of " + what + " must be true (or leave the key out)");
  } else {
    const MapFields box_map(reader, *box, "'box' of " + what);
    box_map.CheckKeys(KeysOf({"objects", "", "pins", "", "box"}));
    group.has_box = true;
    group.box_min = reader.Numbers<3>(box_map.Require("min"));
    group.box_max = reader.Numbers<3>(box_map.Require("max"));
    for (int a = 0; a < 3; ++a)
      if (group.box_min[a] > group.box_max[a])
        reader.Fail(*box, "'box' of " + what + ": 'min' must not exceed 'max' (axis " + std::to_string(a) + ")");
  }
}

// Keyframes after t = 0, strictly increasing in time, each an offset from the initial positions.
void ReadKeyframes(const ParseContext& context, const Field& field, const std::string& what, PinGroupDesc& group) {
  const Reader& reader = context.reader();
  const std::vector<Field> items = reader.Items(field, "'keyframes' of " + what);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string keyframe = "keyframe " + std::to_string(i) + " of " + what;
    const MapFields map(reader, items[i], keyframe);
    map.CheckKeys(KeysOf({"objects", "", "pins", "", "keyframes", ""}));
    const Field time = map.Require("time");
    const double t = reader.Number(time, Positive());
    if (!group.key_times.empty() && t <= group.key_times.back())
      reader.Fail(time, "keyframe times must increase strictly: " + keyframe + " has 'time' " + time.node.Scalar() +
                            ", not after keyframe " + std::to_string(i - 1) + "'s " +
                            FormatNumber(group.key_times.back()));
    group.key_times.push_back(t);
    group.key_offsets.push_back(reader.Numbers<3>(map.Require("offset")));
  }
}

}  // namespace

std::vector<PinGroupDesc> ParsePinGroups(const ParseContext& context, const Field& field, const std::string& owner,
                                         bool sheet) {
  const Reader& reader = context.reader();
  std::vector<PinGroupDesc> groups;
  for (const Field& entry : reader.Entries(field, "'pins' of " + owner)) {
    const std::string what = "pin group '" + entry.key + "' of " + owner;
    PinGroupDesc group;
    group.name = entry.key;
    group.where = context.Where(entry);
    const MapFields map(reader, entry, what);
    map.CheckKeys(KeysOf({"objects", "", "pins", ""}));
    ReadSelection(context, entry, map, what, sheet, group);
    if (const auto keyframes = map.Find("keyframes")) ReadKeyframes(context, *keyframes, what, group);
    map.Read("release_time", group.release_time, NonNegative());
    groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace ductile::scene
