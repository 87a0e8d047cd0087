// From an engine Snapshot to a RenderScene (docs/architecture.md, "Snapshot and rendering"): particles coloured by the
// chosen field, as each object's reconstructed surface or as beads, every rigid shape as a lit mesh at its pose, the
// ground grid, the MPM domain's outline and contact-force arrows.
#pragma once

#include <string>

#include "ductile/render/render_scene.h"
#include "ductile/scene.h"
#include "ductile/snapshot.h"

namespace ductile::render {

/// What the particles' colour shows.
enum class ColorMode { kMaterial, kSpeed, kVonMises, kPlasticStrain };

/// The colour mode a name denotes ("material", "speed", "stress", "plastic"); false when unknown.
bool ParseColorMode(const std::string& name, ColorMode& mode);
const char* ColorModeName(ColorMode mode);

/// How the particles of continua (every MPM object but cloth) are drawn.
enum class ParticleStyle {
  /// A surface reconstructed around each object's particles (particle_surface.h), lit, shadowed and coloured per
  /// vertex with the particles' colours (the colour mode's too, averaged). Fluids are translucent (their opacity
  /// grows with the water's thickness behind the surface); sand (Drucker-Prager) keeps its grid's bumps and a grain.
  kSurface,
  kBeads,  ///< One shaded sphere per particle.
};

/// The particle style a name denotes ("surface", "beads"); false when unknown.
bool ParseParticleStyle(const std::string& name, ParticleStyle& style);
const char* ParticleStyleName(ParticleStyle style);

struct ViewOptions {
  ParticleStyle particle_style = ParticleStyle::kSurface;
  ColorMode color_mode = ColorMode::kMaterial;
  /// Field value drawn at the top of the colour map (m/s, Pa or -); 0 = the snapshot's largest value.
  float color_range = 0;
  bool show_contact_forces = true;
  /// Arrow length per newton [m/N]; 0 = automatic: the largest force is drawn a quarter of the scene's size long.
  float force_scale = 0;
  bool show_domain = true;  ///< The MPM domain's walls as lines.
  int selected_body = -1;   ///< Index into Snapshot::bodies drawn highlighted, −1 none.
  /// Leave out particles that other particles hide from every direction (inside a solid block): they do not
  /// change the picture, and a CPU device spends as long rejecting them as drawing the rest. Beads only.
  bool cull_hidden_particles = true;
  /// Draw cloth vertices as particles too (the bead view); by default a cloth is drawn as its mesh only.
  bool cloth_as_particles = false;
};

/// The camera of a scene's camera preset (`cameras:` in the scene file).
Camera CameraOf(const CameraDesc& preset);

/// A camera that frames the snapshot's particles and shapes from the front-right and above.
Camera FrameSnapshot(const Snapshot& snapshot, float aspect);

/// The RenderScene of a snapshot, seen by `camera`.
RenderScene BuildRenderScene(const Snapshot& snapshot, const ViewOptions& options, const Camera& camera);

/// The largest distance of a shape's surface from its frame origin [m] (0 for planes): its bounding sphere, for
/// framing the camera and for picking.
float ShapeReach(const SnapshotShape& shape);

/// The colour map of the scalar modes: dark blue through cyan, green and yellow to red, t ∈ [0, 1] (clamped).
Rgba ColorMap(float t);

}  // namespace ductile::render
