#pragma once
// SHA-256 over the contents a spec kernel is made of (OpenSSL's EVP digest), for the tuning cache's key.

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace kbench::spec::detail {

class content_hasher {
 public:
  content_hasher();
  ~content_hasher();
  content_hasher(const content_hasher&) = delete;
  content_hasher& operator=(const content_hasher&) = delete;

  /// Adds `bytes`, preceded by their length, so that two pieces never read as one.
  void add(std::string_view bytes);
  /// Adds the file's contents, or a marker of its absence (a file that appears later changes the hash).
  void add_file_if_present(const std::filesystem::path& file);
  /// The digest as 64 lowercase hex digits; the hasher is spent.
  [[nodiscard]] std::string hex_digest();

 private:
  struct impl;
  std::unique_ptr<impl> m_impl;
};

}  // namespace kbench::spec::detail
