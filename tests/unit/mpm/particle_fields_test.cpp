// The particle fields' one list (mpm::ForEachParticleField, mpm/particles.h): every member of Particles is on it
// once, and what walks it (Resize, Serialize, GatherParticles) treats every field.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/archive.h"
#include "mpm/particles.h"

namespace ductile::mpm {
namespace {

// A particle set of n with every field set to values that tell particle i from the others.
Particles Numbered(std::size_t n) {
  Particles p;
  p.Resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float f = static_cast<float>(i) + 0.5f;
    p.x[i] = {f, 2 * f, 3 * f};
    p.v[i] = {-f, f, 0};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        p.F[i].m[r][c] = f + static_cast<float>(3 * r + c);
        p.C[i].m[r][c] = -f - static_cast<float>(r + c);
      }
    p.mass[i] = f;
    p.volume[i] = 2 * f;
    p.plastic_strain[i] = 3 * f;
    p.material[i] = static_cast<std::int32_t>(i % 3);
    p.object[i] = static_cast<std::int32_t>(i % 2);
    p.id[i] = static_cast<std::int32_t>(i);
  }
  return p;
}

TEST(ParticleFields, EveryMemberIsOnTheListOnce) {
  Particles p;
  std::set<const void*> members;
  std::set<std::string> names;
  std::size_t bytes = 0;
  ForEachParticleField(
      [&](const ParticleField& f, const auto& field) {
        members.insert(&field);
        names.insert(f.name);
        bytes += sizeof(field);
      },
      p);
  EXPECT_EQ(members.size(), 10u);
  EXPECT_EQ(names.size(), members.size());
  // A member of Particles that is not on the list (a field added without its line) leaves bytes short of the struct.
  EXPECT_EQ(bytes, sizeof(Particles));
}

TEST(ParticleFields, ResizeGatherAndSerializeTreatEveryField) {
  const Particles p = Numbered(5);
  ForEachParticleField([](const ParticleField& f, const auto& field) { EXPECT_EQ(field.size(), 5u) << f.name; }, p);
  // Gathered in reverse: particle i of the result is particle 4 − i of the input, in every field.
  Particles reversed;
  GatherParticles(p, {4, 3, 2, 1, 0}, reversed);
  ForEachParticleField(
      [](const ParticleField& f, const auto& out, const auto& in) {
        ASSERT_EQ(out.size(), in.size()) << f.name;
        for (std::size_t i = 0; i < in.size(); ++i)
          EXPECT_EQ(0, std::memcmp(&out[i], &in[in.size() - 1 - i], sizeof(in[i]))) << f.name << " " << i;
      },
      reversed, p);
  // Written and read back: every field bitwise.
  ArchiveWriter writer;
  Particles copy = p;
  copy.Serialize(writer);
  const std::vector<std::uint8_t> bytes = writer.Take();
  Particles read;
  ArchiveReader reader(bytes.data(), bytes.size());
  read.Serialize(reader);
  ForEachParticleField(
      [](const ParticleField& f, const auto& a, const auto& b) {
        ASSERT_EQ(a.size(), b.size()) << f.name;
        EXPECT_EQ(0, std::memcmp(a.data(), b.data(), sizeof(a[0]) * a.size())) << f.name;
      },
      read, p);
}

}  // namespace
}  // namespace ductile::mpm
