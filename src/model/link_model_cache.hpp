// The link models a communicator has used (papcoll_options.model_file), each under the path the
// root of the call that loaded it gave. The root of a scatterv/gatherv call reads a file the first
// time its path is used and sends the model to every rank, which all add it here at that same call
// (src/api/scatter_gather_call.cpp). So every rank holds the same entries in the same order, and a
// serial number names one model on every rank: later calls send only the serial.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "model/link_model.hpp"

namespace papcoll {

class LinkModelCache {
 public:
  struct Entry {
    std::uint64_t serial = 0;  // 1, 2, ... in the order of loading; never reused
    std::string path;
    std::shared_ptr<const LinkModel> model;
  };

  // At most this many models are kept; the oldest is dropped first. The order of additions is
  // the same on every rank, so is what is dropped (no use-based order, which only the root sees).
  static constexpr size_t kMaxEntries = 8;

  const Entry* find_path(const std::string& path) const;
  const Entry* find_serial(std::uint64_t serial) const;
  // The serial the next add() gives.
  std::uint64_t next_serial() const { return next_serial_; }
  const Entry& add(std::string path, std::shared_ptr<const LinkModel> model);

 private:
  std::deque<Entry> entries_;
  std::uint64_t next_serial_ = 1;
};

}  // namespace papcoll
