#!/usr/bin/python3
"""One reverse geocode with GNOME geocode-glib's Nominatim backend (Debian gir1.2-geocodeglib-2.0, via python3-gi).

Usage: geocodeglib_reverse.py '<json>' with {"base_url", "lat", "lon"}. The backend is created with
geocode_nominatim_new(base_url, maintainer_email), the library's own way to use another Nominatim server.
Prints one JSON line: {"ok": true, "town", "country", "country_code"} or {"ok": false, "domain", "code", "message"}.
"""
import json
import sys

import gi

gi.require_version("GeocodeGlib", "2.0")
from gi.repository import GeocodeGlib, GLib  # noqa: E402


def main():
    args = json.loads(sys.argv[1])
    backend = GeocodeGlib.Nominatim.new(args["base_url"], "e2e@example.com")
    location = GeocodeGlib.Location.new(args["lat"], args["lon"], GeocodeGlib.LOCATION_ACCURACY_UNKNOWN)
    reverse = GeocodeGlib.Reverse.new_for_location(location)
    reverse.set_backend(backend)
    try:
        place = reverse.resolve()
        result = {"ok": True, "town": place.get_town(), "country": place.get_country(),
                  "country_code": place.get_country_code(), "name": place.get_name()}
    except GLib.Error as error:  # the library's own error: domain, code, message
        result = {"ok": False, "domain": error.domain, "code": error.code, "message": error.message}
    print(json.dumps(result))


main()
