// VideoEncoder: rendered frames to an H.264 video in a fragmented MP4 file, encoded on a thread of its own
// (docs/studio.md, "Recording").
//
// Design: the producer (a simulation loop or the studio's recorder) calls Push with each RGBA frame; the frame goes
// into a small bounded queue, and Push blocks while the queue is full, so no frame is ever dropped and a slow
// encoder slows the producer down instead of growing memory. The encoder thread converts each frame to YUV 4:2:0
// (swscale, BT.709), encodes it with libx264 through libavcodec and hands the packets to libavformat's MP4 muxer.
//
// The MP4 is fragmented: an empty `moov` box at the start, then one `moof` + `mdat` pair per fragment, each written
// to the file (and flushed to the kernel) as soon as it is complete. A fragment starts at every keyframe and at least
// every VideoEncoderOptions::fragment_duration seconds, so a process that is killed while recording leaves a file
// that plays up to its last complete fragment; Close adds the index (`mfra`) for fast seeking.
//
// Timing: frame k has presentation time k / fps exactly (time base 1/fps), so a video of n frames lasts n / fps.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "ductile/render/image.h"

namespace ductile::record {

/// Frame rates VideoEncoder accepts [frames/s].
inline constexpr int kMinFps = 1;
inline constexpr int kMaxFps = 240;
/// Frame sides VideoEncoder accepts [pixels]; both must also be even (4:2:0 chroma has half the resolution).
/// 8192 is the widest frame of H.264's largest level (6.2).
inline constexpr int kMinSide = 16;
inline constexpr int kMaxSide = 8192;

/// How a video is encoded. The defaults suit recordings of simulations: visually close to the rendered frames,
/// encoded faster than a CPU renderer draws them.
struct VideoEncoderOptions {
  /// x264's constant rate factor: 0 is lossless, 51 the worst; 18 to 23 look close to the source. In [0, 51].
  int crf = 20;
  /// x264's speed preset: ultrafast, superfast, veryfast, faster, fast, medium, slow, slower or veryslow.
  std::string preset = "veryfast";
  /// Time between keyframes [s], in (0, 60]; players seek to keyframes.
  double keyframe_interval = 1.0;
  /// Longest fragment [s], in (0, 60]; a fragment also starts at every keyframe. A killed recording loses at most
  /// this much video plus the frames the encoder still held (x264's look-ahead, a fraction of a second).
  double fragment_duration = 0.5;
  /// Frames the queue between Push and the encoder thread holds, in [1, 64]; each takes 4·width·height bytes.
  int queue_frames = 3;
};

/// Lowers FFmpeg's log level (process-wide: FFmpeg has one) so that only its errors reach stderr; libx264 otherwise
/// prints its settings and statistics at the info level. For programs' main functions. Thread-safe.
void QuietEncoderLogs();

/// One video file being written. Open, Push frames, Close. Not thread-safe: one thread (the producer) calls Open,
/// Push and Close; the encoding happens on a thread the object owns.
class VideoEncoder {
 public:
  VideoEncoder();
  /// Closes the video (Close), dropping its error message: call Close to learn whether the file is complete.
  ~VideoEncoder();
  VideoEncoder(const VideoEncoder&) = delete;
  VideoEncoder& operator=(const VideoEncoder&) = delete;

  /// Creates the file at `path` (replacing one that exists), writes the MP4 header and starts the encoder thread
  /// for frames of `width` x `height` pixels (each even, in [kMinSide, kMaxSide]) at `fps` frames per second (in
  /// [kMinFps, kMaxFps]). Returns an empty string on success, else a message naming the path and the reason: its
  /// folder does not exist or is not writable, the size or rate is out of range, an option is out of range, this
  /// FFmpeg has no libx264 encoder, or FFmpeg could not create the file. Nothing is created when the arguments are
  /// bad. Throws std::logic_error when the encoder is already open.
  std::string Open(const std::filesystem::path& path, int width, int height, int fps,
                   const VideoEncoderOptions& options = {});

  /// Hands `frame` (RGBA, sRGB-encoded, of the size given to Open) to the encoder thread; it becomes frame number
  /// frames_pushed() (0 for the first), shown at time frames_pushed() / fps. Blocks while the queue is full.
  /// Returns an empty string, or the encoder thread's error once one has occurred (the frame is then dropped, as
  /// are all later ones: the caller should stop and Close). Throws std::logic_error when the encoder is not open and
  /// std::invalid_argument when the frame's size differs from the video's or its pixel buffer from its size.
  std::string Push(render::Image frame);

  /// Encodes the frames still queued, finishes the file (MP4 index) and joins the encoder thread. Returns an empty
  /// string when every frame was written and the file was closed, else the first error, naming the path. Does
  /// nothing and returns an empty string when the encoder is not open. The object may then be opened again.
  std::string Close();

  bool is_open() const;
  std::int64_t frames_pushed() const;  ///< Frames Push accepted since Open.
  int width() const;                   ///< [pixels]; 0 when not open.
  int height() const;                  ///< [pixels]; 0 when not open.
  int fps() const;                     ///< [frames/s]; 0 when not open.
  const std::filesystem::path& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ductile::record
