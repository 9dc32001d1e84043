#include "schedule/schedule_io.hpp"

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
  out << "{\"format\":\"papcoll-schedule/1\",\"collective\":\"" << collective_name(s.collective)
      << "\",\"algorithm\":\"" << s.algorithm << "\",\"p\":" << s.p << ",\"root\":";
  if (s.root < 0) out << "null"; else out << s.root;
  out << ",\"blocks\":" << s.blocks << ",\"ranks\":[";
  for (size_t r = 0; r < s.ranks.size(); ++r) {
    const RankSchedule& rs = s.ranks[r];
    out << (r ? ",\n" : "\n") << "{\"rank\":" << rs.rank;
    if (rs.paced_until > 0) out << ",\"paced_until\":" << rs.paced_until;
    out << ",\"steps\":[";
    for (size_t i = 0; i < rs.steps.size(); ++i) {
      const Step& st = rs.steps[i];
      out << (i ? "," : "") << "{\"round\":" << st.round << ",\"ops\":[";
      const std::span<const Op> ops = rs.ops_of(st);
      for (size_t k = 0; k < ops.size(); ++k) {
        const Op& op = ops[k];
        out << (k ? "," : "") << "{\"kind\":\"" << (op.kind == OpKind::send ? "send" : "recv")
            << "\",\"peer\":" << op.peer << ",\"blocks\":";
        write_blocks(out, op.blocks);
        if (op.kind == OpKind::recv) out << ",\"combine\":\"" << combine_name(op.combine) << '"';
        out << '}';
      }
      out << "]}";
    }
    out << "]}";
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
    if (rs.paced_until > 0) out << " (paced below round " << rs.paced_until << ')';
    out << '\n';
    for (const Step& st : rs.steps) {
      out << "  round " << st.round << ':';
      for (const Op& op : rs.ops_of(st)) {
        out << (op.kind == OpKind::send ? "  send " : "  recv ") << "blocks ";
        write_blocks(out, op.blocks);
        out << (op.kind == OpKind::send ? " to " : " from ") << op.peer;
        if (op.kind == OpKind::recv) out << " (" << combine_name(op.combine) << ')';
      }
      out << '\n';
    }
  }
}

}  // namespace papcoll
