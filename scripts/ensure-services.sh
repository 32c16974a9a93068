#!/usr/bin/env bash
# Starts the loopback PostgreSQL and Redis the integration tests use, if they are down, and installs the Debian
# tools the tests and benchmarks need (redis-server for the cluster test, chromium for browser tests, wrk, openssl).
set -uo pipefail

need_pkgs=()
command -v redis-server >/dev/null || need_pkgs+=(redis-server)
command -v chromium >/dev/null || need_pkgs+=(chromium)
command -v wrk >/dev/null || need_pkgs+=(wrk)
command -v openssl >/dev/null || need_pkgs+=(openssl)   # the https-backend e2e test makes its own CA
if [ ${#need_pkgs[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
  echo "ensure-services: installing ${need_pkgs[*]}"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}") >/tmp/geogate-apt.log 2>&1 \
    || { echo "ensure-services: apt-get failed, see /tmp/geogate-apt.log"; tail -5 /tmp/geogate-apt.log; }
fi

if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  echo "ensure-services: starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "ensure-services: starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi
for i in $(seq 1 30); do
  pg_isready -q -h 127.0.0.1 -p 5432 && redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break
  sleep 1
done
pg_isready -h 127.0.0.1 -p 5432 || echo "ensure-services: PostgreSQL is not ready"
redis-cli -h 127.0.0.1 -p 6379 ping || echo "ensure-services: Redis is not ready"
# promtool and docker-compose for the deployment kit's tests (docs/prometheus, deploy/).
bash "$(dirname "$0")/install-tools.sh" >/tmp/geogate-install-tools.log 2>&1 \
  || { echo "ensure-services: install-tools failed, see /tmp/geogate-install-tools.log"; tail -5 /tmp/geogate-install-tools.log; }
exit 0
