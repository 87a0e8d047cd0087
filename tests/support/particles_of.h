// A simulator's MPM particles for tests, in storage order. Not public API (Simulator has no particles()): the
// Python module and the tools read them through the State's MPM part, as here.
#pragma once

#include "ductile/simulator.h"
#include "mpm/particles.h"
#include "state/state_data.h"

namespace ductile::testing {

inline const mpm::Particles& ParticlesOf(const Simulator& sim) {
  return sim.state().data().mpm.particles;
}

}  // namespace ductile::testing
