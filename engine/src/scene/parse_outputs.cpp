// The `output` and `cameras` sections: probes of MPM objects, and the studio's camera presets.
#include <algorithm>

#include "scene/scene_sections.h"
#include "scene/schema.h"
#include "scene/suggest.h"

namespace ductile::scene {

void ParseOutput(const ParseContext& context, const Field& field, SceneDesc& scene) {
  const Reader& reader = context.reader();
  const MapFields map(reader, field, "section 'output'");
  map.CheckKeys(KeysOf({"output"}));
  const auto probes = map.Find("probes");
  if (!probes) return;
  std::vector<std::string> objects;
  for (const MpmObjectDesc& o : scene.objects) objects.push_back(o.name);
  objects = SortedNames(objects);
  for (const Field& entry : reader.Entries(*probes, "'output.probes'")) {
    context.CheckName(entry, "probe");
    ProbeDesc probe;
    probe.name = entry.key;
    probe.where = context.Where(entry);
    const MapFields probe_map(reader, entry, "probe '" + entry.key + "'");
    probe_map.CheckKeys(KeysOf({"output", "probes", ""}));
    const Field object = probe_map.Require("object");
    probe.object = reader.Text(object);
    if (std::find(objects.begin(), objects.end(), probe.object) == objects.end()) {
      reader.Fail(object, "undefined object '" + probe.object +
                              "' (defined: " + (objects.empty() ? "none" : JoinNames(objects)) + ")" +
                              DidYouMean(probe.object, objects));
    }
    probe.quantity = reader.Choice(probe_map.Require("quantity"), "probe quantity", ProbeQuantityNames());
    scene.probes.push_back(probe);
  }
}

// A viewpoint: eye, target and field of view.
CameraDesc ParseCamera(const ParseContext& context, const Field& entry) {
  const Reader& reader = context.reader();
  context.CheckName(entry, "camera");
  CameraDesc camera;
  camera.name = entry.key;
  camera.where = context.Where(entry);
  const std::string what = "camera '" + entry.key + "'";
  const MapFields map(reader, entry, what);
  map.CheckKeys(KeysOf({"cameras", ""}));
  map.Read("eye", camera.eye);
  map.Read("target", camera.target);
  map.ReadEntryRows("cameras.*.", &SceneDesc::cameras, camera);  // the field of view
  double distance2 = 0;
  for (int a = 0; a < 3; ++a) distance2 += (camera.eye[a] - camera.target[a]) * (camera.eye[a] - camera.target[a]);
  if (!(distance2 > 0)) {
    const auto eye = map.Find("eye");
    reader.FailAtKey(eye ? *eye : entry,
                     what + ": 'eye' and 'target' are the same point; the camera needs a direction");
  }
  return camera;
}

}  // namespace ductile::scene
