#include "observe/call_watch.hpp"

namespace papcoll::observe {

void CallWatch::attach_slow(MPI_Comm comm) {
  armed_ = false;
  int size = 1;
  if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS || size < 2) return;
  obs_ = make_observer(comm);
  if (obs_ == nullptr) return;
  seq_ = ++obs_->seq;
  if (obs_->board.is_open()) obs_->board.enter(seq_, entry_, collective_);
}

void CallWatch::refused(int code, const char* message) {
  algorithm_ = "refused";
  reason_ = AutoReason::refused;
  if (has_board()) {
    obs_->board.refuse(seq_, collective_, code, message);
    published_ = true;
  }
}

void CallWatch::stand_in(int code, const char* message) {
  if (has_board()) obs_->board.note_problem(seq_, code, message);
}

void CallWatch::record() {
  CallRecord c;
  c.call = seq_;
  c.key = key_;
  c.key.collective = collective_;
  c.algorithm = algorithm_;
  c.reason = reason_;
  c.gain = gain_;
  c.entry = entry_;
  c.seconds = NAN;
  if (!std::isnan(entry_)) {
    const double w = obs_->record->timed_weight(c.key, seq_);
    if (w > 0) {
      c.seconds = prediction::steady_seconds() - entry_;
      c.weight = w;
    }
  }
  c.predicted = predicted_;
  obs_->record->add(c);
}

}  // namespace papcoll::observe
