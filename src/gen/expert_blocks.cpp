// Copies of generated expert blocks (expert_blocks.hpp).
#include "expert_blocks.hpp"

#include <cstdint>
#include <cstring>

#include "tilefw/cmd/dma_footprint.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::gen::detail {

namespace {

constexpr uint64_t kDmaAddressMask = (uint64_t{1} << 45) - 1;

bool ends_with(const char* s, const char* tail) noexcept {
  const size_t n = std::strlen(s), m = std::strlen(tail);
  return n >= m && std::strcmp(s + n - m, tail) == 0;
}

// Two 32-bit loads: one unaligned-capable LDR each on the control core (a 64-bit copy there is
// built from bytes).
uint64_t load64(const uint8_t* p) noexcept {
  uint32_t lo = 0, hi = 0;
  __builtin_memcpy(&lo, p, 4);
  __builtin_memcpy(&hi, p + 4, 4);
  return uint64_t{lo} | uint64_t{hi} << 32;
}

// The per-expert step of a field that is fa for expert ea and fb for eb: false when the change
// is not a whole multiple of the expert step or the step does not fit 32 bits (a plan entry's).
bool expert_step(uint64_t fa, uint64_t fb, uint32_t ea, uint32_t eb, int32_t& step) noexcept {
  const int64_t d = static_cast<int64_t>(fb - fa), de = static_cast<int64_t>(eb) - static_cast<int64_t>(ea);
  if (de == 0 || d <= INT32_MIN || d > INT32_MAX) return false;  // (INT32_MIN / -1 overflows)
  const int32_t d32 = static_cast<int32_t>(d), de32 = static_cast<int32_t>(de);
  if (d32 % de32 != 0) return false;
  step = d32 / de32;
  return true;
}

// fb moved by (e - eb) steps: false when it leaves [0, limit].
bool moved(uint64_t fb, int32_t step, uint32_t eb, uint32_t e, uint64_t limit, uint64_t& out) noexcept {
  const int64_t v = static_cast<int64_t>(fb) + (static_cast<int64_t>(e) - static_cast<int64_t>(eb)) * step;
  if (v < 0 || static_cast<uint64_t>(v) > limit) return false;
  out = static_cast<uint64_t>(v);
  return true;
}

// A dependency id relative to its block's start: kNone for "no dependency" (0 where the other
// engine had commands before the block), kEither for 0 where it had none (no dependency and a
// dependency on the start read the same there); false when it points before the start.
constexpr int64_t kNone = -1, kEither = -2;
bool relative(uint32_t raw, uint32_t start, int64_t& rel) noexcept {
  const uint32_t id = (raw & sg::kDepEnableBit) != 0 ? raw & sg::kDepIdMask : 0;
  if (id == 0) {
    rel = start == 0 ? kEither : kNone;
    return true;
  }
  if (id < start) return false;
  rel = id - start;
  return true;
}

struct DepField {
  uint32_t bit, width;
};
// TIU: cmd_id_dep@17:23 in every class the generator emits; DMA: cmd_id_dep@64:21.
DepField dep_field(cmd::Engine engine) noexcept {
  return engine == cmd::Engine::tiu ? DepField{17, 23} : DepField{64, 21};
}

// Where a class keeps its addresses, found once per class and block (the field table is walked
// once, not per differing word): DMA, the words holding an l32 / h13 pair of a 45-bit address;
// TIU, the *_addr fields and, per word, the bits they cover.
// (No default member initialisers: a block keeps a few of these on the stack, and zeroing them
// whole on every block cost more than the copies; find_address_fields sets every member used.)
struct AddressFields {
  cmd::CmdClass cls;
  uint32_t dma_pairs;  // bit w: word w is a 45-bit address pair
  uint8_t n;
  uint16_t bit[8];
  uint8_t width[8];
  uint16_t konst[8];     // the operand's opt_*_const flag bit (kNoFlag: none): set, the field is an immediate
  const char* name[8];
  uint64_t covered[16];  // per word (TIU): bits of address fields
};

constexpr uint16_t kNoFlag = 0xFFFF, kUnresolved = 0xFFFE;

// The opt_<operand>_const flag of a TIU address field `<operand>_addr` ("opd1_addr" ->
// "opt_opd1_const"): when set, the field holds an immediate's bits, never relocated.
uint16_t const_flag_of(Span<const cmd::FieldDesc> table, const char* addr_name) noexcept {
  const size_t n = std::strlen(addr_name) - 5;  // without "_addr"
  for (const cmd::FieldDesc& f : table) {
    if (std::strncmp(f.name, "opt_", 4) == 0 && std::strncmp(f.name + 4, addr_name, n) == 0 &&
        std::strcmp(f.name + 4 + n, "_const") == 0) {
      return f.bit;
    }
  }
  return kNoFlag;
}

void find_address_fields(cmd::CmdClass cls, bool dma, AddressFields& out) noexcept {
  out.cls = cls;
  out.n = 0;
  for (uint64_t& c : out.covered) c = 0;
  uint32_t lo = 0, hi = 0;
  const Span<const cmd::FieldDesc> table = cmd::fields_of(cls);
  for (const cmd::FieldDesc& f : table) {
    if (dma) {
      if (f.bit % 64 == 0 && f.width == 32 && ends_with(f.name, "addr_l32")) lo |= 1u << (f.bit / 64);
      if (f.bit % 64 == 32 && f.width == 13 && ends_with(f.name, "addr_h13")) hi |= 1u << (f.bit / 64);
    } else if (ends_with(f.name, "_addr") && out.n < 8 && f.bit / 64 < 16 && f.bit % 64 + f.width <= 64) {
      out.bit[out.n] = f.bit;
      out.width[out.n] = f.width;
      out.konst[out.n] = kUnresolved;  // looked up when the field first differs (rare)
      out.name[out.n] = f.name;
      ++out.n;
      out.covered[f.bit / 64] |= ((uint64_t{1} << f.width) - 1) << (f.bit % 64);
    }
  }
  out.dma_pairs = lo & hi;
}

// A plan entry: two words. w0: the command's byte offset in its block (bits 0..23), its index
// in the block (24..39), the field's first bit in the command (40..50), its width (51..57), the
// kind (58..59) and, for a DMA address, whether its operand is linear (60). w1: the step per
// expert (an address) or the dependency's distance from the block start (low 32 bits) and, for
// a linear DMA operand, the bytes it spans (high 32 bits).
enum Kind : uint32_t { kDep = 0, kDmaAddress = 1, kTiuAddress = 2 };
constexpr uint64_t kMaxBlockBytes = uint64_t{1} << 24;
constexpr uint32_t kMaxBlockCommands = 1u << 16;

struct Entry {
  uint32_t offset, index, bit, width, kind;
  bool linear;
  int32_t value;
  uint32_t bytes;
};

inline uint64_t pack0(const Entry& x) noexcept {
  return uint64_t{x.offset} | uint64_t{x.index} << 24 | uint64_t{x.bit} << 40 | uint64_t{x.width} << 51 |
         uint64_t{x.kind} << 58 | uint64_t{x.linear ? 1u : 0u} << 60;
}
inline uint64_t pack1(const Entry& x) noexcept {
  return uint64_t{static_cast<uint32_t>(x.value)} | uint64_t{x.bytes} << 32;
}

// Word-wise copy of a block (the streams' buffers and commands are 8-byte multiples); the
// control core's libc copies byte by byte when built for size.
void copy_block(uint8_t* dst, const uint8_t* src, uint64_t len) noexcept {
  if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | len) & 3) != 0) {
    std::memcpy(dst, src, static_cast<size_t>(len));
    return;
  }
  uint32_t* d = reinterpret_cast<uint32_t*>(dst);
  const uint32_t* s = reinterpret_cast<const uint32_t*>(src);
  for (uint64_t i = 0, n = len / 4; i < n; ++i) d[i] = s[i];
}

// The bytes the operand at DMA address `addr` of command `cm` spans, when it is a linear one
// (DDR or L2) and fits a plan entry; false otherwise.
bool linear_operand(const cmd::Command& cm, uint64_t addr, uint32_t& bytes) noexcept {
  if (sg::dma_tag(addr) == sg::kTagLmem) return false;
  const cmd::DmaOperands ops = cmd::dma_operands(cm);
  const cmd::DmaOperand* all[3] = {&ops.src, &ops.dst, &ops.extra};
  bool found = false;
  uint64_t most = 0;
  for (const cmd::DmaOperand* o : all) {
    if (o->used && o->addr == addr) {
      found = true;
      most = o->bytes > most ? o->bytes : most;  // two operands at one address: the larger
    }
  }
  if (!found || most > UINT32_MAX) return false;
  bytes = static_cast<uint32_t>(most);
  return true;
}

}  // namespace

ExpertBlocks::ExpertBlocks(Ctx& ctx) noexcept : ctx_(ctx) {
  streams_[0] = &ctx.tiu;
  streams_[1] = &ctx.gdma;
  streams_[2] = &ctx.sdma;
  plans_ = ctx.phase.copy_plans;
  enabled_ = ctx.phase.phase == 2 && ctx.phase.reuse_blocks && plans_.size() >= 2;
  for (Stream* s : streams_) enabled_ = enabled_ && s->data() != nullptr && (s->sink() == nullptr || s->sink()->copy != nullptr);
}

void ExpertBlocks::begin() noexcept {
  for (uint32_t k = 0; k < kEngines; ++k) {
    start_[k] = streams_[k]->bytes();
    count0_[k] = streams_[k]->count();
  }
}

ExpertBlocks::Shape* ExpertBlocks::find(uint32_t rows, uint32_t variant) noexcept {
  for (uint32_t i = 0; i < used_ && i < kShapes; ++i) {
    if (shapes_[i].rows == rows && shapes_[i].variant == variant) return &shapes_[i];
  }
  return nullptr;
}

bool ExpertBlocks::push(uint64_t w0, uint64_t w1) noexcept {
  if (plan_words_ + 2 > plans_.size()) {
    plan_full_ = true;
    return false;
  }
  plans_[plan_words_] = w0;
  plans_[plan_words_ + 1] = w1;
  plan_words_ += 2;
  return true;
}

// The plan of one engine's block: the two samples compared command by command, once.
bool ExpertBlocks::derive_engine(uint32_t k, const Sample& a, const Sample& b) noexcept {
  const uint64_t len = b.end[k] - b.start[k];
  if (len == 0) return true;
  if (k == 2) return false;  // SDMA has no dependency tracking here: its blocks are built
  if (len >= kMaxBlockBytes || b.count1[k] - b.count0[k] >= kMaxBlockCommands) return false;
  const cmd::Engine engine = k == 0 ? cmd::Engine::tiu : cmd::Engine::gdma;
  const uint32_t other = k == 0 ? 1 : 0;
  const DepField dep = dep_field(engine);
  const uint32_t dep_word = dep.bit / 64;
  const uint64_t dep_mask = ((uint64_t{1} << dep.width) - 1) << (dep.bit % 64);
  const uint8_t* base = streams_[k]->data();
  const uint8_t* sa = base + a.start[k];
  const uint8_t* sb = base + b.start[k];
  const ConstByteSpan block(sb, static_cast<size_t>(len));
  constexpr uint32_t kCached = 8;  // classes of one block: a handful (MM2, AR, DMA tensor, gather ...)
  AddressFields cache[kCached];    // [0, cached) filled
  uint32_t cached = 0;
  uint32_t index = 0;
  for (size_t off = 0; off < len; ++index) {
    cmd::Command cm;
    if (cmd::decode_command(engine, block, off, cm) != Status::ok) return false;
    if (cm.cls == cmd::CmdClass::LAR || cm.cls == cmd::CmdClass::SYS_TR_ACC) return false;  // no cmd_id_dep
    const uint8_t* ca = sa + off;
    const uint8_t* cb = sb + off;
    Entry x{static_cast<uint32_t>(off), index, 0, 0, kDep, false, 0, 0};
    // The header (class, eu, options) must be the same: only the dependency may differ there.
    for (uint32_t w = 0; w <= dep_word; ++w) {
      const uint64_t diff = load64(ca + 8 * w) ^ load64(cb + 8 * w);
      if ((diff & (w == dep_word ? ~dep_mask : ~uint64_t{0})) != 0) return false;
    }
    int64_t ra = 0, rb = 0;
    const uint32_t da = static_cast<uint32_t>(cmd::read_field(ca, dep.bit, dep.width));
    const uint32_t db = static_cast<uint32_t>(cmd::read_field(cb, dep.bit, dep.width));
    // The later sample decides; the earlier one must agree (or be ambiguous: its block started
    // before the other engine's first command).
    if (!relative(da, a.count0[other], ra) || !relative(db, b.count0[other], rb)) return false;
    if (rb == kEither || (ra != rb && ra != kEither)) return false;
    if (rb >= 0) {
      x.bit = dep.bit;
      x.width = dep.width;
      x.value = static_cast<int32_t>(rb);
      if (!push(pack0(x), pack1(x))) return false;
    }
    const uint32_t body = 8 * (dep_word + 1);
    // Most commands of a block (the matrix work on the weight slots) differ only in their
    // dependency: one word-wise compare of the rest settles them.
    if (std::memcmp(ca + body, cb + body, cm.length - body) == 0) {
      off += cm.length;
      continue;
    }
    AddressFields* af = nullptr;
    for (uint32_t i = 0; i < cached && af == nullptr; ++i) af = cache[i].cls == cm.cls ? &cache[i] : nullptr;
    if (af == nullptr) {
      AddressFields& slot = cache[cached < kCached ? cached++ : kCached - 1];
      find_address_fields(cm.cls, k != 0, slot);
      af = &slot;
    }
    for (uint32_t w = dep_word + 1; w < cm.length / 8; ++w) {
      const uint64_t wa = load64(ca + 8 * w), wb = load64(cb + 8 * w);
      if (wa == wb) continue;
      if (k != 0) {  // a 45-bit DMA address pair: l32 at bit 0 of the word, h13 at bit 32
        if (w >= 32 || (af->dma_pairs & (1u << w)) == 0 || ((wa ^ wb) & ~kDmaAddressMask) != 0) return false;
        x = Entry{static_cast<uint32_t>(off), index, 64 * w, 45, kDmaAddress, false, 0, 0};
        if (!expert_step(wa & kDmaAddressMask, wb & kDmaAddressMask, a.expert, b.expert, x.value)) return false;
        x.linear = linear_operand(cm, wb & kDmaAddressMask, x.bytes);
        if (!push(pack0(x), pack1(x))) return false;
        continue;
      }
      if (w >= 16 || ((wa ^ wb) & ~af->covered[w]) != 0) return false;
      for (uint32_t i = 0; i < af->n; ++i) {
        if (af->bit[i] / 64 != w) continue;
        const uint32_t shift = af->bit[i] % 64, width = af->width[i];
        const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
        const uint64_t fa = (wa >> shift) & mask, fb = (wb >> shift) & mask;
        if (fa == fb) continue;
        if (width >= 64) return false;  // a plan entry holds widths below 64
        if (af->konst[i] == kUnresolved) af->konst[i] = const_flag_of(cmd::fields_of(af->cls), af->name[i]);
        if (af->konst[i] != kNoFlag && cmd::read_field(cb, af->konst[i], 1) != 0) return false;  // an immediate
        x = Entry{static_cast<uint32_t>(off), index, af->bit[i], width, kTiuAddress, false, 0, 0};
        if (!expert_step(fa, fb, a.expert, b.expert, x.value)) return false;
        if (!push(pack0(x), pack1(x))) return false;
      }
    }
    off += cm.length;
  }
  return true;
}

bool ExpertBlocks::derive(Shape& sh) noexcept {
  for (int attempt = 0; attempt < 2; ++attempt) {
    plan_full_ = false;
    bool ok = true;
    for (uint32_t k = 0; k < 2 && ok; ++k) {
      sh.begin[k] = plan_words_;
      ok = derive_engine(k, sh.s[0], sh.s[1]);
      sh.end[k] = plan_words_;
    }
    ok = ok && sh.s[1].end[2] == sh.s[1].start[2];  // SDMA blocks are built
    if (ok) {
      sh.plan = PlanState::ready;
      return true;
    }
    plan_words_ = sh.begin[0];  // this shape's entries were the last ones
    if (!plan_full_ || sh.begin[0] == 0) break;
    // Out of room: forget every plan (each is derived again from its samples when next needed;
    // a shape whose samples gave no plan keeps that verdict).
    for (Shape& other : shapes_) other.plan = other.plan == PlanState::failed ? PlanState::failed : PlanState::none;
    plan_words_ = 0;
  }
  sh.plan = PlanState::failed;
  return false;
}

void ExpertBlocks::mark_checked(uint32_t k, uint32_t first_id, uint32_t n, bool on) noexcept {
  Span<uint8_t> bits = ctx_.phase.checked[k];
  uint32_t i = first_id - 1;
  const uint32_t end = i + n < bits.size() * 8 ? i + n : static_cast<uint32_t>(bits.size() * 8);
  const uint8_t fill = on ? 0xFF : 0;
  while (i < end) {
    if (i % 8 == 0 && end - i >= 8) {  // whole bytes
      bits[i / 8] = fill;
      i += 8;
      continue;
    }
    bits[i / 8] = static_cast<uint8_t>(on ? bits[i / 8] | (1u << (i % 8)) : bits[i / 8] & ~(1u << (i % 8)));
    ++i;
  }
}

// Writes one engine's copy: the later sample's bytes, then the plan. With a memory rule, the
// copied commands are marked checked, then unmarked where a moved field is not one validation
// may take on trust (a TIU address, an LMEM DMA operand, one leaving its memory).
bool ExpertBlocks::apply_engine(uint32_t k, const Shape& sh, uint32_t e, uint32_t& fields) noexcept {
  const Sample& b = sh.s[1];
  const uint64_t len = b.end[k] - b.start[k];
  const uint32_t n = b.count1[k] - b.count0[k];
  if (len == 0) return true;
  uint8_t* base = streams_[k]->data();
  uint8_t* out = base + streams_[k]->bytes();
  copy_block(out, base + b.start[k], len);
  const cmd::ValidateOptions* memory = ctx_.phase.memory;
  const uint32_t first_id = count0_[k] + 1;
  if (memory != nullptr) mark_checked(k, first_id, n, true);
  const uint32_t other = k == 0 ? 1 : 0;
  for (uint32_t i = sh.begin[k]; i < sh.end[k]; i += 2) {
    const uint64_t w0 = plans_[i], w1 = plans_[i + 1];
    uint8_t* dst = out + (w0 & 0xFFFFFF);
    const uint32_t bit = static_cast<uint32_t>(w0 >> 40) & 0x7FF, width = static_cast<uint32_t>(w0 >> 51) & 0x7F;
    const uint32_t kind = static_cast<uint32_t>(w0 >> 58) & 3;
    const int32_t value = static_cast<int32_t>(static_cast<uint32_t>(w1));
    ++fields;
    if (kind == kDep) {
      const uint32_t id = count0_[other] + static_cast<uint32_t>(value);
      cmd::write_field(dst, bit, width, id == 0 ? 0 : cmd::CommandBuilder::dep_on(id));
      continue;
    }
    bool trusted = false;
    if (kind == kDmaAddress) {
      const uint64_t fb = cmd::read_field(dst, bit, 32) | cmd::read_field(dst, bit + 32, 13) << 32;
      uint64_t v = 0;
      if (!moved(fb, value, b.expert, e, kDmaAddressMask, v)) return false;
      cmd::write_field(dst, bit, 32, v & 0xFFFFFFFFu);
      cmd::write_field(dst, bit + 32, 13, v >> 32);
      trusted = ((w0 >> 60) & 1) != 0 && memory != nullptr && cmd::dma_linear_operand_ok(v, w1 >> 32, *memory);
    } else {
      uint64_t v = 0;
      if (!moved(cmd::read_field(dst, bit, width), value, b.expert, e, (uint64_t{1} << width) - 1, v)) return false;
      cmd::write_field(dst, bit, width, v);
    }
    if (!trusted && memory != nullptr) mark_checked(k, first_id + static_cast<uint32_t>((w0 >> 24) & 0xFFFF), 1, false);
  }
  return true;
}

bool ExpertBlocks::copy(uint32_t e, uint32_t rows, uint32_t variant, uint32_t& slot) noexcept {
  if (!enabled_) return false;
  Shape* sh = find(rows, variant);
  if (sh == nullptr || sh->samples < 2) return false;
  const Sample& a = sh->s[0];
  const Sample& b = sh->s[1];
  for (uint32_t k = 0; k < kEngines; ++k) {
    const uint64_t len = b.end[k] - b.start[k];
    const uint32_t n = b.count1[k] - b.count0[k];
    if (len != a.end[k] - a.start[k] || n != a.count1[k] - a.count0[k]) return false;
    if (len > streams_[k]->room() || uint64_t{streams_[k]->count()} + n > sg::kMaxCommandsPerStream) return false;
  }
  if (sh->plan == PlanState::failed || (sh->plan == PlanState::none && !derive(*sh))) return false;
  uint32_t fields = 0;
  for (uint32_t k = 0; k < 2; ++k) {
    if (!apply_engine(k, *sh, e, fields)) {
      if (ctx_.phase.memory != nullptr) {  // the block is built instead: its commands start unchecked
        for (uint32_t j = 0; j <= k; ++j) mark_checked(j, count0_[j] + 1, b.count1[j] - b.count0[j], false);
      }
      return false;
    }
  }
  uint32_t commands = 0, checked = 0;
  for (uint32_t k = 0; k < kEngines; ++k) {
    const uint32_t n = b.count1[k] - b.count0[k];
    // Room and length were checked above, so adopting cannot fail part way; were it to, the
    // marks of this copy go (its commands are built again).
    if (streams_[k]->adopt(b.end[k] - b.start[k], n) != Status::ok) {
      for (uint32_t j = 0; j < 2 && ctx_.phase.memory != nullptr; ++j) {
        mark_checked(j, count0_[j] + 1, b.count1[j] - b.count0[j], false);
      }
      return false;
    }
    commands += n;
    if (k < 2 && ctx_.phase.memory != nullptr && ctx_.phase.stats != nullptr) {  // a report only
      const Span<uint8_t> bits = ctx_.phase.checked[k];
      for (uint32_t id = count0_[k] + 1; id <= count0_[k] + n; ++id) {
        if ((id - 1) / 8 < bits.size() && ((bits[(id - 1) / 8] >> ((id - 1) % 8)) & 1) != 0) ++checked;
      }
    }
    const OpSink* sink = streams_[k]->sink();
    if (sink != nullptr && n > 0) {
      sink->copy(sink->user, OpCopy{streams_[k]->core(), k, b.count0[k] + 1, n, count0_[k] + 1, e});
      streams_[k]->forget_label();
    }
  }
  slot = b.slot;
  if (ctx_.phase.stats != nullptr) {
    ++ctx_.phase.stats->blocks_copied;
    ctx_.phase.stats->commands_copied += commands;
    ctx_.phase.stats->fields_relocated += fields;
    ctx_.phase.stats->commands_checked += checked;
  }
  return true;
}

void ExpertBlocks::record(uint32_t e, uint32_t rows, uint32_t variant, uint32_t slot) noexcept {
  if (!enabled_) return;
  Shape* sh = find(rows, variant);
  if (sh == nullptr) {  // a new shape; past kShapes the oldest entry makes room
    sh = &shapes_[used_ % kShapes];
    ++used_;
    *sh = Shape{};
    sh->rows = rows;
    sh->variant = variant;
  }
  if (sh->samples == 2) sh->s[0] = sh->s[1];
  Sample& s = sh->s[sh->samples == 2 ? 1 : sh->samples];
  if (sh->samples < 2) ++sh->samples;
  sh->plan = PlanState::none;  // new samples: the plan is derived again when needed
  s.expert = e;
  s.slot = slot;
  for (uint32_t k = 0; k < kEngines; ++k) {
    s.start[k] = start_[k];
    s.count0[k] = count0_[k];
    s.end[k] = streams_[k]->bytes();
    s.count1[k] = streams_[k]->count();
  }
}

}  // namespace tilefw::gen::detail
