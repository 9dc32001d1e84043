// Building blocks of AlgorithmInfo::arrival_key: the quantised arrivals a generator reads, as
// bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace papcoll {

template <typename T>
void append_key(std::string& key, const std::vector<T>& values) {
  key.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

}  // namespace papcoll
