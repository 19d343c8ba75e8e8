// The files kbench writes and reads: the atomic writer keeps a file's mode, writes through symbolic links
// and leaves no temporary behind; asides of corrupt files never replace each other; reads are bounded.

#include "support/scratch_dir.hpp"

#include <kbench/error.hpp>
#include <kbench/io/atomic_file.hpp>
#include <kbench/io/move_aside.hpp>
#include <kbench/io/read_file.hpp>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

namespace kbench::io {
namespace {

namespace fs = std::filesystem;

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

mode_t mode_of(const fs::path& p) {
  struct stat info {};
  EXPECT_EQ(::stat(p.c_str(), &info), 0);
  return info.st_mode & 07777;
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

TEST(AtomicFile, KeepsThePermissionsOfTheFileItReplaces) {
  const fs::path dir = test::scratch_dir("atomic-mode");
  const fs::path file = dir / "results.json";
  write_file_atomically(file, "first\n");
  ASSERT_EQ(::chmod(file.c_str(), 0600), 0);
  write_file_atomically(file, "second\n");
  EXPECT_EQ(mode_of(file), 0600u);
  EXPECT_EQ(text_of(file), "second\n");
  EXPECT_EQ(names_in(dir), std::set<std::string>{"results.json"});  // no temporary left beside it
}

TEST(AtomicFile, ANewFileFollowsTheUmask) {
  const fs::path dir = test::scratch_dir("atomic-umask");
  const mode_t old = ::umask(027);
  write_file_atomically(dir / "new.json", "x");
  ::umask(old);
  EXPECT_EQ(mode_of(dir / "new.json"), 0640u);
}

TEST(AtomicFile, WritesThroughASymbolicLinkAndKeepsTheLink) {
  const fs::path dir = test::scratch_dir("atomic-link");
  fs::create_directories(dir / "store");
  write_file_atomically(dir / "store" / "real.json", "old");
  fs::create_symlink("store/real.json", dir / "link.json");
  write_file_atomically(dir / "link.json", "new");
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(text_of(dir / "store" / "real.json"), "new");
  EXPECT_EQ(names_in(dir / "store"), std::set<std::string>{"real.json"});
}

TEST(AtomicFile, SaysWhatFailedInADirectoryItCannotWrite) {
  try {
    write_file_atomically("/proc/kbench-cannot-be-here.json", "x");
    FAIL() << "wrote under /proc";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("/proc"), std::string::npos) << e.what();
  }
}

TEST(MoveAside, TwoAsidesInOneSecondKeepBoth) {
  const fs::path dir = test::scratch_dir("aside");
  for (const char* body : {"first corrupt", "second corrupt", "third corrupt"}) {
    std::ofstream(dir / "cache.json") << body;
    const std::string said = move_aside(dir / "cache.json");
    EXPECT_EQ(said.rfind("kept as cache.json.corrupt-", 0), 0u) << said;
  }
  std::set<std::string> bodies;
  for (const auto& e : fs::directory_iterator(dir)) bodies.insert(text_of(e.path()));
  EXPECT_EQ(bodies, (std::set<std::string>{"first corrupt", "second corrupt", "third corrupt"}));
}

TEST(ReadFile, RefusesAnEndlessDeviceInsteadOfFillingTheMemory) {
  try {
    (void)read_file("/dev/zero", std::uintmax_t{1} << 20, "results file");
    FAIL() << "read /dev/zero to the end";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("more than kbench reads"), std::string::npos) << e.what();
  }
}

TEST(ReadFile, RefusesAFileAboveTheLimitAndADirectoryAndAMissingPath) {
  const fs::path dir = test::scratch_dir("read-limit");
  std::ofstream(dir / "big") << std::string(2048, 'x');
  EXPECT_THROW((void)read_file(dir / "big", 1024, "results file"), usage_error);
  EXPECT_EQ(read_file(dir / "big", 4096, "results file").size(), 2048u);
  EXPECT_THROW((void)read_file(dir, 1024, "results file"), usage_error);
  EXPECT_THROW((void)read_file(dir / "missing", 1024, "results file"), usage_error);
}

}  // namespace
}  // namespace kbench::io

namespace kbench::io {
namespace {

TEST(AtomicFile, AKillDuringAWriteLeavesTheOldFileOrTheNewOneAndNoTemporary) {
  const fs::path dir = test::scratch_dir("atomic-kill");
  write_file_atomically(dir / "big.json", "old");
  const std::string big(std::size_t{64} << 20, 'x');  // [bytes] long enough to be killed mid-write
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (;;) write_file_atomically(dir / "big.json", big);
  }
  ::usleep(300000);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(names_in(dir), std::set<std::string>{"big.json"});
  const auto size = fs::file_size(dir / "big.json");
  EXPECT_TRUE(size == 3 || size == big.size()) << size;
}

}  // namespace
}  // namespace kbench::io
