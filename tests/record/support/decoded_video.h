// Test support: decodes a video file completely with libavformat and libavcodec, so that tests check what a player
// would see (frame count, size, timestamps, pixels) rather than what the encoder believes it wrote.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ductile/render/image.h"

namespace ductile::test {

struct DecodedVideo {
  std::string open_error;             ///< Why the file could not be opened or has no video stream; empty when it could.
  int width = 0;                      ///< Of the video stream [pixels].
  int height = 0;                     ///< [pixels].
  int frames = 0;                     ///< Frames the decoder returned.
  int frames_before_error = 0;        ///< Frames decoded before the first read or decode error (= frames without one).
  std::string first_error;            ///< The first read or decode error; empty when there was none.
  double container_duration = -1;     ///< The duration the demuxer reports [s]; −1 when it reports none.
  std::vector<double> times;          ///< Presentation time of each decoded frame, in decoding output order [s].
  std::map<int, render::Image> kept;  ///< RGBA of the frames asked for, by index in output order.
};

/// Decodes every frame of the first video stream of `path`, converting the frames whose output index is in `keep`
/// to RGBA (BT.709, limited range in, full range out: the inverse of the encoder's conversion).
DecodedVideo DecodeVideo(const std::filesystem::path& path, const std::vector<int>& keep = {});

}  // namespace ductile::test
