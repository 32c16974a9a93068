#!/usr/bin/env bash
# Installs a real Nominatim 5.x next to geogate and imports the small test file written for the opt-in suite
# (test/optin/data/champ-de-mars.osm) into its own database on the shared PostgreSQL. Idempotent: a second run
# with the same data and the same Nominatim only checks that the database is there.
#
# What comes from where:
#   - PostgreSQL's PostGIS, osm2pgsql and every Python library Nominatim needs: Debian packages (apt-get).
#   - Nominatim itself (nominatim-db + nominatim-api, pure Python): pip, from the configured package index,
#     into a venv under data/nominatim/venv that sees the Debian Python libraries. Where the index does not
#     serve them, NOMINATIM_SRC may name a Nominatim 5.x source tree that the operator put on the machine
#     (it is run as it is with its nominatim-cli.py; this script builds nothing).
#
# Environment (all optional):
#   NOMINATIM_VERSION   pip version to install (default 5.3.2)
#   NOMINATIM_SRC       a Nominatim 5.x source tree, used when pip cannot install it
#   NOMINATIM_HOME      where the venv, launcher and project dir go (default <repo>/data/nominatim)
#   NOMINATIM_GG_DB     database name (default nominatim_gg; it is dropped and re-created on a new import)
#   PGHOST/PGPORT/PGUSER  the PostgreSQL server (default 127.0.0.1:5432, postgres; trust authentication)
#   NOMINATIM_OSM_FILE  the OSM file to import (default test/optin/data/champ-de-mars.osm)
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
version="${NOMINATIM_VERSION:-5.3.2}"
home="${NOMINATIM_HOME:-$repo/data/nominatim}"
db="${NOMINATIM_GG_DB:-nominatim_gg}"
osm_file="${NOMINATIM_OSM_FILE:-$repo/test/optin/data/champ-de-mars.osm}"
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
py=/usr/bin/python3 # Debian's Python: the python3-* packages below are built for it

log() { echo "nominatim-setup: $*" >&2; }
die() {
  log "FAILED: $*"
  exit 1
}

case "$db" in test | root | postgres | template0 | template1) die "refusing to use database '$db'" ;; esac
[[ "$db" =~ ^[a-z_][a-z0-9_]*$ ]] || die "NOMINATIM_GG_DB must be a plain lower-case name, got '$db'"
[ -f "$osm_file" ] || die "OSM file not found: $osm_file"

# 1. Debian packages --------------------------------------------------------------------------------------
pg_major="$(psql -XAtc 'show server_version_num' postgres 2>/dev/null | cut -c1-2)" ||
  die "PostgreSQL not reachable at $PGHOST:$PGPORT as $PGUSER (bash scripts/ensure-services.sh starts it)"
debs=("postgresql-$pg_major-postgis-3" osm2pgsql python3-venv python3-icu python3-psycopg python3-dotenv
  python3-psutil python3-jinja2 python3-yaml python3-mwparserfromhell python3-sqlalchemy python3-greenlet
  python3-asyncpg python3-falcon python3-uvicorn python3-async-timeout)
missing=()
for p in "${debs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. Nominatim itself -------------------------------------------------------------------------------------
mkdir -p "$home/bin"
launcher="$home/bin/nominatim"
if [ ! -x "$home/venv/bin/nominatim" ]; then
  [ -d "$home/venv" ] || "$py" -m venv --system-site-packages "$home/venv"
  log "pip install nominatim-db==$version nominatim-api==$version (configured index)"
  if "$home/venv/bin/pip" install -q --disable-pip-version-check --retries 0 --timeout 20 \
    "nominatim-db==$version" "nominatim-api==$version" >"$home/pip.log" 2>&1; then
    log "installed from the package index"
  else
    log "pip could not install Nominatim $version (see $home/pip.log: $(tail -1 "$home/pip.log"))"
  fi
fi
if [ -x "$home/venv/bin/nominatim" ]; then
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$home/venv/bin/nominatim" >"$launcher"
  "$home/venv/bin/python" -c 'import nominatim_db.paths as p; print(p.DATA_DIR)' >"$home/data-dir"
elif [ -n "${NOMINATIM_SRC:-}" ] && [ -f "$NOMINATIM_SRC/nominatim-cli.py" ]; then
  log "using the Nominatim source tree at $NOMINATIM_SRC"
  printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$py" "$NOMINATIM_SRC/nominatim-cli.py" >"$launcher"
  echo "$NOMINATIM_SRC/data" >"$home/data-dir"
elif [ -x "$launcher" ] && [ -f "$home/data-dir" ] && "$launcher" --version >/dev/null 2>&1; then
  log "keeping the Nominatim of an earlier run ($(cat "$launcher" | tail -1))"
else
  die "Nominatim $version is not installable from the configured package index and NOMINATIM_SRC does not name a source tree"
fi
chmod +x "$launcher"
nominatim_version="$("$launcher" --version 2>&1 | tail -1)"
log "$nominatim_version; $(osm2pgsql --version 2>&1 | grep -o 'osm2pgsql version.*'); PostgreSQL $pg_major"

# Nominatim's fallback country grid (data/country_osm_grid.sql.gz) ships in the pip package but is not part of
# its source repository. Where it is absent, write a small grid of our own: one FR cell matching the France
# boundary of the test file (country codes are taken from the boundary first; the grid is the fallback).
data_dir="$(cat "$home/data-dir")"
if [ ! -f "$data_dir/country_osm_grid.sql.gz" ]; then
  log "no country grid in $data_dir: writing a one-cell FR grid for the test area"
  gzip -c >"$data_dir/country_osm_grid.sql.gz" <<'SQL'
-- geogate test grid: one cell for France covering the test file's area (not Nominatim's world grid).
CREATE TABLE public.country_osm_grid (country_code varchar(2), area double precision, geometry public.geometry);
INSERT INTO public.country_osm_grid VALUES ('fr', 0.03,
  ST_SetSRID('POLYGON((2.20 48.80, 2.45 48.80, 2.45 48.92, 2.20 48.92, 2.20 48.80))'::geometry, 4326));
CREATE INDEX idx_country_osm_grid_geometry ON public.country_osm_grid USING gist (geometry);
SQL
fi

# 3. Project directory and import -------------------------------------------------------------------------
project="$home/project"
mkdir -p "$project"
cat >"$project/.env" <<EOF
NOMINATIM_DATABASE_DSN="pgsql:dbname=$db;host=$PGHOST;port=$PGPORT;user=$PGUSER"
NOMINATIM_DATABASE_WEBUSER="$PGUSER"
EOF
stamp="$(sha256sum "$osm_file" | cut -c1-16) $nominatim_version"
db_exists="$(psql -XAtc "select 1 from pg_database where datname = '$db'" postgres)"
if [ "$db_exists" = 1 ] && [ -f "$project/import.done" ] && [ "$(cat "$project/import.done")" = "$stamp" ]; then
  log "database $db already holds this import ($stamp)"
else
  rm -f "$project/import.done"
  if [ "$db_exists" = 1 ]; then
    log "dropping the previous import ($db)"
    psql -Xqc "drop database \"$db\" with (force)" postgres
  fi
  log "nominatim import --osm-file $osm_file (database $db)"
  started=$(date +%s)
  (cd "$project" && "$launcher" import --osm-file "$osm_file" --offline --threads 1 --osm2pgsql-cache 64 \
    --project-dir "$project") >"$project/import.log" 2>&1 ||
    die "nominatim import failed; last lines of $project/import.log:
$(tail -20 "$project/import.log")"
  echo "$stamp" >"$project/import.done"
  log "imported in $(($(date +%s) - started)) s"
fi
echo "$launcher"
