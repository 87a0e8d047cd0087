#include "mpm/particles.h"

#include <tbb/parallel_for.h>

namespace ductile::mpm {

void GatherParticles(const Particles& in, const std::vector<std::int32_t>& order, Particles& out) {
  const std::size_t n = order.size();
  out.Resize(n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
    ForEachParticleField(
        [&](const ParticleField&, auto& to, const auto& from) {
          for (std::size_t i = r.begin(); i != r.end(); ++i) to[i] = from[order[i]];
        },
        out, in);
  });
}

std::vector<std::int32_t> IndexById(const Particles& p) {
  std::vector<std::int32_t> index(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) index[p.id[i]] = static_cast<std::int32_t>(i);
  return index;
}

}  // namespace ductile::mpm
