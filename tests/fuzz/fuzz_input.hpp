#pragma once
// What every fuzz target asserts about a parser of outside input: bad input is refused with kbench's own
// error (usage_error or kbench::error, a message a user can act on), never a crash, a hang, or another
// library's exception escaping with its raw text.

#include <kbench/error.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

namespace kbench::fuzz {

template <class Parse>
void expect_clean_refusal(Parse parse) {
  try {
    parse();
  } catch (const usage_error&) {
  } catch (const error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "escaped: %s: %s\n", typeid(e).name(), e.what());
    std::abort();  // libFuzzer keeps the input that did it
  }
}

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace kbench::fuzz
