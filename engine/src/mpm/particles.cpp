#include "mpm/particles.h"

#include <tbb/parallel_for.h>

namespace ductile::mpm {

void GatherParticles(const Particles& in, const std::vector<std::int32_t>& order, Particles& out) {
  const std::size_t n = order.size();
  out.Resize(n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      const std::int32_t p = order[i];
      out.x[i] = in.x[p];
      out.v[i] = in.v[p];
      out.F[i] = in.F[p];
      out.C[i] = in.C[p];
      out.mass[i] = in.mass[p];
      out.volume[i] = in.volume[p];
      out.plastic_strain[i] = in.plastic_strain[p];
      out.material[i] = in.material[p];
      out.object[i] = in.object[p];
      out.id[i] = in.id[p];
    }
  });
}

std::vector<std::int32_t> IndexById(const Particles& p) {
  std::vector<std::int32_t> index(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) index[p.id[i]] = static_cast<std::int32_t>(i);
  return index;
}

}  // namespace ductile::mpm
