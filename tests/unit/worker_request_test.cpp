// A `kbench worker` gets its request as one structured message (worker_request.hpp): what the suite sends is
// what the worker reads, and a message it cannot read is refused by name.

#include <kbench/error.hpp>
#include <kbench/suite/worker_request.hpp>

#include <gtest/gtest.h>

#include <string>

namespace kbench::suite {
namespace {

TEST(WorkerRequest, AShapeRequestReadsBackAsItWasSent) {
  worker_request sent;
  sent.task = worker_task::shape;
  sent.kernel = "softmax_two_pass";
  sent.definition_file = "/tmp/kernels/saxpy.toml";
  sent.shape_index = 3;
  sent.shape.backend = backend_kind::opencl;
  sent.shape.seed = 42;
  sent.shape.atol = 1e-4;
  sent.shape.run_torch = false;
  sent.shape.target_ms = 12.5;
  sent.shape.config = config{{"BLOCK", 256}, {"UNROLL", 4}};
  sent.shape.torch_config = config{{"threads", 2}};
  sent.shape.triad_stores = "non-temporal";
  sent.shape.triad_min_bytes = 64e6;
  sent.shape.require_quiet_s = 30;

  const worker_request read = parse_worker_request(to_message(sent));
  EXPECT_EQ(read.task, worker_task::shape);
  EXPECT_EQ(read.kernel, sent.kernel);
  EXPECT_EQ(read.definition_file, sent.definition_file);
  EXPECT_EQ(read.shape_index, 3u);
  EXPECT_EQ(read.shape.backend, backend_kind::opencl);
  EXPECT_EQ(read.shape.seed, 42u);
  EXPECT_EQ(read.shape.atol, 1e-4);
  EXPECT_FALSE(read.shape.rtol);
  EXPECT_TRUE(read.shape.run_kbench);
  EXPECT_FALSE(read.shape.run_torch);
  EXPECT_EQ(read.shape.target_ms, 12.5);
  EXPECT_EQ(read.shape.config, sent.shape.config);
  EXPECT_EQ(read.shape.torch_config, sent.shape.torch_config);
  EXPECT_EQ(read.shape.triad_stores, sent.shape.triad_stores);
  EXPECT_EQ(read.shape.triad_min_bytes, 64e6);
  EXPECT_EQ(read.shape.require_quiet_s, 30);
}

TEST(WorkerRequest, ATrialCarriesTheTunersRequestLine) {
  worker_request sent;
  sent.task = worker_task::trial;
  sent.kernel = "exp";
  sent.trial = R"({"configs":[{"A":1}],"phase":"time","target_ms":5.0})";
  const worker_request read = parse_worker_request(to_message(sent));
  EXPECT_EQ(read.task, worker_task::trial);
  EXPECT_EQ(read.trial, sent.trial);
}

TEST(WorkerRequest, WhatCannotBeReadIsRefusedByName) {
  const auto refusal = [](const std::string& message) {
    try {
      (void)parse_worker_request(message);
    } catch (const usage_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal("--kernel exp").find("one JSON object"), std::string::npos);
  EXPECT_NE(refusal("[1]").find("a JSON object"), std::string::npos);
  EXPECT_NE(refusal(R"({"kernel":"exp","shape_idx":2})").find("unknown field 'shape_idx'"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"kernel":"exp","task":"serve"})").find("unknown worker task 'serve' (valid: shape"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"task":"shape"})").find("malformed worker request"), std::string::npos);
  EXPECT_NE(refusal(R"({"kernel":"exp","seed":"x"})").find("malformed worker request"), std::string::npos);
  EXPECT_NE(refusal(R"({"kernel":"exp","backend":"tpu"})").find("tpu"), std::string::npos);
  EXPECT_NE(refusal(R"({"kernel":"exp","atol":-1})").find("atol must be a non-negative number"),
            std::string::npos);
}

}  // namespace
}  // namespace kbench::suite
