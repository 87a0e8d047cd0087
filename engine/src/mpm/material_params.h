// The per-material constants that the MPM kernels read, compiled from a scene's material definition.
// Plain data, copied to the device as is.
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
};

}  // namespace ductile::mpm
