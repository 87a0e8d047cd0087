// The pieces of CompileModel that a live edit (Simulator::SetParameter) derives again after a parameter changed, so
// that an edited model holds bitwise the numbers that CompileModel gives a scene with the new value.
#pragma once

#include <Eigen/Core>

#include "ductile/model.h"
#include "mpm/boundary.h"  // mpm::Collider

namespace ductile {

/// Throws SceneError at `where` with `message` (the compile steps' refusals name the scene entry).
[[noreturn]] void Fail(const SourceLocation& where, const std::string& message);

/// A mesh shape's file as a closed or open surface in its frame: its used vertices, scaled by `mesh_scale`, and its
/// triangles (compile_cloth.cpp).
void FileMesh(const ShapeDesc& shape, std::vector<Eigen::Vector3d>& vertices, std::vector<std::array<int, 3>>& faces);

/// The constants the MPM kernels read: the Lamé parameters μ = E/(2(1 + ν)) and λ = Eν/((1 + ν)(1 − 2ν)), the
/// Drucker-Prager α = √(2/3)·2 sin φ/(3 − sin φ) (Klár et al. 2016), the fluid's κ, γ and viscosity.
mpm::MaterialParams CompileMaterial(const MaterialDesc& material);

/// The time-stepping fields of `model`: Δt, N, duration, output rate, gravity, CFL number and threads.
void CompileSimulation(const SimulationDesc& simulation, Model& model);

/// The boundary condition of the domain walls.
mpm::WallParams CompileWalls(const BoundaryDesc& walls);

/// A static analytic collider. Throws SceneError for a mesh or capsule collider.
mpm::Collider CompileCollider(const ColliderDesc& collider);

/// The rest volume h³/ppc [m³] of a particle of an object seeded with `particles_per_cell` on a grid of spacing h.
double ParticleVolume(double h, int particles_per_cell);

/// The mass ρ·V [kg] of a particle of rest volume V [m³] of `material`.
double ParticleMass(double volume, const mpm::MaterialParams& material);

/// Appends a particle of object `object_index` (scene entry `desc`) at x_W with its mass and rest volume (stored as
/// float) and the object's velocity. Throws SceneError naming the object when x_W lies outside the grid domain.
void AddParticle(const SceneDesc& scene, const MpmObjectDesc& desc, int object_index, const Eigen::Vector3d& x_W,
                 double mass, double volume, Model& model);

/// A cloth object (compile_cloth.cpp): a particle at every vertex of its sheet, with its share of the triangles'
/// mass, the triangles (Model::cloth_elements) and the pinned vertex groups (Model::pin_groups). Throws SceneError
/// when a vertex lies outside the grid domain or a pin group selects no vertex.
void CompileCloth(const SceneDesc& scene, const MpmObjectDesc& object, int object_index, Model& model);

/// Sets the masses of the particles of `scene.objects[object]` in `model` and the object's total mass from its
/// material's density, as the sampling does.
void CompileObjectMasses(const SceneDesc& scene, int object, Model& model);

}  // namespace ductile
