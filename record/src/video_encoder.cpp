// VideoEncoder: RGBA frames → swscale (BT.709, 4:2:0) → libx264 → fragmented MP4, on the encoder thread.
#include "ductile/record/video_encoder.h"

#include <unistd.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include <algorithm>
#include <array>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>

namespace ductile::record {
namespace {

constexpr std::array<const char*, 9> kPresets = {"ultrafast", "superfast", "veryfast", "faster",  "fast",
                                                 "medium",    "slow",      "slower",   "veryslow"};

std::string AvError(int code) {
  std::array<char, AV_ERROR_MAX_STRING_SIZE> text{};
  av_strerror(code, text.data(), text.size());
  return text.data();
}

struct FormatContextDeleter {
  void operator()(AVFormatContext* format) const {
    if (format->pb != nullptr && !(format->oformat->flags & AVFMT_NOFILE)) avio_closep(&format->pb);
    avformat_free_context(format);
  }
};
struct CodecContextDeleter {
  void operator()(AVCodecContext* codec) const { avcodec_free_context(&codec); }
};
struct FrameDeleter {
  void operator()(AVFrame* frame) const { av_frame_free(&frame); }
};
struct PacketDeleter {
  void operator()(AVPacket* packet) const { av_packet_free(&packet); }
};
struct SwsContextDeleter {
  void operator()(SwsContext* sws) const { sws_freeContext(sws); }
};

// The problem with the arguments of Open, or an empty string.
std::string CheckArguments(int width, int height, int fps, const VideoEncoderOptions& options) {
  const auto even_in_range = [](int side) { return side >= kMinSide && side <= kMaxSide && side % 2 == 0; };
  if (!even_in_range(width) || !even_in_range(height))
    return "width and height must be even numbers of pixels in [" + std::to_string(kMinSide) + ", " +
           std::to_string(kMaxSide) + "], got " + std::to_string(width) + "x" + std::to_string(height);
  if (fps < kMinFps || fps > kMaxFps)
    return "the frame rate must lie in [" + std::to_string(kMinFps) + ", " + std::to_string(kMaxFps) +
           "] frames/s, got " + std::to_string(fps);
  if (options.crf < 0 || options.crf > 51) return "crf must lie in [0, 51], got " + std::to_string(options.crf);
  if (std::find(kPresets.begin(), kPresets.end(), options.preset) == kPresets.end())
    return "unknown x264 preset '" + options.preset + "'";
  if (!(options.keyframe_interval > 0 && options.keyframe_interval <= 60))
    return "keyframe_interval must lie in (0, 60] s, got " + std::to_string(options.keyframe_interval);
  if (!(options.fragment_duration > 0 && options.fragment_duration <= 60))
    return "fragment_duration must lie in (0, 60] s, got " + std::to_string(options.fragment_duration);
  if (options.queue_frames < 1 || options.queue_frames > 64)
    return "queue_frames must lie in [1, 64], got " + std::to_string(options.queue_frames);
  return {};
}

// The problem with writing a file at `path`, or an empty string: an existing file must be writable (its folder
// need not be), a new one needs a writable folder.
std::string CheckWritable(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) return "cannot resolve the path: " + ec.message();
  if (!absolute.has_filename() || std::filesystem::is_directory(absolute, ec)) return "the path is a folder";
  if (std::filesystem::exists(absolute, ec))
    return ::access(absolute.c_str(), W_OK) == 0 ? "" : "the file exists and is not writable";
  const std::filesystem::path folder = absolute.parent_path();
  if (!std::filesystem::is_directory(folder, ec)) return "folder '" + folder.string() + "' does not exist";
  if (::access(folder.c_str(), W_OK) != 0) return "folder '" + folder.string() + "' is not writable";
  return {};
}

}  // namespace

void QuietEncoderLogs() {
  av_log_set_level(AV_LOG_ERROR);
}

struct VideoEncoder::Impl {
  std::filesystem::path path;
  int width = 0;
  int height = 0;
  int fps = 0;
  std::int64_t pushed = 0;
  bool open = false;

  // FFmpeg's objects: set up by Open, then used by the encoder thread only, freed by Close after the join.
  std::unique_ptr<AVFormatContext, FormatContextDeleter> format;
  std::unique_ptr<AVCodecContext, CodecContextDeleter> codec;
  AVStream* stream = nullptr;  // Owned by `format`.
  std::unique_ptr<SwsContext, SwsContextDeleter> sws;
  std::unique_ptr<AVFrame, FrameDeleter> yuv;
  std::unique_ptr<AVPacket, PacketDeleter> packet;
  std::int64_t encoded = 0;  // Frames sent to the codec; the next one's pts.

  // The queue between Push and the encoder thread.
  std::mutex mutex;
  std::condition_variable has_frame;  // A frame was queued, or closing was set.
  std::condition_variable has_room;   // A frame was taken, or an error occurred.
  std::deque<render::Image> queue;
  std::size_t capacity = 0;
  bool closing = false;
  std::string error;  // The first error, naming the path; guarded by `mutex`.
  std::thread thread;

  std::string Message(const std::string& reason) const { return "video '" + path.string() + "': " + reason; }

  // Records the first error and wakes a producer waiting for room.
  void Fail(const std::string& reason) {
    {
      const std::lock_guard lock(mutex);
      if (error.empty()) error = Message(reason);
    }
    has_room.notify_all();
  }

  // Sets up the codec, the muxer and the file; returns the problem or an empty string.
  std::string SetUp(const VideoEncoderOptions& options) {
    const AVCodec* encoder = avcodec_find_encoder_by_name("libx264");
    if (encoder == nullptr) return Message("this FFmpeg has no H.264 encoder (libx264)");

    AVFormatContext* raw_format = nullptr;
    int rc = avformat_alloc_output_context2(&raw_format, nullptr, "mp4", path.c_str());
    if (rc < 0 || raw_format == nullptr) return Message("no MP4 muxer: " + AvError(rc));
    format.reset(raw_format);

    codec.reset(avcodec_alloc_context3(encoder));
    if (!codec) return Message("cannot allocate the H.264 encoder");
    codec->width = width;
    codec->height = height;
    codec->pix_fmt = AV_PIX_FMT_YUV420P;
    codec->time_base = AVRational{1, fps};
    codec->framerate = AVRational{fps, 1};
    codec->gop_size = std::max(1, static_cast<int>(std::lround(options.keyframe_interval * fps)));
    // No B-frames: frames leave the encoder in display order, so frame k is shown at k / fps in every player. With
    // B-frames the first frame's decoding time precedes its display time; a normal MP4 hides that with an edit list,
    // but a fragmented one writes its `moov` before any frame and cannot. It also shortens the encoder's delay (less
    // lost when the process is killed), for about a tenth more bits.
    codec->max_b_frames = 0;
    // The rendered frames are sRGB; they are stored with BT.709's matrix and primaries in limited range, which
    // is what players assume for HD video.
    codec->colorspace = AVCOL_SPC_BT709;
    codec->color_primaries = AVCOL_PRI_BT709;
    codec->color_trc = AVCOL_TRC_IEC61966_2_1;
    codec->color_range = AVCOL_RANGE_MPEG;
    if (format->oformat->flags & AVFMT_GLOBALHEADER) codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if ((rc = av_opt_set(codec->priv_data, "preset", options.preset.c_str(), 0)) < 0)
      return Message("libx264 refused preset '" + options.preset + "': " + AvError(rc));
    if ((rc = av_opt_set_double(codec->priv_data, "crf", options.crf, 0)) < 0)
      return Message("libx264 refused crf " + std::to_string(options.crf) + ": " + AvError(rc));
    if ((rc = avcodec_open2(codec.get(), encoder, nullptr)) < 0)
      return Message("cannot open the H.264 encoder: " + AvError(rc));

    stream = avformat_new_stream(format.get(), nullptr);
    if (stream == nullptr) return Message("cannot add a video stream");
    stream->time_base = codec->time_base;  // A hint; the muxer picks its own and reports it in write_header.
    stream->avg_frame_rate = codec->framerate;
    if ((rc = avcodec_parameters_from_context(stream->codecpar, codec.get())) < 0)
      return Message("cannot describe the stream: " + AvError(rc));

    if ((rc = avio_open(&format->pb, path.c_str(), AVIO_FLAG_WRITE)) < 0)
      return Message("cannot create the file: " + AvError(rc));
    // Every packet handed to the file is flushed to the kernel at once: a fragment the muxer has written is on
    // disk even when the process dies right after.
    format->flush_packets = 1;
    AVDictionary* muxer_options = nullptr;
    av_dict_set(&muxer_options, "movflags", "frag_keyframe+empty_moov+default_base_moof", 0);
    av_dict_set_int(&muxer_options, "frag_duration", std::llround(options.fragment_duration * 1e6), 0);
    rc = avformat_write_header(format.get(), &muxer_options);
    // The muxer leaves the options it did not take in the dictionary.
    const AVDictionaryEntry* unused = av_dict_get(muxer_options, "", nullptr, AV_DICT_IGNORE_SUFFIX);
    const std::string unused_key = unused != nullptr ? unused->key : "";
    av_dict_free(&muxer_options);
    if (rc < 0) return Message("cannot write the MP4 header: " + AvError(rc));
    if (!unused_key.empty()) return Message("the MP4 muxer does not know option '" + unused_key + "'");

    sws.reset(sws_getContext(width, height, AV_PIX_FMT_RGBA, width, height, AV_PIX_FMT_YUV420P,
                             SWS_BILINEAR | SWS_ACCURATE_RND, nullptr, nullptr, nullptr));
    if (!sws) return Message("cannot create the RGBA to YUV converter");
    const int* bt709 = sws_getCoefficients(SWS_CS_ITU709);
    // Source full range (0-255 RGB), destination limited range (16-235 luma), no brightness or contrast change.
    sws_setColorspaceDetails(sws.get(), bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16);
    yuv.reset(av_frame_alloc());
    packet.reset(av_packet_alloc());
    if (!yuv || !packet) return Message("cannot allocate a frame");
    yuv->format = AV_PIX_FMT_YUV420P;
    yuv->width = width;
    yuv->height = height;
    yuv->colorspace = codec->colorspace;
    yuv->color_range = codec->color_range;
    if ((rc = av_frame_get_buffer(yuv.get(), 0)) < 0) return Message("cannot allocate a frame: " + AvError(rc));
    return {};
  }

  // Frees FFmpeg's objects (closing the file when it is open).
  void TearDown() {
    packet.reset();
    yuv.reset();
    sws.reset();
    codec.reset();
    stream = nullptr;
    format.reset();
  }

  // Sends `frame` (null: the end of the stream) to the codec and writes every packet it returns. Returns the
  // problem or an empty string.
  std::string EncodeAndWrite(const AVFrame* frame) {
    int rc = avcodec_send_frame(codec.get(), frame);
    if (rc < 0) return "H.264 encoding failed: " + AvError(rc);
    for (;;) {
      rc = avcodec_receive_packet(codec.get(), packet.get());
      if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return {};
      if (rc < 0) return "H.264 encoding failed: " + AvError(rc);
      av_packet_rescale_ts(packet.get(), codec->time_base, stream->time_base);
      packet->stream_index = stream->index;
      rc = av_interleaved_write_frame(format.get(), packet.get());  // Takes the packet's data.
      if (rc < 0) return "cannot write to the file: " + AvError(rc);
    }
  }

  std::string Encode(const render::Image& frame) {
    int rc = av_frame_make_writable(yuv.get());  // The codec may still hold the previous picture.
    if (rc < 0) return "cannot allocate a frame: " + AvError(rc);
    const std::uint8_t* const source[1] = {frame.rgba.data()};
    const int source_stride[1] = {4 * width};
    sws_scale(sws.get(), source, source_stride, 0, height, yuv->data, yuv->linesize);
    yuv->pts = encoded++;
    return EncodeAndWrite(yuv.get());
  }

  // The encoder thread: frames from the queue until Close, then the encoder's delayed frames and the trailer.
  void Run() {
    bool failed = false;
    const auto attempt = [&](auto&& step) {
      if (failed) return;
      std::string problem;
      try {
        problem = step();
      } catch (const std::exception& e) {
        problem = e.what();
      }
      if (!problem.empty()) {
        Fail(problem);
        failed = true;
      }
    };
    for (;;) {
      render::Image frame;
      {
        std::unique_lock lock(mutex);
        has_frame.wait(lock, [&] { return !queue.empty() || closing; });
        if (queue.empty()) break;
        frame = std::move(queue.front());
        queue.pop_front();
      }
      has_room.notify_one();
      attempt([&] { return Encode(frame); });
    }
    attempt([&] { return EncodeAndWrite(nullptr); });
    // The trailer (the fragment still open and the `mfra` index) is written even after an error, so that what
    // was encoded stays playable where the file can still be written.
    const int rc = av_write_trailer(format.get());
    if (rc < 0 && !failed) Fail("cannot finish the file: " + AvError(rc));
    if (format->pb != nullptr) {
      const int close_rc = avio_closep(&format->pb);
      if (close_rc < 0 && !failed && rc >= 0) Fail("cannot close the file: " + AvError(close_rc));
    }
  }
};

VideoEncoder::VideoEncoder() : impl_(std::make_unique<Impl>()) {}

VideoEncoder::~VideoEncoder() {
  Close();
}

std::string VideoEncoder::Open(const std::filesystem::path& path, int width, int height, int fps,
                               const VideoEncoderOptions& options) {
  if (impl_->open) throw std::logic_error("VideoEncoder::Open(" + path.string() + "): already open");
  Impl& m = *impl_;
  m.path = path;
  if (std::string problem = CheckArguments(width, height, fps, options); !problem.empty()) return m.Message(problem);
  if (std::string problem = CheckWritable(path); !problem.empty()) return m.Message(problem);
  m.width = width;
  m.height = height;
  m.fps = fps;
  const bool existed = std::filesystem::exists(path);
  if (std::string problem = m.SetUp(options); !problem.empty()) {
    m.TearDown();
    std::error_code ignored;
    if (!existed) std::filesystem::remove(path, ignored);
    m.width = m.height = m.fps = 0;
    return problem;
  }
  m.pushed = 0;
  m.encoded = 0;
  m.capacity = static_cast<std::size_t>(options.queue_frames);
  m.closing = false;
  m.error.clear();
  m.thread = std::thread([&m] { m.Run(); });
  m.open = true;
  return {};
}

std::string VideoEncoder::Push(render::Image frame) {
  Impl& m = *impl_;
  if (!m.open) throw std::logic_error("VideoEncoder::Push: the encoder is not open");
  if (frame.width != m.width || frame.height != m.height ||
      frame.rgba.size() != 4 * static_cast<std::size_t>(frame.width) * static_cast<std::size_t>(frame.height)) {
    throw std::invalid_argument(m.Message("frame of " + std::to_string(frame.width) + "x" +
                                          std::to_string(frame.height) + " pixels with " +
                                          std::to_string(frame.rgba.size()) + " bytes; the video is " +
                                          std::to_string(m.width) + "x" + std::to_string(m.height)));
  }
  {
    std::unique_lock lock(m.mutex);
    m.has_room.wait(lock, [&] { return m.queue.size() < m.capacity || !m.error.empty(); });
    if (!m.error.empty()) return m.error;
    m.queue.push_back(std::move(frame));
    ++m.pushed;
  }
  m.has_frame.notify_one();
  return {};
}

std::string VideoEncoder::Close() {
  Impl& m = *impl_;
  if (!m.open) return {};
  {
    const std::lock_guard lock(m.mutex);
    m.closing = true;
  }
  m.has_frame.notify_one();
  m.thread.join();
  m.TearDown();
  m.open = false;
  m.queue.clear();
  m.width = m.height = m.fps = 0;
  return std::exchange(m.error, {});
}

bool VideoEncoder::is_open() const {
  return impl_->open;
}
std::int64_t VideoEncoder::frames_pushed() const {
  return impl_->pushed;
}
int VideoEncoder::width() const {
  return impl_->width;
}
int VideoEncoder::height() const {
  return impl_->height;
}
int VideoEncoder::fps() const {
  return impl_->fps;
}
const std::filesystem::path& VideoEncoder::path() const {
  return impl_->path;
}

}  // namespace ductile::record
