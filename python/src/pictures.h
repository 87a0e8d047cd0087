// Frames, videos and exports for the Python module (docs/python.md, "Frames and video", "Export"): a simulator's
// state drawn by the offscreen Vulkan renderer into a NumPy array, an H.264 MP4 writer of such arrays, and the
// HDF5 + XDMF export of ductile-cli run --export (ductile/record/frame_export.h).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // every file of the module casts std::vector alike (one caster, no ODR clash)

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ductile/record/frame_export.h"
#include "ductile/record/video_encoder.h"
#include "ductile/render/renderer.h"
#include "ductile/render/snapshot_scene.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"
#include "ductile/snapshot.h"

namespace ductile::python {

/// Holds `mutex` for one call from Python on an object whose calls release the GIL (a step, a frame, a video
/// frame's encoding): a call from another thread meanwhile waits for it, with the GIL released while it waits so
/// that the holder can take the GIL back and finish.
class CallLock {
 public:
  explicit CallLock(std::mutex& mutex) : lock_(mutex, std::try_to_lock) {
    if (!lock_.owns_lock()) {
      pybind11::gil_scoped_release release;
      lock_.lock();
    }
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

/// One simulator's renderer, made at the first frame and kept while the size and sample count stay.
class FrameRenderer {
 public:
  /// Draws `sim` into an H x W x 3 uint8 RGB array. `camera`: None (the scene's first camera preset, else a framing
  /// of the state at the first frame, kept for later ones), a preset's name, or a dict with "eye", "target" and
  /// optionally "fov" [deg]. `color`: material, speed, stress or plastic; `particles`: surface or beads.
  /// `depth`: return (rgb, depth) instead, depth an H x W float32 array of distances along the viewing axis [m]
  /// (OffscreenRenderer::RenderWithDepth), inf where nothing opaque is.
  pybind11::object Render(const Simulator& sim, const SceneDesc& scene, int width, int height,
                          const pybind11::object& camera, const std::string& color, const std::string& particles,
                          int samples, bool depth);

 private:
  render::Camera CameraFor(const SceneDesc& scene, const pybind11::object& camera, float aspect);

  // One sample per pixel: one renderer that keeps the depth too (it costs a stored depth image). More: a
  // multisampled one for the colour and, when a depth image is asked for, a one-sample one beside it (a
  // multisampled depth image cannot be read back).
  std::unique_ptr<render::OffscreenRenderer> renderer_, depth_renderer_;
  int width_ = 0, height_ = 0, samples_ = 0;
  std::optional<render::Camera> framed_;  // the automatic camera, fixed at the first frame
  Snapshot snapshot_;
};

/// An MP4 (H.264) of frames handed over as H x W x 3 or 4 uint8 arrays.
class VideoWriter {
 public:
  VideoWriter(const std::string& path, int width, int height, int fps);
  void Write(const pybind11::array_t<std::uint8_t, pybind11::array::c_style | pybind11::array::forcecast>& frame);
  void Close();
  std::int64_t frames() const {
    CallLock hold(mutex_);
    return encoder_.frames_pushed();
  }

 private:
  record::VideoEncoder encoder_;
  std::string path_;
  mutable std::mutex mutex_;  // held by Write, Close and frames (CallLock)
};

/// Adds VideoWriter and Exporter to the module.
void BindVideoWriter(pybind11::module_& m);
/// `with_simulator(sim, f)` calls f with the engine Simulator of the Python Simulator object `sim`, held from other
/// threads' calls meanwhile.
using WithSimulator = std::function<void(const pybind11::object&, const std::function<void(const Simulator&)>&)>;
void BindExporter(pybind11::module_& m, const WithSimulator& with_simulator);

}  // namespace ductile::python
