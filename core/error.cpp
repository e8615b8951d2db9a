#include "core/error.hpp"

#include <cstdio>

namespace dct {
namespace {

void escape_byte(std::string& out, unsigned char b) {
  char buf[5];
  std::snprintf(buf, sizeof buf, "\\x%02x", b);
  out += buf;
}

// The length of the well-formed UTF-8 sequence at text[i] (2..4), or 0 when it is not one. Overlong forms,
// surrogates and code points above U+10FFFF are not well formed.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = at(i);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
  if (b >= 0xc2 && b <= 0xdf) {
    n = 2;
  } else if (b >= 0xe0 && b <= 0xef) {
    n = 3;
    if (b == 0xe0) lo = 0xa0;
    if (b == 0xed) hi = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4;
    if (b == 0xf0) lo = 0x90;
    if (b == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (at(i + k) < 0x80 || at(i + k) > 0xbf) return 0;
  return n;
}

}  // namespace

std::string printable(std::string_view text, std::string_view if_empty) {
  if (text.empty()) text = if_empty;
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b >= 0x20 && b < 0x7f) {
      out += static_cast<char>(b);
      ++i;
      continue;
    }
    const std::size_t n = b >= 0x80 ? utf8_length(text, i) : 0;
    // U+0080..U+009F (C2 80..C2 9F) are the C1 controls: escaped like C0.
    if (n == 0 || (n == 2 && b == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0)) {
      escape_byte(out, b);
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string Error::message() const {
  std::string m = "dctool: error: ";
  if (!subject_.empty()) m += printable(subject_) + ": ";
  m += printable(what(), "failed (no reason given)");
  return m;
}

void rethrow_with_subject(const Error& e, const std::string& subject) {
  if (!e.subject().empty()) throw e;
  throw Error(e.code(), subject, e.what(), e.fault());
}

}  // namespace dct
