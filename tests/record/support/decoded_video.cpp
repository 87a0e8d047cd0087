#include "decoded_video.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libswscale/swscale.h>
}

#include <algorithm>
#include <array>
#include <memory>

namespace ductile::test {
namespace {

std::string AvError(int code) {
  std::array<char, AV_ERROR_MAX_STRING_SIZE> text{};
  av_strerror(code, text.data(), text.size());
  return text.data();
}

struct InputDeleter {
  void operator()(AVFormatContext* format) const { avformat_close_input(&format); }
};
struct CodecDeleter {
  void operator()(AVCodecContext* codec) const { avcodec_free_context(&codec); }
};
struct FrameDeleter {
  void operator()(AVFrame* frame) const { av_frame_free(&frame); }
};
struct PacketDeleter {
  void operator()(AVPacket* packet) const { av_packet_free(&packet); }
};

render::Image ToRgba(const AVFrame& frame) {
  render::Image image;
  image.width = frame.width;
  image.height = frame.height;
  image.rgba.resize(4 * static_cast<std::size_t>(frame.width) * static_cast<std::size_t>(frame.height));
  SwsContext* sws =
      sws_getContext(frame.width, frame.height, static_cast<AVPixelFormat>(frame.format), frame.width, frame.height,
                     AV_PIX_FMT_RGBA, SWS_BILINEAR | SWS_ACCURATE_RND, nullptr, nullptr, nullptr);
  const int* bt709 = sws_getCoefficients(SWS_CS_ITU709);
  sws_setColorspaceDetails(sws, bt709, 0, bt709, 1, 0, 1 << 16, 1 << 16);
  std::uint8_t* const destination[1] = {image.rgba.data()};
  const int stride[1] = {4 * frame.width};
  sws_scale(sws, frame.data, frame.linesize, 0, frame.height, destination, stride);
  sws_freeContext(sws);
  return image;
}

}  // namespace

DecodedVideo DecodeVideo(const std::filesystem::path& path, const std::vector<int>& keep) {
  DecodedVideo video;
  AVFormatContext* raw_input = nullptr;
  int rc = avformat_open_input(&raw_input, path.c_str(), nullptr, nullptr);
  if (rc < 0) {
    video.open_error = "avformat_open_input: " + AvError(rc);
    return video;
  }
  std::unique_ptr<AVFormatContext, InputDeleter> input(raw_input);
  if ((rc = avformat_find_stream_info(input.get(), nullptr)) < 0) {
    video.open_error = "avformat_find_stream_info: " + AvError(rc);
    return video;
  }
  const AVCodec* decoder = nullptr;
  const int stream_index = av_find_best_stream(input.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
  if (stream_index < 0 || decoder == nullptr) {
    video.open_error = "no video stream";
    return video;
  }
  const AVStream* stream = input->streams[stream_index];
  std::unique_ptr<AVCodecContext, CodecDeleter> codec(avcodec_alloc_context3(decoder));
  avcodec_parameters_to_context(codec.get(), stream->codecpar);
  if ((rc = avcodec_open2(codec.get(), decoder, nullptr)) < 0) {
    video.open_error = "avcodec_open2: " + AvError(rc);
    return video;
  }
  video.width = stream->codecpar->width;
  video.height = stream->codecpar->height;
  if (input->duration != AV_NOPTS_VALUE) video.container_duration = static_cast<double>(input->duration) / AV_TIME_BASE;

  std::unique_ptr<AVPacket, PacketDeleter> packet(av_packet_alloc());
  std::unique_ptr<AVFrame, FrameDeleter> frame(av_frame_alloc());
  const auto fail = [&](const std::string& what) {
    if (video.first_error.empty()) {
      video.first_error = what;
      video.frames_before_error = video.frames;
    }
  };
  // Takes every frame the decoder has ready.
  const auto drain = [&] {
    for (;;) {
      const int r = avcodec_receive_frame(codec.get(), frame.get());
      if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
      if (r < 0) {
        fail("avcodec_receive_frame: " + AvError(r));
        return;
      }
      if (frame->decode_error_flags != 0 || (frame->flags & AV_FRAME_FLAG_CORRUPT))
        fail("frame " + std::to_string(video.frames) + " decoded with errors");
      video.times.push_back(frame->best_effort_timestamp == AV_NOPTS_VALUE
                                ? -1.0
                                : static_cast<double>(frame->best_effort_timestamp) * av_q2d(stream->time_base));
      if (std::find(keep.begin(), keep.end(), video.frames) != keep.end()) video.kept[video.frames] = ToRgba(*frame);
      ++video.frames;
      av_frame_unref(frame.get());
    }
  };
  for (;;) {
    rc = av_read_frame(input.get(), packet.get());
    if (rc == AVERROR_EOF) break;
    if (rc < 0) {
      fail("av_read_frame: " + AvError(rc));
      break;
    }
    if (packet->stream_index == stream_index) {
      if (packet->flags & AV_PKT_FLAG_CORRUPT) fail("corrupt packet");
      const int r = avcodec_send_packet(codec.get(), packet.get());
      if (r < 0) fail("avcodec_send_packet: " + AvError(r));
      drain();
    }
    av_packet_unref(packet.get());
  }
  avcodec_send_packet(codec.get(), nullptr);
  drain();
  if (video.first_error.empty()) video.frames_before_error = video.frames;
  return video;
}

}  // namespace ductile::test
