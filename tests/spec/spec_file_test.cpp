// Reading spec files: every kind of bad input gets a usage_error that names the file, the line and the
// valid choices; a good file gives the kernel the example describes.

#include <kbench/error.hpp>
#include <kbench/spec/kernel_spec.hpp>

#include "spec_support.hpp"

#include <gtest/gtest.h>

namespace kbench::test {
namespace {

using spec::read_spec;

/// The message read_spec throws for `file`, or "" when it reads it.
std::string error_of(const std::filesystem::path& file) {
  try {
    (void)read_spec(file);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "";
}

TEST(SpecFile, TheVectorAddExampleReadsAsItsTextSays) {
  const spec::kernel_spec s = read_spec(example_dir / "vector_add.toml");
  EXPECT_EQ(s.name, "vector_add");
  EXPECT_EQ(s.dims, std::vector<std::string>{"n"});
  ASSERT_EQ(s.shapes.size(), 2u);
  EXPECT_EQ(s.shapes[1], (kbench::shape{16777216}));
  ASSERT_EQ(s.arguments.size(), 4u);
  EXPECT_EQ(s.arguments[0].role, spec::argument_role::out);
  EXPECT_EQ(s.arguments[2].init.how, spec::initializer::kind::normal);
  ASSERT_EQ(s.parameters.size(), 1u);
  EXPECT_EQ(s.parameters[0].values, (std::vector<std::int64_t>{32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(s.default_config, (kbench::config{{"block_size_x", 256}}));
  EXPECT_TRUE(s.opencl && s.cuda);
  EXPECT_EQ(s.global[0].evaluate_integer({{"n", 1000}, {"block_size_x", 64}}), 1000);
  EXPECT_EQ(s.content_hash.size(), 64u);
}

TEST(SpecFile, AnUnknownKeyIsNamedWithItsLineAndTheValidKeys) {
  const auto file = vector_add_spec("spec-unknown-key", "[launch]\nglobal", "[launch]\nglobl = [1]\nglobal");
  EXPECT_EQ(error_of(file),
            fmt::format("{}:48: unknown key 'globl' in [launch] (valid: global, local)", file.string()));
}

TEST(SpecFile, AMissingSourceFileIsNamed) {
  const auto file =
      vector_add_spec("spec-missing-source", "source = \"vector_add.cl\"", "source = \"gone.cl\"");
  const std::string message = error_of(file);
  EXPECT_NE(message.find(fmt::format("{}:10: ", file.string())), std::string::npos) << message;
  EXPECT_NE(message.find("gone.cl: the opencl source not found"), std::string::npos) << message;
}

TEST(SpecFile, AValueOfTheWrongTypeIsNamed) {
  const auto file = vector_add_spec("spec-type", "shapes = [[1048576], [16777216]]", "shapes = [[\"big\"]]");
  EXPECT_EQ(error_of(file), fmt::format("{}:7: 'a shape' holds integers, not a string", file.string()));
}

TEST(SpecFile, AnExpressionThatDoesNotParseIsNamedWithTheParsersComplaint) {
  const auto file = vector_add_spec("spec-parse", "global = [\"n\"]", "global = [\"n +\"]");
  EXPECT_EQ(error_of(file), fmt::format("{}:48: expression 'n +': Unexpected end of expression at position 4",
                                        file.string()));
}

TEST(SpecFile, AnExpressionWithAnUnknownNameListsTheValidNames) {
  const auto file = vector_add_spec("spec-name", "local = [\"block_size_x\"]", "local = [\"block_x\"]");
  EXPECT_EQ(error_of(file),
            fmt::format("{}:49: expression 'block_x': unknown name 'block_x' (valid: n, block_size_x)",
                        file.string()));
}

TEST(SpecFile, AnUnknownRoleOrDtypeListsTheValidOnes) {
  const auto role = vector_add_spec("spec-role", "role = \"in\"", "role = \"input\"");
  EXPECT_EQ(error_of(role), fmt::format("{}:26: role 'input' (valid: in, out, scalar)", role.string()));
  const auto dtype = vector_add_spec("spec-dtype", "dtype = \"int32\"", "dtype = \"int8\"");
  EXPECT_EQ(error_of(dtype),
            fmt::format("{}:43: dtype 'int8' of scalar 'n' (valid: float32, int32, int64)", dtype.string()));
}

TEST(SpecFile, ASyntaxErrorGivesTheTomlParsersLine) {
  const auto file = vector_add_spec("spec-syntax", "[launch]", "[launch");
  const std::string message = error_of(file);
  EXPECT_EQ(message.rfind(fmt::format("{}:47: ", file.string()), 0), 0u) << message;
}

TEST(SpecFile, ADefaultOutsideTheParametersValuesIsRefused) {
  const auto file =
      vector_add_spec("spec-default", "default = { block_size_x = 256 }", "default = { block_size_x = 100 }");
  EXPECT_EQ(
      error_of(file),
      fmt::format("{}:54: default block_size_x = 100 is not among its values (32, 64, 128, 256, 512, 1024)",
                  file.string()));
}

TEST(SpecFile, TheContentHashChangesWithTheSourceFile) {
  const auto file = vector_add_spec("spec-hash");
  const std::string before = read_spec(file).content_hash;
  EXPECT_EQ(read_spec(file).content_hash, before);
  write_file(file.parent_path() / "vector_add.cl",
             read_file(file.parent_path() / "vector_add.cl") + "\n// edited\n");
  EXPECT_NE(read_spec(file).content_hash, before);
  const std::string after_source = read_spec(file).content_hash;
  write_file(file.parent_path() / "vector_add_reference.cl",
             read_file(file.parent_path() / "vector_add_reference.cl") + "\n// edited\n");
  EXPECT_NE(read_spec(file).content_hash, after_source) << "the reference kernel is part of the key";
}

TEST(SpecExpression, KernelTunersOperatorsEvaluateAsInPython) {
  const spec::expression e("ceil_div(n, b) * b + n // 4 + n % 3 + (n > 5 && b <= 8 ? 1 : 0)", {"n", "b"},
                           "test");
  EXPECT_EQ(e.evaluate_integer({{"n", 10}, {"b", 4}}), 12 + 2 + 1 + 1);
  const spec::expression half("n / 4", {"n"}, "test");
  EXPECT_THROW((void)half.evaluate_integer({{"n", 10}}), usage_error) << "2.5 is not a size";
}

}  // namespace
}  // namespace kbench::test
