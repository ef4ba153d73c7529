// A fixed-size, lock-free, write-once lookup table: the memo under the step
// layer's caches (rank-group layouts, collective costs, MoE imbalance).
//
// Open addressing from a caller-given home slot over kProbes slots. Each slot
// is written once: a thread claims a free slot (compare-and-swap), fills key
// and value, then publishes it with release; readers see only published
// slots (acquire) and never wait. A key that finds no free slot within
// kProbes, or meets a slot another thread is filling, is computed and not
// kept. Nothing is ever evicted or changed, so a kept value stays valid (and
// its address stable) for the table's lifetime.
//
// REQUIRES: make() is a pure function of the key, so a value computed twice
// (two threads missing at once) is the same value; Key has operator==.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace occam::step_internal {

template <class Key, class Value, size_t kSlots, size_t kProbes = 8>
class WriteOnceTable {
 public:
  // The kept value of `key`, else make() (kept when a slot was claimed).
  // `home`: the key's hash (any size_t; taken modulo kSlots).
  template <class Make>
  Value Get(size_t home, const Key& key, Make&& make) const {
    Slot* claimed = nullptr;
    if (const Slot* hit = Find(home, key, claimed)) return hit->value;
    Value value = make();
    if (claimed != nullptr) Publish(*claimed, key, value);
    return value;
  }

  // As Get, by reference: to the kept value, or to `scratch` = make() when it
  // is not kept. Avoids copying large values.
  template <class Make>
  const Value& GetRef(size_t home, const Key& key, Value& scratch, Make&& make) const {
    Slot* claimed = nullptr;
    if (const Slot* hit = Find(home, key, claimed)) return hit->value;
    if (claimed == nullptr) {
      scratch = make();
      return scratch;
    }
    claimed->value = make();
    claimed->key = key;
    claimed->state.store(kReady, std::memory_order_release);
    return claimed->value;
  }

  static constexpr size_t slots() { return kSlots; }

 private:
  enum : uint32_t { kFree = 0, kWriting = 1, kReady = 2 };
  // One cache line per slot (or more, for large values): no false sharing
  // between threads filling neighbouring slots.
  struct alignas(64) Slot {
    std::atomic<uint32_t> state{kFree};
    Key key{};
    Value value{};
  };

  // The published slot holding `key`, or nullptr; then `claimed` is a free
  // slot this thread now owns (state kWriting), or nullptr when none.
  const Slot* Find(size_t home, const Key& key, Slot*& claimed) const {
    for (size_t i = 0; i < kProbes; ++i) {
      Slot& slot = slots_[(home + i) % kSlots];
      uint32_t state = slot.state.load(std::memory_order_acquire);
      if (state == kFree &&
          slot.state.compare_exchange_strong(state, kWriting, std::memory_order_acquire)) {
        claimed = &slot;
        return nullptr;
      }
      if (state == kWriting) return nullptr;  // not ready: do not wait
      if (slot.key == key) return &slot;
    }
    return nullptr;
  }

  static void Publish(Slot& slot, const Key& key, const Value& value) {
    slot.key = key;
    slot.value = value;
    slot.state.store(kReady, std::memory_order_release);
  }

  mutable std::array<Slot, kSlots> slots_;
};

}  // namespace occam::step_internal
