// Snapshot: an immutable copy of what the renderer, the plots and the recorder need from one simulated instant
// (docs/architecture.md, "Snapshot and rendering"). Plain data with no engine internals, so a Snapshot can cross
// threads (the studio publishes one per step through a triple buffer) and the renderer can depend on this header alone.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ductile/kinds.h"
#include "ductile/telemetry.h"

namespace ductile {

/// A triangle mesh of a drawn shape, in its geometry frame, shared between snapshots.
struct SnapshotMesh {
  std::vector<std::array<float, 3>> vertices;           ///< [m].
  std::vector<std::array<std::uint32_t, 3>> triangles;  ///< Counter-clockwise seen from outside.
};

/// One drawn rigid shape at its current world pose.
struct SnapshotShape {
  std::string name;
  int body = -1;  ///< Index into Snapshot::bodies, −1 for static geometry.
  ShapeType type = ShapeType::kBox;
  std::array<float, 3> half_extents{};          ///< Box [m].
  float radius = 0;                             ///< Sphere, cylinder, capsule [m].
  float length = 0;                             ///< Cylinder, capsule along the shape's z axis, without caps [m].
  std::shared_ptr<const SnapshotMesh> mesh;     ///< Mesh shapes.
  std::array<float, 3> position{};              ///< Shape frame origin in the world [m].
  std::array<float, 4> quaternion{1, 0, 0, 0};  ///< Shape frame orientation (w, x, y, z). Planes: z is the normal.
  std::array<float, 4> rgba{0.7f, 0.7f, 0.7f, 1.0f};
};

/// One rigid body (or robot link) that moves: its pose and contact load after the last step.
struct SnapshotBody {
  std::string name;
  std::array<float, 3> position{};              ///< Body origin [m].
  std::array<float, 4> quaternion{1, 0, 0, 0};  ///< (w, x, y, z).
  std::array<float, 3> contact_force{};         ///< Mean over the last step, rigid-rigid plus MPM [N], world.
  int mpm_contacts = 0;
};

/// MPM particles in id order (the order of Model::x0), with the per-particle fields the colour modes use.
struct SnapshotParticles {
  std::vector<std::array<float, 3>> position;  ///< [m].
  std::vector<float> speed;                    ///< [m/s].
  std::vector<std::array<float, 3>> velocity;  ///< [m/s] (for exports; the renderer reads `speed`).
  std::vector<float> von_mises;                ///< von Mises equivalent of the Cauchy stress [Pa]; may be empty.
  std::vector<float> plastic_strain;           ///< Accumulated plastic strain [-].
  std::vector<std::int32_t> material;          ///< Index into Snapshot::material_names.
  std::vector<std::int32_t> object;            ///< Index into Snapshot::object_names.
  float radius = 0;                            ///< Drawn radius: half the particle spacing at rest [m].
};

/// A cloth's triangle mesh (Model::cloth_elements of one object): its vertices are the particles with ids
/// [first_particle, first_particle + num_vertices), in SnapshotParticles.
struct SnapshotCloth {
  int object = 0;  ///< Index into Snapshot::object_names.
  int first_particle = 0;
  int num_vertices = 0;
  std::vector<std::array<std::uint32_t, 3>> triangles;  ///< Local vertex indices, counter-clockwise about d₃ at rest.
};

/// A soft or affine body of the FEM–IPC domain (Model::fem): its contact surface in the world now.
struct SnapshotSoftBody {
  std::string name;
  bool affine = false;                         ///< An affine (rigid) body; else a soft body.
  std::vector<std::array<float, 3>> vertices;  ///< World [m].
  /// Counter-clockwise seen from outside, shared between snapshots.
  std::shared_ptr<const std::vector<std::array<std::uint32_t, 3>>> triangles;
  std::vector<float> von_mises;  ///< Per vertex: von Mises stress of the tets around it [Pa]; empty for affine bodies.
  /// A pd body's skeleton as line segments (world [m]): per bone the span of its vertices along their principal axis,
  /// and from a revolute joint (where the parent has moved it) to the bone's nearer end; empty without bones.
  std::vector<std::array<std::array<float, 3>, 2>> bones;
  /// Drawing colour; an alpha below 1 draws the surface translucent, so that the bones inside show.
  std::array<float, 4> rgba{0.85f, 0.45f, 0.35f, 1.0f};
};

/// The constants a material runs with (after live edits).
struct SnapshotMaterial {
  MaterialModelDesc model = MaterialModelDesc::kFixedCorotated;  ///< How the renderer draws its surface.
  double youngs_modulus = 0;                                     ///< E [Pa] (solids; 0 for fluids).
  double poisson_ratio = 0;                                      ///< ν (solids).
  double density = 0;                                            ///< ρ [kg/m³].
  double yield_stress = 0;                                       ///< [Pa]; 0 = elastic.
  double friction = -1;                                          ///< μ against rigid geometry; negative = not set.
};

struct Snapshot {
  double time = 0;          ///< Simulated time [s].
  std::int64_t step = 0;    ///< Steps since the last reset.
  double dt = 0;            ///< The step Δt in force [s].
  int substeps = 0;         ///< MPM substeps N in force.
  StepTelemetry telemetry;  ///< The last step's measurements.
  SnapshotParticles particles;
  std::vector<SnapshotCloth> cloths;          ///< Drawn as meshes through their vertex particles.
  std::vector<SnapshotSoftBody> soft_bodies;  ///< The FEM–IPC domain's bodies, drawn as lit surfaces.
  std::vector<std::string> material_names;
  std::vector<std::array<float, 4>> material_rgba;  ///< Display colour per material.
  std::vector<SnapshotMaterial> materials;          ///< Constants per material, same order.
  std::vector<std::string> object_names;
  std::vector<SnapshotBody> bodies;
  std::vector<SnapshotShape> shapes;
  bool perturbing = false;                ///< A mouse spring is active:
  std::array<float, 3> perturb_anchor{};  ///< the grabbed point now [m]
  std::array<float, 3> perturb_target{};  ///< and where it is pulled [m].
  std::array<float, 3> domain_min{};      ///< MPM domain walls [m].
  std::array<float, 3> domain_max{};
  float grid_spacing = 0;  ///< MPM grid spacing h [m].
};

}  // namespace ductile
