// The examples of examples/specs on PoCL: the convolution (a tiling space) and the reduction match their
// reference kernels; a tuning search goes to a Kernel Tuner cache file; a kernel writing past its output is
// caught by the guard region; the CUDA sources compile with NVRTC.

#include "cli/run_kbench.hpp"
#include "spec_support.hpp"

#include <kbench/build_config.hpp>
#include <kbench/spec/kernel_spec.hpp>
#include <kbench/spec/spec_kernel.hpp>

#if KBENCH_HAS_CUDA
#include "backends/cuda/state.hpp"
#endif

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <sstream>

namespace kbench::test {
using namespace kbench::suite;  // the suite's kernel API, unqualified
namespace {

const std::filesystem::path examples = std::filesystem::path(KBENCH_SOURCE_DIR) / "examples/specs";
const std::filesystem::path convolution = examples / "convolution/convolution.toml";
const std::filesystem::path row_sum = examples / "reduction/row_sum.toml";

TEST(SpecExamples, TheConvolutionAndTheReductionMatchTheirReferenceKernels) {
  const auto dir = scratch_dir("spec-examples-measure");
  for (const auto& [spec, reference] :
       {std::pair{convolution, "convolution_reference"}, std::pair{row_sum, "row_sum_reference"}}) {
    const auto r = run_kbench_env(cache_env(dir),
                                  "measure --spec " + spec.string() + " --backend opencl --target-ms 10");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(std::string("checking against the reference kernel ") + reference),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("| ok (max rel"), std::string::npos) << r.output;
  }
}

TEST(SpecExamples, TheConvolutionSpaceHoldsTheTilingConfigsItsConstraintsAllow) {
  const auto r = run_kbench_env(cache_env(scratch_dir("spec-examples-space")),
                                "tune --spec " + convolution.string() + " --backend opencl --show-space");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream lines(r.output);
  std::size_t configs = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.front() != '{') continue;
    const auto c = nlohmann::json::parse(line);
    const int bx = c["block_size_x"], by = c["block_size_y"], tx = c["tile_size_x"], ty = c["tile_size_y"];
    EXPECT_LE(bx * by, 1024) << line;
    EXPECT_LE((by * ty + 6) * (bx * tx + 6) * 4, 49152) << line;
    ++configs;
  }
  // 4 x 5 x 3 x 3 = 180 combinations; 11 stage more than 48 KiB of input (PoCL's work-group limit, 4096,
  // removes none).
  EXPECT_EQ(configs, 169u) << r.output;
}

TEST(SpecExamples, TuningWritesEveryEvaluatedConfigToAKernelTunerCache) {
  const auto dir = scratch_dir("spec-examples-kt-cache");
  const auto kt_cache = dir / "convolution_kt.json";
  const std::string tune = "tune --spec " + convolution.string() +
                           " --backend opencl --max-evals 5 --tune-target-ms 5 --kt-cache " +
                           kt_cache.string();
  const auto first = run_kbench_env(cache_env(dir), tune);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const auto doc = nlohmann::json::parse(read_file(kt_cache));
  EXPECT_EQ(doc["kernel_name"], "convolution");
  EXPECT_EQ(doc["problem_size"], nlohmann::json::parse("[256, 256]"));
  EXPECT_EQ(doc["tune_params_keys"],
            nlohmann::json::parse(R"(["block_size_x", "block_size_y", "tile_size_x", "tile_size_y"])"));
  ASSERT_EQ(doc["cache"].size(), 5u) << doc.dump(1);
  for (const auto& [key, entry] : doc["cache"].items()) {
    EXPECT_EQ(key,
              fmt::format("{},{},{},{}", entry["block_size_x"].get<int>(), entry["block_size_y"].get<int>(),
                          entry["tile_size_x"].get<int>(), entry["tile_size_y"].get<int>()));
    EXPECT_TRUE(entry["time"].is_number() && entry["time"].get<double>() > 0) << entry.dump();
  }
  // Kernel Tuner reopens a cache by cutting its last three characters.
  const std::string text = read_file(kt_cache);
  EXPECT_EQ(text.substr(text.size() - 4), "}\n}\n");

  // Served from kbench's tuning cache, the search's configs go to the file again, kept once each.
  const auto again = run_kbench_env(cache_env(dir), tune);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("Cache hit"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("(5 configs of this search, 5 in the file)"), std::string::npos)
      << again.output;
}

TEST(SpecExamples, AKtCacheFileOfSomethingElseIsNeverOverwritten) {
  const auto dir = scratch_dir("spec-examples-kt-refuse");
  const auto foreign = dir / "notes.json";
  write_file(foreign, "{\"mine\": true}\n");
  const auto other_kernel = dir / "other.json";
  write_file(
      other_kernel,
      "{\"device_name\": \"x\", \"kernel_name\": \"vector_add\", \"problem_size\": [256, 256], "
      "\"tune_params_keys\": [\"block_size_x\"], \"tune_params\": {\"block_size_x\": [1]}, \"cache\": {}}");
  for (const auto& [file, message] :
       {std::pair{foreign, "exists and is not a Kernel Tuner cache file; kbench does not overwrite it"},
        std::pair{other_kernel,
                  "a Kernel Tuner cache of another tuning problem (its kernel_name is \"vector_add\", "
                  "this kernel's \"convolution\")"}}) {
    const std::string before = read_file(file);
    const auto r = run_kbench_env(cache_env(dir), "tune --spec " + convolution.string() +
                                                      " --backend opencl --kt-cache " + file.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(file.string() + ": " + message), std::string::npos) << r.output;
    EXPECT_EQ(read_file(file), before);
    EXPECT_FALSE(std::filesystem::exists(dir / "cache" / "tuning")) << "refused before tuning";
  }
}

TEST(SpecExamples, AWritePastTheEndOfAnOutputIsCaughtByItsGuardRegion) {
  // Every work-item writes 8 elements further on: the last 8 land past the end of c.
  const auto spec = vector_add_with_kernel("spec-out-of-bounds", "c[i] =", "c[i + 8] =");
  const auto r = run_kbench_env(cache_env(spec.parent_path()),
                                "measure --spec " + spec.string() + " --backend opencl --target-ms 10");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("out-of-bounds write: 32 of the 65536 guard bytes after output 0 (1048576 values) "
                          "changed, the first 0 bytes past its end"),
            std::string::npos)
      << r.output;
}

TEST(SpecExamples, ATuningConfigThatWritesOutOfBoundsFailsAndTheSearchGoesOn) {
  const auto spec =
      vector_add_with_kernel("spec-out-of-bounds-tune", "c[i] =", "c[block_size_x == 64 ? i + 8 : i] =");
  const auto r = run_kbench_env(cache_env(spec.parent_path()),
                                "tune --spec " + spec.string() + " --backend opencl --tune-target-ms 5");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("{\"block_size_x\":64} runtime_error: vector_add/opencl: out-of-bounds write"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("6 configs evaluated (1 failed"), std::string::npos) << r.output;
}

#if KBENCH_HAS_TORCH
/// A copy of the convolution example whose [reference] is `reference` (TOML), in a fresh directory.
std::filesystem::path convolution_with_reference(const std::string& name, const std::string& reference) {
  return example_copy("convolution", name, "convolution.toml",
                      "[reference]\nspec = \"convolution_reference.toml\"\n", reference) /
         "convolution.toml";
}

TEST(SpecExamples, ATorchScriptReferenceChecksTheConvolutionWithTorchsConv2d) {
  const auto spec = convolution_with_reference("spec-torch-reference", R"([reference]
torch = """
def reference(input, filter, height: int, width: int):
    image = input.reshape(1, 1, height + 6, width + 6)
    return torch.conv2d(image, filter.reshape(1, 1, 7, 7)).reshape(-1)
"""
)");
  const auto r = run_kbench_env(cache_env(spec.parent_path()),
                                "measure --spec " + spec.string() + " --backend opencl --target-ms 10");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("checking against the TorchScript reference"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| ok (max rel"), std::string::npos) << r.output;
}

TEST(SpecExamples, ATorchScriptReferenceThatDoesNotCompileOrFitExitsTwo) {
  const std::string line = ":67: ";  // [reference] torch's line in the copy
  for (const auto& [script, message] : {
           std::pair{"def reference(input, filter, height: int, width: int):\n    return input +\n",
                     "the TorchScript reference does not compile"},
           std::pair{"def expected(input, filter, height: int, width: int):\n    return input\n",
                     "the TorchScript reference defines no function 'reference'"},
           std::pair{"def reference(input, filter, height: int, width: int):\n    return input\n",
                     "the TorchScript reference's output 0 has 68644 values, its size for shape [256,256] is "
                     "65536"},
       }) {
    const auto spec = convolution_with_reference(
        "spec-torch-bad", std::string("[reference]\ntorch = \"\"\"\n") + script + "\"\"\"\n");
    const auto r = run_kbench_env(cache_env(spec.parent_path()),
                                  "measure --spec " + spec.string() + " --backend opencl --target-ms 10");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(spec.string() + line + message), std::string::npos) << r.output;
  }
}
#endif

#if KBENCH_HAS_CUDA
TEST(SpecExamples, TheCudaSourcesCompileWithNvrtcAtTheEndsOfTheirSpaces) {
  for (const auto& file : {examples / "vector_add/vector_add.toml", convolution, row_sum}) {
    const spec::kernel_spec kernel = spec::read_spec(file);
    ASSERT_TRUE(kernel.cuda) << file;
    const kernel_definition definition = spec::make_kernel_definition(kernel);
    const implementation* cuda = definition.find(backend_kind::cuda);
    ASSERT_NE(cuda, nullptr) << file;
    const auto space = cuda->tuning_space(kernel.shapes.front()).enumerate(device_info{});
    for (const config& values :
         {space.to_config(0), space.to_config(static_cast<tune::config_id>(space.size() - 1)),
          kernel.default_config}) {
      EXPECT_NO_THROW((void)cuda::detail::nvrtc_compile(kernel.cuda->text, values, 9, 0))
          << file << " " << to_json_text(values);
    }
    const spec::kernel_spec reference = spec::read_spec(kernel.reference_spec, spec::spec_use::reference);
    ASSERT_TRUE(reference.cuda) << kernel.reference_spec;
    EXPECT_NO_THROW((void)cuda::detail::nvrtc_compile(reference.cuda->text, {}, 9, 0))
        << kernel.reference_spec;
  }
}
#endif

}  // namespace
}  // namespace kbench::test
