// kernels/exp/exp.cl on the opencl backend, over its config space (VEC x WG) and sizes that leave a tail:
// every element matches std::exp. The kernel tests (tests/kernels) check the bound implementation against
// torch; this one checks the OpenCL source itself, so that it does not need libtorch.

#include <kbench/backends/opencl.hpp>
#include <kbench/error.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string exp_source() {
  // This file lives in tests/opencl/; the kernel in kernels/exp/ of the same source tree, embedded after the
  // elementwise prelude (kernels/exp/CMakeLists.txt).
  const std::filesystem::path kernels =
      std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "kernels";
  std::stringstream text;
  for (const auto& path :
       {kernels / "common" / "opencl_elementwise_prelude.cl", kernels / "exp" / "exp.cl"}) {
    std::ifstream in(path);
    if (!in) return {};
    text << in.rdbuf();
  }
  return text.str();
}

TEST(exp_opencl_source, matches_std_exp_for_every_config_and_tail) {
  const std::string source = exp_source();
  ASSERT_FALSE(source.empty()) << "cannot read kernels/exp/exp.cl next to " << __FILE__;
  const auto device = kbench::opencl::open_device(0);

  for (const std::int64_t vec : {1, 2, 4, 8}) {
    for (const std::int64_t wg : {1, 64, 256}) {
      // One build per config (PoCL builds take a while); the sizes leave every kind of tail.
      kbench::opencl::opencl_kernel k =
          device->build_program(source, {{"VEC", vec}, {"WG", wg}}).kernel("exp_kernel");
      for (const std::int64_t n :
           {std::int64_t{1}, std::int64_t{7}, std::int64_t{1000}, std::int64_t{4099}}) {
        SCOPED_TRACE(testing::Message() << "n=" << n << " VEC=" << vec << " WG=" << wg);
        std::vector<float> x(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < x.size(); ++i) {
          x[i] = -8.0f + 16.0f * static_cast<float>(i % 97) / 97.0f;  // [-8, 8), like the suite's inputs
        }
        const std::size_t bytes = x.size() * sizeof(float);
        kbench::buffer_ptr in = device->allocate(bytes);
        in->write(x.data(), bytes);
        kbench::buffer_ptr out = device->allocate(bytes);
        const std::vector<float> poison(x.size(), -1.0f);  // exp() is never negative: unwritten shows
        out->write(poison.data(), bytes);
        k.set_arg(0, in);
        k.set_arg(1, out);
        k.set_arg_i64(2, n);
        const auto items = static_cast<std::size_t>((n + vec - 1) / vec);
        const auto group = static_cast<std::size_t>(wg);
        const std::array<std::size_t, 1> global{(items + group - 1) / group * group};
        const std::array<std::size_t, 1> local{group};
        k.launch(global, local)->wait();
        std::vector<float> y(x.size());
        out->read(y.data(), bytes);
        for (std::size_t i = 0; i < y.size(); ++i) {
          const float want = std::exp(x[i]);
          ASSERT_NEAR(y[i], want, 1e-6f + 1e-5f * std::fabs(want)) << "element " << i;
        }
      }
    }
  }
}

TEST(exp_opencl_source, rejects_an_invalid_vector_width) {
  const std::string source = exp_source();
  ASSERT_FALSE(source.empty());
  const auto device = kbench::opencl::open_device(0);
  try {
    (void)device->build_program(source, {{"VEC", 3}, {"WG", 64}});
    FAIL() << "VEC=3 built";
  } catch (const kbench::error& e) {
    EXPECT_NE(std::string(e.what()).find("VEC must be 1, 2, 4 or 8"), std::string::npos) << e.what();
  }
}

}  // namespace
