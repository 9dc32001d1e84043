// The per-pair Hockney model and its file (docs/model-format.md): round trips bit for bit, and
// every kind of bad input gives a clear error that names the line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "model/link_model.hpp"
#include "model/link_model_io.hpp"

namespace papcoll {
namespace {

std::string model_text(const LinkModel& m) {
  std::ostringstream out;
  write_link_model(out, m);
  return out.str();
}

// The error of parsing `text`, which must fail.
std::string error_of(const std::string& text, int expected_p = 0) {
  const LinkModelResult r = parse_link_model(text, "m.txt", expected_p);
  EXPECT_FALSE(r.ok()) << text;
  return r.error;
}

const char* kThree = "papcoll-model 1\n"
                     "p 3\n"
                     "0 1 1e-05 1e-09\n"
                     "0 2 2e-05 2e-09\n"
                     "1 0 1e-05 1e-09\n"
                     "1 2 3e-05 3e-09\n"
                     "2 0 2e-05 2e-09\n"
                     "2 1 3e-05 3e-09\n"
                     "end\n";

TEST(LinkModel, HomogeneousHasOneAlphaAndBetaForEveryPair) {
  const LinkModelResult r = LinkModel::homogeneous(5, 2e-6, 3e-10);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.model->is_homogeneous());
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      EXPECT_EQ(r.model->alpha(i, j), 2e-6);
      EXPECT_EQ(r.model->beta(i, j), 3e-10);
    }
  EXPECT_EQ(r.model->time(1, 2, 1000), 2e-6 + 3e-10 * 1000);
  EXPECT_NE(LinkModel::homogeneous(0, 1, 1).error, "");
  EXPECT_NE(LinkModel::homogeneous(3, -1, 1).error.find("alpha is negative"), std::string::npos);
  EXPECT_NE(LinkModel::homogeneous(3, 1, std::nan("")).error.find("beta is NaN"),
            std::string::npos);
}

TEST(LinkModel, FromMatricesValidatesEveryOffDiagonalEntry) {
  std::vector<double> a(9, 1e-6), b(9, 1e-9);
  a[0] = std::nan("");  // the diagonal is never used
  EXPECT_TRUE(LinkModel::from_matrices(3, a, b).ok());
  a[1 * 3 + 2] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(LinkModel::from_matrices(3, a, b).error, "alpha of link 1 -> 2 is infinite");
  EXPECT_NE(LinkModel::from_matrices(3, std::vector<double>(8, 1.0), b).error.find("needs 9"),
            std::string::npos);
}

TEST(LinkModelFile, ParsesPairsAndReadsBackWhatItWrites) {
  const LinkModelResult r = parse_link_model(kThree, "m.txt", 3);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.model->p(), 3);
  EXPECT_EQ(r.model->alpha(1, 2), 3e-05);
  EXPECT_EQ(r.model->beta(2, 0), 2e-09);

  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> d(0, 1);
  for (int p : {1, 2, 7, 16}) {
    std::vector<double> a(static_cast<size_t>(p * p)), b(a.size());
    for (size_t k = 0; k < a.size(); ++k) {
      a[k] = 1e-6 + 1e-4 * d(rng);  // arbitrary doubles: the text must keep every bit
      b[k] = 1e-10 + 1e-8 * d(rng);
    }
    const LinkModelResult m = LinkModel::from_matrices(p, a, b);
    ASSERT_TRUE(m.ok());
    const LinkModelResult back = parse_link_model(model_text(*m.model), "round trip");
    ASSERT_TRUE(back.ok()) << back.error;
    for (int i = 0; i < p; ++i)
      for (int j = 0; j < p; ++j)
        if (i != j) {
          EXPECT_EQ(back.model->alpha(i, j), m.model->alpha(i, j));
          EXPECT_EQ(back.model->beta(i, j), m.model->beta(i, j));
        }
  }
  const LinkModelResult h = LinkModel::homogeneous(64, 4.5e-6, 8.1e-10);
  const std::string text = model_text(*h.model);
  EXPECT_NE(text.find("default 4.5e-06 8.1e-10"), std::string::npos) << text;
  const LinkModelResult hb = parse_link_model(text, "round trip", 64);
  ASSERT_TRUE(hb.ok()) << hb.error;
  EXPECT_TRUE(hb.model->is_homogeneous());
  EXPECT_EQ(hb.model->alpha(3, 60), 4.5e-6);
}

TEST(LinkModelFile, DefaultCoversThePairsNotListedCommentsAndBlanksAreIgnored) {
  const LinkModelResult r = parse_link_model(
      "papcoll-model 1   # header\n\n# two clusters\np 4\ndefault 1e-4 1e-8\n"
      "0 1 1e-6 1e-9\n1 0 1e-6 1e-9\r\n  2 3 1e-6 1e-9\n3 2 1e-6 1e-9\nend\n# done\n",
      "m.txt");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.model->is_homogeneous());
  EXPECT_EQ(r.model->alpha(0, 1), 1e-6);
  EXPECT_EQ(r.model->alpha(1, 2), 1e-4);
  EXPECT_EQ(r.model->beta(3, 0), 1e-8);
  EXPECT_EQ(r.model->beta(2, 3), 1e-9);
}

TEST(LinkModelFile, HeaderAndVersionErrors) {
  EXPECT_NE(error_of("").find("empty file"), std::string::npos);
  EXPECT_NE(error_of("p 3\nend\n").find("line 1: not a papcoll model file"), std::string::npos);
  EXPECT_NE(error_of("papcoll-model 2\np 1\nend\n")
                .find(
                    "line 1: unsupported model format version '2' (this library reads version 1)"),
            std::string::npos);
  EXPECT_EQ(error_of("papcoll-model 1\nend\n"), "m.txt: no 'p N' line");
}

TEST(LinkModelFile, MissingRanksAndLinks) {
  // p says 3 but only ranks 0 and 1 appear.
  EXPECT_EQ(error_of("papcoll-model 1\np 3\n0 1 1 1\n1 0 1 1\nend\n"),
            "m.txt: rank 2 has no link lines (the model is for p=3; list every ordered pair or "
            "give a 'default ALPHA BETA' line)");
  std::string one_missing = kThree;
  one_missing.erase(one_missing.find("2 1 3e-05"), std::string("2 1 3e-05 3e-09\n").size());
  EXPECT_NE(error_of(one_missing).find("missing 1 of 6 links, e.g. 2 -> 1"), std::string::npos);
  EXPECT_NE(error_of("papcoll-model 1\np 2\nend\n").find("no links"), std::string::npos);
}

TEST(LinkModelFile, BadValues) {
  EXPECT_EQ(error_of("papcoll-model 1\np 2\n0 1 -1e-6 1e-9\n1 0 1e-6 1e-9\nend\n"),
            "m.txt: line 3: alpha of link 0 -> 1 is negative (-1e-06)");
  EXPECT_EQ(error_of("papcoll-model 1\np 2\n0 1 1e-6 nan\n1 0 1e-6 1e-9\nend\n"),
            "m.txt: line 3: beta of link 0 -> 1 is NaN");
  EXPECT_EQ(error_of("papcoll-model 1\np 2\n0 1 1e-6 1e-9\n1 0 inf 1e-9\nend\n"),
            "m.txt: line 4: alpha of link 1 -> 0 is infinite");
  EXPECT_EQ(error_of("papcoll-model 1\np 2\ndefault 1e-6 -0.5\nend\n"),
            "m.txt: line 3: beta of default is negative (-0.5)");
  EXPECT_NE(error_of("papcoll-model 1\np 2\n0 1 fast 1e-9\n1 0 1 1\nend\n")
                .find("line 3: alpha of link 0 -> 1 is not a number: 'fast'"),
            std::string::npos);
}

TEST(LinkModelFile, BadStructure) {
  EXPECT_NE(
      error_of("papcoll-model 1\np 2\n0 2 1 1\nend\n").find("line 3: rank 2 out of range 0..1"),
      std::string::npos);
  EXPECT_NE(error_of("papcoll-model 1\np 2\n1 1 1 1\nend\n").find("to itself"), std::string::npos);
  EXPECT_NE(error_of("papcoll-model 1\np 2\n0 1 1 1\n0 1 1 1\n1 0 1 1\nend\n")
                .find("line 4: link 0 -> 1 given twice"),
            std::string::npos);
  EXPECT_NE(error_of("papcoll-model 1\n0 1 1 1\np 2\nend\n").find("before the 'p N' line"),
            std::string::npos);
  EXPECT_NE(error_of("papcoll-model 1\np 2\np 2\nend\n").find("a second 'p' line"),
            std::string::npos);
  EXPECT_NE(error_of("papcoll-model 1\np 0\nend\n").find("p must be an integer"),
            std::string::npos);
  EXPECT_NE(error_of("papcoll-model 1\np 2\ndefault 1 1\nend\n0 1 1 1\n").find("after 'end'"),
            std::string::npos);
  EXPECT_NE(error_of("papcoll-model 1\np 2\nlink 0 1 1 1\nend\n").find("found 'link'"),
            std::string::npos);
}

TEST(LinkModelFile, TruncatedFiles) {
  const std::string full = kThree;
  // Cut at a line boundary: every line parses, the closing 'end' is missing.
  const std::string at_line = full.substr(0, full.find("2 1 3e-05"));
  EXPECT_EQ(error_of(at_line), "m.txt: truncated: no closing 'end' line after line 7");
  // Cut inside a line: that line is reported, with the hint.
  const std::string mid = full.substr(0, full.find("2 1 3e-05") + 8);
  const std::string e = error_of(mid);
  EXPECT_NE(e.find("line 8: expected 'FROM TO ALPHA BETA' (4 fields), found 3 fields"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("looks truncated"), std::string::npos) << e;
  const std::string mid_number = full.substr(0, full.find("2 1 3e-05") + 13);  // "2 1 3e-05 3e-"
  EXPECT_NE(error_of(mid_number).find("not a number: '3e-'"), std::string::npos);
  EXPECT_NE(error_of("papcoll-model 1\np 3\n").find("truncated"), std::string::npos);
}

TEST(LinkModelFile, SizeMustMatchTheCommunicator) {
  EXPECT_EQ(error_of(kThree, 4), "m.txt: the model is for p=3 ranks but there are 4");
  EXPECT_TRUE(parse_link_model(kThree, "m.txt", 3).ok());
}

TEST(LinkModelFile, ReadsFilesAndNamesThem) {
  const std::string path = ::testing::TempDir() + "papcoll_link_model_test.txt";
  {
    std::ofstream out(path);
    out << kThree;
  }
  const LinkModelResult r = read_link_model_file(path, 3);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.model->alpha(0, 2), 2e-05);
  {
    std::ofstream out(path);
    out << "papcoll-model 1\np 3\n0 1 1e-6";
  }
  const LinkModelResult bad = read_link_model_file(path);
  EXPECT_EQ(bad.error.rfind(path + ": line 3:", 0), 0u) << bad.error;
  std::remove(path.c_str());
  EXPECT_EQ(read_link_model_file(path).error, path + ": cannot open the model file");
}

}  // namespace
}  // namespace papcoll
