// FrameRenderer and VideoWriter (pictures.h).
#include "pictures.h"

#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

namespace py = pybind11;

namespace ductile::python {

render::Camera FrameRenderer::CameraFor(const SceneDesc& scene, const py::object& camera, float aspect) {
  if (camera.is_none()) {
    if (!scene.cameras.empty()) return render::CameraOf(scene.cameras.front());
    if (!framed_) framed_ = render::FrameSnapshot(snapshot_, aspect);
    return *framed_;
  }
  if (py::isinstance<py::str>(camera)) {
    const auto name = camera.cast<std::string>();
    std::string names;
    for (const CameraDesc& preset : scene.cameras) {
      if (preset.name == name) return render::CameraOf(preset);
      names += (names.empty() ? "" : ", ") + preset.name;
    }
    throw py::key_error("no camera preset '" + name + "' in the scene (" + (names.empty() ? "none" : names) + ")");
  }
  const auto pose = camera.cast<py::dict>();
  if (!pose.contains("eye") || !pose.contains("target"))
    throw py::value_error("a camera is a preset's name or a dict with 'eye' and 'target' (and 'fov' [deg])");
  render::Camera c;
  const auto eye = pose["eye"].cast<std::vector<double>>();
  const auto target = pose["target"].cast<std::vector<double>>();
  if (eye.size() != 3 || target.size() != 3) throw py::value_error("a camera's eye and target need 3 numbers each");
  for (int a = 0; a < 3; ++a) {
    c.eye[a] = static_cast<float>(eye[static_cast<std::size_t>(a)]);
    c.target[a] = static_cast<float>(target[static_cast<std::size_t>(a)]);
  }
  if (pose.contains("fov")) c.fov_y_degrees = pose["fov"].cast<float>();
  if (!(c.fov_y_degrees > 0 && c.fov_y_degrees < 180)) throw py::value_error("a camera's fov must lie in (0, 180)");
  return c;
}

py::object FrameRenderer::Render(const Simulator& sim, const SceneDesc& scene, int width, int height,
                                 const py::object& camera, const std::string& color, const std::string& particles,
                                 int samples, bool depth) {
  render::ViewOptions view;
  if (!render::ParseColorMode(color, view.color_mode))
    throw py::value_error("color must be material, speed, stress or plastic, got '" + color + "'");
  if (!render::ParseParticleStyle(particles, view.particle_style))
    throw py::value_error("particles must be surface or beads, got '" + particles + "'");
  if (width < 16 || height < 16 || width > 16384 || height > 16384)
    throw py::value_error("a frame's width and height must lie in [16, 16384]");
  sim.CaptureSnapshot(snapshot_, view.color_mode == render::ColorMode::kVonMises);
  const render::Camera c = CameraFor(scene, camera, static_cast<float>(width) / static_cast<float>(height));
  const render::RenderScene drawn = render::BuildRenderScene(snapshot_, view, c);
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  std::vector<std::uint8_t> rgba(4 * pixels);
  py::array_t<float> distances;
  if (depth) distances = py::array_t<float>({static_cast<py::ssize_t>(height), static_cast<py::ssize_t>(width)});
  const std::span<float> depth_out(depth ? distances.mutable_data() : nullptr, depth ? pixels : 0);
  {
    py::gil_scoped_release release;
    try {
      if (!renderer_ || width != width_ || height != height_ || samples != samples_) {
        renderer_.reset();
        depth_renderer_.reset();
        renderer_ = render::OffscreenRenderer::Create(width, height, samples, true, false, samples == 1);
        width_ = width;
        height_ = height;
        samples_ = samples;
      }
      if (!depth) {
        renderer_->RenderInto(drawn, 1.0f, rgba);
      } else if (renderer_->reads_depth()) {
        renderer_->RenderWithDepth(drawn, rgba, depth_out);
      } else {
        if (!depth_renderer_) depth_renderer_ = render::OffscreenRenderer::Create(width, height, 1, true, false, true);
        renderer_->RenderInto(drawn, 1.0f, rgba);
        std::vector<std::uint8_t> unused(4 * pixels);
        depth_renderer_->RenderWithDepth(drawn, unused, depth_out);
      }
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("render: ") + e.what());
    } catch (const render::RenderError& e) {
      renderer_.reset();
      depth_renderer_.reset();
      throw std::runtime_error(std::string("render: ") + e.what());
    }
  }
  py::array_t<std::uint8_t> out({static_cast<py::ssize_t>(height), static_cast<py::ssize_t>(width), py::ssize_t{3}});
  std::uint8_t* rgb = out.mutable_data();
  // RenderInto's byte order: R, G, B, A (the renderer is not in the CPU viewport's B, G, R, A mode).
  for (std::size_t i = 0; i < pixels; ++i) std::memcpy(rgb + 3 * i, rgba.data() + 4 * i, 3);
  if (!depth) return out;
  return py::make_tuple(out, distances);
}

VideoWriter::VideoWriter(const std::string& path, int width, int height, int fps) : path_(path) {
  record::QuietEncoderLogs();  // libx264's settings and statistics would fill a notebook's output at every video
  const std::string why = encoder_.Open(path, width, height, fps);
  if (!why.empty()) throw py::value_error(why);
}

void VideoWriter::Write(const py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>& frame) {
  CallLock hold(mutex_);
  if (!encoder_.is_open()) throw py::value_error("the video " + path_ + " is closed");
  if (frame.ndim() != 3 || frame.shape(0) != encoder_.height() || frame.shape(1) != encoder_.width() ||
      (frame.shape(2) != 3 && frame.shape(2) != 4))
    throw py::value_error("a frame of " + path_ + " must be an array of shape (" + std::to_string(encoder_.height()) +
                          ", " + std::to_string(encoder_.width()) + ", 3 or 4) of uint8");
  render::Image image;
  image.width = encoder_.width();
  image.height = encoder_.height();
  image.rgba.resize(4 * static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height));
  const auto channels = static_cast<std::size_t>(frame.shape(2));
  const std::uint8_t* in = frame.data();
  for (std::size_t i = 0; i < image.rgba.size() / 4; ++i) {
    std::memcpy(image.rgba.data() + 4 * i, in + channels * i, 3);
    image.rgba[4 * i + 3] = channels == 4 ? in[channels * i + 3] : 255;
  }
  std::string why;
  {
    py::gil_scoped_release release;
    why = encoder_.Push(std::move(image));
  }
  if (!why.empty()) throw std::runtime_error(why);
}

void VideoWriter::Close() {
  CallLock hold(mutex_);
  std::string why;
  {
    py::gil_scoped_release release;
    why = encoder_.Close();
  }
  if (!why.empty()) throw std::runtime_error(why);
}

namespace {

// An export folder written frame by frame (FrameExporter).
class Exporter {
 public:
  explicit Exporter(const std::string& dir) {
    if (const std::string why = exporter_.Open(dir); !why.empty()) throw py::value_error(why);
  }
  void Write(const Simulator& sim) {
    sim.CaptureSnapshot(snapshot_, true);
    if (const std::string why = exporter_.Write(snapshot_); !why.empty()) throw std::runtime_error(why);
  }
  void Close() {
    if (const std::string why = exporter_.Close(); !why.empty()) throw std::runtime_error(why);
  }
  int frames() const { return exporter_.frames(); }

 private:
  record::FrameExporter exporter_;
  Snapshot snapshot_;
};

}  // namespace

void BindExporter(py::module_& m, const WithSimulator& with_simulator) {
  py::class_<Exporter>(m, "Exporter",
                       "Frames of a simulator into DIR/frames.h5 (HDF5) and DIR/frames.xmf (its XDMF index for "
                       "ParaView), as ductile-cli run --export; use it as a context manager or call close().")
      .def(py::init<const std::string&>(), py::arg("dir"),
           "Creates the folder if needed. Raises ValueError when it cannot be written.")
      .def(
          "write",
          [with_simulator](Exporter& e, const py::object& sim) {
            with_simulator(sim, [&e](const Simulator& held) { e.Write(held); });
          },
          py::arg("sim"), "Adds the simulator's current state as a frame.")
      .def("close", &Exporter::Close, "Finishes frames.h5 and writes frames.xmf (both appear only then).")
      .def_property_readonly("frames", &Exporter::frames)
      .def("__enter__", [](Exporter& e) -> Exporter& { return e; })
      .def("__exit__", [](Exporter& e, const py::args&) { e.Close(); });
}

void BindVideoWriter(py::module_& m) {
  py::class_<VideoWriter>(m, "VideoWriter",
                          "An MP4 (H.264) video of frames given as H x W x 3 (or 4) uint8 arrays, e.g. "
                          "Simulator.render's; use it as a context manager or call close().")
      .def(py::init<const std::string&, int, int, int>(), py::arg("path"), py::arg("width"), py::arg("height"),
           py::arg("fps") = 30, "Creates the file (width and height even). Raises ValueError naming what is wrong.")
      .def("write", &VideoWriter::Write, py::arg("frame"))
      .def("close", &VideoWriter::Close, "Finishes the file; raises RuntimeError when a frame was not written.")
      .def_property_readonly("frames", &VideoWriter::frames)
      .def("__enter__", [](VideoWriter& w) -> VideoWriter& { return w; })
      .def("__exit__", [](VideoWriter& w, const py::args&) { w.Close(); });
}

}  // namespace ductile::python
