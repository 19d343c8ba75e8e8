// The history store over SQL (see sql_store.hpp).
//
// Schema (version 1), the same on SQLite and PostgreSQL:
//   runs   (id, timestamp [s since the epoch], commit_id, version, host)   unique (host, timestamp)
//   series (id, runner_name, runner_type, backend, kernel, shape, implementation, metric)   unique on all 7
//   points (run_id -> runs, series_id -> series, median, samples = JSON list text)   key (run_id, series_id)

#include "history/sql_store.hpp"

#include <kbench/error.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace kbench::history::detail {
namespace {

constexpr const char* schema_version = "1";

std::vector<std::string> key_params(const series_key& k) {
  return {k.runner_name, k.runner_type, k.backend, k.kernel, k.shape, k.implementation, k.metric};
}

double to_double(const std::string& text) {
  std::size_t used = 0;
  const double v = std::stod(text, &used);
  if (used != text.size())
    KBENCH_THROW("the history database returned '{}' where a number was expected", text);
  return v;
}

class sql_store final : public store {
 public:
  sql_store(std::unique_ptr<sql_connection> connection, std::string description, store_access access)
      : store(std::move(description)), m_sql(std::move(connection)), m_access(access) {
    try {
      if (access == store_access::read_write) {
        create_schema();
      } else {
        check_schema();
      }
    } catch (const usage_error&) {
      throw;
    } catch (const kbench::error& e) {
      throw usage_error(fmt::format("cannot use the history database {}: {}", this->description(), e.what()));
    }
  }

 protected:
  add_summary do_add(const std::vector<run_records>& runs) override {
    if (m_access == store_access::read_only) KBENCH_THROW("the history {} was opened to read", description());
    add_summary summary;
    transaction tx(*m_sql);
    std::map<series_key, std::string> series_ids;
    for (const auto& r : runs) {
      const auto existing = m_sql->query("SELECT id FROM runs WHERE host = $1 AND timestamp = $2",
                                         {r.run.host, std::to_string(r.run.timestamp)});
      if (!existing.empty()) {
        ++summary.runs_skipped;
        continue;
      }
      const auto run_id = m_sql->query(
          "INSERT INTO runs (timestamp, commit_id, version, host) VALUES ($1, $2, $3, $4) RETURNING id",
          {std::to_string(r.run.timestamp), r.run.commit, r.run.version, r.run.host});
      for (const auto& p : r.points) {
        if (!std::isfinite(p.median)) {  // the transaction rolls back everything added so far
          KBENCH_THROW("{} {} {} {}: the median {} is not a finite number", p.series.kernel, p.series.shape,
                       p.series.implementation, p.series.metric, p.median);
        }
        auto it = series_ids.find(p.series);
        if (it == series_ids.end()) it = series_ids.emplace(p.series, series_id(p.series)).first;
        m_sql->query(
            "INSERT INTO points (run_id, series_id, median, samples) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (run_id, series_id) DO UPDATE SET median = excluded.median, samples = "
            "excluded.samples",
            {run_id.at(0).at(0), it->second, fmt::format("{}", p.median), nlohmann::json(p.samples).dump()});
        ++summary.points_added;
      }
      ++summary.runs_added;
    }
    tx.commit();
    return summary;
  }

  std::vector<series_history> do_series(const series_query& query) override {
    std::string sql = fmt::format(
        "SELECT s.id, s.runner_name, s.runner_type, s.backend, s.kernel, s.shape, s.implementation, "
        "s.metric, "
        "r.id, r.timestamp, r.commit_id, r.version, r.host, p.median{} "
        "FROM points p JOIN series s ON s.id = p.series_id JOIN runs r ON r.id = p.run_id",
        query.with_samples ? ", p.samples" : "");
    std::vector<std::string> params;
    if (!query.kernels.empty()) {
      sql += " WHERE s.kernel IN (";
      for (std::size_t i = 0; i < query.kernels.size(); ++i)
        sql += fmt::format("{}${}", i ? ", " : "", i + 1);
      sql += ")";
      params = query.kernels;
    }
    // Sorted here rather than by ORDER BY: text collation differs between the databases.
    std::map<series_key, series_history> by_key;
    for (const auto& row : m_sql->query(sql, params)) {
      series_key key{row.at(1), row.at(2), row.at(3), row.at(4), row.at(5), row.at(6), row.at(7)};
      stored_point p;
      p.run_id = std::stoll(row.at(8));
      p.run = {std::stoll(row.at(9)), row.at(10), row.at(11), row.at(12)};
      p.median = to_double(row.at(13));
      if (query.with_samples) {
        const auto samples = nlohmann::json::parse(row.at(14), nullptr, /*allow_exceptions=*/false);
        if (!samples.is_array()) KBENCH_THROW("the history database holds samples that are not a JSON list");
        p.samples = samples.get<std::vector<double>>();
      }
      auto& history = by_key[key];
      history.key = std::move(key);
      history.points.push_back(std::move(p));
    }
    std::vector<series_history> out;
    out.reserve(by_key.size());
    for (auto& [key, history] : by_key) {
      std::sort(history.points.begin(), history.points.end(),
                [](const stored_point& a, const stored_point& b) {
                  return std::tie(a.run.timestamp, a.run_id) < std::tie(b.run.timestamp, b.run_id);
                });
      out.push_back(std::move(history));
    }
    return out;
  }

 private:
  void create_schema() {
    transaction tx(*m_sql);
    const std::string id(m_sql->id_column());
    m_sql->query("CREATE TABLE IF NOT EXISTS kbench_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    m_sql->query(fmt::format(
        "CREATE TABLE IF NOT EXISTS runs (id {}, timestamp BIGINT NOT NULL, commit_id TEXT NOT NULL, "
        "version TEXT NOT NULL, host TEXT NOT NULL, UNIQUE (host, timestamp))",
        id));
    m_sql->query(fmt::format(
        "CREATE TABLE IF NOT EXISTS series (id {}, runner_name TEXT NOT NULL, runner_type TEXT NOT NULL, "
        "backend TEXT NOT NULL, kernel TEXT NOT NULL, shape TEXT NOT NULL, implementation TEXT NOT NULL, "
        "metric TEXT NOT NULL, UNIQUE (runner_name, runner_type, backend, kernel, shape, implementation, "
        "metric))",
        id));
    m_sql->query(
        "CREATE TABLE IF NOT EXISTS points (run_id BIGINT NOT NULL REFERENCES runs (id), "
        "series_id BIGINT NOT NULL REFERENCES series (id), median DOUBLE PRECISION NOT NULL, "
        "samples TEXT NOT NULL, PRIMARY KEY (run_id, series_id))");
    m_sql->query("CREATE INDEX IF NOT EXISTS points_by_series ON points (series_id)");
    m_sql->query(
        "INSERT INTO kbench_meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO NOTHING",
        {schema_version});
    const auto version = m_sql->query("SELECT value FROM kbench_meta WHERE key = 'schema_version'");
    if (version.empty() || version[0].at(0) != schema_version) {
      KBENCH_THROW("history schema version {} is not the {} this kbench reads",
                   version.empty() ? "(none)" : version[0].at(0), schema_version);
    }
    tx.commit();
  }

  /// A database opened to read must hold kbench's tables at this kbench's schema version; nothing is created.
  void check_schema() {
    std::vector<std::vector<std::string>> version;
    try {
      version = m_sql->query("SELECT value FROM kbench_meta WHERE key = 'schema_version'");
    } catch (const kbench::error&) {
      throw usage_error(fmt::format("{} holds no kbench history (no kbench tables in it)", description()));
    }
    if (version.empty() || version[0].at(0) != schema_version) {
      throw usage_error(fmt::format("history schema version {} of {} is not the {} this kbench reads",
                                    version.empty() ? "(none)" : version[0].at(0), description(),
                                    schema_version));
    }
  }

  /// The id of `key`'s series, inserting it when new.
  std::string series_id(const series_key& key) {
    const auto params = key_params(key);
    m_sql->query(
        "INSERT INTO series (runner_name, runner_type, backend, kernel, shape, implementation, metric) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
        params);
    const auto rows = m_sql->query(
        "SELECT id FROM series WHERE runner_name = $1 AND runner_type = $2 AND backend = $3 AND kernel = $4 "
        "AND shape = $5 AND implementation = $6 AND metric = $7",
        params);
    if (rows.empty())
      KBENCH_THROW("series {} {} {} was inserted but cannot be found", key.kernel, key.shape, key.metric);
    return rows[0].at(0);
  }

  std::unique_ptr<sql_connection> m_sql;
  store_access m_access;
};

}  // namespace

std::unique_ptr<store> make_sql_store(std::unique_ptr<sql_connection> connection, std::string description,
                                      store_access access) {
  return std::make_unique<sql_store>(std::move(connection), std::move(description), access);
}

}  // namespace kbench::history::detail
