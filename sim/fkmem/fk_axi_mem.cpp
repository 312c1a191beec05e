// See fk_axi_mem.h. Every AXI rule violation is printed at once and kept, so that the
// testbench fails with the message even when the data happen to come out right.
#include "fk_axi_mem.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>

namespace fk {

#define VL_UNLIKELY_FK(x) __builtin_expect(!!(x), 0)

namespace {
std::string hex(uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}
uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }
}  // namespace

// ------------------------------------------------------------------------------ Memory

Memory& memory() {
    static Memory instance;
    return instance;
}

void Memory::reset() {
    arena_.clear();
    buffers_.clear();
    violations_.clear();
    violation_count_ = 0;
}

uint64_t Memory::alloc(uint64_t size, bool writable, const std::string& name, uint64_t offset) {
    const uint64_t page = round_up(arena_.size(), 4096);
    const uint64_t span = round_up(offset + std::max<uint64_t>(size, 1), 4096) + kGuard;
    arena_.resize(page + span, 0);
    Buffer b{name, kBase + page + offset, size, writable};
    buffers_.push_back(b);
    return b.base;
}

uint8_t* Memory::bytes_at(uint64_t addr, uint64_t n) {
    if (addr < kBase || addr - kBase + n > arena_.size()) return nullptr;
    return arena_.data() + (addr - kBase);
}

bool Memory::write(uint64_t addr, const uint8_t* src, uint64_t n) {
    uint8_t* p = bytes_at(addr, n);
    if (!p) return false;
    std::memcpy(p, src, n);
    return true;
}

bool Memory::read(uint64_t addr, uint8_t* dst, uint64_t n) const {
    if (addr < kBase || addr - kBase + n > arena_.size()) return false;
    std::memcpy(dst, arena_.data() + (addr - kBase), n);
    return true;
}

const Buffer* Memory::find(uint64_t addr) const {
    for (const Buffer& b : buffers_) {
        // The 4 KiB span of a buffer counts as its own, so a read just past the end
        // is reported against the buffer it overruns.
        if (addr >= b.base && addr < round_up(b.base + std::max<uint64_t>(b.size, 1), 4096))
            return &b;
    }
    return nullptr;
}

void Memory::violation(const std::string& message) {
    ++violation_count_;
    if (violations_.size() < kMaxKept) {
        violations_.push_back(message);
        std::fprintf(stderr, "fk_axi_mem: AXI violation: %s\n", message.c_str());
    }
}

// ------------------------------------------------------------------------------ AxiSlave

AxiSlave::AxiSlave(Memory& mem, std::string name, unsigned data_bytes)
    : mem_(mem), name_(std::move(name)), bytes_(data_bytes), rng_(1) {
    seed(mem.config.seed);
}

void AxiSlave::seed(uint64_t seed) {
    rng_ = seed ^ std::hash<std::string>{}(name_);  // ports stall independently
    if (!rng_) rng_ = 1;
}

void AxiSlave::reset() {
    reads_.clear();
    writes_.clear();
    responses_.clear();
    o_ = AxiOut{};
    ar_held_ = aw_held_ = w_held_ = false;
}

bool AxiSlave::busy() const { return !reads_.empty() || !writes_.empty() || !responses_.empty(); }

void AxiSlave::fail(const std::string& message) { mem_.violation(name_ + ": " + message); }

bool AxiSlave::stall() {
    if (!mem_.config.stall_permille) return false;
    rng_ ^= rng_ << 13;  // xorshift64: cheap and deterministic per seed and port
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return rng_ % 1000 < mem_.config.stall_permille;
}

void AxiSlave::beat_seen(uint64_t now) {
    if (!stats.first_beat_cycle) stats.first_beat_cycle = now;
    stats.last_beat_cycle = now;
}

bool AxiSlave::check_burst(const char* channel, uint64_t addr, unsigned len, unsigned size,
                           unsigned burst) {
    const std::string what = std::string(channel) + " burst at " + hex(addr) + " (" +
                             std::to_string(len + 1) + " beats)";
    bool ok = true;
    if (burst != 1) {
        fail(what + ": burst type " + std::to_string(burst) + ", only INCR (1) is expected");
        ok = false;
    }
    if ((1u << size) != bytes_) {
        fail(what + ": size " + std::to_string(1u << size) + " bytes on a " +
             std::to_string(bytes_) + "-byte bus (narrow transfers are not expected)");
        ok = false;
    }
    if (addr % bytes_) {
        fail(what + ": start address not aligned to the " + std::to_string(bytes_) +
             "-byte bus");
        ok = false;
    }
    const uint64_t end = addr + uint64_t(len + 1) * bytes_;
    if ((addr >> 12) != ((end - 1) >> 12)) {
        fail(what + ": crosses a 4 KiB boundary at " + hex((end - 1) & ~uint64_t(0xFFF)));
        ok = false;
    }
    return ok;
}

void AxiSlave::accept_read(uint64_t now, const AxiIn& in) {
    check_burst("read", in.araddr, in.arlen, in.arsize, in.arburst);
    const uint64_t end = in.araddr + uint64_t(in.arlen + 1) * bytes_;
    const Buffer* b = mem_.find(in.araddr);
    if (!b) {
        fail("read burst at " + hex(in.araddr) + " outside every buffer");
    } else if (end > b->base + round_up(b->size, bytes_)) {
        fail("read burst " + hex(in.araddr) + ".." + hex(end - 1) + " runs past buffer '" +
             b->name + "' (" + std::to_string(b->size) + " bytes at " + hex(b->base) + ")");
    }
    reads_.push_back(Burst{in.araddr, in.arlen + 1u, 0, now + mem_.config.read_latency});
    ++stats.read_bursts;
    stats.max_read_outstanding = std::max<uint64_t>(stats.max_read_outstanding, reads_.size());
}

void AxiSlave::accept_write(uint64_t now, const AxiIn& in) {
    check_burst("write", in.awaddr, in.awlen, in.awsize, in.awburst);
    Burst w{in.awaddr, in.awlen + 1u, 0, now};
    w.buffer = mem_.find(in.awaddr);
    if (w.buffer && w.buffer->writable) {
        w.ok_lo = w.buffer->base;
        w.ok_hi = w.buffer->base + w.buffer->size;
    }
    writes_.push_back(w);
    ++stats.write_bursts;
    stats.max_write_outstanding =
        std::max<uint64_t>(stats.max_write_outstanding, writes_.size() + responses_.size());
}

void AxiSlave::write_beat(uint64_t now, const AxiIn& in) {
    Burst& w = writes_.front();  // wready is only high while a burst is open
    const uint64_t addr = w.addr + uint64_t(w.done) * bytes_;
    const bool last = w.done + 1 == w.beats;
    if (in.wlast != last) {
        fail("write burst at " + hex(w.addr) + ": WLAST " + (in.wlast ? "set" : "clear") +
             " on beat " + std::to_string(w.done + 1) + " of " + std::to_string(w.beats));
    }
    const uint64_t mask = bytes_ == 64 ? ~uint64_t(0) : ((uint64_t(1) << bytes_) - 1);
    const uint64_t strb = in.wstrb & mask;
    if (strb) {
        const unsigned lo = __builtin_ctzll(strb);
        const unsigned hi = 63 - __builtin_clzll(strb);
        if (VL_UNLIKELY_FK(addr + lo < w.ok_lo || addr + hi >= w.ok_hi)) {
            const Buffer* b = mem_.find(addr + lo);
            if (!b) {
                fail("write beat at " + hex(addr) + " outside every buffer");
            } else if (!b->writable) {
                fail("write beat at " + hex(addr) + " into read-only buffer '" + b->name + "'");
            } else {
                fail("WSTRB " + hex(strb) + " writes bytes " + hex(addr + lo) + ".." +
                     hex(addr + hi) + " beyond buffer '" + b->name + "' (" +
                     std::to_string(b->size) + " bytes at " + hex(b->base) + ")");
            }
        }
        if (uint8_t* p = mem_.bytes_at(addr, bytes_)) {
            const uint8_t* src = reinterpret_cast<const uint8_t*>(in.wdata);
            if (strb == mask) {
                std::memcpy(p, src, bytes_);
            } else {
                for (unsigned i = lo; i <= hi; ++i)
                    if (strb >> i & 1) p[i] = src[i];
            }
        }
    }
    ++stats.write_beats;
    beat_seen(now);
    if (++w.done == w.beats) {
        writes_.pop_front();
        responses_.push_back(now + mem_.config.write_latency);
    }
}

void AxiSlave::check_stable(const AxiIn& in) {
    // AXI: once VALID is high it stays high, with the same payload, until READY.
    if (ar_held_ && (!in.arvalid || in.araddr != held_.araddr || in.arlen != held_.arlen))
        fail("ARVALID dropped or AR changed before ARREADY");
    if (aw_held_ && (!in.awvalid || in.awaddr != held_.awaddr || in.awlen != held_.awlen))
        fail("AWVALID dropped or AW changed before AWREADY");
    if (w_held_ && (!in.wvalid || in.wstrb != held_.wstrb || in.wlast != held_.wlast ||
                    std::memcmp(in.wdata, held_wdata_, bytes_ < 4 ? 4 : bytes_) != 0))
        fail("WVALID dropped or W changed before WREADY");
}

const AxiOut& AxiSlave::tick(uint64_t now, const AxiIn& in) {
    if (in.reset) {
        reset();
        return o_;
    }
    if (VL_UNLIKELY_FK(ar_held_ || aw_held_ || w_held_)) check_stable(in);

    // Handshakes of this edge, judged against what we drove during the cycle.
    const bool r_hs = o_.rvalid && in.rready;
    if (r_hs) {
        Burst& r = reads_.front();
        ++stats.read_beats;
        beat_seen(now);
        if (++r.done == r.beats) reads_.pop_front();
    }
    const bool b_hs = o_.bvalid && in.bready;
    if (b_hs) responses_.pop_front();
    if (in.arvalid && o_.arready) accept_read(now, in);
    if (in.awvalid && o_.awready) accept_write(now, in);
    if (in.wvalid && o_.wready) write_beat(now, in);

    ar_held_ = in.arvalid && !o_.arready;
    aw_held_ = in.awvalid && !o_.awready;
    w_held_ = in.wvalid && !o_.wready;
    if (VL_UNLIKELY_FK(ar_held_ || aw_held_ || w_held_)) {
        held_ = in;
        if (w_held_) std::memcpy(held_wdata_, in.wdata, bytes_);
    }

    // Outputs for the next cycle, written in place (this runs every cycle of every port:
    // no temporaries, and R data is copied once per beat). A VALID we raise stays up
    // until its handshake.
    const unsigned cap = mem_.config.max_outstanding;
    o_.arready = reads_.size() < cap && !stall();
    o_.awready = writes_.size() + responses_.size() < cap && !stall();
    o_.wready = !writes_.empty() && !stall();
    if (!(o_.rvalid && !r_hs)) {  // not holding a beat: maybe present the next one
        o_.rvalid = !reads_.empty() && reads_.front().ready_at <= now + 1 && !stall();
        if (o_.rvalid) {
            const Burst& r = reads_.front();
            const uint64_t addr = r.addr + uint64_t(r.done) * bytes_;
            o_.rresp = mem_.read(addr, reinterpret_cast<uint8_t*>(o_.rdata), bytes_) ? 0 : 2;
            o_.rlast = r.done + 1 == r.beats;
        }
    }
    if (!(o_.bvalid && !b_hs)) {
        o_.bvalid = !responses_.empty() && responses_.front() <= now + 1 && !stall();
    }
    return o_;
}

std::string AxiSlave::describe() const {
    std::ostringstream s;
    s << name_ << ": " << reads_.size() << " read bursts open";
    if (!reads_.empty())
        s << " (head " << hex(reads_.front().addr) << " beat " << reads_.front().done << "/"
          << reads_.front().beats << ")";
    s << ", " << writes_.size() << " write bursts awaiting data";
    if (!writes_.empty())
        s << " (head " << hex(writes_.front().addr) << " beat " << writes_.front().done << "/"
          << writes_.front().beats << ")";
    s << ", " << responses_.size() << " B responses pending; " << stats.read_beats
      << " beats read, " << stats.write_beats << " written";
    return s.str();
}

}  // namespace fk

// ------------------------------------------------------------------------------ C API

namespace {
std::vector<std::unique_ptr<fk::AxiSlave>>& ports() {
    static std::vector<std::unique_ptr<fk::AxiSlave>> instance;
    return instance;
}
std::string& scratch() {
    static std::string s;
    return s;
}
}  // namespace

namespace fk {
AxiSlave* new_port(const std::string& name, unsigned data_bytes) {
    ports().push_back(std::make_unique<AxiSlave>(memory(), name, data_bytes));
    return ports().back().get();
}
}  // namespace fk

extern "C" {

void fk_mem_reset(void) {
    fk::memory().reset();
    for (auto& p : ports()) p->stats = fk::PortStats{};
}

void fk_mem_configure(unsigned read_latency, unsigned write_latency, unsigned max_outstanding,
                      unsigned stall_permille, unsigned long long seed) {
    fk::Config& c = fk::memory().config;
    c.read_latency = std::max(1u, read_latency);
    c.write_latency = std::max(1u, write_latency);
    c.max_outstanding = std::max(1u, max_outstanding);
    c.stall_permille = std::min(999u, stall_permille);
    c.seed = seed ? seed : 1;
    for (auto& p : ports()) p->seed(c.seed);
}

unsigned long long fk_mem_alloc(unsigned long long size, int writable, const char* name,
                                unsigned long long offset) {
    return fk::memory().alloc(size, writable != 0, name ? name : "?", offset);
}

int fk_mem_write(unsigned long long addr, const void* src, unsigned long long n) {
    return fk::memory().write(addr, static_cast<const uint8_t*>(src), n) ? 0 : -1;
}

int fk_mem_read(unsigned long long addr, void* dst, unsigned long long n) {
    return fk::memory().read(addr, static_cast<uint8_t*>(dst), n) ? 0 : -1;
}

unsigned long long fk_mem_violation_count(void) { return fk::memory().violation_count(); }

const char* fk_mem_violation(unsigned long long index) {
    const auto& v = fk::memory().violations();
    return index < v.size() ? v[index].c_str() : nullptr;
}

int fk_mem_port_count(void) { return static_cast<int>(ports().size()); }

const char* fk_mem_port_name(int index) {
    if (index < 0 || index >= fk_mem_port_count()) return nullptr;
    return ports()[index]->name().c_str();
}

int fk_mem_port_stats(int index, unsigned long long* out, int n) {
    if (index < 0 || index >= fk_mem_port_count()) return -1;
    const fk::PortStats& s = ports()[index]->stats;
    const unsigned long long values[] = {s.read_bursts,           s.read_beats,
                                         s.write_bursts,          s.write_beats,
                                         s.max_read_outstanding,  s.max_write_outstanding,
                                         s.first_beat_cycle,      s.last_beat_cycle};
    const int count = static_cast<int>(sizeof values / sizeof values[0]);
    for (int i = 0; i < n && i < count; ++i) out[i] = values[i];
    return count;
}

const char* fk_mem_port_describe(int index) {
    if (index < 0 || index >= fk_mem_port_count()) return nullptr;
    scratch() = ports()[index]->describe();
    return scratch().c_str();
}

int fk_mem_busy(void) {
    for (auto& p : ports())
        if (p->busy()) return 1;
    return 0;
}

}  // extern "C"
