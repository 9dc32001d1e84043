#include "schedule/schedule_io.hpp"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace papcoll {
namespace {

void write_blocks(std::ostream& out, const BlockSet& blocks) {
  out << '[';
  bool first = true;
  blocks.for_each([&](int b) {
    out << (first ? "" : ",") << b;
    first = false;
  });
  out << ']';
}

const char* combine_name(Combine c) {
  return c == Combine::reduce ? "reduce" : c == Combine::copy ? "copy" : "none";
}

}  // namespace

void write_schedule_json(std::ostream& out, const Schedule& s) {
  using Json = nlohmann::ordered_json;  // keys in the order written
  // The header's fields, then one rank per line, each rank's object built and written alone, so
  // that a schedule of 2^20 operations (papcoll-sched's limit) is never one document in memory.
  std::string head = Json{
      {"format", "papcoll-schedule/2"},
      {"collective", collective_name(s.collective)},
      {"algorithm", s.algorithm},
      {"p", s.p},
      {"root", s.root < 0 ? Json() : Json(s.root)},
      {"blocks",
       s.blocks}}.dump();
  head.pop_back();  // its closing brace: the ranks follow
  out << head << ",\"ranks\":[";
  for (size_t r = 0; r < s.ranks.size(); ++r) {
    const RankSchedule& rs = s.ranks[r];
    Json rank{{"rank", rs.rank}};
    if (rs.paced_bytes > 0) rank["paced_bytes"] = rs.paced_bytes;
    Json steps = Json::array();
    for (const Step& st : rs.steps) {
      Json ops = Json::array();
      for (const Op& op : rs.ops_of(st)) {
        std::vector<int> ids;
        op.blocks.for_each([&](int b) { ids.push_back(b); });
        Json o = Json::object();
        auto& m = o.get_ref<Json::object_t&>();
        m.reserve(5);
        m.emplace("kind", op.kind == OpKind::send ? "send" : "recv");
        m.emplace("peer", op.peer);
        m.emplace("blocks", std::move(ids));
        if (op.kind == OpKind::recv) m.emplace("combine", combine_name(op.combine));
        if (op.paced) m.emplace("paced", true);
        ops.push_back(std::move(o));
      }
      steps.push_back(Json{{"round", st.round}, {"ops", std::move(ops)}});
    }
    rank["steps"] = std::move(steps);
    out << (r ? ",\n" : "\n") << rank.dump();
  }
  out << "\n]}\n";
}

void write_schedule_text(std::ostream& out, const Schedule& s) {
  out << collective_name(s.collective) << ' ' << s.algorithm << ": p=" << s.p
      << " blocks=" << s.blocks;
  if (s.root >= 0) out << " root=" << s.root;
  out << '\n';
  for (const RankSchedule& rs : s.ranks) {
    out << "rank " << rs.rank;
    if (rs.paced_bytes > 0) out << " (paced sends synchronous from " << rs.paced_bytes << " bytes)";
    out << '\n';
    for (const Step& st : rs.steps) {
      out << "  round " << st.round << ':';
      for (const Op& op : rs.ops_of(st)) {
        out << (op.kind == OpKind::send ? "  send " : "  recv ") << "blocks ";
        write_blocks(out, op.blocks);
        out << (op.kind == OpKind::send ? " to " : " from ") << op.peer;
        if (op.paced) out << " (paced)";
        if (op.kind == OpKind::recv) out << " (" << combine_name(op.combine) << ')';
      }
      out << '\n';
    }
  }
}

}  // namespace papcoll
