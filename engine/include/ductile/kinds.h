// The kinds of shape and of material a scene names (ductile/scene.h) and a snapshot draws (ductile/snapshot.h), in a
// header of their own so that the snapshot, plain data for the renderer and the front ends, does not include the
// scene description.
#pragma once

namespace ductile {

enum class ShapeType { kBox, kSphere, kCylinder, kMesh, kPlane, kCapsule, kSheet };

enum class MaterialModelDesc { kFixedCorotated, kLinearCorotated, kStvkHencky, kDruckerPrager, kFluid, kCloth };

}  // namespace ductile
