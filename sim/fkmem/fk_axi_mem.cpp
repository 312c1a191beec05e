// See fk_axi_mem.h. Every AXI rule violation is printed at once and kept, so that the
// testbench fails with the message even when the data happen to come out right.
#include "fk_axi_mem.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>

#define FK_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace fk {

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

bool Bank::grant(uint64_t now, unsigned beat_bytes, unsigned beats) {
    bytes += uint64_t(beat_bytes) * beats;
    if (bytes_per_cycle <= 0) return true;
    // The bank refills at the first call of a cycle, whichever of its ports makes it;
    // a port charges a beat up to one cycle late (an R beat at the edge after it was
    // raised), R and W each. So the cap leaves room for those two beats on top of one
    // cycle's bytes: only the credit of cycles the bank sat idle is dropped.
    credit -= double(beat_bytes) * beats;
    if (now > last) {
        const double cap = bytes_per_cycle + 2.0 * kMaxBeatBytes;
        credit = std::min(cap, credit + double(now - last) * bytes_per_cycle);
        last = now;
    }
    return credit > 0;
}

void Memory::set_banks(const std::vector<double>& bytes_per_cycle) {
    banks_.assign(bytes_per_cycle.size(), Bank{});
    for (size_t i = 0; i < banks_.size(); ++i) {
        banks_[i].bytes_per_cycle = std::max(0.0, bytes_per_cycle[i]);
        banks_[i].credit = 0;
    }
    ++bank_generation_;
}

Bank* Memory::bank_of(const std::string& port) {
    const auto it = placement_.find(port);
    if (it == placement_.end() || it->second < 0 || size_t(it->second) >= banks_.size())
        return nullptr;
    return &banks_[size_t(it->second)];
}

void Memory::reset() {
    for (Bank& b : banks_) {
        b.credit = 0;
        b.last = 0;
        b.bytes = 0;
    }
    arena_.clear();
    buffers_.clear();
    violations_.clear();
    violation_count_ = 0;
    ++generation_;
}

uint64_t Memory::alloc(uint64_t size, bool writable, const std::string& name, uint64_t offset) {
    const uint64_t page = round_up(arena_.size(), 4096);
    const uint64_t span = round_up(offset + std::max<uint64_t>(size, 1), 4096) + kGuard;
    arena_.resize(page + span, 0);
    buffers_.push_back(Buffer{name, kBase + page + offset, size, writable});
    ++generation_;  // buffer caches of the ports are stale
    return buffers_.back().base;
}

uint8_t* Memory::bytes_at(uint64_t addr, uint64_t n) {
    if (addr < kBase || addr - kBase + n > arena_.size()) return nullptr;
    return arena_.data() + (addr - kBase);
}

bool Memory::write(uint64_t addr, const void* src, uint64_t n) {
    uint8_t* p = bytes_at(addr, n);
    if (!p) return false;
    std::memcpy(p, src, n);
    return true;
}

bool Memory::read(uint64_t addr, void* dst, uint64_t n) const {
    if (addr < kBase || addr - kBase + n > arena_.size()) return false;
    std::memcpy(dst, arena_.data() + (addr - kBase), n);
    return true;
}

const Buffer* Memory::find(uint64_t addr) const {
    for (const Buffer& b : buffers_) {
        // The rest of a buffer's last page counts as its own, so an overrun is reported
        // against the buffer it overruns.
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

// ------------------------------------------------------------------------------ Port

Port::Port(Memory& mem, std::string name, unsigned data_bytes)
    : mem_(mem), name_(std::move(name)), bytes_(data_bytes) {
    seed(mem.config.seed);
}

void Port::seed(uint64_t seed) {
    rng_ = seed ^ std::hash<std::string>{}(name_);  // ports stall independently
    if (!rng_) rng_ = 1;
}

void Port::fail(const std::string& message) { mem_.violation(name_ + ": " + message); }

unsigned Port::stall_bits() {
    unsigned bits = 0;
    for (unsigned channel = 0; channel < 5; ++channel) {
        rng_ ^= rng_ << 13;  // xorshift64: cheap and deterministic per seed and port
        rng_ ^= rng_ >> 7;
        rng_ ^= rng_ << 17;
        if (rng_ % 1000 < mem_.config.stall_permille) bits |= 1u << channel;
    }
    return bits;
}

bool Port::limited() {
    if (bank_generation_ != mem_.bank_generation()) {
        bank_ = mem_.bank_of(name_);
        bank_generation_ = mem_.bank_generation();
    }
    return bank_ && bank_->bytes_per_cycle > 0;
}

bool Port::bank_grant(uint64_t now, unsigned beats) {
    if (!limited()) return true;
    return bank_->grant(now, bytes_, beats);
}

void Port::burst(bool is_write, uint64_t addr, unsigned len, unsigned size, unsigned type) {
    const unsigned beats = len + 1;
    if (is_write) {
        ++stats.write_bursts;
        stats.write_beats_requested += beats;
    } else {
        ++stats.read_bursts;
        stats.read_beats_requested += beats;
    }
    // The message is built only for a violation: bursts come every few cycles per port.
    const auto what = [&] {
        return std::string(is_write ? "write" : "read") + " burst at " + hex(addr) + " (" +
               std::to_string(beats) + " beats)";
    };
    if (FK_UNLIKELY(type != 1)) {
        fail(what() + ": burst type " + std::to_string(type) + ", only INCR (1) is expected");
    }
    if (FK_UNLIKELY((1u << size) != bytes_)) {
        fail(what() + ": size " + std::to_string(1u << size) + " bytes on a " +
             std::to_string(bytes_) + "-byte bus (narrow transfers are not expected)");
    }
    if (FK_UNLIKELY(addr % bytes_)) {
        fail(what() + ": start address not aligned to the " + std::to_string(bytes_) +
             "-byte bus");
    }
    const uint64_t end = addr + uint64_t(beats) * bytes_;
    if (FK_UNLIKELY((addr >> 12) != ((end - 1) >> 12))) {
        fail(what() + ": crosses a 4 KiB boundary at " + hex((end - 1) & ~uint64_t(0xFFF)));
    }
    if (is_write) return;  // writes are judged per byte strobe, in write_beat
    const Buffer* b = mem_.find(addr);
    if (FK_UNLIKELY(!b)) {
        fail(what() + ": outside every buffer");
    } else if (FK_UNLIKELY(end > b->base + round_up(b->size, bytes_))) {
        fail(what() + ": runs past buffer '" + b->name + "' (" + std::to_string(b->size) +
             " bytes at " + hex(b->base) + ") to " + hex(end - 1));
    }
}

void Port::read_beat(uint64_t addr, void* dst) {
    ++stats.read_beats;
    if (!mem_.read(addr, dst, bytes_)) std::memset(dst, 0, bytes_);
}

void Port::write_beat(uint64_t addr, const void* data, uint64_t strb, bool last,
                      bool expect_last) {
    ++stats.write_beats;
    if (FK_UNLIKELY(last != expect_last)) {
        fail("write beat at " + hex(addr) + ": WLAST " + (last ? "set" : "clear") +
             (expect_last ? " on the last beat of its burst" : " before the last beat"));
    }
    const uint64_t mask = bytes_ >= 64 ? ~uint64_t(0) : ((uint64_t(1) << bytes_) - 1);
    strb &= mask;
    if (!strb) return;
    const unsigned lo = __builtin_ctzll(strb);
    const unsigned hi = 63 - __builtin_clzll(strb);
    if (FK_UNLIKELY(ok_generation_ != mem_.generation() || addr + lo < ok_lo_ ||
                    addr + hi >= ok_hi_)) {
        const Buffer* b = mem_.find(addr + lo);
        ok_generation_ = mem_.generation();
        ok_lo_ = ok_hi_ = 0;
        if (b && b->writable) {
            ok_lo_ = b->base;
            ok_hi_ = b->base + b->size;
        }
        if (!b) {
            fail("write beat at " + hex(addr) + " outside every buffer");
        } else if (!b->writable) {
            fail("write beat at " + hex(addr) + " into read-only buffer '" + b->name + "'");
        } else if (addr + lo < ok_lo_ || addr + hi >= ok_hi_) {
            fail("WSTRB " + hex(strb) + " writes bytes " + hex(addr + lo) + ".." +
                 hex(addr + hi) + " beyond buffer '" + b->name + "' (" +
                 std::to_string(b->size) + " bytes at " + hex(b->base) + ")");
        }
    }
    uint8_t* p = mem_.bytes_at(addr, bytes_);
    if (!p) return;
    const auto* src = static_cast<const uint8_t*>(data);
    if (strb == mask) {
        std::memcpy(p, src, bytes_);
    } else {
        for (unsigned i = lo; i <= hi; ++i)
            if (strb >> i & 1) p[i] = src[i];
    }
}

std::string Port::describe() const {
    std::ostringstream s;
    s << name_ << ": " << stats.read_bursts << " read bursts (" << stats.read_beats << " of "
      << stats.read_beats_requested << " beats sent), " << stats.write_bursts
      << " write bursts (" << stats.write_beats << " of " << stats.write_beats_requested
      << " beats received)";
    return s.str();
}

namespace {
std::vector<std::unique_ptr<Port>>& ports() {
    static std::vector<std::unique_ptr<Port>> instance;
    return instance;
}
}  // namespace

Port* new_port(const std::string& name, unsigned data_bytes) {
    ports().push_back(std::make_unique<Port>(memory(), name, data_bytes));
    return ports().back().get();
}

}  // namespace fk

// ------------------------------------------------------------------------------ C API

namespace {
std::string& scratch() {
    static std::string s;
    return s;
}
}  // namespace

extern "C" {

void fk_mem_reset(void) {
    fk::memory().reset();
    for (int i = 0; i < fk_mem_port_count(); ++i) fk::ports()[i]->stats = fk::PortStats{};
}

void fk_mem_configure(unsigned read_latency, unsigned write_latency, unsigned max_outstanding,
                      unsigned stall_permille, unsigned long long seed) {
    fk::Config& c = fk::memory().config;
    c.read_latency = std::max(1u, read_latency);
    c.write_latency = std::max(1u, write_latency);
    c.max_outstanding = std::clamp(max_outstanding, 1u, 64u);  // the SV queues hold 64
    c.stall_permille = std::min(999u, stall_permille);
    c.seed = seed ? seed : 1;
    for (auto& p : fk::ports()) p->seed(c.seed);
}

unsigned long long fk_mem_alloc(unsigned long long size, int writable, const char* name,
                                unsigned long long offset) {
    return fk::memory().alloc(size, writable != 0, name ? name : "?", offset);
}

int fk_mem_write(unsigned long long addr, const void* src, unsigned long long n) {
    return fk::memory().write(addr, src, n) ? 0 : -1;
}

int fk_mem_read(unsigned long long addr, void* dst, unsigned long long n) {
    return fk::memory().read(addr, dst, n) ? 0 : -1;
}

unsigned long long fk_mem_violation_count(void) { return fk::memory().violation_count(); }

const char* fk_mem_violation(unsigned long long index) {
    const auto& v = fk::memory().violations();
    return index < v.size() ? v[index].c_str() : nullptr;
}

void fk_mem_banks(int count, const double* bytes_per_cycle) {
    std::vector<double> rates;
    for (int i = 0; i < count; ++i) rates.push_back(bytes_per_cycle[i]);
    fk::memory().set_banks(rates);
}

int fk_mem_place(const char* port, int bank) {
    if (!port || bank < 0) return -1;
    fk::memory().place(port, bank);
    return 0;
}

unsigned long long fk_mem_bank_bytes(int bank) {
    auto& banks = fk::memory().banks();
    return bank >= 0 && size_t(bank) < banks.size() ? banks[size_t(bank)].bytes : 0;
}

int fk_mem_port_count(void) { return static_cast<int>(fk::ports().size()); }

const char* fk_mem_port_name(int index) {
    if (index < 0 || index >= fk_mem_port_count()) return nullptr;
    return fk::ports()[index]->name().c_str();
}

int fk_mem_port_stats(int index, unsigned long long* out, int n) {
    if (index < 0 || index >= fk_mem_port_count()) return -1;
    const fk::PortStats& s = fk::ports()[index]->stats;
    const unsigned long long values[] = {s.read_bursts,  s.read_beats_requested,
                                         s.read_beats,   s.write_bursts,
                                         s.write_beats_requested, s.write_beats};
    const int count = static_cast<int>(sizeof values / sizeof values[0]);
    for (int i = 0; i < n && i < count; ++i) out[i] = values[i];
    return count;
}

const char* fk_mem_port_describe(int index) {
    if (index < 0 || index >= fk_mem_port_count()) return nullptr;
    scratch() = fk::ports()[index]->describe();
    return scratch().c_str();
}

}  // extern "C"
