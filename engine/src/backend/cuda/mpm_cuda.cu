// CUDA launches of the shared MPM kernels. Dense grid, one thread per particle (P2G with atomicAdd, G2P) and per
// node (grid update). Summation order in P2G differs from the CPU's block-colour order, so results agree with
// the CPU backend to float round-off, not bitwise.
#include <cuda_runtime.h>

#include <stdexcept>
#include <vector>

#include "backend/cuda/mpm_cuda.h"
#include "mpm/constitutive/constitutive.h"
#include "mpm/grid_kernels.h"
#include "mpm/model_views.h"
#include "mpm/transfer_kernels.h"

namespace ductile::cuda {
namespace {

void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA ") + what + ": " + cudaGetErrorString(e));
}

template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n) : n_(n) { Check(cudaMalloc(&ptr_, n * sizeof(T) + 1), "malloc"); }
  ~DeviceArray() { cudaFree(ptr_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() { return ptr_; }
  void Upload(const T* host) { Check(cudaMemcpy(ptr_, host, n_ * sizeof(T), cudaMemcpyHostToDevice), "upload"); }
  void Download(T* host) const { Check(cudaMemcpy(host, ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "download"); }
  void Zero() { Check(cudaMemset(ptr_, 0, n_ * sizeof(T)), "memset"); }

 private:
  T* ptr_ = nullptr;
  std::size_t n_;
};

struct GridView {
  int nodes[3];
  int max_base[3];
  Vec3f origin;
  float h, inv_h;
  Float4* node;  // momentum (then velocity) in lanes 0-2, mass in lane 3
  __device__ int Index(int i, int j, int k) const { return (i * nodes[1] + j) * nodes[2] + k; }
};

__global__ void ParticleToGridKernel(int n, GridView g, const Vec3f* x, const Vec3f* v, const Mat3f* F, const Mat3f* C,
                                     const float* mass, const float* volume, const int* material,
                                     const mpm::MaterialParams* materials, float dt) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  mpm::Stencil s;
  mpm::ComputeStencil(x[p], g.origin, g.inv_h, g.max_base, s);
  const Mat3f tau = mpm::KirchhoffStress(materials[material[p]], F[p], C[p]);
  const Mat3f A = mpm::AffineMomentum(mass[p], volume[p], C[p], tau, dt, g.inv_h);
  mpm::ScatterParticle(s, g.h, mass[p], v[p], A, [&](int di, int dj, int dk, const Float4& q) {
    Float4& node = g.node[g.Index(s.base[0] + di, s.base[1] + dj, s.base[2] + dk)];
    for (int lane = 0; lane < 4; ++lane) atomicAdd(&node.v[lane], q.v[lane]);
  });
}

__global__ void GridUpdateKernel(GridView g, mpm::GridUpdateParams params) {
  const int node = blockIdx.x * blockDim.x + threadIdx.x;
  if (node >= g.nodes[0] * g.nodes[1] * g.nodes[2]) return;
  const float m = g.node[node].v[3];
  if (m <= 0) return;
  const int i = node / (g.nodes[1] * g.nodes[2]);
  const int j = (node / g.nodes[2]) % g.nodes[1];
  const int k = node % g.nodes[2];
  const Vec3f v = mpm::UpdateNodeVelocity(params, i, j, k, m, Xyz(g.node[node]));
  g.node[node] = MakeFloat4(v.x, v.y, v.z, m);
}

__global__ void GridToParticleKernel(int n, GridView g, Vec3f* x, Vec3f* v, Mat3f* F, Mat3f* C, float* plastic_strain,
                                     const int* material, const mpm::MaterialParams* materials, float dt) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  mpm::Stencil s;
  mpm::ComputeStencil(x[p], g.origin, g.inv_h, g.max_base, s);
  Vec3f vp;
  Mat3f Cp;
  mpm::GatherParticle(
      s, g.h, g.inv_h,
      [&](int di, int dj, int dk) { return g.node[g.Index(s.base[0] + di, s.base[1] + dj, s.base[2] + dk)]; }, vp, Cp);
  v[p] = vp;
  C[p] = Cp;
  x[p] += vp * dt;
  const Mat3f F_old = F[p];
  Mat3f F_new = mpm::UpdateDeformationGradient(F_old, Cp, dt);
  plastic_strain[p] += mpm::ReturnMap(materials[material[p]], F_old, F_new);
  F[p] = F_new;
}

}  // namespace

bool DeviceAvailable(std::string* reason) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    if (reason) *reason = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device";
    return false;
  }
  return true;
}

void Substep(const Model& model, mpm::Particles& particles, float dt) {
  const int n = static_cast<int>(particles.size());
  const std::size_t num_nodes =
      static_cast<std::size_t>(model.grid_nodes[0]) * model.grid_nodes[1] * model.grid_nodes[2];
  DeviceArray<Vec3f> x(n), v(n);
  DeviceArray<Float4> nodes(num_nodes);
  DeviceArray<Mat3f> F(n), C(n);
  DeviceArray<float> mass(n), volume(n), plastic(n);
  DeviceArray<int> material(n);
  DeviceArray<mpm::MaterialParams> materials(model.materials.size());
  DeviceArray<mpm::Collider> colliders(model.colliders.size());
  x.Upload(particles.x.data());
  v.Upload(particles.v.data());
  F.Upload(particles.F.data());
  C.Upload(particles.C.data());
  mass.Upload(particles.mass.data());
  volume.Upload(particles.volume.data());
  plastic.Upload(particles.plastic_strain.data());
  material.Upload(particles.material.data());
  materials.Upload(model.materials.data());
  colliders.Upload(model.colliders.data());
  nodes.Zero();

  GridView g;
  for (int a = 0; a < 3; ++a) {
    g.nodes[a] = model.grid_nodes[a];
    g.max_base[a] = model.grid_nodes[a] - 3;
  }
  g.origin = mpm::ToVec3f(model.grid_origin);
  g.h = model.h;
  g.inv_h = 1.0f / model.h;
  g.node = nodes.get();

  mpm::GridUpdateParams params = mpm::GridUpdateParamsFor(model, colliders.get());
  params.dt = dt;

  constexpr int kThreads = 256;
  const int particle_blocks = (n + kThreads - 1) / kThreads;
  const int node_blocks = static_cast<int>((num_nodes + kThreads - 1) / kThreads);
  ParticleToGridKernel<<<particle_blocks, kThreads>>>(n, g, x.get(), v.get(), F.get(), C.get(), mass.get(),
                                                      volume.get(), material.get(), materials.get(), dt);
  Check(cudaGetLastError(), "P2G launch");
  GridUpdateKernel<<<node_blocks, kThreads>>>(g, params);
  Check(cudaGetLastError(), "grid update launch");
  GridToParticleKernel<<<particle_blocks, kThreads>>>(n, g, x.get(), v.get(), F.get(), C.get(), plastic.get(),
                                                      material.get(), materials.get(), dt);
  Check(cudaGetLastError(), "G2P launch");
  Check(cudaDeviceSynchronize(), "synchronize");
  x.Download(particles.x.data());
  v.Download(particles.v.data());
  F.Download(particles.F.data());
  C.Download(particles.C.data());
  plastic.Download(particles.plastic_strain.data());
}

}  // namespace ductile::cuda
