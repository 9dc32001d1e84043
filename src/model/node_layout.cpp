#include "model/node_layout.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <unordered_map>

namespace papcoll {
namespace {

void append_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Comma-separated non-negative integers up to `max`; nothing if any is missing or malformed.
std::optional<std::vector<int64_t>> parse_number_list(std::string_view text, int64_t max) {
  std::vector<int64_t> out;
  size_t pos = 0;
  while (true) {
    const size_t comma = text.find(',', pos);
    const std::string_view item =
        text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || v < 0 || v > max)
      return std::nullopt;
    out.push_back(v);
    if (comma == std::string_view::npos) return out;
    pos = comma + 1;
  }
}

std::optional<int> parse_count(std::string_view text) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 1)
    return std::nullopt;
  return v;
}

}  // namespace

std::vector<int> NodeLayout::ranks_on(int k) const {
  std::vector<int> r;
  for (int i = 0; i < p(); ++i)
    if (node_of[static_cast<size_t>(i)] == k) r.push_back(i);
  return r;
}

int NodeLayout::node_size(int k) const {
  return static_cast<int>(std::count(node_of.begin(), node_of.end(), k));
}

int NodeLayout::leader(int k) const {
  const auto it = std::find(node_of.begin(), node_of.end(), k);
  return it == node_of.end() ? -1 : static_cast<int>(it - node_of.begin());
}

int NodeLayout::local_index(int r) const {
  const int k = node_of[static_cast<size_t>(r)];
  return static_cast<int>(std::count(node_of.begin(), node_of.begin() + r, k));
}

std::vector<int> NodeLayout::node_sizes() const {
  std::vector<int> sizes(static_cast<size_t>(nodes()), 0);
  for (int k : node_of) ++sizes[static_cast<size_t>(k)];
  return sizes;
}

int NodeLayout::largest_node() const {
  const std::vector<int> s = node_sizes();
  return s.empty() ? 0 : *std::max_element(s.begin(), s.end());
}

int NodeLayout::smallest_node() const {
  const std::vector<int> s = node_sizes();
  return s.empty() ? 0 : *std::min_element(s.begin(), s.end());
}

bool NodeLayout::contiguous() const {
  // With nodes numbered by their lowest rank, a node is contiguous exactly when the node index
  // never goes back.
  for (size_t r = 1; r < node_of.size(); ++r)
    if (node_of[r] < node_of[r - 1]) return false;
  return true;
}

std::string NodeLayout::key() const {
  std::string k;
  const int n = p();
  const int per = n > 0 ? node_size(0) : 0;
  bool blocks = n > 0;
  for (int r = 0; r < n && blocks; ++r) blocks = node_of[static_cast<size_t>(r)] == r / per;
  if (blocks) {
    k.push_back('b');
    append_varint(k, static_cast<uint64_t>(n));
    append_varint(k, static_cast<uint64_t>(per));
  } else if (contiguous()) {
    k.push_back('c');
    const std::vector<int> sizes = node_sizes();
    append_varint(k, sizes.size());
    for (int s : sizes) append_varint(k, static_cast<uint64_t>(s));
  } else {
    k.push_back('g');
    append_varint(k, static_cast<uint64_t>(n));
    for (int v : node_of) append_varint(k, static_cast<uint64_t>(v));
  }
  return k;
}

std::string NodeLayout::describe() const {
  const int n = p(), k = nodes();
  std::string s = std::to_string(n) + (n == 1 ? " rank on " : " ranks on ") + std::to_string(k) +
                  (k == 1 ? " node" : " nodes");
  if (k == 0) return s;
  const int lo = smallest_node(), hi = largest_node();
  s += " of " + (lo == hi ? std::to_string(hi) : std::to_string(lo) + " to " + std::to_string(hi));
  if (!contiguous()) s += " (not contiguous)";
  return s;
}

NodeLayout node_layout_from_labels(std::span<const int64_t> labels) {
  std::unordered_map<int64_t, int> index;
  index.reserve(labels.size());
  NodeLayout l;
  l.node_of.resize(labels.size());
  for (size_t r = 0; r < labels.size(); ++r)
    l.node_of[r] = index.emplace(labels[r], static_cast<int>(index.size())).first->second;
  return l;
}

std::string node_layout_error(const NodeLayout& l) {
  int next = 0;
  for (size_t r = 0; r < l.node_of.size(); ++r) {
    const int k = l.node_of[r];
    if (k < 0 || k > next)
      return "node of rank " + std::to_string(r) + " is " + std::to_string(k) +
             "; nodes must be numbered 0, 1, ... in the order of their lowest rank (at most " +
             std::to_string(next) + " here)";
    if (k == next) ++next;
  }
  return {};
}

std::optional<NodeLayout> parse_node_spec(std::string_view text, int world, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<NodeLayout> {
    if (error != nullptr)
      *error = "PAPCOLL_NODES=\"" + std::string(text.substr(0, 64)) + "\": " + why +
               " (forms: block:K, cyclic:N, sizes:A,B,..., list:L0,L1,...)";
    return std::nullopt;
  };
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return fail("no form given");
  const std::string_view form = text.substr(0, colon), arg = text.substr(colon + 1);
  if (world < 1) return fail("no ranks");
  if (form == "block") {
    const std::optional<int> k = parse_count(arg);
    if (!k) return fail("K must be a whole number of ranks per node, at least 1");
    return block_node_layout(world, *k);
  }
  if (form == "cyclic") {
    const std::optional<int> n = parse_count(arg);
    if (!n) return fail("N must be a whole number of nodes, at least 1");
    std::vector<int64_t> labels(static_cast<size_t>(world));
    for (int r = 0; r < world; ++r) labels[static_cast<size_t>(r)] = r % *n;
    return node_layout_from_labels(labels);
  }
  if (form == "sizes") {
    const auto sizes = parse_number_list(arg, world);
    if (!sizes) return fail("the sizes must be a comma-separated list of whole numbers");
    int64_t total = 0;
    for (size_t k = 0; k < sizes->size(); ++k) {
      if ((*sizes)[k] == 0) return fail("node " + std::to_string(k) + " has no ranks");
      total += (*sizes)[k];
    }
    if (total != world)
      return fail("the sizes add up to " + std::to_string(total) + ", not to the " +
                  std::to_string(world) + " ranks of MPI_COMM_WORLD");
    NodeLayout l;
    for (size_t k = 0; k < sizes->size(); ++k)
      l.node_of.insert(l.node_of.end(), static_cast<size_t>((*sizes)[k]), static_cast<int>(k));
    return l;
  }
  if (form == "list") {
    const auto labels = parse_number_list(arg, std::numeric_limits<int64_t>::max());
    if (!labels) return fail("the labels must be a comma-separated list of whole numbers");
    if (static_cast<int64_t>(labels->size()) != world)
      return fail(std::to_string(labels->size()) + " labels for the " + std::to_string(world) +
                  " ranks of MPI_COMM_WORLD");
    return node_layout_from_labels(*labels);
  }
  return fail("unknown form \"" + std::string(form.substr(0, 16)) + "\"");
}

}  // namespace papcoll
