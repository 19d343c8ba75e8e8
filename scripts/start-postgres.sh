#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for the history tests and prints the line that points them at it:
#   eval "$(bash scripts/start-postgres.sh)"     # exports KBENCH_TEST_PG_URL=postgresql://kbench@127.0.0.1:PORT/kbench
#   bash scripts/start-postgres.sh --stop        # stops it and removes its files
# The cluster lives in $KBENCH_PG_DIR (default ${TMPDIR:-/tmp}/kbench-postgres-$UID), listens on 127.0.0.1 only,
# on a free port, with trust authentication; fsync is off (test data only). As root, the server runs as the
# `postgres` user (PostgreSQL refuses root). Idempotent: a server this script started and that still runs is
# reused in well under a second. Needs Debian's postgresql package (scripts/install-deps.sh installs it).
# On failure it prints `false` to stdout, so that the eval above fails under `set -e`.
set -euo pipefail

dir=${KBENCH_PG_DIR:-${TMPDIR:-/tmp}/kbench-postgres-$(id -u)}
data=$dir/data

fail() {
  echo "start-postgres: $*" >&2
  echo false
  exit 1
}

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[[ -n $bindir && -x $bindir/initdb ]] || fail "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)"

as_owner=()
if [[ $(id -u) -eq 0 ]]; then
  id postgres >/dev/null 2>&1 || fail "running as root but there is no 'postgres' user to run the server as"
  as_owner=(runuser -u postgres --)
fi

running() { [[ -f $dir/port ]] && "${as_owner[@]}" "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; }

if [[ ${1:-} == --stop ]]; then
  if running; then "${as_owner[@]}" "$bindir/pg_ctl" -D "$data" -m immediate -w stop >/dev/null; fi
  rm -rf "$dir"
  echo "start-postgres: stopped and removed $dir" >&2
  exit 0
fi

print_url() {
  local port
  port=$(cat "$dir/port")
  echo "start-postgres: PostgreSQL $(basename "$(dirname "$bindir")") on 127.0.0.1:$port (data in $data)" >&2
  echo "export KBENCH_TEST_PG_URL=postgresql://kbench@127.0.0.1:$port/kbench"
}

if running; then
  print_url
  exit 0
fi

# A fresh cluster: whatever a crashed earlier attempt left is removed first.
rm -rf "$dir"
mkdir -p "$dir"
if ((${#as_owner[@]})); then chown postgres: "$dir"; fi
chmod 700 "$dir"
"${as_owner[@]}" "$bindir/initdb" -D "$data" -U kbench -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
  fail "initdb failed: $(tail -n 5 "$dir/initdb.log")"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
started=0
for _ in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 30000))
  port_free "$port" || continue
  if "${as_owner[@]}" "$bindir/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null 2>&1; then
    started=1
    break
  fi
done
((started)) || fail "pg_ctl could not start the server: $(tail -n 5 "$dir/server.log" 2>/dev/null)"
echo "$port" >"$dir/port"
"${as_owner[@]}" "$bindir/createdb" -h 127.0.0.1 -p "$port" -U kbench kbench ||
  fail "createdb kbench failed on 127.0.0.1:$port"
print_url
