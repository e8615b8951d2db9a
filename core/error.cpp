#include "core/error.hpp"

namespace dct {

std::string Error::message() const {
  std::string m = "dctool: error: ";
  if (!subject_.empty()) m += subject_ + ": ";
  m += what();
  return m;
}

void rethrow_with_subject(const Error& e, const std::string& subject) {
  if (!e.subject().empty()) throw e;
  throw Error(e.code(), subject, e.what());
}

}  // namespace dct
