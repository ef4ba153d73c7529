// Physical quantities as types, so that a wrong combination does not compile.
//
// Every quantity stores a double in SI base units (seconds, bytes, FLOPs).
// Only meaningful arithmetic is defined: same-unit addition, scaling by a
// dimensionless factor, same-unit ratio (-> double), and the few products and
// quotients that change the unit (Bytes / BytesPerSecond -> Seconds, ...).
#pragma once

namespace occam {

template <class Tag>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double value) : value_(value) {}
  constexpr double value() const { return value_; }

  constexpr Quantity operator+(Quantity o) const { return Quantity(value_ + o.value_); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(value_ - o.value_); }
  constexpr Quantity operator-() const { return Quantity(-value_); }
  constexpr Quantity& operator+=(Quantity o) {
    value_ += o.value_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    value_ -= o.value_;
    return *this;
  }
  constexpr Quantity operator*(double k) const { return Quantity(value_ * k); }
  constexpr Quantity operator/(double k) const { return Quantity(value_ / k); }
  constexpr Quantity& operator*=(double k) {
    value_ *= k;
    return *this;
  }
  // Ratio of two like quantities is a plain number.
  constexpr double operator/(Quantity o) const { return value_ / o.value_; }
  // Comparisons of the values, written out: a defaulted <=> on the double
  // compiles to a partial-ordering branch chain where these are one compare
  // (std::max of two Seconds becomes maxsd). Same results, NaN included.
  constexpr bool operator==(const Quantity& o) const { return value_ == o.value_; }
  constexpr bool operator<(const Quantity& o) const { return value_ < o.value_; }
  constexpr bool operator>(const Quantity& o) const { return value_ > o.value_; }
  constexpr bool operator<=(const Quantity& o) const { return value_ <= o.value_; }
  constexpr bool operator>=(const Quantity& o) const { return value_ >= o.value_; }

 private:
  double value_ = 0.0;
};

template <class Tag>
constexpr Quantity<Tag> operator*(double k, Quantity<Tag> q) {
  return q * k;
}

struct SecondsTag {};
struct BytesTag {};
struct FlopsTag {};
struct BytesPerSecondTag {};
struct FlopsPerSecondTag {};

using Seconds = Quantity<SecondsTag>;
using Bytes = Quantity<BytesTag>;
using Flops = Quantity<FlopsTag>;
using BytesPerSecond = Quantity<BytesPerSecondTag>;
using FlopsPerSecond = Quantity<FlopsPerSecondTag>;

constexpr Seconds operator/(Bytes b, BytesPerSecond r) { return Seconds(b.value() / r.value()); }
constexpr Seconds operator/(Flops f, FlopsPerSecond r) { return Seconds(f.value() / r.value()); }
constexpr Bytes operator*(BytesPerSecond r, Seconds t) { return Bytes(r.value() * t.value()); }
constexpr Bytes operator*(Seconds t, BytesPerSecond r) { return r * t; }
constexpr Flops operator*(FlopsPerSecond r, Seconds t) { return Flops(r.value() * t.value()); }
constexpr Flops operator*(Seconds t, FlopsPerSecond r) { return r * t; }
constexpr BytesPerSecond operator/(Bytes b, Seconds t) {
  return BytesPerSecond(b.value() / t.value());
}
constexpr FlopsPerSecond operator/(Flops f, Seconds t) {
  return FlopsPerSecond(f.value() / t.value());
}

// Constructors from the units people write in configs (decimal prefixes, as
// vendors quote bandwidth and FLOP/s; GiB where binary is meant).
constexpr Seconds Microseconds(double us) { return Seconds(us * 1e-6); }
constexpr Seconds Milliseconds(double ms) { return Seconds(ms * 1e-3); }
constexpr Bytes GB(double gb) { return Bytes(gb * 1e9); }
constexpr Bytes GiB(double gib) { return Bytes(gib * 1073741824.0); }
constexpr BytesPerSecond GBps(double gbps) { return BytesPerSecond(gbps * 1e9); }
constexpr FlopsPerSecond TFlops(double tflops) { return FlopsPerSecond(tflops * 1e12); }

template <class Tag>
constexpr Quantity<Tag> Max(Quantity<Tag> a, Quantity<Tag> b) {
  return a < b ? b : a;
}
template <class Tag>
constexpr Quantity<Tag> Min(Quantity<Tag> a, Quantity<Tag> b) {
  return b < a ? b : a;
}

}  // namespace occam
