// Export of a run's frames for ParaView, VisIt and Python (docs/cli.md, "--export"): one HDF5 file, DIR/frames.h5,
// written with the HDF5 library (libhdf5 from Debian), and an XDMF index of it, DIR/frames.xmf, through which ParaView
// and VisIt open the frames as a time series (XDMF 2: a temporal collection of grids whose data items point into the
// HDF5 file). h5py reads the HDF5 file directly.
//
// Why HDF5 and not VTK's XML files (.vtp per frame and a .pvd): one binary file for a run of thousands of frames
// instead of thousands of files, written by the library made for it (Debian has no small VTK XML writer; VTK itself
// is hundreds of megabytes), read by h5py, MATLAB and Julia as they are, and by ParaView through the XDMF index.
//
// Layout (every frame k = 0, 1, ... in /frames/%06d, with attributes time [s] and step):
//   /particles            attributes material_names, object_names
//   /particles/material   N int32, index into material_names (the same in every frame)
//   /particles/object     N int32, index into object_names
//   /frames/k/position    N x 3 float32 [m], particle id order (the order at t = 0)
//   /frames/k/velocity    N x 3 float32 [m/s]
//   /frames/k/von_mises   N float32 [Pa], the Cauchy stress's von Mises equivalent
//   /frames/k/plastic_strain   N float32
//   /bodies               attribute names (the reported rigid bodies)
//   /frames/k/body_position    B x 3 float64 [m], /frames/k/body_quaternion B x 4 float64 (w, x, y, z)
//   /shapes/s/triangles   T x 3 int32 (a rigid shape tessellated as the renderer draws it; planes are left out),
//                         attributes name, body (−1: static)
//   /frames/k/shapes/s    V x 3 float32, the shape's vertices in the world at frame k [m]
//   /cloth/c/triangles    T x 3 int32, indices of particles (a cloth's vertices), attribute object
//   /soft_bodies/b/triangles   T x 3 int32, a FEM–IPC body's surface (indices of its vertices), attributes name,
//                         affine (1: an affine rigid body, 0: a soft body)
//   /frames/k/soft_bodies/b/position   V x 3 float32 [m], the body's vertices in the world (a soft body's all,
//                         interior ones too; an affine body's surface)
//   /frames/k/soft_bodies/b/von_mises  V float32 [Pa], soft bodies only (the stress the studio colours by)
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "ductile/snapshot.h"

namespace ductile::record {

class FrameExporter {
 public:
  FrameExporter();
  ~FrameExporter();
  FrameExporter(const FrameExporter&) = delete;
  FrameExporter& operator=(const FrameExporter&) = delete;

  /// Creates the folder `dir` (and its parents) if needed and starts DIR/frames.h5 beside it as a temporary file.
  /// Returns an empty string, or a message naming the path and why it cannot be written.
  std::string Open(const std::filesystem::path& dir);
  /// Adds a frame: `snapshot` as Simulator::CaptureSnapshot(snapshot, true) leaves it (von Mises included). The
  /// first frame fixes the particles, shapes and cloths; later ones must have the same counts. Returns an empty
  /// string or the problem.
  std::string Write(const Snapshot& snapshot);
  /// Finishes the HDF5 file, renames it over DIR/frames.h5 and writes DIR/frames.xmf. Returns an empty string or
  /// the problem; nothing is left at the targets then but what was there before.
  std::string Close();
  /// Frames written since Open.
  int frames() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ductile::record
