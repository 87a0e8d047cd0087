#include "frame_files.h"

#include <cmath>
#include <iomanip>

namespace ductile::cli {
namespace {

const char* ProbeQuantityName(ProbeQuantity q) {
  switch (q) {
    case ProbeQuantity::kCenterOfMass:
      return "center_of_mass";
    case ProbeQuantity::kVelocity:
      return "velocity";
    case ProbeQuantity::kBounds:
      return "bounds";
    case ProbeQuantity::kKineticEnergy:
      return "kinetic_energy";
  }
  return "";
}

// The opened file of an option, or null when the option is empty.
std::unique_ptr<AtomicFile> OpenIfGiven(const std::string& path) {
  return path.empty() ? nullptr : std::make_unique<AtomicFile>(path);
}

}  // namespace

void FrameFiles::Open(const RunOptions& options) {
  contacts_ = OpenIfGiven(options.csv_file);
  trajectory_ = OpenIfGiven(options.trajectory_file);
  probes_ = OpenIfGiven(options.probes_file);
  if (!options.export_dir.empty()) {
    export_ = std::make_unique<record::FrameExporter>();
    if (const std::string problem = export_->Open(options.export_dir); !problem.empty())
      throw std::runtime_error(problem);
  }
}

void FrameFiles::Start(const Simulator& sim) {
  if (trajectory_) trajectory_->stream() << std::setprecision(9) << "time,body,x,y,z,qw,qx,qy,qz\n";
  if (probes_) probes_->stream() << std::setprecision(9) << "time,probe,object,quantity,component,value\n";
  if (contacts_) contacts_->stream() << std::setprecision(9) << "time,body,fx,fy,fz,tx,ty,tz,mpm_contacts\n";
  wrenches_.impulse.assign(sim.num_rigid_bodies(), std::array<double, 6>{});
  wrenches_.elapsed = 0;
  frame_interval_ = 1.0 / sim.model().output_rate;
  WriteFrame(sim);
}

void FrameFiles::AfterStep(const Simulator& sim) {
  if (contacts_) AddWrenches(sim);
  // A frame whenever the simulated time reaches the next output time (half a step of slack for rounding).
  if (sim.time() + 0.5 * sim.model().dt >= static_cast<double>(next_frame_) * frame_interval_) {
    WriteFrame(sim);
    if (contacts_) WriteWrenchRows(sim, contacts_->stream());
  }
}

void FrameFiles::Commit() {
  for (AtomicFile* file : {trajectory_.get(), probes_.get(), contacts_.get()})
    if (file) file->Commit();
  if (export_)
    if (const std::string problem = export_->Close(); !problem.empty()) throw std::runtime_error(problem);
}

// Writes the trajectory and probe rows of the current state, and schedules the next frame: the first multiple of
// the frame interval beyond this step (a step longer than a frame skips the frames within it).
void FrameFiles::WriteFrame(const Simulator& sim) {
  if (trajectory_) WriteTrajectoryRows(sim, trajectory_->stream());
  if (probes_) WriteProbeRows(sim, probes_->stream());
  if (export_) {
    sim.CaptureSnapshot(snapshot_, true);
    if (const std::string problem = export_->Write(snapshot_); !problem.empty()) throw std::runtime_error(problem);
  }
  const double reached = sim.time() + 0.5 * sim.model().dt;
  next_frame_ = static_cast<std::int64_t>(std::floor(reached / frame_interval_)) + 1;
}

void FrameFiles::WriteTrajectoryRows(const Simulator& sim, std::ostream& out) const {
  const double t = sim.time();
  // Every domain's bodies (MPM objects, soft and affine bodies), then the rigid bodies.
  for (int b = 0; b < sim.num_bodies(); ++b) {
    const BodySummary s = sim.SummarizeBody(b);
    out << t << ',' << s.name << ',' << s.center_of_mass[0] << ',' << s.center_of_mass[1] << ',' << s.center_of_mass[2];
    if (s.oriented) {
      out << ',' << s.quaternion[0] << ',' << s.quaternion[1] << ',' << s.quaternion[2] << ',' << s.quaternion[3]
          << '\n';
    } else {
      out << ",,,,\n";
    }
  }
  for (int b = 0; b < sim.num_rigid_bodies(); ++b) {
    const RigidBodySummary s = sim.SummarizeRigidBody(b);
    out << t << ',' << s.name << ',' << s.position[0] << ',' << s.position[1] << ',' << s.position[2] << ','
        << s.quaternion[0] << ',' << s.quaternion[1] << ',' << s.quaternion[2] << ',' << s.quaternion[3] << '\n';
  }
}

void FrameFiles::WriteProbeRows(const Simulator& sim, std::ostream& out) const {
  const Model& model = sim.model();
  for (const ProbeInfo& probe : model.probes) {
    const ObjectSummary s = sim.SummarizeObject(probe.object);
    const auto row = [&](const char* component, double value) {
      out << sim.time() << ',' << probe.name << ',' << model.objects[probe.object].name << ','
          << ProbeQuantityName(probe.quantity) << ',' << component << ',' << value << '\n';
    };
    switch (probe.quantity) {
      case ProbeQuantity::kCenterOfMass:
        row("x", s.center_of_mass[0]);
        row("y", s.center_of_mass[1]);
        row("z", s.center_of_mass[2]);
        break;
      case ProbeQuantity::kVelocity:
        row("x", s.velocity[0]);
        row("y", s.velocity[1]);
        row("z", s.velocity[2]);
        break;
      case ProbeQuantity::kBounds:
        row("min_x", s.bounds_min[0]);
        row("min_y", s.bounds_min[1]);
        row("min_z", s.bounds_min[2]);
        row("max_x", s.bounds_max[0]);
        row("max_y", s.bounds_max[1]);
        row("max_z", s.bounds_max[2]);
        break;
      case ProbeQuantity::kKineticEnergy:
        row("value", s.kinetic_energy);
        break;
    }
  }
}

void FrameFiles::AddWrenches(const Simulator& sim) {
  const double dt = sim.model().dt;
  for (std::size_t b = 0; b < wrenches_.impulse.size(); ++b) {
    const RigidBodySummary s = sim.SummarizeRigidBody(static_cast<int>(b));
    for (int a = 0; a < 3; ++a) {
      wrenches_.impulse[b][a] += s.contact_force[a] * dt;
      wrenches_.impulse[b][3 + a] += s.contact_torque[a] * dt;
    }
  }
  wrenches_.elapsed += dt;
}

// One row per body with the frame's mean force and torque, then a fresh frame.
void FrameFiles::WriteWrenchRows(const Simulator& sim, std::ostream& out) {
  for (std::size_t b = 0; b < wrenches_.impulse.size(); ++b) {
    const RigidBodySummary s = sim.SummarizeRigidBody(static_cast<int>(b));
    out << sim.time() << ',' << s.name;
    for (double x : wrenches_.impulse[b]) out << ',' << (wrenches_.elapsed > 0 ? x / wrenches_.elapsed : 0.0);
    out << ',' << s.mpm_contacts << '\n';
    wrenches_.impulse[b].fill(0);
  }
  wrenches_.elapsed = 0;
}

}  // namespace ductile::cli
