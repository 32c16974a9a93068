#!/usr/bin/env bash
# Installs the non-JavaScript geocoding clients the e2e suite drives (test/e2e/clients/, issue 16), from Debian only:
# geopy (python3-geopy), Geo::Coder::OSM and Geo::Coder::Googlev3 (Perl), GNOME geocode-glib with its introspection
# data and python3-gi. Idempotent: installs only what is missing, and runs `apt-get update` only then.
set -euo pipefail

PACKAGES=(python3 python3-geopy python3-gi gir1.2-geocodeglib-2.0 perl libgeo-coder-osm-perl libgeo-coder-googlev3-perl)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then missing+=("$p"); fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-clients: all present (${PACKAGES[*]})"
  exit 0
fi

echo "install-clients: installing ${missing[*]}"
SUDO=()
if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
