// One rank's part of the straggler report as it travels to the writing rank (report_writer.cpp:
// one gather at the end), with its binary form. No MPI here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "observe/report_record.hpp"

namespace papcoll::observe {

struct KeyData {
  CallKey key;
  std::uint64_t calls = 0;
  double seconds = 0, max_seconds = 0;
  std::vector<std::pair<std::string, std::uint64_t>> algorithms;
  std::uint64_t reasons[kReasons] = {};
  double gain_sum = 0;
  std::uint64_t gain_calls = 0;
  int level = 0;
  std::vector<Sample> samples;
};

// One rank's record of one communicator.
struct CommData {
  long long id = 0;              // the same on every rank of the communicator
  std::string name;              // MPI_Comm_get_name, "" when the program gave none
  int size = 0, rank = 0;        // the communicator's size, this rank in it
  std::vector<int> world_ranks;  // of every rank of the communicator
  std::uint64_t calls = 0, unkeyed = 0;
  bool freed = false;  // the program freed the communicator before the report
  std::vector<KeyData> keys;
};

struct RankData {
  int world_rank = 0;
  std::string host;
  double clock_offset = 0;  // this rank's steady clock minus world rank 0's, seconds
  double clock_width = 0;   // the offset is known to within +- width / 2
  std::vector<CommData> comms;
};

KeyData key_data(const KeyRecord& k);

std::string serialize(const RankData& r);
// False when the bytes are not what serialize() writes.
bool deserialize(const char* bytes, size_t n, RankData* out);

}  // namespace papcoll::observe
