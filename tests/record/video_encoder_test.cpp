// VideoEncoder: what it writes is decoded back with libavformat/libavcodec and compared with what was pushed; a
// recording killed before Close still plays up to its last complete fragment; bad arguments and encoder errors are
// reported.
#include "ductile/record/video_encoder.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "decoded_video.h"

namespace ductile::record {
namespace {

namespace fs = std::filesystem;

constexpr int kWidth = 160, kHeight = 96, kFps = 30;

// Frame k of a test sequence: a smooth colour gradient with a white 24x24 square that moves 2 pixels a frame to the
// right, so consecutive frames differ and a frame decoded in the wrong place is told apart from the right one.
render::Image Pattern(int k) {
  render::Image image;
  image.width = kWidth;
  image.height = kHeight;
  image.rgba.resize(4 * kWidth * kHeight);
  const int square_x = 10 + 2 * k, square_y = 36;
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      std::uint8_t* p = &image.rgba[4 * (y * kWidth + x)];
      const bool in_square = x >= square_x && x < square_x + 24 && y >= square_y && y < square_y + 24;
      p[0] = in_square ? 255 : static_cast<std::uint8_t>(40 + x);
      p[1] = in_square ? 255 : static_cast<std::uint8_t>(30 + 2 * y);
      p[2] = in_square ? 255 : 90;
      p[3] = 255;
    }
  }
  return image;
}

// Mean absolute difference of the R, G and B channels of two images of the same size [levels of 255].
double MeanAbsoluteDifference(const render::Image& a, const render::Image& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.rgba.size(); ++i) {
    if (i % 4 == 3) continue;
    sum += std::abs(static_cast<int>(a.rgba[i]) - static_cast<int>(b.rgba[i]));
  }
  return sum / (0.75 * static_cast<double>(a.rgba.size()));
}

class VideoEncoderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    QuietEncoderLogs();
    dir_ = fs::temp_directory_path() / ("ductile_record_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(dir_, fs::perms::owner_all, ignored);
    fs::remove_all(dir_, ignored);
  }
  fs::path dir_;
};

TEST_F(VideoEncoderTest, EveryFrameDecodesAtItsTimeAndLooksLikeWhatWasPushed) {
  const fs::path path = dir_ / "pattern.mp4";
  VideoEncoder encoder;
  ASSERT_EQ(encoder.Open(path, kWidth, kHeight, kFps), "");
  constexpr int kFrames = 45;
  for (int k = 0; k < kFrames; ++k) ASSERT_EQ(encoder.Push(Pattern(k)), "") << "frame " << k;
  EXPECT_EQ(encoder.frames_pushed(), kFrames);
  ASSERT_EQ(encoder.Close(), "");

  constexpr int kMiddle = kFrames / 2;
  const test::DecodedVideo video = test::DecodeVideo(path, {kMiddle});
  ASSERT_EQ(video.open_error, "");
  EXPECT_EQ(video.first_error, "");
  EXPECT_EQ(video.width, kWidth);
  EXPECT_EQ(video.height, kHeight);
  ASSERT_EQ(video.frames, kFrames);
  // Frame k is shown at k / fps: the video lasts 45 / 30 = 1.5 s.
  for (int k = 0; k < kFrames; ++k) EXPECT_NEAR(video.times[k], static_cast<double>(k) / kFps, 1e-6) << k;
  EXPECT_NEAR(video.container_duration, 1.5, 1.0 / kFps);

  // H.264 is lossy: at crf 20 a smooth picture comes back within a level or two, and the 4:2:0 chroma (one colour
  // per 2x2 pixels) smears the square's colour edges by a pixel. Measured: 1.9 levels on average with Debian's
  // x264. The bound of 3 levels leaves room for other x264 builds, and is well below the difference from the frames
  // 5 before and after (the square 10 pixels off: 6.4 levels).
  ASSERT_EQ(video.kept.count(kMiddle), 1u);
  const render::Image& decoded = video.kept.at(kMiddle);
  const double error = MeanAbsoluteDifference(decoded, Pattern(kMiddle));
  EXPECT_LT(error, 3.0);
  EXPECT_GT(MeanAbsoluteDifference(decoded, Pattern(kMiddle - 5)), error + 3.0);
  EXPECT_GT(MeanAbsoluteDifference(decoded, Pattern(kMiddle + 5)), error + 3.0);
  // The square's left and right edges are where frame kMiddle has them, to a pixel: 2 pixels inside them it is
  // white, 2 pixels outside it is the background (whose red is 40 + x, blue 90); a frame before or after would have
  // them 2 pixels off. Edge pixels are left out: the chroma subsampling blends them.
  const auto pixel = [&](int x, int y, int c) { return static_cast<int>(decoded.rgba[4 * (y * kWidth + x) + c]); };
  const int left = 10 + 2 * kMiddle, right = left + 23;
  for (int x : {left + 1, left + 2, left + 12, right - 2, right - 1})
    for (int c = 0; c < 3; ++c) EXPECT_GE(pixel(x, 48, c), 235) << "x " << x << ", channel " << c;
  for (int x : {left - 2, right + 2}) {
    EXPECT_NEAR(pixel(x, 48, 0), 40 + x, 12) << "x " << x;
    EXPECT_NEAR(pixel(x, 48, 2), 90, 12) << "x " << x;
  }
}

// The top-level boxes of an MP4 file as far as they are complete on disk: the fragments (`moof` followed by its
// `mdat`) that are whole and the samples (frames) their track runs (`trun`) hold.
struct Fragments {
  int complete = 0;
  int samples = 0;
};

std::uint32_t BigEndian32(const std::string& data, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(data[at + i]);
  return v;
}

// Sum of the sample counts of the `trun` boxes inside the `moof` box data[begin, end) (moof → traf → trun).
int MoofSamples(const std::string& data, std::size_t begin, std::size_t end) {
  int samples = 0;
  for (std::size_t at = begin + 8; at + 8 <= end;) {
    const std::uint32_t size = BigEndian32(data, at);
    if (size < 8 || at + size > end) break;
    if (data.compare(at + 4, 4, "traf") == 0) {
      for (std::size_t in = at + 8; in + 8 <= at + size;) {
        const std::uint32_t inner = BigEndian32(data, in);
        if (inner < 8 || in + inner > at + size) break;
        // trun: size, type, version and flags, sample_count.
        if (data.compare(in + 4, 4, "trun") == 0 && inner >= 16)
          samples += static_cast<int>(BigEndian32(data, in + 12));
        in += inner;
      }
    }
    at += size;
  }
  return samples;
}

Fragments CompleteFragments(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  const std::string data = contents.str();
  Fragments fragments;
  int pending_samples = -1;  // Samples of the last complete moof, until its mdat is complete too.
  for (std::size_t at = 0; at + 8 <= data.size();) {
    const std::uint32_t size = BigEndian32(data, at);
    if (size < 8 || at + size > data.size()) break;  // A 64-bit or to-the-end size, or a box cut off.
    if (data.compare(at + 4, 4, "moof") == 0) pending_samples = MoofSamples(data, at, at + size);
    if (data.compare(at + 4, 4, "mdat") == 0 && pending_samples >= 0) {
      ++fragments.complete;
      fragments.samples += pending_samples;
      pending_samples = -1;
    }
    at += size;
  }
  return fragments;
}

TEST_F(VideoEncoderTest, KilledRecordingPlaysUpToItsLastCompleteFragment) {
  const fs::path path = dir_ / "killed.mp4";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child records until two fragments are on disk, then dies without closing: no trailer, no index, and
    // whatever the encoder still held is lost. Exit codes other than death by SIGKILL tell the parent what failed.
    VideoEncoder encoder;
    VideoEncoderOptions options;
    options.fragment_duration = 0.2;  // Fragments of 6 frames at 30 fps.
    if (!encoder.Open(path, kWidth, kHeight, kFps, options).empty()) std::_Exit(2);
    for (int k = 0; k < 600; ++k) {
      if (!encoder.Push(Pattern(k % 60)).empty()) std::_Exit(3);
      if (CompleteFragments(path).complete >= 2) std::raise(SIGKILL);
      if (k > 30) ::usleep(2000);  // Lets the encoder thread catch up rather than filling the queue at once.
    }
    std::_Exit(4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child did not die by SIGKILL: exit code " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);

  const Fragments fragments = CompleteFragments(path);
  ASSERT_GE(fragments.complete, 2);
  ASSERT_GT(fragments.samples, 0);
  const test::DecodedVideo video = test::DecodeVideo(path, {0});
  ASSERT_EQ(video.open_error, "");
  EXPECT_EQ(video.width, kWidth);
  EXPECT_EQ(video.height, kHeight);
  // Every frame of the complete fragments decodes, in order, at its time. A fragment cut off at the end may add
  // frames or an error after them, nothing before.
  EXPECT_GE(video.frames_before_error, fragments.samples) << video.first_error;
  for (int k = 0; k < std::min(video.frames_before_error, fragments.samples); ++k)
    EXPECT_NEAR(video.times[k], static_cast<double>(k) / kFps, 1e-6) << k;
  ASSERT_EQ(video.kept.count(0), 1u);
  EXPECT_LT(MeanAbsoluteDifference(video.kept.at(0), Pattern(0)), 3.0);  // The bound of the test above.
}

TEST_F(VideoEncoderTest, BadPathsSizesAndRatesAreReportedAndCreateNothing) {
  VideoEncoder encoder;
  const fs::path missing = dir_ / "no_such_folder" / "v.mp4";
  std::string message = encoder.Open(missing, kWidth, kHeight, kFps);
  EXPECT_NE(message.find(missing.string()), std::string::npos) << message;
  EXPECT_NE(message.find("does not exist"), std::string::npos) << message;

  const fs::path good = dir_ / "v.mp4";
  message = encoder.Open(good, 161, kHeight, kFps);
  EXPECT_NE(message.find(good.string()), std::string::npos) << message;
  EXPECT_NE(message.find("must be even"), std::string::npos) << message;
  message = encoder.Open(good, kWidth, 8, kFps);
  EXPECT_NE(message.find("got 160x8"), std::string::npos) << message;
  message = encoder.Open(good, kWidth, kHeight, 0);
  EXPECT_NE(message.find("frame rate must lie in [1, 240]"), std::string::npos) << message;
  message = encoder.Open(good, kWidth, kHeight, 241);
  EXPECT_NE(message.find("got 241"), std::string::npos) << message;
  VideoEncoderOptions bad_preset;
  bad_preset.preset = "quick";
  message = encoder.Open(good, kWidth, kHeight, kFps, bad_preset);
  EXPECT_NE(message.find("unknown x264 preset 'quick'"), std::string::npos) << message;
  message = encoder.Open(dir_, kWidth, kHeight, kFps);
  EXPECT_NE(message.find("is a folder"), std::string::npos) << message;
  EXPECT_FALSE(encoder.is_open());
  EXPECT_FALSE(fs::exists(good));
  EXPECT_FALSE(fs::exists(missing.parent_path()));

  // A good open after the refused ones works, and a frame of another size is refused.
  ASSERT_EQ(encoder.Open(good, kWidth, kHeight, kFps), "");
  render::Image wrong = Pattern(0);
  wrong.height = kHeight / 2;
  EXPECT_THROW(encoder.Push(wrong), std::invalid_argument);
  EXPECT_THROW(encoder.Open(good, kWidth, kHeight, kFps), std::logic_error);
  EXPECT_EQ(encoder.Close(), "");
  EXPECT_EQ(encoder.Close(), "");  // Closing again does nothing.
  EXPECT_THROW(encoder.Push(Pattern(0)), std::logic_error);
}

TEST_F(VideoEncoderTest, UnwritableFolderIsReported) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: a folder's permissions do not stop root from writing";
  const fs::path folder = dir_ / "read_only";
  fs::create_directories(folder);
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
  VideoEncoder encoder;
  const std::string message = encoder.Open(folder / "v.mp4", kWidth, kHeight, kFps);
  EXPECT_NE(message.find(folder.string()), std::string::npos) << message;
  EXPECT_NE(message.find("is not writable"), std::string::npos) << message;
}

// A file that may not grow past 64 KiB (RLIMIT_FSIZE, in a child process so the limit binds nothing else): the
// header fits, frames of noise (about 20 KiB each) soon do not, and the write error, which happens on the encoder
// thread, must reach the caller through Push or Close.
TEST_F(VideoEncoderTest, WriteErrorsOnTheEncoderThreadAreReported) {
  const fs::path path = dir_ / "limited.mp4";
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::signal(SIGXFSZ, SIG_IGN);  // A write past the limit then fails with EFBIG instead of killing the process.
    const rlimit limit{64 << 10, 64 << 10};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) std::_Exit(2);
    VideoEncoder encoder;
    std::string report = "open: " + encoder.Open(path, kWidth, kHeight, kFps) + "\n";
    std::string pushed;
    std::uint32_t noise = 12345;
    for (int k = 0; k < 300 && pushed.empty(); ++k) {
      render::Image frame = Pattern(k);
      for (std::size_t i = 0; i < frame.rgba.size(); ++i) {
        noise = noise * 1664525u + 1013904223u;
        frame.rgba[i] = static_cast<std::uint8_t>(noise >> 24);
      }
      pushed = encoder.Push(std::move(frame));
    }
    report += "push: " + pushed + "\nclose: " + encoder.Close() + "\n";
    if (::write(pipe_fds[1], report.data(), report.size()) != static_cast<ssize_t>(report.size())) std::_Exit(3);
    std::_Exit(0);
  }
  ::close(pipe_fds[1]);
  std::string report;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof(buffer))) > 0;) report.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << report;
  EXPECT_NE(report.find("open: \n"), std::string::npos) << "the header fits: " << report;
  // Push reports the error once the encoder thread has met it, and Close reports it again.
  const std::string expected = "video '" + path.string() + "': cannot write to the file: File too large";
  EXPECT_NE(report.find("push: " + expected), std::string::npos) << report;
  EXPECT_NE(report.find("close: " + expected), std::string::npos) << report;
}

}  // namespace
}  // namespace ductile::record
