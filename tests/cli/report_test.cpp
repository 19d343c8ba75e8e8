// CLI tests of `kbench report`: the page rendered by a real browser (headless Chromium: the DOM it parsed
// and a screenshot), reports from result files and from the history, and bad input (exit 2, no file).

#include "cli/run_kbench.hpp"
#include "unit/history_test_data.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace kbench::test {
namespace {

std::filesystem::path write_json(const std::filesystem::path& path, const nlohmann::json& doc) {
  std::ofstream(path) << doc.dump(1) << "\n";
  return path;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs a shell command; its stdout (stderr is discarded: Chromium logs harmless warnings there).
std::string shell_output(const std::string& command, int& exit_code) {
  std::string out;
  FILE* pipe = popen((command + " 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) {
    exit_code = -1;
    return out;
  }
  std::array<char, 4096> chunk{};
  while (std::fgets(chunk.data(), static_cast<int>(chunk.size()), pipe) != nullptr) out += chunk.data();
  const int status = pclose(pipe);
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

/// The Chromium executable on PATH ("" when there is none).
std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    int code = 0;
    std::string path = shell_output(std::string("command -v ") + name, code);
    while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
    if (code == 0 && !path.empty()) return path;
  }
  return {};
}

/// Headless Chromium with its own profile in `dir` (tests may run in parallel), no sandbox (root in CI),
/// bounded in time. `what` is --dump-dom or --screenshot=... .
std::string chromium_command(const std::string& chromium, const std::filesystem::path& dir,
                             const std::string& what, const std::filesystem::path& page) {
  return "timeout 120 " + chromium +
         " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --hide-scrollbars "
         "--user-data-dir=" +
         (dir / "chromium-profile").string() + " " + what + " file://" + page.string();
}

/// Width and height of a PNG from its IHDR chunk; {0, 0} when the file is not a PNG.
std::pair<std::uint32_t, std::uint32_t> png_size(const std::string& png) {
  static const std::string signature = "\x89PNG\r\n\x1a\n";
  if (png.size() < 24 || png.compare(0, 8, signature) != 0 || png.compare(12, 4, "IHDR") != 0) return {0, 0};
  auto be32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(png[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

/// `nights` runs of exp (two shapes, kbench-cpu and torch) one night apart, the last two 30% slower, one
/// file per run, plus a second kernel in the newest file.
std::vector<std::filesystem::path> result_files(const std::filesystem::path& dir, int nights) {
  std::vector<std::filesystem::path> files;
  for (int i = 0; i < nights; ++i) {
    const std::int64_t t = 1764500000 + 86400 * i;
    nlohmann::json records = sample_run(t, i >= nights - 2 ? 1.3 : 1.0, static_cast<std::uint64_t>(10 * i));
    if (i == nights - 1) {
      for (auto record : sample_run(t, 1.0, 7)) {
        record["model"]["name"] = "softmax_two_pass";
        records.push_back(record);
      }
    }
    files.push_back(write_json(dir / ("run" + std::to_string(i) + ".json"), records));
  }
  return files;
}

std::string joined(const std::vector<std::filesystem::path>& files) {
  std::string out;
  for (const auto& f : files) out += f.string() + " ";
  return out;
}

TEST(ReportCli, AReportFromResultFilesRendersInChromiumWithAPlotPerKernelAndShape) {
  const std::string chromium = find_chromium();
  ASSERT_FALSE(chromium.empty())
      << "chromium not found: the report is checked in a real browser; run scripts/install-deps.sh "
         "(it installs Debian's chromium)";
  const auto dir = scratch_dir("report-browser");
  const auto files = result_files(dir, 10);
  const auto page = dir / "report.html";
  const auto r = run_kbench_env("KBENCH_CACHE_DIR=" + (dir / "cache").string() + " ",
                                "report " + joined(files) + "--out " + page.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "wrote " + page.string() + ": 2 kernels, 10 runs, 4 regressions"))
      << r.output;
  const std::string html = read_text(page);
  for (const char* external : {"http:", "https:", "<script", "<link", "url(", "@import", "src="}) {
    EXPECT_FALSE(contains(html, external)) << "the page must open without a network: " << external;
  }

  // The DOM as Chromium parsed it: every kernel's section holds its charts with their data marks.
  int code = 0;
  const std::string dom = shell_output(chromium_command(chromium, dir, "--dump-dom", page), code);
  ASSERT_EQ(code, 0) << dom;
  ASSERT_TRUE(contains(dom, "</html>")) << dom.substr(0, 2000);
  auto section = [&](const std::string& kernel) {
    const auto start = dom.find("<section class=\"kernel\" id=\"kernel-" + kernel + "\"");
    if (start == std::string::npos) return std::string();
    return dom.substr(start, dom.find("</section>", start) - start);
  };
  const std::string exp = section("exp");
  ASSERT_FALSE(exp.empty()) << dom.substr(0, 4000);
  EXPECT_EQ(count(exp, "<svg class=\"chart lines\""), 2u) << "one latency plot per shape";
  EXPECT_EQ(count(exp, "<svg class=\"chart bars\""), 1u) << "speedup bars (no bandwidth records here)";
  EXPECT_EQ(count(exp, "<rect class=\"bar faster\""), 2u);
  EXPECT_EQ(count(exp, "<circle class=\"pt "), 2u * 2u * 10u) << "shapes x implementations x runs";
  EXPECT_EQ(count(exp, "<circle class=\"mark regression\""), 4u);
  EXPECT_EQ(count(exp, "<circle class=\"mark suspicious\""), 4u);
  EXPECT_TRUE(contains(exp, "<table class=\"measures\">"));
  const std::string softmax = section("softmax_two_pass");
  ASSERT_FALSE(softmax.empty());
  EXPECT_EQ(count(softmax, "<svg class=\"chart lines\""), 2u);
  EXPECT_EQ(count(softmax, "<circle class=\"pt "), 2u * 2u) << "one run";

  // A screenshot: a PNG of the requested width, and far more drawn than on a blank page of the same size.
  const auto shot = dir / "report.png";
  shell_output(chromium_command(chromium, dir, "--window-size=1280,2000 --screenshot=" + shot.string(), page),
               code);
  ASSERT_EQ(code, 0);
  const std::string png = read_text(shot);
  EXPECT_EQ(png_size(png), (std::pair<std::uint32_t, std::uint32_t>{1280, 2000}));
  std::ofstream(dir / "blank.html") << "<!DOCTYPE html><html><body></body></html>\n";
  const auto blank_shot = dir / "blank.png";
  shell_output(chromium_command(chromium, dir, "--window-size=1280,2000 --screenshot=" + blank_shot.string(),
                                dir / "blank.html"),
               code);
  const auto blank_size = std::filesystem::file_size(blank_shot);
  EXPECT_GT(png.size(), 5 * blank_size) << "report " << png.size() << " bytes, blank " << blank_size;
  std::filesystem::remove_all(dir / "chromium-profile");  // tens of MB
}

TEST(ReportCli, AReportFromTheHistoryDatabase) {
  const auto dir = scratch_dir("report-db");
  const auto files = result_files(dir, 3);
  const std::string db = "sqlite://" + (dir / "h.db").string();
  ASSERT_EQ(run_kbench("history add " + joined(files) + "--db " + db).exit_code, 0);
  const auto page = dir / "report.html";
  auto r = run_kbench("report --db " + db + " --kernel exp --out " + page.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "1 kernel, 3 runs")) << r.output;
  const std::string html = read_text(page);
  EXPECT_TRUE(contains(html, "data-kernel=\"exp\""));
  EXPECT_FALSE(contains(html, "data-kernel=\"softmax_two_pass\"")) << "--kernel selects";
  EXPECT_TRUE(contains(html, "3 runs from 2025-11-30"));
  // $KBENCH_DB names the default database, as for `kbench history`.
  r = run_kbench_env("KBENCH_DB=" + (dir / "h.db").string() + " ", "report --out " + page.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "2 kernels, 3 runs")) << r.output;
}

TEST(ReportCli, BadInputExitsWithTwoAndWritesNothing) {
  const auto dir = scratch_dir("report-bad");
  const auto good = write_json(dir / "good.json", sample_run(1764500000, 1.0));
  std::ofstream(dir / "text.json") << "not json\n";
  write_json(dir / "v2.json", nlohmann::json::array({{{"schema_version", "v2"}}}));
  write_json(dir / "empty.json", nlohmann::json::array());
  const auto page = dir / "report.html";
  const std::string out = " --out " + page.string();

  auto r = run_kbench("report " + good.string() + " " + (dir / "text.json").string() + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output,
            "kbench: " + (dir / "text.json").string() + " is not JSON (expected a list of v3 records)\n");
  r = run_kbench("report " + (dir / "v2.json").string() + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "is not a list of v3 records: record 0: schema_version is not \"v3\""))
      << r.output;
  r = run_kbench("report " + (dir / "missing.json").string() + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "cannot read the results file")) << r.output;
  r = run_kbench("report " + (dir / "empty.json").string() + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "no results in " + (dir / "empty.json").string())) << r.output;
  r = run_kbench("report " + good.string() + " --kernel softmax" + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "for these kernels")) << r.output;

  r = run_kbench("report --db postgresql://kbench:secret@127.0.0.1:1/kbench" + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "cannot connect to the history database")) << r.output;
  EXPECT_FALSE(contains(r.output, "secret"));
  r = run_kbench("report --db " + good.string() + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "file is not a database")) << r.output;
  r = run_kbench("report --db sqlite://" + (dir / "none.db").string() + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "no history database at " + (dir / "none.db").string())) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "none.db")) << "a report creates no database";

  r = run_kbench("report " + good.string() + " --db sqlite://" + (dir / "h.db").string() + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "not both")) << r.output;
  r = run_kbench("report " + good.string());
  EXPECT_EQ(r.exit_code, 2) << "--out is required\n" << r.output;
  r = run_kbench("report " + good.string() + " --out " + (dir / "no" / "dir" / "r.html").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "no directory")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(page));

  // kbench's page is left as it was by a failed report, and replaced by a good one; someone else's file is
  // never replaced.
  ASSERT_EQ(run_kbench("report " + good.string() + out).exit_code, 0);
  const std::string first = read_text(page);
  EXPECT_EQ(run_kbench("report " + (dir / "text.json").string() + out).exit_code, 2);
  EXPECT_EQ(read_text(page), first);
  EXPECT_EQ(run_kbench("report " + good.string() + out).exit_code, 0);
  EXPECT_TRUE(contains(read_text(page), "<!DOCTYPE html>"));
  std::ofstream(page) << "previous\n";
  EXPECT_EQ(run_kbench("report " + good.string() + out).exit_code, 2);
  EXPECT_EQ(read_text(page), "previous\n");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_NE(entry.path().filename().string().rfind(".report.html", 0), 0u) << "temporary file left behind";
  }
}

}  // namespace
}  // namespace kbench::test
