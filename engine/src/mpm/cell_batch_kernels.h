// The MLS-MPM transfers of transfer_kernels.h for up to eight particles that share one stencil base node (one
// grid cell), CPU only, AVX2 with FMA. The sparse grid sorts each block's particles by cell, so a block's particles
// come in runs that touch the same 27 nodes; one run is one batch with a particle per SIMD lane:
//
//   G2P: every node value is loaded once and broadcast to the eight lanes, instead of being loaded per particle;
//   P2G: the eight lanes' contributions to a node are summed in registers (a horizontal add) and added to the node
//        once, instead of eight read-modify-writes of the node.
//
// Same mathematics as ScatterParticle and GatherParticle (weights, APIC and MLS terms), with fused multiply-adds,
// so results differ from the per-particle kernels at round-off level. Unused lanes carry zero mass and momentum
// (P2G) or a valid offset whose result is ignored (G2P).
#pragma once

#if defined(__AVX2__) && defined(__FMA__) && !defined(__CUDACC__)
#define DUCTILE_CELL_BATCH 1

#include <immintrin.h>

#include <cstddef>
#include <type_traits>

#include "core/float4.h"
#include "mpm/transfer_kernels.h"

namespace ductile::mpm {

/// Particles per batch: one AVX2 register of floats.
inline constexpr int kCellBatch = 8;

/// Per-lane weights and node offsets of a batch. With f = x̂ − base per axis (the particle's offset from the shared
/// base node, in cells): w[axis][o] the quadratic B-spline weight of node offset o, d[axis][o] = (o − f)·h [m].
struct CellBatchStencil {
  __m256 w[3][3];
  __m256 d[3][3];
};

/// Weights and offsets of the lanes' particles; fx[axis][lane] ∈ [½, 3/2).
inline void CellBatchWeights(const float (&fx)[3][kCellBatch], float h, CellBatchStencil& s) {
  const __m256 hv = _mm256_set1_ps(h);
  for (int a = 0; a < 3; ++a) {
    const __m256 f = _mm256_load_ps(fx[a]);
    const __m256 d0 = _mm256_sub_ps(_mm256_set1_ps(1.5f), f);
    const __m256 d1 = _mm256_sub_ps(f, _mm256_set1_ps(1.0f));
    const __m256 d2 = _mm256_sub_ps(f, _mm256_set1_ps(0.5f));
    s.w[a][0] = _mm256_mul_ps(_mm256_set1_ps(0.5f), _mm256_mul_ps(d0, d0));
    s.w[a][1] = _mm256_fnmadd_ps(d1, d1, _mm256_set1_ps(0.75f));
    s.w[a][2] = _mm256_mul_ps(_mm256_set1_ps(0.5f), _mm256_mul_ps(d2, d2));
    for (int o = 0; o < 3; ++o) s.d[a][o] = _mm256_mul_ps(_mm256_sub_ps(_mm256_set1_ps(static_cast<float>(o)), f), hv);
  }
}

/// G2P of a batch: v[c][lane] = Σ w_ip v_i,c and C[r][c][lane] = (4/h²) Σ w_ip v_i,r (x_i − x_p)_c.
/// `corner` is the 6x6x6 window's node at the shared base (velocity in lanes 0-2 of each Float4).
inline void GatherCellBatch(const CellBatchStencil& s, const Float4* corner, float inv_h, float (&v)[3][kCellBatch],
                            float (&C)[3][3][kCellBatch]) {
  __m256 wij[9], wij_dx[9], wij_dy[9], wz_dz[3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      wij[3 * i + j] = _mm256_mul_ps(s.w[0][i], s.w[1][j]);
      wij_dx[3 * i + j] = _mm256_mul_ps(wij[3 * i + j], s.d[0][i]);
      wij_dy[3 * i + j] = _mm256_mul_ps(wij[3 * i + j], s.d[1][j]);
    }
  for (int k = 0; k < 3; ++k) wz_dz[k] = _mm256_mul_ps(s.w[2][k], s.d[2][k]);
  const __m256 scale = _mm256_set1_ps(4.0f * inv_h * inv_h);
  const float* base = reinterpret_cast<const float*>(corner);
  // One velocity component at a time keeps the accumulators in registers.
  for (int r = 0; r < 3; ++r) {
    __m256 vr = _mm256_setzero_ps(), bx = _mm256_setzero_ps(), by = _mm256_setzero_ps(), bz = _mm256_setzero_ps();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        __m256 row = _mm256_setzero_ps(), row_z = _mm256_setzero_ps();
        for (int k = 0; k < 3; ++k) {
          const __m256 node = _mm256_broadcast_ss(base + 4 * WindowIndex(i, j, k) + r);
          row = _mm256_fmadd_ps(s.w[2][k], node, row);
          row_z = _mm256_fmadd_ps(wz_dz[k], node, row_z);
        }
        const int ij = 3 * i + j;
        vr = _mm256_fmadd_ps(wij[ij], row, vr);
        bx = _mm256_fmadd_ps(wij_dx[ij], row, bx);
        by = _mm256_fmadd_ps(wij_dy[ij], row, by);
        bz = _mm256_fmadd_ps(wij[ij], row_z, bz);
      }
    _mm256_store_ps(v[r], vr);
    _mm256_store_ps(C[r][0], _mm256_mul_ps(bx, scale));
    _mm256_store_ps(C[r][1], _mm256_mul_ps(by, scale));
    _mm256_store_ps(C[r][2], _mm256_mul_ps(bz, scale));
  }
}

/// P2G of a batch: adds Σ_lanes w_ip (m_p v_p + A_p (x_i − x_p), m_p) to each of the 27 nodes from `corner` in the
/// window (momentum in lanes 0-2, mass in lane 3). mv[c][lane] = m_p v_p,c; A[r][c][lane] the affine momentum.
inline void ScatterCellBatch(const CellBatchStencil& s, const float (&mass)[kCellBatch],
                             const float (&mv)[3][kCellBatch], const float (&A)[3][3][kCellBatch], Float4* corner) {
  __m256 a[3][3];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) a[r][c] = _mm256_load_ps(A[r][c]);
  const __m256 m = _mm256_load_ps(mass);
  __m256 t_i[3];
  for (int i = 0; i < 3; ++i) {
    for (int r = 0; r < 3; ++r) t_i[r] = _mm256_fmadd_ps(a[r][0], s.d[0][i], _mm256_load_ps(mv[r]));
    for (int j = 0; j < 3; ++j) {
      __m256 t_ij[3];
      for (int r = 0; r < 3; ++r) t_ij[r] = _mm256_fmadd_ps(a[r][1], s.d[1][j], t_i[r]);
      const __m256 w_ij = _mm256_mul_ps(s.w[0][i], s.w[1][j]);
      for (int k = 0; k < 3; ++k) {
        const __m256 w = _mm256_mul_ps(w_ij, s.w[2][k]);
        const __m256 qx = _mm256_mul_ps(_mm256_fmadd_ps(a[0][2], s.d[2][k], t_ij[0]), w);
        const __m256 qy = _mm256_mul_ps(_mm256_fmadd_ps(a[1][2], s.d[2][k], t_ij[1]), w);
        const __m256 qz = _mm256_mul_ps(_mm256_fmadd_ps(a[2][2], s.d[2][k], t_ij[2]), w);
        const __m256 qm = _mm256_mul_ps(m, w);
        // Lane sums of the four: [Σqx, Σqy, Σqz, Σqm].
        const __m256 xy = _mm256_hadd_ps(qx, qy);
        const __m256 zm = _mm256_hadd_ps(qz, qm);
        const __m256 xyzm = _mm256_hadd_ps(xy, zm);
        const __m128 sum = _mm_add_ps(_mm256_castps256_ps128(xyzm), _mm256_extractf128_ps(xyzm, 1));
        Float4& node = corner[WindowIndex(i, j, k)];
        node = node + reinterpret_cast<const Float4&>(sum);
      }
    }
  }
}

/// out[e][lane] = records[stride · index[lane] + e] for e < N: N consecutive floats of each lane's particle record
/// (a Vec3f or a Mat3f in a per-particle array), one AVX2 gather per e instead of eight scalar loads and stores.
template <int N>
inline void GatherLanes(const float* records, int stride, const int (&index)[kCellBatch], float (&out)[N][kCellBatch]) {
  const __m256i offsets =
      _mm256_mullo_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(index)), _mm256_set1_epi32(stride));
  for (int e = 0; e < N; ++e) _mm256_store_ps(out[e], _mm256_i32gather_ps(records + e, offsets, 4));
}

/// The reverse of GatherLanes for N = 3 or 9 floats or 3 ints: records[stride · index[lane] + e] = in[e][lane] for
/// e < N and the first `count` lanes. The lanes are transposed in registers (a 4x8 or 8x8 transpose) and each
/// lane's record is written with one masked or unaligned vector store (plus one scalar store for a ninth element),
/// instead of N scalar stores per lane. Only the N elements of each record are written.
///
/// Written with named registers, not arrays indexed in loops: GCC kept such arrays on the stack, half a register
/// at a time, and reloading them whole waited for those stores to drain (a store-forwarding stall per row).
template <typename T, int N>
inline void ScatterLanes(const T (&in)[N][kCellBatch], T* records, int stride, const int (&index)[kCellBatch],
                         int count) {
  static_assert(sizeof(T) == 4 && (N == 3 || (N == 9 && std::is_same_v<T, float>)));
  const float* rows = reinterpret_cast<const float*>(in);  // row e: rows[8e .. 8e + 7]
  const auto record = [&](int l) {
    return reinterpret_cast<float*>(records + static_cast<std::ptrdiff_t>(stride) * index[l]);
  };
  if constexpr (N == 3) {
    const __m256 r0 = _mm256_load_ps(rows), r1 = _mm256_load_ps(rows + 8), r2 = _mm256_load_ps(rows + 16);
    const __m256 a0 = _mm256_unpacklo_ps(r0, r1), a1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 a2 = _mm256_unpacklo_ps(r2, r2), a3 = _mm256_unpackhi_ps(r2, r2);
    // bk holds lane k's record in its low half and lane k + 4's in its high half (the fourth element is junk).
    const __m256 b0 = _mm256_shuffle_ps(a0, a2, 0x44), b1 = _mm256_shuffle_ps(a0, a2, 0xEE);
    const __m256 b2 = _mm256_shuffle_ps(a1, a3, 0x44), b3 = _mm256_shuffle_ps(a1, a3, 0xEE);
    const __m128i first3 = _mm_setr_epi32(-1, -1, -1, 0);
    const auto put = [&](int l, __m128 lane) { _mm_maskstore_ps(record(l), first3, lane); };
    if (count == kCellBatch) {
      put(0, _mm256_castps256_ps128(b0));
      put(1, _mm256_castps256_ps128(b1));
      put(2, _mm256_castps256_ps128(b2));
      put(3, _mm256_castps256_ps128(b3));
      put(4, _mm256_extractf128_ps(b0, 1));
      put(5, _mm256_extractf128_ps(b1, 1));
      put(6, _mm256_extractf128_ps(b2, 1));
      put(7, _mm256_extractf128_ps(b3, 1));
    } else {
      alignas(32) float lanes[4][8];  // whole-register stores and loads: no forwarding stall
      _mm256_store_ps(lanes[0], b0);
      _mm256_store_ps(lanes[1], b1);
      _mm256_store_ps(lanes[2], b2);
      _mm256_store_ps(lanes[3], b3);
      for (int l = 0; l < count; ++l) put(l, _mm_load_ps(&lanes[l % 4][4 * (l / 4)]));
    }
  } else {
    // 8x8 transpose of elements 0-7; element 8 one float per lane.
    const __m256 r0 = _mm256_load_ps(rows), r1 = _mm256_load_ps(rows + 8), r2 = _mm256_load_ps(rows + 16),
                 r3 = _mm256_load_ps(rows + 24), r4 = _mm256_load_ps(rows + 32), r5 = _mm256_load_ps(rows + 40),
                 r6 = _mm256_load_ps(rows + 48), r7 = _mm256_load_ps(rows + 56);
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    // sk (k < 4) holds elements 0-3 of lanes k and k + 4, s(k + 4) their elements 4-7.
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    const __m256 u0 = _mm256_permute2f128_ps(s0, s4, 0x20), u4 = _mm256_permute2f128_ps(s0, s4, 0x31);
    const __m256 u1 = _mm256_permute2f128_ps(s1, s5, 0x20), u5 = _mm256_permute2f128_ps(s1, s5, 0x31);
    const __m256 u2 = _mm256_permute2f128_ps(s2, s6, 0x20), u6 = _mm256_permute2f128_ps(s2, s6, 0x31);
    const __m256 u3 = _mm256_permute2f128_ps(s3, s7, 0x20), u7 = _mm256_permute2f128_ps(s3, s7, 0x31);
    const float* ninth = rows + 64;
    const auto put = [&](int l, __m256 lane) {
      float* to = record(l);
      _mm256_storeu_ps(to, lane);
      to[8] = ninth[l];
    };
    if (count == kCellBatch) {
      put(0, u0);
      put(1, u1);
      put(2, u2);
      put(3, u3);
      put(4, u4);
      put(5, u5);
      put(6, u6);
      put(7, u7);
    } else {
      alignas(32) float lanes[8][8];  // whole-register stores and loads: no forwarding stall
      _mm256_store_ps(lanes[0], u0);
      _mm256_store_ps(lanes[1], u1);
      _mm256_store_ps(lanes[2], u2);
      _mm256_store_ps(lanes[3], u3);
      _mm256_store_ps(lanes[4], u4);
      _mm256_store_ps(lanes[5], u5);
      _mm256_store_ps(lanes[6], u6);
      _mm256_store_ps(lanes[7], u7);
      for (int l = 0; l < count; ++l) put(l, _mm256_load_ps(lanes[l]));
    }
  }
}

/// Grid coordinates x̂ = (x − origin)/h of eight lanes along one axis, clamped as LocateStencil clamps them: to
/// [½, upper], a NaN to ½.
inline __m256 GridCoordinateBatch(const float (&x)[kCellBatch], float origin, float inv_h, float upper) {
  const __m256 xg = _mm256_mul_ps(_mm256_sub_ps(_mm256_load_ps(x), _mm256_set1_ps(origin)), _mm256_set1_ps(inv_h));
  return _mm256_min_ps(_mm256_max_ps(xg, _mm256_set1_ps(0.5f)), _mm256_set1_ps(upper));  // max: ½ for a NaN
}

/// LocateStencil along one axis for eight lanes: from positions x [m], the base node and x̂ − base.
inline void LocateCellBatch(const float (&x)[kCellBatch], float origin, float inv_h, float upper,
                            int (&base)[kCellBatch], float (&fx)[kCellBatch]) {
  const __m256 xg = GridCoordinateBatch(x, origin, inv_h, upper);
  const __m256i b = _mm256_cvttps_epi32(_mm256_floor_ps(_mm256_sub_ps(xg, _mm256_set1_ps(0.5f))));
  _mm256_store_si256(reinterpret_cast<__m256i*>(base), b);
  _mm256_store_ps(fx, _mm256_sub_ps(xg, _mm256_cvtepi32_ps(b)));
}

/// x̂ − base along one axis for eight lanes whose stencil base is `base` (LocateCellBatch's fx, bitwise, when
/// the lanes lie in that cell).
inline void CellOffsetBatch(const float (&x)[kCellBatch], float origin, float inv_h, float upper, int base,
                            float (&fx)[kCellBatch]) {
  const __m256 xg = GridCoordinateBatch(x, origin, inv_h, upper);
  _mm256_store_ps(fx, _mm256_sub_ps(xg, _mm256_set1_ps(static_cast<float>(base))));
}

}  // namespace ductile::mpm

#endif
