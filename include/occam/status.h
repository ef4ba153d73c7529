// Errors are values. Functions that can fail on user input return Status or
// Result<T>; only shells turn them into exit codes or exceptions.
//
// A good message says what failed, where (file and key path, or plan field)
// and gives a hint: "cluster.tiers[1].bandwidth_gbps must be > 0 (got -5); ...".
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace occam {

enum class StatusCode {
  kOk = 0,
  kInvalidInput,  // the user's input is wrong (exit status 2 in the CLI)
  kNotFound,      // a named thing (model, chip, file) does not exist (exit 2)
  kInfeasible,    // a valid request with no answer (nothing fits)
  kInternal,      // a bug in occam
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy with `context` prepended ("file.yaml: " + message).
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidInput(std::string message) {
  return Status(StatusCode::kInvalidInput, std::move(message));
}
inline Status NotFound(std::string message) {
  return Status(StatusCode::kNotFound, std::move(message));
}
inline Status Infeasible(std::string message) {
  return Status(StatusCode::kInfeasible, std::move(message));
}
inline Status Internal(std::string message) {
  return Status(StatusCode::kInternal, std::move(message));
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }
  // REQUIRES: ok().
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace occam

#define OCCAM_CONCAT_INNER_(a, b) a##b
#define OCCAM_CONCAT_(a, b) OCCAM_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` (a Status) is not ok.
#define OCCAM_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::occam::Status occam_status_ = (expr);        \
    if (!occam_status_.ok()) return occam_status_; \
  } while (0)

// `lhs = value of expr` (a Result<T>), or returns its Status.
#define OCCAM_ASSIGN_OR_RETURN(lhs, expr)                   \
  auto OCCAM_CONCAT_(occam_result_, __LINE__) = (expr);     \
  if (!OCCAM_CONCAT_(occam_result_, __LINE__).ok())         \
    return OCCAM_CONCAT_(occam_result_, __LINE__).status(); \
  lhs = std::move(OCCAM_CONCAT_(occam_result_, __LINE__)).value()
