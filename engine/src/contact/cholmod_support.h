// What the two CHOLMOD users of the strong coupling share (contact/schur_complement.cpp, contact/sparse_newton.cpp):
// a workspace that frees what it made, and a symmetric matrix's lower triangle handed to CHOLMOD without a copy.
#pragma once

#include <suitesparse/cholmod.h>

#include <cstddef>

namespace ductile::contact {

/// Asks the BLAS under CHOLMOD for one thread, once per process, when it is OpenBLAS (looked up at run time, so any
/// BLAS links): the supernodal factorisations here are small (n of about 1,000, dense blocks of tens of columns), and
/// OpenBLAS's pthread build otherwise keeps a second thread spin-waiting that competes with TBB's workers on few cores
/// (soft_cube_grasp on 2 cores: 20 ms per step against 23–27 ms; bench/results/amd-epyc-2core-ipc.md).
void UseSingleThreadedBlas();

/// A CHOLMOD workspace (cholmod_start / cholmod_finish) with the factor and the sparse matrix it made, freed with it.
struct CholmodWorkspace {
  cholmod_common common{};
  cholmod_factor* factor = nullptr;
  cholmod_sparse* sparse = nullptr;
  CholmodWorkspace() {
    UseSingleThreadedBlas();
    cholmod_start(&common);
  }
  ~CholmodWorkspace() {
    if (factor) cholmod_free_factor(&factor, &common);
    if (sparse) cholmod_free_sparse(&sparse, &common);
    cholmod_finish(&common);
  }
  CholmodWorkspace(const CholmodWorkspace&) = delete;
  CholmodWorkspace& operator=(const CholmodWorkspace&) = delete;
};

/// The n x n symmetric matrix whose lower triangle is stored compressed by column (rows sorted) in `outer` (n + 1),
/// `inner` and `values` (`nonzeros` each), as CHOLMOD reads it; the arrays must outlive the view.
inline cholmod_sparse LowerTriangleView(std::size_t n, std::size_t nonzeros, int* outer, int* inner, double* values) {
  cholmod_sparse view{};
  view.nrow = view.ncol = n;
  view.nzmax = nonzeros;
  view.p = outer;
  view.i = inner;
  view.x = values;
  view.stype = -1;  // symmetric, the lower triangle is read
  view.itype = CHOLMOD_INT;
  view.xtype = CHOLMOD_REAL;
  view.dtype = CHOLMOD_DOUBLE;
  view.sorted = 1;
  view.packed = 1;
  return view;
}

/// The column vector of `n` doubles at `x` as a CHOLMOD dense matrix (no copy; CHOLMOD only reads a right-hand
/// side); the array must outlive the view.
inline cholmod_dense DenseColumnView(std::size_t n, double* x) {
  return {
      .nrow = n, .ncol = 1, .nzmax = n, .d = n, .x = x, .z = nullptr, .xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE};
}

}  // namespace ductile::contact
