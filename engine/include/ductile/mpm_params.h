// The plain data of an MPM model that the public Model holds (ductile/model.h): each material's constants, the
// domain walls' condition and the kinds of boundary. The kernels read them as they are (mpm/constitutive/,
// mpm/boundary.h); a collider's placement is internal (mpm::Collider).
#pragma once

#include <cstdint>

namespace ductile::mpm {

/// The constitutive model of a material; each has its own file in constitutive/.
enum class MaterialModel : std::int32_t {
  kFixedCorotated = 0,   ///< Stomakhin et al. 2012; elastic.
  kLinearCorotated = 1,  ///< Zong, Jiang, Han 2024, Sec. VI; von Mises plasticity (dough).
  kStvkHencky = 2,       ///< St. Venant-Kirchhoff on Hencky strain with von Mises plasticity (metal, clay).
  kDruckerPrager = 3,    ///< Klár et al. 2016 sand: StVK-Hencky elasticity, Drucker-Prager return map.
  kFluid = 4,            ///< Weakly compressible fluid: Tait equation of state, optional viscosity.
  /// Cloth (Jiang, Gast, Teran 2017): the particles are a triangle mesh's vertices, which carry its mass and no
  /// stress of their own; the mesh's triangles (ClothElement) carry the deformation and push on them.
  kCloth = 5,
};

/// Constants of one material, in SI units.
struct MaterialParams {
  MaterialModel model = MaterialModel::kFixedCorotated;
  float mu = 0;              ///< Lamé shear modulus μ = E / (2(1 + ν)) [Pa].
  float lambda = 0;          ///< Lamé first parameter λ = Eν / ((1 + ν)(1 − 2ν)) [Pa].
  float density = 0;         ///< Rest density ρ [kg/m³].
  float yield_stress = 0;    ///< η [Pa]: von Mises bound on the Frobenius norm of the deviatoric stress; 0 = elastic.
  float friction_alpha = 0;  ///< Drucker-Prager α = √(2/3)·2 sin φ / (3 − sin φ), φ the friction angle.
  float cohesion = 0;        ///< Drucker-Prager cohesion as a Hencky volumetric strain shift [-] (0 = dry sand).
  float bulk_modulus = 0;    ///< Fluid bulk modulus κ [Pa] of the Tait equation p = κ (J^−γ − 1).
  float gamma = 7;           ///< Fluid Tait exponent γ [-].
  float viscosity = 0;       ///< Fluid dynamic viscosity [Pa·s].
  float cloth_shear = 0;     ///< Cloth: γ [Pa], the transverse direction's resistance to shearing against the sheet.
  float cloth_normal = 0;    ///< Cloth: k [Pa], the resistance to compression through the sheet.
  float cloth_friction = 0;  ///< Cloth: c_F [-], Coulomb friction between layers (the return map's cap).
  float cloth_implicit = 0;  ///< Cloth: θ, the implicit weight of the in-plane force (mpm/cloth_implicit.cpp).
};

/// A cloth triangle (Jiang, Gast, Teran 2017, Sec. 4): its three vertex particles (by index at t = 0) and its rest
/// shape in its own plane. F = [d₁ d₂ d₃] D⁻¹ with d₁ = x₁ − x₀, d₂ = x₂ − x₀ and D = [[D̂, 0], [0, 1]].
struct ClothElement {
  std::int32_t vertex[3] = {0, 0, 0};
  std::int32_t material = 0;  ///< Index into Model::materials (a kCloth material).
  /// D̂⁻¹, upper triangular: (0,0), (0,1), (1,1). D̂ = [[‖E₁‖, E₁·E₂/‖E₁‖], [0, ‖E₁ × E₂‖/‖E₁‖]] from the rest edges.
  float rest_inverse[3] = {1, 0, 1};
  float volume = 0;  ///< Rest area × thickness [m³].
};

/// How a grid boundary acts on the velocity of a node it holds (mpm/boundary.h, ApplyBoundary).
enum class BoundaryKind : std::int32_t { kSticky = 0, kSlip = 1, kSeparate = 2, kFriction = 3 };

enum class ColliderShape : std::int32_t { kPlane = 0, kBox = 1, kSphere = 2, kCylinder = 3 };

/// Domain walls: every node outside [domain_min, domain_max] gets this condition.
struct WallParams {
  BoundaryKind kind = BoundaryKind::kSeparate;
  float friction = 0;
};

}  // namespace ductile::mpm
