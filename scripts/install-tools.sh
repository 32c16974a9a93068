#!/usr/bin/env bash
# Installs the Debian tools the tests check with: promtool (Debian's `prometheus` package) for
# docs/prometheus/alerts.yml, docker-compose for deploy/compose/compose.yaml (`docker-compose config` needs no
# Docker daemon), and the edge proxies the forward-auth tests put in front of geogate: nginx (`auth_request`) and
# Caddy (`forward_auth`); test/e2e/forward-auth/ starts its own instances of them, never the system services.
# Idempotent: installs only what is missing, and runs `apt-get update` only then.
set -euo pipefail

declare -A TOOLS=([promtool]=prometheus [docker-compose]=docker-compose [nginx]=nginx [caddy]=caddy)

missing=()
for tool in "${!TOOLS[@]}"; do
  command -v "$tool" >/dev/null || missing+=("${TOOLS[$tool]}")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-tools: all present (${!TOOLS[*]})"
  exit 0
fi

echo "install-tools: installing ${missing[*]}"
SUDO=()
if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
# Only the prometheus package's promtool is used; its server is not started where there is no systemd (CI).
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
