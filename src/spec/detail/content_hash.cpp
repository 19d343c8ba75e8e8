#include "spec/detail/content_hash.hpp"

#include <kbench/error.hpp>

#include <fmt/format.h>
#include <openssl/evp.h>

#include <array>
#include <fstream>

namespace kbench::spec::detail {

struct content_hasher::impl {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  ~impl() { EVP_MD_CTX_free(context); }
};

content_hasher::content_hasher() : m_impl(std::make_unique<impl>()) {
  if (m_impl->context == nullptr || EVP_DigestInit_ex(m_impl->context, EVP_sha256(), nullptr) != 1) {
    KBENCH_THROW("OpenSSL: cannot start a SHA-256 digest");
  }
}

content_hasher::~content_hasher() = default;

void content_hasher::add(std::string_view bytes) {
  const std::string length = fmt::format("{}:", bytes.size());
  EVP_DigestUpdate(m_impl->context, length.data(), length.size());
  EVP_DigestUpdate(m_impl->context, bytes.data(), bytes.size());
}

void content_hasher::add_file_if_present(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    add("absent");
    return;
  }
  add("file");
  std::array<char, 1 << 16> chunk{};
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    EVP_DigestUpdate(m_impl->context, chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
}

std::string content_hasher::hex_digest() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(m_impl->context, digest.data(), &length);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace kbench::spec::detail
