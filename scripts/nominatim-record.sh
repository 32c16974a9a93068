#!/usr/bin/env bash
# Records real answers of the Nominatim installed by scripts/nominatim-setup.sh (our own test data) into
# test/fixtures/nominatim-live/: one JSON file per request with the path, status, content type and body.
# Starts `nominatim serve` on 127.0.0.1 (a free port), records, stops it.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
home="${NOMINATIM_HOME:-$repo/data/nominatim}"
out="$repo/test/fixtures/nominatim-live"
launcher="$home/bin/nominatim"
[ -x "$launcher" ] || {
  echo "run scripts/nominatim-setup.sh first" >&2
  exit 1
}
port="$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"
"$launcher" serve --server "127.0.0.1:$port" --project-dir "$home/project" >"$home/record-serve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 60); do
  curl -sf "$base/status" >/dev/null && break
  sleep 0.5
done
curl -sf "$base/status" >/dev/null || {
  echo "nominatim serve did not answer on $base; see $home/record-serve.log" >&2
  exit 1
}

version="$("$launcher" --version 2>&1 | tail -1)"
mkdir -p "$out"
# name|path
requests=(
  "reverse-house|/reverse?format=jsonv2&lat=48.8575&lon=2.2981&addressdetails=1"
  "reverse-poi|/reverse?format=jsonv2&lat=48.85837&lon=2.29448&addressdetails=1"
  "reverse-street-zoom17|/reverse?format=jsonv2&lat=48.8581&lon=2.2990&zoom=17&addressdetails=1"
  "reverse-city-zoom10|/reverse?format=jsonv2&lat=48.8575&lon=2.2981&zoom=10&addressdetails=1"
  "reverse-no-result|/reverse?format=jsonv2&lat=10&lon=10&addressdetails=1"
  "reverse-bad-lat|/reverse?format=jsonv2&lat=abc&lon=2.2981"
  "search-street|/search?format=jsonv2&q=Avenue+Anatole+France%2C+Paris&addressdetails=1"
  "search-house|/search?format=jsonv2&q=9+Avenue+Anatole+France&addressdetails=1"
  "search-poi|/search?format=jsonv2&q=Tour+Eiffel&addressdetails=1"
  "search-structured|/search?format=jsonv2&street=5+Avenue+Anatole+France&city=Paris&addressdetails=1"
  "search-no-result|/search?format=jsonv2&q=Rue+Introuvable+Nowhere"
  "lookup|/lookup?format=json&osm_ids=N9000203,W9100101&addressdetails=1"
  "status-json|/status?format=json"
  "status-text|/status"
)
for entry in "${requests[@]}"; do
  name="${entry%%|*}"
  path="${entry#*|}"
  body="$(mktemp)"
  meta="$(curl -s -o "$body" -w '%{http_code} %{content_type}' "$base$path")"
  /usr/bin/python3 - "$name" "$path" "$meta" "$body" "$version" >"$out/$name.json" <<'PYEOF'
import json, sys
name, path, meta, body_file, version = sys.argv[1:]
status, _, ctype = meta.partition(' ')
raw = open(body_file, encoding='utf-8').read()
try:
    body = json.loads(raw)
except ValueError:
    body = raw
print(json.dumps({'recordedFrom': f'{version}, nominatim serve (falcon + uvicorn), test/optin/data/champ-de-mars.osm',
                  'request': path, 'status': int(status), 'contentType': ctype, 'body': body},
                 ensure_ascii=False, indent=2))
PYEOF
  rm -f "$body"
  echo "$name: $meta" >&2
done
