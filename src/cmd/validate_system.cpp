// The checks across a system's CDMA streams (validate_system in tilefw/cmd/cdma_system.hpp): streams
// and routes, each stream alone, then the send/recv pairing of every directed pair of chips
// (Rule: CDMA pairing).

#include "tilefw/cmd/cdma_system.hpp"

#include "tilefw/cmd/cdma.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd {

namespace {

SystemValidation at(const CdmaStream& s, size_t index, Status status, const Command* c, const char* field,
                    const char* message) noexcept {
  SystemValidation v;
  v.chip = s.chip;
  v.peer = s.peer;
  v.stream = index;
  v.report.status = status;
  v.report.engine = Engine::cdma;
  v.report.field = field;
  v.report.message = message;
  if (c != nullptr) {
    v.report.command_id = c->id;
    v.report.offset = c->offset;
  }
  return v;
}

// The next send-class (or recv) command of a valid stream; false at its end.
bool next_of(Walker& w, bool sends, Command& c) noexcept {
  while (w.next(c)) {
    const bool send_class = c.cls == CmdClass::cdma_send || c.cls == CmdClass::cdma_lossy_compress ||
                            c.cls == CmdClass::cdma_lossy_decompress;
    if (sends ? send_class : c.cls == CmdClass::cdma_recv) return true;
  }
  return false;
}

uint32_t count_of(ConstByteSpan bytes, bool sends) noexcept {
  Walker w(Engine::cdma, bytes);
  Command c;
  uint32_t n = 0;
  while (next_of(w, sends, c)) ++n;
  return n;
}

// The k-th (1-based) send or recv of a stream.
Command nth_of(ConstByteSpan bytes, bool sends, uint32_t k) noexcept {
  Walker w(Engine::cdma, bytes);
  Command c;
  for (uint32_t i = 0; i < k && next_of(w, sends, c); ++i) {
  }
  return c;
}

constexpr size_t kNone = SIZE_MAX;
size_t stream_of(Span<const CdmaStream> streams, uint32_t chip, uint32_t peer) noexcept {
  for (size_t i = 0; i < streams.size(); ++i) {
    if (streams[i].chip == chip && streams[i].peer == peer) return i;
  }
  return kNone;
}

SystemValidation check_layout(const Topology& t, Span<const CdmaStream> streams, Span<const ChipMemory> chips) noexcept {
  uint32_t ports[Topology::kMaxChips] = {};
  for (size_t i = 0; i < streams.size(); ++i) {
    const CdmaStream& s = streams[i];
    if (s.chip >= t.chips() || s.peer >= t.chips() || chips.size() < t.chips()) {
      return at(s, i, Status::invalid_argument, nullptr, "", "a chip past the system's chips");
    }
    if (s.chip == s.peer) return at(s, i, Status::invalid_argument, nullptr, "", "a CDMA stream to its own chip");
    if (stream_of(streams, s.chip, s.peer) != i) {
      return at(s, i, Status::invalid_argument, nullptr, "", "a second stream for one (chip, peer) port");
    }
    if (!t.reachable(s.chip, s.peer)) {
      return at(s, i, Status::cmd_no_route, nullptr, "", "no C2C link joins the chip to its peer");
    }
    if (++ports[s.chip] > chip::sg2260::kCdmaPorts) {
      return at(s, i, Status::cmd_no_route, nullptr, "", "the chip uses more CDMA ports than its 10");
    }
  }
  return SystemValidation{};
}

// The k-th send of (A, B) against the k-th recv of (B, A).
const char* pair_mismatch(const Command& send, const Command& recv) noexcept {
  if (send.cls != CmdClass::cdma_send) return nullptr;  // lossy frames: opaque payload, count only
  const CdmaSendView s(send.data);
  const CdmaRecvView r(recv.data);
  const uint64_t ns = uint64_t{s.src_nsize()} * s.src_csize() * s.src_hsize() * s.src_wsize();
  const uint64_t nr = uint64_t{r.dst_nsize()} * r.dst_csize() * r.dst_hsize() * r.dst_wsize();
  if (ns != nr) return "the matched send and recv move different element counts";
  if (s.src_data_format() != r.data_format()) return "the matched send and recv name different data formats";
  if (s.psum_op() != (r.reduce_op() != kCdmaReduceNone ? 1u : 0u)) {
    return "the send's psum_op does not match the recv's reduce_op (read-modify-write exactly when reducing)";
  }
  if (!cdma_reduce_valid(s.src_data_format(), r.reduce_op())) return "the reduce op is not defined for the send's format";
  return nullptr;
}

// Direction A -> B: the sends of stream i (A, B) against the recvs of stream j (B, A), which
// may be absent (kNone: no recvs).
SystemValidation check_direction(Span<const CdmaStream> streams, size_t i, size_t j) noexcept {
  const CdmaStream& a = streams[i];
  const uint32_t sends = count_of(a.bytes, true);
  const uint32_t recvs = j == kNone ? 0 : count_of(streams[j].bytes, false);
  if (sends > recvs) {
    const Command c = nth_of(a.bytes, true, recvs + 1);
    return at(a, i, Status::cmd_unmatched_transfer, &c, "", "a send with no recv on the peer's port for this chip");
  }
  if (recvs > sends) {
    const Command c = nth_of(streams[j].bytes, false, sends + 1);
    return at(streams[j], j, Status::cmd_unmatched_transfer, &c, "", "a recv with no send on the peer's port for this chip");
  }
  if (sends == 0) return SystemValidation{};
  Walker ws(Engine::cdma, a.bytes), wr(Engine::cdma, streams[j].bytes);
  Command s, r;
  while (next_of(ws, true, s) && next_of(wr, false, r)) {
    if (const char* why = pair_mismatch(s, r)) return at(streams[j], j, Status::cmd_pair_mismatch, &r, "recv", why);
  }
  return SystemValidation{};
}

}  // namespace

SystemValidation validate_system(const Topology& topology, Span<const CdmaStream> streams, Span<const ChipMemory> chips,
                                 const ValidateOptions& base) noexcept {
  if (SystemValidation v = check_layout(topology, streams, chips); !v.ok()) return v;
  for (size_t i = 0; i < streams.size(); ++i) {
    const CdmaStream& s = streams[i];
    ValidateOptions o = base;
    o.use_memory_map = chips[s.chip].use_memory_map;
    o.ddr_regions = chips[s.chip].ddr_regions;
    o.cdma.chip = s.chip;
    o.cdma.peer = s.peer;
    o.cdma.peer_use_memory_map = chips[s.peer].use_memory_map;
    o.cdma.peer_ddr_regions = chips[s.peer].ddr_regions;
    const ValidationReport r = validate_stream(Engine::cdma, s.bytes, o);
    if (!r.ok()) {
      SystemValidation v = at(s, i, r.status, nullptr, r.field, r.message);
      v.report = r;
      return v;
    }
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    const size_t j = stream_of(streams, streams[i].peer, streams[i].chip);
    if (SystemValidation v = check_direction(streams, i, j); !v.ok()) return v;
    // The reverse direction when the peer has no stream back: its recvs here have no sender.
    if (j == kNone && count_of(streams[i].bytes, false) > 0) {
      const Command c = nth_of(streams[i].bytes, false, 1);
      return at(streams[i], i, Status::cmd_unmatched_transfer, &c, "",
                "a recv with no send on the peer's port for this chip");
    }
  }
  return SystemValidation{};
}

}  // namespace tilefw::cmd
