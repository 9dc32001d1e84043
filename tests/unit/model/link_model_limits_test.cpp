// The model reader's bounds (docs/model-format.md, "Limits"): sizes are checked before anything is
// sized by them, lines and files have a maximum length, and files are read as a stream.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "model/link_model_io.hpp"

namespace papcoll {
namespace {

std::string limit_error(const std::string& text, int expected_p = 0) {
  const LinkModelResult r = parse_link_model(text, "m.txt", expected_p);
  EXPECT_FALSE(r.ok()) << text.substr(0, 200);
  return r.error;
}

TEST(LinkModelLimits, AnotherCommunicatorsSizeStopsAtThePLine) {
  // A 42-byte file: a claim of p = 20000 followed by a link line, read for 4 ranks. The
  // error comes from the 'p' line, before the link line could size a 20000 x 20000 matrix.
  EXPECT_EQ(limit_error("papcoll-model 1\np 20000\n0 1 1e-6 1e-9\nend\n", 4),
            "m.txt: the model is for p=20000 ranks but there are 4");
  // Anything after the 'p' line is not even looked at.
  EXPECT_EQ(limit_error("papcoll-model 1\np 3\nthis is not a model line\n", 4),
            "m.txt: the model is for p=3 ranks but there are 4");
}

TEST(LinkModelLimits, PerPairLinksUpTo4096Ranks) {
  const std::string e =
      limit_error("papcoll-model 1\np 4097\ndefault 1e-6 1e-9\n0 1 1e-6 1e-9\nend\n");
  EXPECT_NE(e.find("line 4: per-pair links are supported up to p=4096"), std::string::npos) << e;
  // A homogeneous model is two numbers for any p up to 65536.
  const LinkModelResult h =
      parse_link_model("papcoll-model 1\np 65536\ndefault 1e-6 1e-9\nend\n", "h");
  ASSERT_TRUE(h.ok()) << h.error;
  EXPECT_EQ(h.model->p(), 65536);
  EXPECT_TRUE(h.model->is_homogeneous());
  EXPECT_NE(limit_error("papcoll-model 1\np 65537\ndefault 1 1\nend\n")
                .find("p must be an integer in 1..65536"),
            std::string::npos);
}

TEST(LinkModelLimits, LinesAreAtMost4096Bytes) {
  EXPECT_EQ(limit_error(std::string(5000, '\0')),
            "m.txt: not a papcoll model file: the first line is longer than 4096 bytes");
  const std::string e =
      limit_error("papcoll-model 1\np 2\n# " + std::string(5000, 'x') + "\ndefault 1 1\nend\n");
  EXPECT_NE(e.find("line 3: longer than 4096 bytes"), std::string::npos) << e;
  // 4096 bytes exactly is fine.
  EXPECT_TRUE(parse_link_model(
                  "papcoll-model 1\np 2\n#" + std::string(4095, 'x') + "\ndefault 1 1\nend\n", "m")
                  .ok());
}

TEST(LinkModelLimits, FilesAreAtMost1MiBPlus128BytesPerLink) {
  std::string comments;
  for (int i = 0; i < 25000; ++i) comments += "# padding padding padding padding padding padding\n";
  const std::string e = limit_error("papcoll-model 1\np 2\ndefault 1 1\n" + comments + "end\n");
  EXPECT_NE(e.find("longer than 1048832 bytes (1 MiB plus 128 bytes per link for p=2)"),
            std::string::npos)
      << e;
  // Without a 'p' line (or with p above the per-pair limit) the file may only be 1 MiB.
  EXPECT_NE(limit_error("papcoll-model 1\n" + comments).find("longer than 1048576 bytes"),
            std::string::npos);
}

TEST(LinkModelLimits, FilesAreStreamedWithTheSameResultsAsText) {
  const std::string path = ::testing::TempDir() + "papcoll_link_model_limits.txt";
  std::string text = "papcoll-model 1\np 40\n";
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 40; ++j)
      if (i != j)
        text += std::to_string(i) + " " + std::to_string(j) + " " + std::to_string(i + 1) +
                "e-06 " + std::to_string(j + 1) + "e-10   # a comment\n";
  text += "end\n";
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  const LinkModelResult f = read_link_model_file(path, 40);
  const LinkModelResult t = parse_link_model(text, path, 40);
  ASSERT_TRUE(f.ok()) << f.error;
  ASSERT_TRUE(t.ok()) << t.error;
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 40; ++j)
      if (i != j) {
        EXPECT_EQ(f.model->alpha(i, j), t.model->alpha(i, j));
        EXPECT_EQ(f.model->beta(i, j), std::stod(std::to_string(j + 1) + "e-10"));
      }
  // The same errors and line numbers from a stream, the truncation hint included.
  {
    std::ofstream out(path, std::ios::binary);
    out << text.substr(0, text.size() - 30);
  }
  const LinkModelResult cut = read_link_model_file(path, 40);
  EXPECT_EQ(cut.error, parse_link_model(text.substr(0, text.size() - 30), path, 40).error);
  EXPECT_NE(cut.error.find("looks truncated"), std::string::npos) << cut.error;
  std::remove(path.c_str());
}

TEST(LinkModelLimits, DevicesAndDirectories) {
  EXPECT_EQ(read_link_model_file("/dev/zero").error,
            "/dev/zero: not a papcoll model file: the first line is longer than 4096 bytes");
  EXPECT_EQ(read_link_model_file("/dev/null").error,
            "/dev/null: empty file or empty first line (expected the header 'papcoll-model 1')");
  EXPECT_EQ(read_link_model_file("/").error, "/: read error");
}

}  // namespace
}  // namespace papcoll
